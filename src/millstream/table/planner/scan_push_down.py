"""Filter and projection push-down into table scans: the rewrite phases that hand a source
the conjuncts filtering its rows and the columns its consumers read, as Flink's
``PushFilterIntoTableSourceScanRule`` and ``PushProjectIntoTableSourceScanRule`` do for a
source with ``SupportsFilterPushDown`` / ``SupportsProjectionPushDown``.

::

    Calc(select=[c, a], where=[(d > 1)])
    +- TableSourceScan(table=[[..., t]], fields=[a, b, c, d, e])
                            │
                            ▼
    Calc(select=[c, a], where=[(d > 1)])
    +- TableSourceScan(table=[[..., t, filter=[>(d, 1)], project=[a, c, d], metadata=[]]],
                       fields=[a, c, d])

**Filters.** The conjuncts of a filter right above a source are handed to the source
(``apply_filters``); the filter stays where it is (a filesystem source accepts every filter
and keeps all of them as remaining, as Flink's: a format may use them to skip data, such as
Parquet's row groups, never to decide a row alone). A filter above a watermark assigner is
not pushed: the assigner must see every row.

**Projections.** The columns each node reads of its input are found top-down through the
Calc nodes (projections and filters) and watermark assigners above a source; the source then
reads only the columns its consumers need (``apply_projection``), computed columns' inputs
included, and each of those nodes computes only the columns read above it. The orders are
Flink's: a projection asks for its input's columns in the order its expressions first read
them; a filter, for its input's columns in their order (Calcite's projection past a filter);
a watermark assigner, in the order asked of it, its rowtime appended (Flink's
``ProjectWatermarkAssignerTransposeRule``). A node read by a consumer of another kind (a
join, an aggregation, a sink) keeps every column; a source whose every column is read keeps
its schema, as Flink's.
"""

from __future__ import annotations

import dataclasses
import decimal
from collections.abc import Callable
from typing import Any, Protocol, cast, runtime_checkable

from millstream.table.common.table_source import TableSource
from millstream.table.expression.expression import Expression, _Column, _Literal
from millstream.table.expression.walk import children, conjuncts, replaced
from millstream.table.planner.explain_expressions import render
from millstream.table.planner.nodes import Filter, PlanNode, Project, SourceScan
from millstream.table.planner.reuse import PlanReuse
from millstream.table.planner.windows import WatermarkAssigner, WindowAggregate

__all__ = [
    "PLAN_PHASES",
    "SupportsFilterPushDown",
    "SupportsProjectionPushDown",
    "push_filters_into_scans",
    "push_projections_into_scans",
    "scan_digest",
]

_INPUTS = ("input", "left", "right")


@runtime_checkable
class SupportsFilterPushDown(Protocol):
    """A table source that takes the conjuncts filtering its rows (Flink's ability of that
    name); it keeps them in ``filters`` (explain prints them)."""

    filters: tuple[Any, ...]

    def apply_filters(self, filters: list[Expression]) -> TableSource:
        """This source with ``filters`` pushed (the filter above it stays)."""
        ...


@runtime_checkable
class SupportsProjectionPushDown(Protocol):
    """A table source that reads only some of its columns (Flink's ability of that name); its
    ``table_columns`` are the table's when a projection was pushed (None: none was)."""

    table_columns: Any

    def apply_projection(self, names: list[str]) -> TableSource:
        """This source producing the columns ``names`` (its own, in this order) only."""
        ...


def _scan_of(node: Any, ability: type) -> Any:
    """The table source of ``node`` when it is a scan whose source has ``ability`` (and no
    watermark pushed into it, which reads the source's own columns), else None."""
    if type(node) is not SourceScan or node.watermark is not None:
        return None
    return node.source if isinstance(node.source, ability) else None


def _with_source(scan: SourceScan, source: TableSource) -> SourceScan:
    """``scan`` reading ``source`` (its columns)."""
    return dataclasses.replace(scan, names=list(source.names), types=list(source.types), source=source)


# -- the plan as a graph -------------------------------------------------------------------------


def _inputs(node: PlanNode) -> list[PlanNode]:
    found = [getattr(node, name, None) for name in _INPUTS]
    inputs = getattr(node, "inputs", None)  # a Union's
    if isinstance(inputs, tuple):
        found.extend(inputs)
    return [child for child in found if isinstance(child, PlanNode)]


