"""The physical phase: how each node of a job's optimized logical plan runs, decided once,
and the exec nodes the job runs, as Flink's planner turns its physical plan into ExecNodes.

::

    optimized logical plans ──► physical_plan(plans, config, reuse) ──► PhysicalPlan
                                                                          │
                      translation into DataStream transformations ◄───────┤ (reads .of(node))
                      explain's physical and execution plans     ◄───────┘ (prints .roots)

The phase decides, per logical node (``Execution``):

* whether its rows come as Arrow batches (``ChangeBatch`` elements) of a columnar scan: its
  chain fused with the file scan below it, or an Arrow Calc over the batches of a scan that
  several consumers share (``planner.columnar_plan``);
* for a window aggregation, whether it runs as a local and a global phase, and which phase
  runs on Arrow (``runtime/arrow_window.py``, ``runtime/arrow_slicing.py``);
* for a GROUP BY over the window the rows carry, whether it runs on Arrow (``runtime/arrow_attached.py``);
* for a sink, whether it takes its input's Arrow batches.

and lays out the operators that run (``ExecNode``): Flink's exec node names, an ``Exchange``
where rows move by key or to one subtask, a window aggregation's two phases as
``LocalWindowAggregate`` / ``GlobalWindowAggregate``, each operator's changelog mode and
whether it runs on Arrow. The translation and ``explain`` read the same decisions, so explain
prints what runs; neither decides again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from millstream.table.common.options import AGG_PHASE_STRATEGY, COLUMNAR_ENABLED, option_value
from millstream.table.connectors.columnar_reader import ColumnarFormat
from millstream.table.expression import expression as e
from millstream.table.planner.aggregate import Aggregate
from millstream.table.planner.columnar import columnar_plan
from millstream.table.planner.explain_expressions import _named, render
from millstream.table.planner.grouping_sets import Expand, expand_arrow_plan, expand_terms
from millstream.table.planner.joins import split_condition
from millstream.table.planner.match import MatchRecognize, match_exec_terms
from millstream.table.planner.nodes import (
    ChangelogNormalize,
    Filter,
    Limit,
    PlanNode,
    Project,
    Sink,
    Sort,
    SourceScan,
    Values,
)
from millstream.table.planner.over import OverAggregate, Rank
from millstream.table.planner.scan_push_down import scan_digest
from millstream.table.planner.sources import FromDataStream
from millstream.table.planner.temporal_joins import (
    DropUpdateBefore,
    LookupJoin,
    TemporalJoin,
    lookup_join_terms,
    temporal_join_terms,
)
from millstream.table.planner.windows import WatermarkAssigner, WindowAggregate
from millstream.table.runtime.arrow_window import arrow_local_phase, exact_aggregate

if TYPE_CHECKING:
    from millstream.table.planner.columnar import ArrowPlan

__all__ = ["ExecNode", "Execution", "PhysicalPlan", "physical_plan", "two_phase"]


@dataclass(frozen=True)
class Execution:
    """How one logical node runs."""

    arrow: ArrowPlan | None = None  # its rows as Arrow batches (None: as rows)
    two_phase: bool = False  # a window aggregation: a local phase per input subtask, then a global one
    local: Any = None  # ... its local phase on the input's Arrow batches (an ArrowLocalSlices)
    global_on_arrow: bool = False  # ... its global phase fires every key's windows at once on Arrow
    attached_on_arrow: bool = False  # a GROUP BY over the rows' window, on Arrow
    sink_batches: bool = False  # a sink taking its input's Arrow batches


_ROWS = Execution()


@dataclass(frozen=True)
class ExecNode:
    """One operator as Flink's explain prints it: ``terms`` in prefix form (the physical
    plan), ``execution_terms`` infix (the execution plan); ``node``: the logical node it runs
    (None: an Exchange); ``columnar``: it runs on Arrow batches; ``reads``: a columnar scan's
    columns and ROW fields read."""

    name: str
    terms: tuple[str, ...]
    execution_terms: tuple[str, ...]
    node: Any
    inputs: tuple[ExecNode, ...]
    changelog_mode: str = "I"
    columnar: bool = False
    reads: str | None = None


@dataclass(frozen=True)
class PhysicalPlan:
    """The physical phase's result for one job: each logical node's ``Execution`` and the exec
    node trees of the job's plans."""

    roots: tuple[ExecNode, ...]
    executions: dict[int, Execution]  # id(logical node) -> how it runs
    nodes: tuple[Any, ...]  # the logical nodes decided, kept alive so their ids stay theirs

    def of(self, node: Any) -> Execution:
        """How ``node`` runs (a node the phase never saw, such as a scan the translation made
        for a fused chain, runs on rows)."""
        return self.executions.get(id(node), _ROWS)


