"""``Table.explain`` / ``explain_sql`` / ``EXPLAIN ...``: the plan in the three sections Flink
prints.

* ``== Abstract Syntax Tree ==``: the logical plan as the query was written (Calcite's
  ``LogicalProject`` / ``LogicalFilter`` / ``LogicalAggregate`` ... with ``$i`` input
  references and prefix calls, ``>($0, 1)``);
* ``== Optimized Physical Plan ==``: the operators millstream runs, with Flink's names (a
  filter and a projection are one ``Calc``; an ``Exchange`` where rows are repartitioned by
  key or gathered), expressions by column name in prefix form; ``CHANGELOG_MODE`` adds each
  node's ``changelogMode=[I,UB,UA,D]``;
* ``== Optimized Execution Plan ==``: the same operators with infix expressions
  (``(x > 1)``), as Flink's ExecNode plan.

The shape and names follow Flink's; the text is millstream's plan, so it is not Calcite's
output character for character (Flink's optimizer rewrites expressions millstream keeps).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.table.explain_expressions import _named, render

__all__ = ["explain_plan", "explain_text"]


class _Line:
    def __init__(self, name: str, terms: list[str], node: Any, children: list[Any]) -> None:
        self.name, self.terms, self.node, self.children = name, terms, node, children
        self.reuse_id: int | None = None  # computed once, used again (sub-plan reuse)


def _children(node: Any) -> list[Any]:
    return [
        c
        for c in (getattr(node, "left", None), getattr(node, "right", None), getattr(node, "input", None))
        if c is not None
    ]


def _source_name(node: Any) -> str:
    path = getattr(node, "path", None) or getattr(node, "table_path", None)
    if path:
        return f"[default_catalog, default_database, {path}]"
    label = getattr(node, "label", "")
    return f"[{label or f'*anonymous_{type(node).__name__.lower()}*'}]"


def _sink_terms(node: Any) -> list[str]:
    table = node.label or node.connector
    return [f"table=[default_catalog.default_database.{table}]", f"fields=[{', '.join(node.names)}]"]


def _over_aggregate(node: Any) -> list[tuple[Any, str]] | None:
    """A projection that only names an aggregation's keys and calls (``SELECT s, SUM(x) AS
    total ... GROUP BY s``): its items, which Flink prints inside the aggregate node."""
    from millstream.table import expression as e
    from millstream.table import planner as p
    from millstream.table.group_agg import Aggregate

    if not (
        isinstance(node, p.Project) and node.expressions is not None and isinstance(node.input, Aggregate)
    ):
        return None
    keys = {getattr(k, "name", None) for k in node.input.key_expressions or []}
    items = []
    for expression, name in zip(node.expressions, node.names, strict=True):
        inner = expression.operand if type(expression) is e._Alias else expression
        if not (isinstance(inner, e.AggregateCall) or (type(inner) is e._Column and inner.name in keys)):
            return None
        items.append((inner, name))
    return items


def _physical(node: Any, infix: bool, config: Any = None) -> _Line:  # noqa: C901 - one case per node kind
    """``node`` as Flink's physical / execution plan node (an Exchange inserted where the
    rows move by key); ``config``: the TableConfig the plan runs with (None: defaults), which
    decides, as for the translation, whether a window aggregation runs in two phases."""
    from millstream.table import planner as p
    from millstream.table.group_agg import Aggregate
    from millstream.table.plan_sources import FromDataStream

    names = list(node.names)
    below = _children(node)
    inputs = [list(c.names) for c in below]

    def by_name(i: int) -> Callable[[str], str]:
        return lambda n: n

    ref = by_name(0)
    kind = type(node).__name__
    merged = _over_aggregate(node)
    if merged is not None:  # the aggregate prints the select list
        aggregate = _physical(node.input, infix, config)
        select = ", ".join(_named(x, n, ref, infix) for x, n in merged)
        aggregate.terms = [t for t in aggregate.terms if not t.startswith("select=")] + [f"select=[{select}]"]
        aggregate.node = node
        return aggregate
    if isinstance(node, p.Project) and node.expressions is not None:
        source, condition = node.input, None
        if isinstance(source, p.Filter) and source.expression is not None:
            condition, source = source.expression, source.input
        items = [_named(x, n, ref, infix) for x, n in zip(node.expressions, names, strict=True)]
        terms = [f"select=[{', '.join(items)}]"]
        if condition is not None:
            terms.append(f"where=[{render(condition, ref, infix)}]")
        return _Line("Calc", terms, node, [_physical(source, infix, config)])
    if isinstance(node, p.Filter) and node.expression is not None:
        terms = [f"select=[{', '.join(names)}]", f"where=[{render(node.expression, ref, infix)}]"]
        return _Line("Calc", terms, node, [_physical(node.input, infix, config)])
    children = [_physical(c, infix, config) for c in below]
    if isinstance(node, (p.Project, p.Filter)):  # computed by functions the plan holds
        return _Line("Calc", [f"select=[{', '.join(names)}]"], node, children)
    if isinstance(node, Aggregate):
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
        if node.attached is not None:  # per window the rows carry, emitted when it ends
            start, end = (key_names[i] for i in node.attached)
            name = "WindowAggregate"
            terms.insert(-1, f"window=[win_start=[{start}], win_end=[{end}]]")
        distribution = f"hash[{', '.join(key_names)}]" if keys else "single"
        return _Line(
            name, terms, node, [_Line("Exchange", [f"distribution=[{distribution}]"], None, children)]
        )
    if isinstance(node, p.Sort):
        exchange = _Line("Exchange", ["distribution=[single]"], None, children)
        return _Line(
            "SortLimit" if node.fetch is not None else "Sort",
            [f"select=[{', '.join(names)}]"],
            node,
            [exchange],
        )
    if isinstance(node, p.Limit):
        exchange = _Line("Exchange", ["distribution=[single]"], None, children)
        terms = [
            f"offset=[{node.offset}]",
            f"fetch=[{node.fetch if node.fetch is not None else 'unlimited'}]",
        ]
        return _Line("Limit", terms, node, [exchange])
    if isinstance(node, (p.Values, FromDataStream, p.SourceScan)):
        return _Line(
            "TableSourceScan", [f"table=[{_source_name(node)}]", f"fields=[{', '.join(names)}]"], node, []
        )
    if isinstance(node, p.Sink):
        return _Line("Sink", _sink_terms(node), node, children)
    if isinstance(node, p.ChangelogNormalize):
        key = [inputs[0][i] for i in node.key_indexes]
        exchange = _Line("Exchange", [f"distribution=[hash[{', '.join(key)}]]"], None, children)
        return _Line("ChangelogNormalize", [f"key=[{', '.join(key)}]"], node, [exchange])
    if kind in ("Join", "IntervalJoin", "WindowJoin"):
        return _join(node, kind, children, ref, infix)
    if (
        kind == "WindowAggregate"
        and node.key_expressions is not None
        and node.argument_expressions is not None
    ):
        split = node.in_two_phases(config)
        return _window_aggregate(node, children, ref, infix, split)
    if kind in ("OverAggregate", "Rank", "WindowRank", "WindowAggregate", "TableAggregate"):
        exchange = _Line("Exchange", ["distribution=[hash]"], None, children)
        return _Line(kind, [f"select=[{', '.join(names)}]"], node, [exchange])
    if kind == "WatermarkAssigner":
        watermark = f"watermark=[{node.watermark_sql}]" if node.watermark_sql else "watermark=[]"
        return _Line(kind, [f"rowtime=[{names[node.rowtime]}]", watermark], node, children)
    return _Line(kind, [f"select=[{', '.join(names)}]"], node, children)


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
    from millstream.table.join import split_condition

    condition = node.where if kind in ("WindowJoin", "IntervalJoin") else node.condition
    sides: tuple[list[Any], list[Any]] = ([], [])
    if condition is not None:
        left_keys, right_keys, _ = split_condition(condition, list(node.left.names), list(node.right.names))
        sides = (left_keys, right_keys)
    exchanges = []
    for keys, child in zip(sides, children, strict=True):
        distribution = f"hash[{', '.join(render(k, ref, infix) for k in keys)}]" if keys else "single"
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
    terms.append(f"select=[{', '.join(node.names)}]")
    return _Line(kind, terms, node, exchanges)


def _window_aggregate(
    node: Any, children: list[_Line], ref: Callable[[str], str], infix: bool, two_phase: bool
) -> _Line:
    """A window aggregation as Flink prints it: in two phases a LocalWindowAggregate per input
    subtask, folding rows into slices, an Exchange by key and a GlobalWindowAggregate merging
    the slices; else one WindowAggregate."""
    from millstream.table import expression as e

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


def _logical_aggregate(
    node: Any, names: list[str], ref: Callable[[str], str], children: list[_Line]
) -> _Line:
    """Calcite's aggregate: a LogicalProject of the group keys then the calls' arguments
    below it, the group ``{0, 1 ...}`` and each call over ``$i`` of that projection."""
    from millstream.table import expression as e
    from millstream.table.expression_calls import _Tuple

    keys = node.key_expressions or []
    items: list[tuple[str, str]] = []  # (name, rendered expression) of the projection

    def position(expression: Any) -> int:
        text = render(expression, ref, False)
        for i, (_, seen) in enumerate(items):
            if seen == text:
                return i
        name = expression.name if type(expression) is e._Column else f"$f{len(items)}"
        items.append((name, text))
        return len(items) - 1

    group = [position(k) for k in keys]
    calls = []
    for (fn, _, _), argument, name in zip(
        node.calls, node.argument_expressions or [None] * len(node.calls), names[len(keys) :], strict=True
    ):
        label = fn if isinstance(fn, str) else type(fn).__name__
        if argument is None or (type(argument) is e._Literal and label == "COUNT"):
            calls.append((name, f"{label}()"))
        elif type(argument) is _Tuple:
            calls.append((name, f"{label}({', '.join(f'${position(a)}' for a in argument.items)})"))
        else:
            calls.append((name, f"{label}(${position(argument)})"))
    project = _Line("LogicalProject", [f"{n}=[{t}]" for n, t in items], None, children)
    terms = [f"group=[{{{', '.join(map(str, group))}}}]", *[f"{n}=[{c}]" for n, c in calls]]
    return _Line("LogicalAggregate", terms, node, [project])


def _input_ref(node: Any) -> Callable[[str], str]:
    """``$i`` of a column of ``node``'s input."""
    below = _children(node)
    inputs = list(below[0].names) if below else []
    return lambda name: f"${inputs.index(name)}" if name in inputs else name


