"""Resolving select lists (for the Table API and SQL): a projection, and a grouped select
whose aggregate calls become an aggregation's columns, with Flink's names for unnamed
results (``EXPR$0`` ...)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, TypeGuard

from millstream.table.common.printing import summary_string
from millstream.table.common.types import DataType
from millstream.table.common.variant import check_orderable
from millstream.table.expression.expression import (
    AggregateCall,
    Expression,
    WindowProperty,
    _Alias,
    _Column,
    _FieldAccess,
)
from millstream.table.expression.walk import fingerprint, replaced
from millstream.table.expression.watermarks import current_watermarks
from millstream.table.functions.aggregate_calls import accumulator_spec, reduces_averages, result_type
from millstream.table.planner.aggregate import Aggregate
from millstream.table.planner.nodes import ChangelogNormalize, Filter, PlanNode, Project

__all__ = [
    "aggregate",
    "check_time_attributes",
    "expand_flatten",
    "flattened",
    "grouped_expression",
    "project",
    "unique_columns",
]


def flattened(node: PlanNode, expressions: list[Expression]) -> tuple[PlanNode, list[Expression]]:
    """A select list with each ``flatten`` expanded into the fields of its ROW, a column each,
    named as Flink's Table API names them: ``<name>$<field>`` for a named value (a column, an
    alias, a field ``r$inner``), by position (``_c<i>``) for an unnamed one; ``flatten`` of a
    value that is not a ROW is the value itself (Flink's ``FlattenCallRule``). A ROW that is
    computed (a call) is computed once: a projection below ``node``'s columns adds it as a
    column the fields are read from."""
    if not any(_is_flatten(e) for e in expressions):
        return node, expressions
    names = {id(e.operand): _flattened_name(node, e.operand) for e in expressions if _is_flatten(e)}
    computed = [
        e.operand
        for e in expressions
        if _is_flatten(e)
        and not isinstance(e.operand, _Column)
        and e.operand.resolve(node.names, node.types).data_type.root == "ROW"
    ]
    if computed:
        hidden = [e.alias(f"$flatten{i}") for i, e in enumerate(computed)]
        node = project(node, [_Column(n) for n in node.names] + hidden, lambda i: f"_c{i}")
    result: list[Expression] = []
    for e in expressions:
        if not _is_flatten(e):
            result.append(e)
            continue
        operand = e.operand
        position = next((i for i, c in enumerate(computed) if c is operand), -1)  # == builds an expression
        source = operand if position < 0 else _Column(f"$flatten{position}")
        result.extend(_fields(node, source, names[id(operand)], len(result)))
    return node, result


def expand_flatten(node: PlanNode, expressions: list[Expression]) -> list[Expression]:
    """``expressions`` with each ``flatten`` expanded into its ROW's fields as ``flattened``
    names them, each field read from the value itself (a grouped select's keys)."""
    result: list[Expression] = []
    for e in expressions:
        if _is_flatten(e):
            result.extend(_fields(node, e.operand, _flattened_name(node, e.operand), len(result)))
        else:
            result.append(e)
    return result


def _flattened_name(node: PlanNode, operand: Expression) -> str | None:
    """The name the fields of a flattened value are named after: the value's column name."""
    return operand.resolve(node.names, node.types).name


def _fields(node: PlanNode, source: Expression, name: str | None, start: int) -> list[Expression]:
    """The fields of the ROW ``source`` as columns (named ``name$field``, else by their
    position from ``start``); a value that is not a ROW, itself."""
    row_type = source.resolve(node.names, node.types).data_type
    if row_type.root != "ROW":
        return [source]
    fields = row_type.field_names()  # type: ignore[attr-defined]
    return [source.get(f).alias(f"{name}${f}" if name else f"_c{start + i}") for i, f in enumerate(fields)]


def _is_flatten(expression: Expression) -> TypeGuard[_FieldAccess]:
    return isinstance(expression, _FieldAccess) and expression.field == "*"


def project(node: PlanNode, expressions: list[Expression], unnamed: Callable[[int], str]) -> Project:
    """``node``'s rows through ``expressions`` (``unnamed(i)``: the name of unnamed column i).
    A column that is the input's event-time attribute, passed through, stays one."""
    compiled = [e.resolve(node.names, node.types) for e in expressions]
    check_time_attributes(node, expressions)
    names = [c.name if c.name is not None else unnamed(i) for i, c in enumerate(compiled)]
    _check_unique(names)
    rowtime = proctime = None
    if node.rowtime is not None:
        time_name = node.names[node.rowtime]
        for i, e in enumerate(expressions):
            if referenced_column(e) == time_name:
                rowtime = i
                break
    # the processing-time attribute: a PROCTIME() call, else the input's passed through (one per
    # table here; Flink marks every such column)
    calls = [i for i, e in enumerate(expressions) if is_proctime_call(e)]
    if calls:
        proctime = calls[-1]
    elif node.proctime is not None:
        proctime_name = node.names[node.proctime]
        proctime = next((i for i, e in enumerate(expressions) if referenced_column(e) == proctime_name), None)
    window = None
    if node.window is not None:
        positions = [
            next((i for i, e in enumerate(expressions) if referenced_column(e) == node.names[w]), None)
            for w in node.window
        ]
        if None not in positions:
            window = (positions[0], positions[1])
    return Project(
        names,
        [c.data_type for c in compiled],
        node.updating,
        node,
        [c.fn for c in compiled],
        list(expressions),
        rowtime=rowtime,
        proctime=proctime,
        window=window,  # type: ignore[arg-type]
    )


def is_proctime_call(expression: Expression) -> bool:
    """Whether ``expression`` is ``PROCTIME()`` (under any alias): a processing-time attribute."""
    while type(expression).__name__ == "_Alias":
        expression = expression.operand  # type: ignore[attr-defined]
    return type(expression).__name__ == "_Call" and getattr(expression, "name_", None) == "PROCTIME"


def check_time_attributes(node: PlanNode, expressions: list[Expression]) -> None:
    """Refuse a ``CURRENT_WATERMARK`` call over ``node`` whose argument is not its rowtime
    attribute (Flink's ``CurrentWatermarkInputTypeStrategy``).

    Raises:
        ValueError: the argument is another column or a computed value.
    """
    rowtime = node.names[node.rowtime] if node.rowtime is not None else None
    for call in (c for e in expressions for c in current_watermarks(e)):
        if not (isinstance(call.operand, _Column) and call.operand.name == rowtime):
            kind = summary_string(call.operand.resolve(node.names, node.types).data_type)
            raise ValueError(
                f"The argument of CURRENT_WATERMARK() must be a rowtime attribute, but was '{kind}'."
            )


def referenced_column(expression: Expression) -> str | None:
    """The input column an expression passes through unchanged (under any alias), if any."""
    while hasattr(expression, "operand") and type(expression).__name__ == "_Alias":
        expression = expression.operand
    if type(expression).__name__ == "_Column":
        return str(getattr(expression, "name"))  # noqa: B009
    if isinstance(expression, WindowProperty):
        return expression.column_name()
    return None


AggregateSpec = tuple[Any, Callable[[tuple[Any, ...]], Any], DataType]


def aggregate_calls(
    node: PlanNode, selected: list[Expression], grouped: bool = True, ordered: bool = False
) -> tuple[list[AggregateSpec], list[str], list[DataType], list[Expression]]:
    """The aggregate calls in ``selected``, one per distinct call (``SUM(v)`` in the SELECT
    and the HAVING is computed once, as Flink's planner does), each given a slot column
    (``$agg<i>``): their (function, argument, argument type) specs, slot names and result
    types, and ``selected`` with each call bound to its slot (the given calls unchanged).
    ``grouped``: the groups are never empty (GROUP BY keys, windows), ``ordered``: DISTINCT
    calls fold their values in ascending order (BATCH's)."""
    call_specs: list[AggregateSpec] = []
    slot_names: list[str] = []
    slot_types: list[DataType] = []
    bound: dict[Any, AggregateCall] = {}  # fingerprint -> the call bound to its slot
    reduced = reduces_averages(distinct_calls(selected))
    for call in distinct_calls(selected):
        key = fingerprint(call)
        if key in bound:
            continue
        operand = call.operand.resolve(node.names, node.types)
        typed = result_type(call, operand.data_type, grouped)
        spec = accumulator_spec(call, operand.data_type, typed, ordered, reduced)
        call_specs.append((spec, operand.fn, operand.data_type))
        slot = f"$agg{len(slot_names)}"
        slot_names.append(slot)
        slot_types.append(typed)
        bound[key] = call.bound(slot)

    def bind(expression: Any) -> Any:
        return bound[fingerprint(expression)] if isinstance(expression, AggregateCall) else None

    return call_specs, slot_names, slot_types, [replaced(e, bind, top_down=True) for e in selected]


def distinct_calls(selected: list[Expression]) -> list[AggregateCall]:
    """The aggregate calls inside ``selected``, each once, in order (their slots' order)."""
    calls: list[AggregateCall] = []
    for expression in selected:
        for call in expression.aggregates():
            if not any(call is seen for seen in calls):  # Expression.__eq__ builds an expression
                calls.append(call)
    return calls


def expr_names(selected: list[Expression]) -> Callable[[int], str]:
    """Flink's names of unnamed select items over an aggregation: aggregate expressions and
    window properties are numbered ``EXPR$0``, ``EXPR$1`` ... in order, named or not (so
    select(x.sum.alias('t'), x.max) calls the second EXPR$1)."""
    ordinals: dict[int, int] = {}
    for position, expression in enumerate(selected):
        if expression.aggregates() or expression.window_properties():
            ordinals[position] = len(ordinals)
    return lambda i: f"EXPR${ordinals.get(i, i)}"


def aggregate(node: PlanNode, keys: list[Expression], selected: list[Expression], batch: bool) -> Project:
    """``group_by(keys).select(selected)``: the aggregation, then the select list over it
    (aggregate calls become columns; unnamed results are ``EXPR$0``, ``EXPR$1`` ...)."""
    key_compiled = [k.resolve(node.names, node.types) for k in keys]
    for compiled in key_compiled:
        check_orderable(compiled.data_type)
    key_names = [c.name or f"$key{i}" for i, c in enumerate(key_compiled)]
    selected = [grouped_expression(e, keys, key_names) for e in expand_flatten(node, selected)]
    call_specs, slot_names, slot_types, selected = aggregate_calls(node, selected, bool(keys), batch)
    removed = _aggregate_removed(node, keys, key_compiled, key_names, selected, slot_names, slot_types)
    if removed is not None:
        return project(removed, selected, expr_names(selected))
    attached = _attached_window(node, keys, batch)
    grouped = Aggregate(
        key_names + slot_names,
        [c.data_type for c in key_compiled] + slot_types,
        not batch and attached is None,
        node,
        [c.fn for c in key_compiled],
        call_specs,
        batch,
        list(keys),
        [c.operand for c in distinct_calls(selected)],
        attached,
        window=attached,
    )
    return project(grouped, selected, expr_names(selected))


def _attached_window(node: PlanNode, keys: list[Expression], batch: bool) -> tuple[int, int] | None:
    """The positions among ``keys`` of the input's window_start and window_end, when a
    streaming GROUP BY has both (and the input is insert-only): then it aggregates per window,
    as Flink's planner makes it a window aggregation, instead of an updating one."""
    if batch or node.window is None or node.updating:
        return None
    names = [referenced_column(k) for k in keys]
    start, end = (node.names[w] for w in node.window)
    if start in names and end in names:
        return names.index(start), names.index(end)
    return None


def unique_columns(node: PlanNode) -> set[str] | None:
    """Columns on which ``node``'s rows are unique (an upsert source's primary key, through
    projections and filters), if known."""
    if isinstance(node, ChangelogNormalize) and node.input is not None:
        return {node.input.names[i] for i in node.key_indexes}
    if isinstance(node, Filter) and node.input is not None:
        return unique_columns(node.input)
    if isinstance(node, Project) and node.input is not None and node.expressions is not None:
        below = unique_columns(node.input)
        if below is None:
            return None
        renamed: dict[str, str] = {}
        for name, expression in zip(node.names, node.expressions, strict=True):
            inner = expression.operand if type(expression) is _Alias else expression
            if type(inner) is _Column:
                renamed.setdefault(inner.name, name)
        return {renamed[c] for c in below} if all(c in renamed for c in below) else None
    return None


def _aggregate_removed(
    node: PlanNode,
    keys: list[Expression],
    key_compiled: list[Any],
    key_names: list[str],
    selected: list[Expression],
    slot_names: list[str],
    slot_types: list[DataType],
) -> PlanNode | None:
    """Flink's FlinkAggregateRemoveRule: grouped by columns on which the input is unique,
    with only SUM / MIN / MAX of one argument, every group has one row, so the aggregation
    is the projection of the keys and the arguments (an upsert source's changelog then passes
    through: -U/+U where an aggregation would retract and re-insert)."""
    unique = unique_columns(node)
    if unique is None or not keys or not all(type(k) is _Column for k in keys):
        return None
    if not unique <= {k.name for k in keys}:  # type: ignore[attr-defined]
        return None
    calls = distinct_calls(selected)
    plain = [type(c) is AggregateCall and c.where is None and not c.is_distinct for c in calls]
    if not all(p and c.function in ("SUM", "MIN", "MAX") for p, c in zip(plain, calls, strict=True)):
        return None
    operands = [c.operand.resolve(node.names, node.types) for c in calls]
    if any(o.data_type.root == "DECIMAL" for o in operands):  # SUM widens DECIMAL precision
        return None
    return Project(
        key_names + slot_names,
        [c.data_type for c in key_compiled] + slot_types,
        node.updating,
        node,
        [c.fn for c in key_compiled] + [o.fn for o in operands],
        list(keys) + [c.operand for c in calls],
    )


def grouped_expression(expression: Expression, keys: list[Expression], key_names: list[str]) -> Expression:
    """``expression`` over the aggregation's output: a part equal to a group key that is not
    a plain column (``GROUP BY UPPER(s)`` ... ``SELECT UPPER(s)``) reads that key's column
    (aggregate calls' arguments are evaluated on the input rows, so they are left alone)."""
    computed = {
        fingerprint(k): name for k, name in zip(keys, key_names, strict=True) if type(k) is not _Column
    }
    if not computed:
        return expression

    def key_column(node: Any) -> Any:
        name = computed.get(fingerprint(node))
        return None if name is None else _Column(name)

    return replaced(expression, key_column, top_down=True, stop=lambda n: isinstance(n, AggregateCall))


def _check_unique(names: list[str]) -> None:
    duplicates = [n for n, c in Counter(names).items() if c > 1]
    if duplicates:
        raise ValueError(f"Ambiguous column name: {duplicates[0]}")