def physical_plan(plans: list[PlanNode], config: Any, reuse: Any) -> PhysicalPlan:
    """Decide how every node of ``plans`` (one job's, optimized; they may share nodes) runs
    with the options of ``config`` (a TableConfig, None: defaults) and ``reuse`` (the job's
    ``PlanReuse`` with its uses counted, None: no sub-plan reuse), and lay out its exec nodes."""
    columnar = option_value(config, COLUMNAR_ENABLED)
    executions: dict[int, Execution] = {}
    nodes: list[Any] = []

    def decide(node: PlanNode) -> Execution:
        found = executions.get(id(node))
        if found is not None:
            return found
        below = [decide(child) for child in node.plan_inputs()]
        execution = _execution(node, below, config, reuse, columnar)
        executions[id(node)] = execution
        nodes.append(node)
        return execution

    for plan in plans:
        decide(plan)
    physical = PhysicalPlan((), executions, tuple(nodes))
    roots = tuple(_exec_nodes(physical, plan) for plan in plans)
    return dataclasses.replace(physical, roots=roots)


def _execution(node: PlanNode, below: list[Execution], config: Any, reuse: Any, columnar: bool) -> Execution:
    arrow = columnar_plan(node, reuse) if columnar else None
    if isinstance(node, WindowAggregate):
        split = (
            not node.processing_time
            and node.spec is not None
            and node.spec.kind != "SESSION"
            and two_phase(config, node.calls)
        )
        local = arrow_local_phase(node) if split and columnar and below[0].arrow is not None else None
        exact = all(exact_aggregate(f, t) for f, _, t in node.calls)
        return Execution(arrow, split, local, global_on_arrow=columnar and split and exact)
    if isinstance(node, Aggregate) and node.attached is not None:
        exact = all(isinstance(f, str) and exact_aggregate(f, t) for f, _, t in node.calls)
        return Execution(arrow, attached_on_arrow=columnar and exact)
    if isinstance(node, Expand):  # the scan's batches expanded on Arrow
        return Execution(expand_arrow_plan(node, below[0].arrow, reuse)) if columnar else _ROWS
    if isinstance(node, Sink):
        takes = getattr(node.table_sink, "takes_batches", False)
        return Execution(arrow, sink_batches=takes and below[0].arrow is not None)
    return Execution(arrow) if arrow is not None else _ROWS


def two_phase(config: Any, calls: Any) -> bool:
    """Whether a window aggregation may run in two phases: ``table.optimizer.agg-phase-strategy``
    AUTO (the default) or TWO_PHASE, and every aggregate a built-in one (their accumulators
    merge; a Python UDAF's ``merge`` is optional)."""
    if option_value(config, AGG_PHASE_STRATEGY) == "ONE_PHASE":
        return False
    return all(isinstance(f, str) for f, _, _ in calls)


# -- the exec nodes ------------------------------------------------------------------------------------


class _Line:
    """An operator being laid out (``_layout``), before it is frozen into an ExecNode."""

    def __init__(self, name: str, terms: list[str], node: Any, children: list[Any]) -> None:
        self.name, self.terms, self.node, self.children = name, terms, node, children