def _logical(node: Any) -> _Line:
    """``node`` as Calcite's logical node, with ``$i`` references to its input's columns."""
    from millstream.table import planner as p
    from millstream.table.group_agg import Aggregate
    from millstream.table.plan_sources import FromDataStream

    below = _children(node)
    inputs = list(below[0].names) if below else []

    def ref(name: str) -> str:
        return f"${inputs.index(name)}" if name in inputs else name

    merged = _over_aggregate(node)
    if merged is not None:  # Calcite's aggregate names its calls as the select list does
        line = _logical(node.input)
        renamed = iter(n for x, n in merged if type(x).__name__ != "_Column")
        line.terms = line.terms[:1] + [
            f"{next(renamed, t.split('=', 1)[0])}={t.split('=', 1)[1]}" for t in line.terms[1:]
        ]
        return line
    children = [_logical(c) for c in below]
    names = list(node.names)
    if isinstance(node, p.Project) and node.expressions is not None:
        terms = [f"{n}=[{render(x, ref, False)}]" for x, n in zip(node.expressions, names, strict=True)]
        return _Line("LogicalProject", terms, node, children)
    if isinstance(node, p.Filter) and node.expression is not None:
        return _Line("LogicalFilter", [f"condition=[{render(node.expression, ref, False)}]"], node, children)
    if isinstance(node, Aggregate):
        return _logical_aggregate(node, names, ref, children)
    if isinstance(node, (p.Values, FromDataStream, p.SourceScan)):
        return _Line("LogicalTableScan", [f"table=[{_source_name(node)}]"], node, [])
    if isinstance(node, p.Sort):
        return _Line(
            "LogicalSort", [f"fetch=[{node.fetch}]"] if node.fetch is not None else [], node, children
        )
    if isinstance(node, p.Sink):
        return _Line("LogicalSink", _sink_terms(node), node, children)
    kind = type(node).__name__
    if kind == "WatermarkAssigner":
        watermark = f"watermark=[{node.watermark_sql}]" if node.watermark_sql else "watermark=[]"
        return _Line(
            "LogicalWatermarkAssigner", [f"rowtime=[{names[node.rowtime]}]", watermark], node, children
        )
    return _Line(f"Logical{kind}", [f"fields=[{', '.join(names)}]"], node, children)