class _Graph:
    """The sub-plans of a job's plans, one node for each (consumers before the sub-plans they
    read), and each one's consumers. Equal sub-plans are one (``PlanReuse``'s keys): a view or
    table read in two branches of a query is computed once, so its columns are those either
    branch reads."""

    def __init__(self, plans: list[PlanNode]) -> None:
        self.reuse = PlanReuse()
        self.order: list[PlanNode] = []
        self.consumers: dict[Any, list[PlanNode]] = {}
        state: dict[Any, int] = {}  # marker -> 1: being visited, 2: done

        def visit(node: PlanNode) -> None:
            marker = self.marker(node)
            if state.get(marker):
                return
            state[marker] = 1
            for child in _inputs(node):
                self.consumers.setdefault(self.marker(child), []).append(node)
                visit(child)
            state[marker] = 2
            self.order.append(node)

        for plan in plans:
            visit(plan)
        self.order.reverse()

    def marker(self, node: PlanNode) -> Any:
        """The node's sub-plan: its key, or the node itself when it has none."""
        key = self.reuse.key(node)
        return ("node", id(node)) if key is None else key


def _rebuild(plans: list[PlanNode], rewrite: Callable[[PlanNode, PlanNode], PlanNode]) -> list[PlanNode]:
    """``plans`` with every node passed bottom-up to ``rewrite(original, with_new_inputs)``;
    a node met twice is rewritten once (it stays shared)."""
    done: dict[int, PlanNode] = {}

    def go(node: PlanNode) -> PlanNode:
        key = id(node)
        if key in done:
            return done[key]
        done[key] = node  # a node reached again through itself stays as it is
        changed: dict[str, Any] = {}
        for name in _INPUTS:
            child = getattr(node, name, None)
            if isinstance(child, PlanNode):
                new = go(child)
                if new is not child:
                    changed[name] = new
        inputs = getattr(node, "inputs", None)
        if isinstance(inputs, tuple) and inputs:
            new_inputs = tuple(go(child) for child in inputs)
            if any(new is not old for new, old in zip(new_inputs, inputs, strict=True)):
                changed["inputs"] = new_inputs
        current = dataclasses.replace(cast(Any, node), **changed) if changed else node
        done[key] = rewrite(node, current)
        return done[key]

    return [go(plan) for plan in plans]


# -- filters ------------------------------------------------------------------------------------------


def push_filters_into_scans(plans: list[PlanNode]) -> list[PlanNode]:
    """Each filter right above a source that supports it: its conjuncts handed to the source
    (a copy of it for this filter, when other consumers read the source too)."""

    def rewrite(original: PlanNode, node: PlanNode) -> PlanNode:
        source = getattr(node, "input", None)
        if type(node) is not Filter or node.expression is None:
            return node
        table = _scan_of(source, SupportsFilterPushDown)
        if table is None or table.filters:  # none, or pushed already (the phases ran before)
            return node
        pushed = _with_source(cast(SourceScan, source), table.apply_filters(conjuncts(node.expression)))
        return dataclasses.replace(node, input=pushed)

    return _rebuild(plans, rewrite)


# -- projections --------------------------------------------------------------------------------------

_ALL = None  # every column of a node is read, in its order


def _references(expression: Any, out: dict[str, None]) -> None:
    """The columns ``expression`` reads, in the order it first reads them (into ``out``)."""
    if isinstance(expression, _Column):
        out.setdefault(expression.name, None)
        return
    for child in children(expression):
        _references(child, out)


def _calc(node: PlanNode) -> bool:
    """A node a projection is pushed through: a projection or filter with its expressions, a
    watermark assigner with its expression (not one its source generates)."""
    if type(node) is Project:
        return node.expressions is not None and len(set(node.names)) == len(node.names)
    if type(node) is Filter:
        return node.expression is not None
    if type(node) is WatermarkAssigner:
        return not node.pushed_down and node.watermark_expression is not None
    return False


def _aggregates(node: PlanNode) -> bool:
    """A window aggregation whose reads of its input are all expressions (its keys, its calls'
    arguments, its time column): a projection reaches below it, as Flink's aggregate reads a
    projection of its input."""
    return (
        type(node) is WindowAggregate
        and node.key_expressions is not None
        and node.argument_expressions is not None
        and not node.processing_time
    )