def _exec_nodes(physical: PhysicalPlan, plan: PlanNode) -> ExecNode:
    """``plan``'s operators, laid out twice (prefix and infix expressions: the same shape) and
    frozen into one tree, each marked with its changelog mode and whether it runs on Arrow."""
    return _freeze(physical, _layout(physical, plan, False), _layout(physical, plan, True), None)


def _freeze(physical: PhysicalPlan, prefix: _Line, infix: _Line, chain: str | None) -> ExecNode:
    """An operator and the ones below it; ``chain``: the columns the columnar scan reads that
    this operator belongs to (None: it is not inside a fused chain)."""
    node, name = infix.node, infix.name
    columnar, reads = chain is not None, None
    below = chain
    if node is not None and chain is None:
        how = physical.of(node)
        arrow = how.arrow if name != "LocalWindowAggregate" else None
        if arrow is not None and arrow.scan is not None:  # the top of a fused chain
            columnar, below = True, _read_list(arrow.scan)
        elif arrow is not None:  # its Calc on the batches of a scan shared with other consumers
            columnar = True
        elif name == "Sink":
            columnar = how.sink_batches
        elif name == "LocalWindowAggregate":
            columnar = how.local is not None
        elif name == "GlobalWindowAggregate":
            columnar = how.global_on_arrow
        elif name == "WindowAggregate":  # its node may be the Calc of its select list
            grouped = node if isinstance(node, Aggregate) else getattr(node, "input", None)
            columnar = physical.of(grouped).attached_on_arrow
    if below is not None and not infix.children:  # the scan at the bottom of a fused chain
        reads = below or None
    children = tuple(
        _freeze(physical, p, i, below) for p, i in zip(prefix.children, infix.children, strict=True)
    )
    mode = _changelog_mode(node) if node is not None else (children[0].changelog_mode if children else "I")
    return ExecNode(name, tuple(prefix.terms), tuple(infix.terms), node, children, mode, columnar, reads)


def _read_list(scan: Any) -> str:
    """The columns (and ROW fields) a columnar scan reads, in the table's order; empty when
    that is every column of the scan whole (its ``fields`` say so)."""
    fmt = ColumnarFormat(scan.source, scan.steps, scan.names, scan.types, 0)
    fmt.fields = scan.fields
    needed = ColumnarFormat.needed(fmt)
    if set(needed) == set(scan.source.names) and all(f is None for f in needed.values()):
        return ""
    return ", ".join(
        name if needed[name] is None else ", ".join(f"{name}.{f}" for f in sorted(needed[name] or ()))
        for name in scan.source.names
        if name in needed
    )


def _changelog_mode(node: Any) -> str:
    """The changes ``node`` emits: an aggregation of an insert-only input never deletes a group."""
    if node is None or not node.updating:
        return "I"
    probe = node  # a changelog without its update-befores (a temporal join's versioned side)
    while isinstance(probe, (Project, Filter, WatermarkAssigner)) and probe.input is not None:
        probe = probe.input
    if isinstance(probe, DropUpdateBefore):
        return "I,UA,D"
    below = node
    while isinstance(below, (Project, Filter)) and below.input is not None and below.input.updating:
        below = below.input
    if isinstance(below, Aggregate) and below.input is not None and not below.input.updating:
        return "I,UB,UA"
    return "I,UB,UA,D"


def source_name(node: Any) -> str:
    """A scanned table as Flink names it."""
    path = getattr(node, "path", None) or getattr(node, "table_path", None)
    if path:
        return f"[default_catalog, default_database, {path}]"
    label = getattr(node, "label", "") or f"*anonymous_{type(node).__name__.lower()}*"
    return f"[{', '.join([label, *scan_digest(node)])}]"  # with what was pushed into it, as Flink's


def sink_terms(node: Any) -> list[str]:
    """A sink's table and fields, as Flink prints them."""
    table = node.label or f"default_catalog.default_database.{node.connector}"  # the label: its full name
    return [f"table=[{table}]", f"fields=[{', '.join(node.names)}]"]