def _changelog_mode(node: Any) -> str:
    """The changes ``node`` emits: an aggregation of an insert-only input never deletes a group."""
    from millstream.table import planner as p
    from millstream.table.group_agg import Aggregate

    if node is None or not node.updating:
        return "I"
    below = node
    while isinstance(below, (p.Project, p.Filter)) and below.input is not None and below.input.updating:
        below = below.input
    if isinstance(below, Aggregate) and below.input is not None and not below.input.updating:
        return "I,UB,UA"
    return "I,UB,UA,D"


def _tree(root: _Line, changelog: bool) -> str:
    lines: list[str] = []

    def walk(line: _Line, prefix: str, child_prefix: str, below_mode: str) -> None:
        terms = list(line.terms)
        mode = _changelog_mode(line.node) if line.node is not None else below_mode
        if changelog:
            terms.append(f"changelogMode=[{mode}]")
        reused = f"(reuse_id=[{line.reuse_id}])" if line.reuse_id is not None else ""
        lines.append(f"{prefix}{line.name}({', '.join(terms)}){reused}")
        for i, child in enumerate(line.children):
            last = i == len(line.children) - 1
            child_mode = _changelog_mode(child.node) if child.node is not None else mode
            walk(
                child,
                child_prefix + ("+- " if last else ":- "),
                child_prefix + ("   " if last else ":  "),
                child_mode,
            )

    walk(root, "", "", _changelog_mode(root.node))
    return "\n".join(lines)