def _asks(consumer: PlanNode, read: list[str] | None, node: PlanNode) -> list[str] | None:
    """The columns of ``node`` that ``consumer`` reads (in Flink's order; None: all), given
    the columns of ``consumer`` read above it (``read``)."""
    refs: dict[str, None]
    if type(consumer) is WindowAggregate:  # what it reads whatever is read of it, in order
        refs = {node.names[consumer.time_column]: None}
        for expression in [*(consumer.key_expressions or []), *(consumer.argument_expressions or [])]:
            _references(expression, refs)
        return [name for name in node.names if name in refs]
    if type(consumer) is Project:
        assert consumer.expressions is not None
        kept = dict.fromkeys(consumer.names if read is None else read)
        refs = {}
        for name, expression in zip(consumer.names, consumer.expressions, strict=True):
            if name in kept:
                _references(expression, refs)
        return list(refs)
    if type(consumer) is Filter:  # a projection past a filter: its input's order
        if read is None:
            return _ALL
        refs = dict.fromkeys(read)
        _references(consumer.expression, refs)
        return [name for name in node.names if name in refs]
    # a watermark assigner: the order asked of it, its rowtime and watermark's inputs appended
    if read is None:
        return _ALL
    assert consumer.rowtime is not None
    refs = dict.fromkeys(read)
    refs.setdefault(consumer.names[consumer.rowtime], None)
    _references(cast(Any, consumer).watermark_expression, refs)
    return list(refs)


def _reads(plans: list[PlanNode]) -> tuple[_Graph, dict[Any, list[str] | None]]:
    """The job's sub-plans and, for each sub-plan a projection may be pushed into (a source
    that supports it and the Calc nodes over it), the columns its consumers read (None: all
    of them), by its marker."""
    graph = _Graph(plans)
    pushable: dict[Any, bool] = {}
    for node in reversed(graph.order):  # inputs first
        source = getattr(node, "input", None)
        pushable[graph.marker(node)] = _scan_of(node, SupportsProjectionPushDown) is not None or (
            _calc(node) and source is not None and pushable.get(graph.marker(source), False)
        )
    reads: dict[Any, list[str] | None] = {}
    for node in graph.order:  # consumers first
        marker = graph.marker(node)
        if pushable[marker]:
            reads[marker] = _read_by(graph, node, pushable, reads)
    return graph, reads


def _read_by(
    graph: _Graph, node: PlanNode, pushable: dict[Any, bool], reads: dict[Any, list[str] | None]
) -> list[str] | None:
    """The columns of ``node`` its consumers read (their union in its order; None: all)."""
    asked: list[list[str] | None] = []
    for consumer in graph.consumers.get(graph.marker(node), []):
        marker = graph.marker(consumer)
        if _aggregates(consumer):
            asked.append(_asks(consumer, None, node))
        elif not pushable.get(marker, False) or type(consumer) is SourceScan:
            asked.append(_ALL)
        else:
            asked.append(_asks(consumer, reads.get(marker), node))
    if not asked or any(a is _ALL for a in asked):
        return _ALL
    if len(asked) == 1:
        return asked[0]
    union = {name for a in asked for name in a or ()}  # several consumers: in the node's order
    return [name for name in node.names if name in union]


def push_projections_into_scans(plans: list[PlanNode]) -> list[PlanNode]:
    """``plans`` with each source that supports it reading only the columns its consumers
    need, and the Calc nodes and watermark assigners between computing only those."""
    graph, reads = _reads(plans)

    def rewrite(original: PlanNode, node: PlanNode) -> PlanNode:
        if _aggregates(node) and getattr(node, "input", None) is not getattr(original, "input", None):
            return _aggregated(cast(WindowAggregate, node), cast(WindowAggregate, original))
        marker = graph.marker(original)
        if marker not in reads:
            return node
        read = reads[marker]
        table = _scan_of(node, SupportsProjectionPushDown)
        if table is not None:
            if read is None or set(read) >= set(node.names):  # every column read: as Flink, none pushed
                return node
            return _with_source(cast(SourceScan, node), table.apply_projection(read))
        if type(node) is Project:
            return _projected(node, read)
        if type(node) is Filter:  # its input's columns, whichever they now are
            assert node.input is not None and node.expression is not None
            unchanged = node.input is getattr(original, "input", None)
            return node if unchanged else Filter.over(node.input, node.expression)
        return _watermarked(cast(WatermarkAssigner, node))

    return _rebuild(plans, rewrite)


def _projected(node: Project, read: list[str] | None) -> PlanNode:
    """A projection computing the columns ``read`` (in that order; None: all) over its
    (rewritten) input; its input itself when that is all it does."""
    source = node.input
    assert source is not None and node.expressions is not None
    outputs = dict(zip(node.names, zip(node.expressions, node.types, strict=True), strict=True))
    names = list(node.names) if read is None else list(read)
    expressions = [outputs[n][0] for n in names]
    types = [outputs[n][1] for n in names]
    in_names, in_types = list(source.names), list(source.types)
    attributes = _attributes(node, names)
    identity = (
        names == in_names
        and types == in_types
        and all(
            type(_unaliased(x)) is _Column and _unaliased(x).name == n
            for x, n in zip(expressions, names, strict=True)
        )
        and attributes == (source.rowtime, source.proctime, source.window)
    )
    if identity:
        return source
    functions = [x.resolve(in_names, in_types).fn for x in expressions]
    rowtime, proctime, window = attributes
    return dataclasses.replace(
        node,
        names=names,
        types=types,
        functions=functions,
        expressions=expressions,
        rowtime=rowtime,
        proctime=proctime,
        window=window,
    )