def over_aggregate(node: Any) -> list[tuple[Any, str]] | None:
    """A projection that only names an aggregation's keys and calls (``SELECT s, SUM(x) AS
    total ... GROUP BY s``): its items, which Flink prints inside the aggregate node."""
    if not (isinstance(node, Project) and node.expressions is not None and isinstance(node.input, Aggregate)):
        return None
    if isinstance(node.input.input, Expand):  # a Calc leaves out $e, as Flink's
        return None
    keys = {getattr(k, "name", None) for k in node.input.key_expressions or []}
    items = []
    for expression, name in zip(node.expressions, node.names, strict=True):
        inner = expression.operand if type(expression) is e._Alias else expression
        if not (isinstance(inner, e.AggregateCall) or (type(inner) is e._Column and inner.name in keys)):
            return None
        items.append((inner, name))
    return items


def _layout(physical: PhysicalPlan, node: Any, infix: bool) -> _Line:  # noqa: C901 - one case per node kind
    """``node`` as Flink's physical / execution plan node (an Exchange inserted where the
    rows move by key)."""
    names = list(node.names)
    below = node.plan_inputs()
    inputs = [list(c.names) for c in below]

    def ref(name: str) -> str:
        return name

    kind = type(node).__name__
    merged = over_aggregate(node)
    if merged is not None:  # the aggregate prints the select list
        aggregate = _layout(physical, node.input, infix)
        select = ", ".join(_named(x, n, ref, infix) for x, n in merged)
        aggregate.terms = [t for t in aggregate.terms if not t.startswith("select=")] + [f"select=[{select}]"]
        aggregate.node = node
        return aggregate
    if isinstance(node, Project) and node.expressions is not None:
        source, condition = node.input, None
        if isinstance(source, Filter) and source.expression is not None:
            condition, source = source.expression, source.input
        items = [_named(x, n, ref, infix) for x, n in zip(node.expressions, names, strict=True)]
        terms = [f"select=[{', '.join(items)}]"]
        if condition is not None:
            terms.append(f"where=[{render(condition, ref, infix)}]")
        return _Line("Calc", terms, node, [_layout(physical, source, infix)])
    if isinstance(node, Filter) and node.expression is not None:
        terms = [f"select=[{', '.join(names)}]", f"where=[{render(node.expression, ref, infix)}]"]
        return _Line("Calc", terms, node, [_layout(physical, node.input, infix)])
    children = [_layout(physical, c, infix) for c in below]
    if isinstance(node, (Project, Filter)):  # computed by functions the plan holds
        return _Line("Calc", [f"select=[{', '.join(names)}]"], node, children)
    if isinstance(node, Aggregate):
        return _aggregate(node, names, children, ref, infix)
    if isinstance(node, Sort):
        exchange = _Line("Exchange", ["distribution=[single]"], None, children)
        name = "SortLimit" if node.fetch is not None else "Sort"
        return _Line(name, [f"select=[{', '.join(names)}]"], node, [exchange])
    if isinstance(node, Limit):
        exchange = _Line("Exchange", ["distribution=[single]"], None, children)
        fetch = node.fetch if node.fetch is not None else "unlimited"
        return _Line("Limit", [f"offset=[{node.offset}]", f"fetch=[{fetch}]"], node, [exchange])
    if isinstance(node, (Values, FromDataStream, SourceScan)):
        terms = [f"table=[{source_name(node)}]", f"fields=[{', '.join(names)}]"]
        return _Line("TableSourceScan", terms, node, [])
    if isinstance(node, Sink):
        return _Line("Sink", sink_terms(node), node, children)
    if isinstance(node, Expand):
        return _Line("Expand", expand_terms(node), node, children)
    if isinstance(node, ChangelogNormalize):
        key = [inputs[0][i] for i in node.key_indexes]
        exchange = _Line("Exchange", [f"distribution=[hash[{', '.join(key)}]]"], None, children)
        return _Line("ChangelogNormalize", [f"key=[{', '.join(key)}]"], node, [exchange])
    if kind in ("Join", "IntervalJoin", "WindowJoin"):
        return _join(node, kind, children, ref, infix)
    if isinstance(node, TemporalJoin):  # each input by its equi-keys
        terms, distributions = temporal_join_terms(node, infix)
        exchanges = [
            _Line("Exchange", [f"distribution=[{d}]"], None, [child])
            for d, child in zip(distributions, children, strict=True)
        ]
        return _Line(kind, terms, node, exchanges)
    if isinstance(node, LookupJoin):  # in its input's chain
        return _Line(kind, lookup_join_terms(node, infix), node, children)
    if isinstance(node, DropUpdateBefore):
        return _Line(kind, [], node, children)
    if (
        isinstance(node, WindowAggregate)
        and node.key_expressions is not None
        and node.argument_expressions is not None
    ):
        return _window_aggregate(node, children, ref, infix, physical.of(node).two_phase)
    if isinstance(node, OverAggregate):
        return _over(node, names, children, ref, infix)
    if isinstance(node, MatchRecognize):
        terms, distribution = match_exec_terms(node)
        exchange = _Line("Exchange", [f"distribution=[{distribution}]"], None, children)
        return _Line("Match", terms, node, [exchange])
    if isinstance(node, Rank) and node.time_order and node.partition_names:
        return _deduplicate(node, children)
    if kind in ("Rank", "WindowRank", "WindowAggregate", "TableAggregate"):
        exchange = _Line("Exchange", ["distribution=[hash]"], None, children)
        return _Line(kind, [f"select=[{', '.join(names)}]"], node, [exchange])
    if kind == "Union":  # as Flink prints UNION ALL
        return _Line(kind, ["all=[true]", f"union=[{', '.join(names)}]"], node, children)
    if kind == "WatermarkAssigner":  # its expression as Flink prints it: -(ts, 4000:INTERVAL SECOND)
        text = (
            node.watermark_sql
            if node.watermark_expression is None
            else render(node.watermark_expression, ref, infix)
        )
        watermark = f"watermark=[{text}]" if text else "watermark=[]"
        return _Line(kind, [f"rowtime=[{names[node.rowtime]}]", watermark], node, children)
    return _Line(kind, [f"select=[{', '.join(names)}]"], node, children)