def _exchange_modes(line: _Line) -> None:
    """An Exchange passes on its input's changelog mode."""
    for child in line.children:
        _exchange_modes(child)
    if line.node is None and line.children:
        line.node = line.children[0].node


def explain_text(
    plan: Any, changelog_mode: bool = False, columnar: bool = True, reuse: Any = None, config: Any = None
) -> str:
    """The three sections of Flink's explain output for ``plan``; in the execution plan, the
    operators a columnar scan runs on Arrow batches (``columnar_scan.py``; ``columnar``:
    ``table.exec.columnar.enabled``) say ``columnar=[arrow]``, and its source the columns
    (and ROW fields) it reads. ``reuse``: the ``PlanReuse`` of sub-plan reuse (None: off); a
    part computed once for two consumers is printed once, marked ``(reuse_id=[n])``, and as
    ``Reused(reference_id=[n])`` where it is used again, as Flink prints it. ``config``: the
    TableConfig (None: defaults); window aggregations run in two phases as it says, their
    local phase on the scan's Arrow batches where ``arrow_window.py`` takes it
    (``columnar=[arrow]``)."""
    physical = _physical(plan, infix=False, config=config)
    _exchange_modes(physical)
    execution = _physical(plan, infix=True, config=config)
    _exchange_modes(execution)
    if reuse is not None:
        reuse.count_uses([plan])
    if columnar:
        _mark_columnar(execution, reuse, config)
    if reuse is not None:
        _mark_reuse(execution, reuse, {}, [0])
    return (
        f"== Abstract Syntax Tree ==\n{_tree(_logical(plan), False)}\n\n"
        f"== Optimized Physical Plan ==\n{_tree(physical, changelog_mode)}\n\n"
        f"== Optimized Execution Plan ==\n{_tree(execution, False)}\n"
    )