def _aggregated(node: WindowAggregate, original: WindowAggregate) -> PlanNode:
    """A window aggregation over its rewritten input: its time column, keys and calls'
    arguments taken anew from it (its own columns are the same)."""
    source, before = node.input, original.input
    assert source is not None and before is not None and node.key_expressions is not None
    assert node.argument_expressions is not None
    names, types = list(source.names), list(source.types)
    keys = [k.resolve(names, types).fn for k in node.key_expressions]
    calls = [
        (function, argument.resolve(names, types).fn, argument_type)
        for (function, _, argument_type), argument in zip(node.calls, node.argument_expressions, strict=True)
    ]
    time_column = names.index(before.names[node.time_column])
    return dataclasses.replace(node, keys=keys, calls=calls, time_column=time_column)


def _watermarked(node: WatermarkAssigner) -> PlanNode:
    """A watermark assigner over its rewritten input: its columns, rowtime and expression
    taken anew from it."""
    source = node.input
    assert source is not None and node.rowtime is not None and node.watermark_expression is not None
    if list(source.names) == list(node.names):
        return node
    watermark = node.watermark_expression.resolve(list(source.names), list(source.types)).fn
    rowtime, proctime, window = _attributes(node, list(source.names))
    return dataclasses.replace(
        node,
        names=list(source.names),
        types=list(source.types),
        watermark=watermark,
        rowtime=rowtime,
        proctime=proctime,
        window=window,
    )


def _attributes(node: PlanNode, names: list[str]) -> tuple[int | None, int | None, tuple[int, int] | None]:
    """``node``'s rowtime, proctime and window columns as indexes into ``names`` (None where
    the column is not among them)."""

    def index(position: int | None) -> int | None:
        if position is None:
            return None
        name = node.names[position]
        return names.index(name) if name in names else None

    window = None
    if node.window is not None:
        start, end = index(node.window[0]), index(node.window[1])
        window = (start, end) if start is not None and end is not None else None
    return index(node.rowtime), index(node.proctime), window


def _unaliased(expression: Any) -> Any:
    while type(expression).__name__ == "_Alias":
        expression = expression.operand
    return expression


PLAN_PHASES: list[tuple[str, Callable[[list[PlanNode]], list[PlanNode]]]] = [
    ("filter push-down into table scans", push_filters_into_scans),
    ("projection push-down into table scans", push_projections_into_scans),
]


# -- explain ------------------------------------------------------------------------------------------


def scan_digest(node: Any) -> list[str]:
    """What was pushed into a scan, as Flink's digest of it prints: ``filter=[...]`` (the
    conjuncts, ``and(and(a, b), c)``), ``project=[...]`` and ``metadata=[]``."""
    parts = []
    source = getattr(node, "source", None)
    filters = list(getattr(source, "filters", ()) or ())
    if filters:
        rendered = [render(_digest_literals(f), lambda name: name, False) for f in filters]
        text = rendered[0]
        for conjunct in rendered[1:]:
            text = f"and({text}, {conjunct})"
        parts.append(f"filter=[{text}]")
    if getattr(source, "table_columns", None) is not None:
        parts += [f"project=[{', '.join(node.names)}]", "metadata=[]"]
    return parts


class _DigestLiteral(Expression):
    """A literal as Calcite's digest writes it in a pushed filter (explain prints it by repr)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _digest_literals(expression: Any) -> Any:
    """``expression`` with its string and decimal literals written with their types, as a
    pushed filter's digest shows them (``_UTF-16LE'x':VARCHAR(2147483647) CHARACTER SET
    "UTF-16LE"``, ``1.5:DECIMAL(2, 1)``)."""

    def typed(node: Any) -> Any:
        if type(node) is not _Literal:
            return None
        if isinstance(node.value, str):
            quoted = node.value.replace("'", "''")  # Calcite doubles a quote in a digest
            return _DigestLiteral(f"_UTF-16LE'{quoted}':VARCHAR(2147483647) CHARACTER SET \"UTF-16LE\"")
        if isinstance(node.value, decimal.Decimal) and node.data_type.root == "DECIMAL":
            precision, scale = node.data_type.params
            return _DigestLiteral(f"{node.value}:DECIMAL({precision}, {scale})")
        return None

    return replaced(expression, typed, top_down=True)