def _deduplicate(node: Rank, children: list[_Line]) -> _Line:
    """A streaming deduplication as Flink's: ``Deduplicate(keep=[FirstRow], key=[k],
    order=[ROWTIME], outputInsertOnly=[true])`` over an Exchange by its key (a first row is
    emitted once: insert-only; a last row updates the kept one)."""
    key = ", ".join(node.partition_names)
    last = node.keeps_last_row
    terms = [
        f"keep=[{'LastRow' if last else 'FirstRow'}]",
        f"key=[{key}]",
        f"order=[{node.time_order}]",
        f"outputInsertOnly=[{'false' if last else 'true'}]",
    ]
    return _Line(
        "Deduplicate", terms, node, [_Line("Exchange", [f"distribution=[hash[{key}]]"], None, children)]
    )


def _aggregate(
    node: Aggregate, names: list[str], children: list[_Line], ref: Callable[[str], str], infix: bool
) -> _Line:
    """A group aggregation: an Exchange by its keys, then the aggregate (per window the rows
    carry: emitted when it ends)."""
    keys = node.key_expressions or []
    key_names = names[: len(keys)]
    arguments: list[Any] = list(node.argument_expressions or [])
    arguments += [None] * (len(node.calls) - len(arguments))
    calls = [
        f"{fn if isinstance(fn, str) else type(fn).__name__}"
        f"({render(a, ref, infix) if a is not None else ''}) AS {n}"
        for (fn, _, _), a, n in zip(node.calls, arguments, names[len(keys) :], strict=True)
    ]
    select = ", ".join(key_names + calls)
    name = "HashAggregate" if node.batch else "GroupAggregate"
    terms = ([f"groupBy=[{', '.join(key_names)}]"] if keys else []) + [f"select=[{select}]"]
    if node.attached is not None:
        start, end = (key_names[i] for i in node.attached)
        name = "WindowAggregate"
        terms.insert(-1, f"window=[win_start=[{start}], win_end=[{end}]]")
    distribution = f"hash[{', '.join(key_names)}]" if keys else "single"
    return _Line(name, terms, node, [_Line("Exchange", [f"distribution=[{distribution}]"], None, children)])