def _mark_columnar(line: _Line, reuse: Any, config: Any, inside: bool = False) -> None:
    """Mark the execution plan's lines whose operators a columnar scan fuses, a sink that
    takes its Arrow batches, and a window aggregation's local phase on them."""
    from millstream.table.arrow_window import arrow_local_phase
    from millstream.table.columnar_scan import _ColumnarFormat, fuse
    from millstream.table.planner import _fields_read, _shared_below, columnar_plan

    if not inside:
        shared = line.node is not None and _shared_below(line.node, reuse) is not None
        if shared and line.name != "LocalWindowAggregate" and columnar_plan(line.node, reuse) is not None:
            line.terms.append("columnar=[arrow]")  # its Calc on the shared scan's batches
            for child in line.children:
                _mark_columnar(child, reuse, config)
            return
        scan = fuse(line.node)
        if scan is not None and line.name != "LocalWindowAggregate":
            if reuse is not None and reuse.shared(line.node):  # one scan for its consumers
                scan.fields = _fields_read(line.node, reuse)
            fmt = _ColumnarFormat(scan.source, scan.steps, scan.names, scan.types, 0)
            fmt.fields = scan.fields
            needed = _ColumnarFormat.needed(fmt)
            read = [  # in the table's order
                name if needed[name] is None else ", ".join(f"{name}.{f}" for f in sorted(needed[name] or ()))
                for name in scan.source.names
                if name in needed
            ]
            _mark_chain(line, f"columnar=[arrow], read=[{', '.join(read)}]")
            return
        node = line.node
        takes_batches = getattr(getattr(node, "table_sink", None), "takes_batches", False)
        if takes_batches and fuse(node.input) is not None:
            line.terms.append("columnar=[arrow]")  # the sink takes the scan's Arrow batches
        if (
            line.name == "LocalWindowAggregate"
            and arrow_local_phase(node) is not None
            and columnar_plan(node.input, reuse) is not None
        ):
            line.terms.append("columnar=[arrow]")  # it folds the scan's Arrow batches
        if line.name == "GlobalWindowAggregate" and node.global_on_arrow(config):
            line.terms.append("columnar=[arrow]")  # every key's windows at once (arrow_slicing.py)
        # the aggregation (its line's node may be the Calc of its select list)
        grouped: Any = node if hasattr(node, "attached_on_arrow") else getattr(node, "input", None)
        if (
            line.name == "WindowAggregate"
            and hasattr(grouped, "attached_on_arrow")
            and grouped.attached_on_arrow(config)
        ):
            line.terms.append("columnar=[arrow]")  # every group of a window at once (arrow_attached.py)
    for child in line.children:
        _mark_columnar(child, reuse, config)


def _mark_reuse(line: _Line, reuse: Any, seen: dict[Any, _Line], ids: list[int], owner: Any = None) -> None:
    """Print a sub-plan the translation computes once (``plan_reuse.py``) once: its first line
    ends ``(reuse_id=[n])``, each later use is a ``Reused(reference_id=[n])`` line, as Flink
    prints them (Flink marks the Exchange above when the shuffle is shared too; here each
    consumer repartitions the shared operator's output, so the operator is marked).
    ``owner``: the node of the nearest line above that is not an Exchange."""
    if line.name != "Exchange":
        owner = line.node
    for index, child in enumerate(line.children):
        # a node's topmost line (a two-phase aggregation prints several; an Exchange line
        # carries its input's node but is not shared: each consumer repartitions)
        operator = child.node is not None and child.name != "Exchange" and child.node is not owner
        key = reuse.key(child.node) if operator else None
        first = seen.get(key) if key is not None else None
        if first is None:
            if key is not None:
                seen[key] = child
            _mark_reuse(child, reuse, seen, ids, owner)
            continue
        if first.reuse_id is None:
            ids[0] += 1
            first.reuse_id = ids[0]
        line.children[index] = _Line("Reused", [f"reference_id=[{first.reuse_id}]"], child.node, [])


def _mark_chain(line: _Line, source_terms: str) -> None:
    """A fused chain: every line down to the source scan (the source lists what it reads)."""
    if not line.children:
        line.terms.append(source_terms)
        return
    line.terms.append("columnar=[arrow]")
    for child in line.children:
        _mark_chain(child, source_terms)


def explain_plan(plan: Any, config: Any, changelog_mode: bool) -> str:
    """``plan`` as Flink's explain prints it, as the options in ``config`` (a TableConfig) plan
    it: columnar scans, sub-plan reuse, window aggregations in two phases."""
    from millstream.table.optimizer import optimize
    from millstream.table.plan_reuse import PlanReuse
    from millstream.table.table_options import COLUMNAR_ENABLED, REUSE_SOURCE, REUSE_SUB_PLAN, option_value

    [plan] = optimize([plan])  # what runs
    reuse = PlanReuse(option_value(config, REUSE_SOURCE)) if option_value(config, REUSE_SUB_PLAN) else None
    return explain_text(plan, changelog_mode, option_value(config, COLUMNAR_ENABLED), reuse, config)