def _over(
    node: OverAggregate, names: list[str], children: list[_Line], ref: Callable[[str], str], infix: bool
) -> _Line:
    """An over aggregation as Flink prints it: an Exchange by the partition keys, then its
    partition, order, frame and the input's columns with each aggregate appended."""
    keys = [render(k, ref, infix) for k in node.partition_expressions]
    time = node.input.names[node.time_column] if node.input is not None else ""
    order = [f"{render(e, ref, infix)} {'DESC' if d else 'ASC'}" for e, d in node.order_expressions]
    frame = "ROWS" if node.rows else "RANGE"
    preceding = "UNBOUNDED" if node.preceding is None else str(node.preceding)
    following = "CURRENT ROW" if node.following == 0 else f"{node.following or 'UNBOUNDED'} FOLLOWING"
    slots = names[len(names) - len(node.call_expressions) :]
    calls = [
        f"{render(c, ref, infix)} AS {slot}" for c, slot in zip(node.call_expressions, slots, strict=True)
    ]
    terms = [f"partitionBy=[{', '.join(keys)}]"] if keys else []
    terms += [
        f"orderBy=[{', '.join(order) if node.batch else f'{time} ASC'}]",
        f"window=[ {frame} BETWEEN {preceding} PRECEDING AND {following}]",
        f"select=[{', '.join(names[: len(names) - len(slots)] + calls)}]",
    ]
    distribution = f"hash[{', '.join(keys)}]" if keys else "single"
    return _Line(
        "OverAggregate", terms, node, [_Line("Exchange", [f"distribution=[{distribution}]"], None, children)]
    )


_JOIN_TYPES = {
    "INNER": "InnerJoin",
    "LEFT": "LeftOuterJoin",
    "RIGHT": "RightOuterJoin",
    "FULL": "FullOuterJoin",
    "SEMI": "LeftSemiJoin",
    "ANTI": "LeftAntiJoin",
}


def _join(node: Any, kind: str, children: list[_Line], ref: Callable[[str], str], infix: bool) -> _Line:
    """A join as Flink prints it: its type, its condition (a window join's without the window
    bounds), each input's Exchange by its equi-keys (none: a single subtask)."""
    condition = node.where if kind in ("WindowJoin", "IntervalJoin") else node.condition
    sides: tuple[list[Any], list[Any]] = ([], [])
    if condition is not None:
        left_keys, right_keys, _ = split_condition(condition, list(node.left.names), list(node.right.names))
        sides = (left_keys, right_keys)
    keyed = [[render(k, ref, infix) for k in keys] for keys in sides]
    null_safe = getattr(node, "null_safe", False)  # INTERSECT / EXCEPT: every column, NULL meets NULL
    if null_safe:
        keyed = [list(node.left.names), list(node.right.names)]
    exchanges = []
    for keys, child in zip(keyed, children, strict=True):
        distribution = f"hash[{', '.join(keys)}]" if keys else "single"
        exchanges.append(_Line("Exchange", [f"distribution=[{distribution}]"], None, [child]))
    terms = [f"joinType=[{_JOIN_TYPES.get(node.join_type, node.join_type)}]"]
    if kind == "IntervalJoin":  # Flink's: the left time within [right time + lower, + upper]
        lower, upper = node.bounds
        left_time, right_time = node.times
        terms.append(
            f"windowBounds=[isRowTime=true, leftLowerBound={lower}, leftUpperBound={upper}, "
            f"leftTimeIndex={left_time}, rightTimeIndex={right_time}]"
        )
    if condition is not None:
        terms.append(f"where=[{render(condition, ref, infix)}]")
    elif null_safe:
        pairs = [f"IS NOT DISTINCT FROM({a}, {b})" for a, b in zip(*(_unique_names(node)), strict=True)]
        terms.append(f"where=[{' AND '.join(pairs) if len(pairs) < 2 else 'AND(' + ', '.join(pairs) + ')'}]")
    terms.append(f"select=[{', '.join(node.names)}]")
    return _Line(kind, terms, node, exchanges)


def _unique_names(node: Any) -> tuple[list[str], list[str]]:
    """A join's left and right column names, the right's renamed as Flink's ``x0`` where the
    left has the name."""
    left = list(node.left.names)
    right = [n if n not in left else f"{n}0" for n in node.right.names]
    return left, right


def _window_aggregate(
    node: Any, children: list[_Line], ref: Callable[[str], str], infix: bool, two_phase: bool
) -> _Line:
    """A window aggregation as Flink prints it: in two phases a LocalWindowAggregate per input
    subtask, folding rows into slices, an Exchange by key and a GlobalWindowAggregate merging
    the slices; else one WindowAggregate."""
    spec, time_name = node.spec, node.input.names[node.time_column]
    keys = [render(k, ref, infix) for k in node.key_expressions]
    key_names = list(node.names[: len(keys)])
    slots = list(node.names[len(keys) : len(keys) + len(node.calls)])
    calls = [
        (f if isinstance(f, str) else type(f).__name__, a)
        for (f, _, _), a in zip(node.calls, node.argument_expressions, strict=True)
    ]
    arguments = ["*" if f == "COUNT" and type(a) is e._Literal else render(a, ref, infix) for f, a in calls]
    functions = [f for f, _ in calls]
    bounds = ["start('w$) AS window_start", "end('w$) AS window_end", "rowtime('w$) AS window_time"]
    group = [f"groupBy=[{', '.join(keys)}]"] if keys else []
    exchange_terms = [f"distribution=[hash[{', '.join(key_names)}]]" if keys else "distribution=[single]"]
    by_time = f"window=[{_window(spec, f'time_col=[{time_name}]')}]"

    def select(items: list[str]) -> str:
        return f"select=[{', '.join(items)}]"

    def applied(inputs: list[str], outputs: list[str]) -> list[str]:
        return [f"{f}({a}) AS {o}" for f, a, o in zip(functions, inputs, outputs, strict=True)]

    if not two_phase:
        terms = [*group, by_time, select(key_names + applied(arguments, slots) + bounds)]
        return _Line("WindowAggregate", terms, node, [_Line("Exchange", exchange_terms, None, children)])
    partials = [f"{f.lower()}{i}$0" for i, f in enumerate(functions)]
    local_terms = [
        *group,
        by_time,
        select(keys + applied(arguments, partials) + ["slice_end('w$) AS $slice_end"]),
    ]
    local = _Line("LocalWindowAggregate", local_terms, node, children)
    by_slice = f"window=[{_window(spec, 'slice_end=[$slice_end]')}]"
    global_terms = [*group, by_slice, select(key_names + applied(partials, slots) + bounds)]
    return _Line(
        "GlobalWindowAggregate", global_terms, node, [_Line("Exchange", exchange_terms, None, [local])]
    )


def _window(spec: Any, time: str) -> str:
    """A window spec as Flink prints it (sizes in seconds or milliseconds)."""

    def size(ms: int) -> str:
        return f"{ms // 1000} s" if ms % 1000 == 0 else f"{ms} ms"

    if spec.kind == "TUMBLE":
        return f"TUMBLE({time}, size=[{size(spec.size)}])"
    if spec.kind == "HOP":
        return f"HOP({time}, size=[{size(spec.size)}], slide=[{size(spec.slide)}])"
    if spec.kind == "CUMULATE":
        return f"CUMULATE({time}, max_size=[{size(spec.size)}], step=[{size(spec.slide)}])"
    return f"SESSION({time}, gap=[{size(spec.size)}])"
