"""The relational operations both the Table API and SQL build plans with (Flink's
``OperationTreeBuilder`` and ``FlinkRelBuilder``): each takes plan nodes and expressions and
returns the plan node of the operation, so ``Table.select`` and a SQL select list, a Table's
``union`` and SQL's ``UNION`` make the same plan.

Column names follow Flink's: a column reference keeps its name, an unnamed expression of a
plain select is ``_c<position>``, an unnamed one over aggregates ``EXPR$<n>``. ``batch``:
the job runs in BATCH mode (aggregations emit final rows; ORDER BY sorts).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from millstream.common.types import Row
from millstream.table.common.types import RowType
from millstream.table.common.variant import check_orderable
from millstream.table.expression.calls import _Tuple, whole_row
from millstream.table.expression.expression import (
    Expression,
    Ordering,
    RowInterval,
    col,
    interval_millis,
)
from millstream.table.expression.over_frame import OverFrame
from millstream.table.functions.udf import UserAggregateCall, in_declared_order
from millstream.table.planner.aggregate import TableAggregate
from millstream.table.planner.joins import NullAwareAntiJoin, join_plans
from millstream.table.planner.nodes import Filter, FlatMap, Limit, PlanNode, Project, Sort
from millstream.table.planner.over import over_aggregate
from millstream.table.planner.projection import aggregate, check_time_attributes, flattened, project
from millstream.table.planner.set_operations import (
    intersect_or_except,
    intersect_or_except_all,
    union_all,
)
from millstream.table.planner.windows import window_aggregate

__all__ = [
    "aggregate_function",
    "alias",
    "distinct",
    "filter_rows",
    "flat_aggregate",
    "flat_map",
    "group_select",
    "intersect",
    "intersect_all",
    "join",
    "lateral",
    "limit",
    "map_rows",
    "minus",
    "minus_all",
    "not_in",
    "order_by",
    "over_frame",
    "over_select",
    "select",
    "union",
    "union_all",
    "window_select",
]


def select(plan: PlanNode, expressions: list[Expression], batch: bool) -> PlanNode:
    """Computed columns; with aggregates, one row over the whole input."""
    if any(e.aggregates() for e in expressions):
        return group_select(plan, [], expressions, batch)
    plan, expressions = flattened(plan, expressions)
    return project(plan, expressions, lambda i: f"_c{i}")


def group_select(
    plan: PlanNode, keys: list[Expression], expressions: list[Expression], batch: bool
) -> PlanNode:
    """The aggregation of ``plan`` grouped by ``keys``: group keys and aggregate calls."""
    return aggregate(plan, keys, expressions, batch)


def filter_rows(plan: PlanNode, predicate: Expression) -> PlanNode:
    """The rows for which ``predicate`` is TRUE.

    Raises:
        ValueError: the predicate is not BOOLEAN.
    """
    compiled = predicate.resolve(plan.names, plan.types)
    if compiled.data_type.root != "BOOLEAN":
        raise ValueError(f"a filter's condition must be BOOLEAN, got {compiled.data_type!r}")
    check_time_attributes(plan, [predicate])
    return Filter.over(plan, predicate)


def distinct(plan: PlanNode, batch: bool) -> PlanNode:
    """Each distinct row once."""
    keys = [col(name) for name in plan.names]
    return group_select(plan, keys, keys, batch)


def alias(plan: PlanNode, names: list[str]) -> PlanNode:
    """The columns renamed, in order.

    Raises:
        ValueError: more names than columns.
    """
    if len(names) > len(plan.names):
        raise ValueError(f"{len(names)} names for {len(plan.names)} columns")
    return select(plan, [col(old).alias(new) for old, new in zip(plan.names, names, strict=False)], False)


def union(left: PlanNode, right: PlanNode, batch: bool) -> PlanNode:
    """The distinct rows of both inputs (SQL's UNION)."""
    return distinct(union_all(left, right, "UNION"), batch)


def intersect(left: PlanNode, right: PlanNode, batch: bool) -> PlanNode:
    """The distinct rows that are in both inputs (SQL's INTERSECT; NULLs compare equal)."""
    return distinct(intersect_or_except("INTERSECT", left, right), batch)


def intersect_all(left: PlanNode, right: PlanNode, batch: bool) -> PlanNode:
    """The rows in both inputs, each as often as in the input that has it fewer times."""
    return intersect_or_except_all("INTERSECT ALL", left, right, batch)


def minus(left: PlanNode, right: PlanNode, batch: bool) -> PlanNode:
    """The distinct rows of ``left`` that are not in ``right`` (SQL's EXCEPT)."""
    return distinct(intersect_or_except("EXCEPT", left, right), batch)


def minus_all(left: PlanNode, right: PlanNode, batch: bool) -> PlanNode:
    """``left``'s rows, each as many times more often as it is there than in ``right``."""
    return intersect_or_except_all("EXCEPT ALL", left, right, batch)


def join(left: PlanNode, right: PlanNode, join_type: str, predicate: Expression | None) -> PlanNode:
    """``left <join_type> JOIN right ON predicate`` (INNER, LEFT, RIGHT, FULL, SEMI, ANTI)."""
    return join_plans(left, right, join_type, predicate)


def not_in(left: PlanNode, right: PlanNode, value: Expression) -> PlanNode:
    """``value NOT IN (right)``: a null-aware anti join."""
    fn = value.resolve(left.names, left.types).fn
    return NullAwareAntiJoin(list(left.names), list(left.types), True, left=left, right=right, value=fn)


def lateral(plan: PlanNode, function: Any, outer: bool) -> PlanNode:
    """Each row joined with the rows a table function (``udtf``) yields for it; ``outer``
    keeps a row it yields nothing for, NULL-padded."""
    arguments = getattr(function, "arguments", None)  # udtf(col('a')): called with those values
    rows_of = function.rows_of()
    width = len(function.result_types)
    argument_fns = [a.resolve(plan.names, plan.types).fn for a in arguments] if arguments else None

    def joined(row: Any) -> list[tuple[Any, ...]]:
        values = tuple(row)
        if argument_fns is not None:
            produced_rows = rows_of(*[f(values) for f in argument_fns])
        else:
            produced_rows = rows_of(row)
        produced = [values + tuple(r) for r in produced_rows]
        return produced if produced or not outer else [values + (None,) * width]

    names = list(plan.names) + function.result_names()
    types = list(plan.types) + function.result_types
    return FlatMap(names, types, plan.updating, plan, joined)


def order_by(plan: PlanNode, expressions: list[Expression], batch: bool) -> PlanNode:
    """The rows sorted (``col('x').desc``; batch mode, as Flink's streaming mode sorts only on
    time).

    Raises:
        ValueError: in streaming mode.
    """
    if not batch:
        raise ValueError("Sort on a non-time-attribute field is not supported in streaming mode")
    keys, key_expressions = [], []
    for e in expressions:
        descending = isinstance(e, Ordering) and e.descending
        compiled = e.resolve(plan.names, plan.types)
        check_orderable(compiled.data_type)
        keys.append((compiled.fn, descending))
        key_expressions.append((e.operand if isinstance(e, Ordering) else e, descending))
    return Sort(plan.names, plan.types, False, plan, keys, key_expressions=key_expressions)


def limit(plan: PlanNode, fetch: int | None, offset: int = 0) -> PlanNode:
    """The first ``fetch`` rows after ``offset`` (in arrival order, or the sort's).

    Raises:
        ValueError: over an updating input.
    """
    if isinstance(plan, Sort):
        start = plan.offset + offset
        return Sort(plan.names, plan.types, False, plan.input, plan.keys, start, fetch, plan.key_expressions)
    if plan.updating:
        raise ValueError("limit() over an updating table is not supported")
    return Limit(plan.names, plan.types, False, plan, offset, fetch, rowtime=plan.rowtime)


def flat_map(plan: PlanNode, func: Any) -> PlanNode:
    """The rows a table function (``udtf``) yields for each row (its columns only): given
    alone, it gets the whole row as a ``Row``, as PyFlink's; called over columns
    (``flat_map(split(col('s')))``), their values."""
    rows_of = func.rows_of()
    if func.arguments is not None:
        arguments = _Tuple(func.arguments).resolve(plan.names, plan.types).fn
        rows_of = functools.partial(_rows_of_arguments, rows_of, arguments)
    return FlatMap(func.result_names(), func.result_types, plan.updating, plan, rows_of)


def _rows_of_arguments(rows_of: Any, arguments: Any, row: Row) -> list[tuple[Any, ...]]:
    """The rows a table function called over columns yields for ``row``: it gets their values."""
    return rows_of(*arguments(tuple(row)))


def map_rows(plan: PlanNode, func: Any) -> PlanNode:
    """Each row through a scalar function (``udf``) of the whole row, or a call of one over
    columns (``map(f(col('a'), col('b')))``); a ROW result type gives its fields as columns."""
    names = list(plan.names)
    if isinstance(func, Expression):
        compiled = func.resolve(names, list(plan.types))
        return _mapped(plan, compiled.data_type, compiled.fn, [func])
    result = func.result_type
    if func.func_type == "pandas":  # the rows go to it as DataFrames, a batch at a time
        expression = func(whole_row(names))
        return _mapped(plan, result, expression.resolve(names, list(plan.types)).fn, [expression])

    declared = result.field_names() if isinstance(result, RowType) else None

    def call(values: tuple[Any, ...], function: Any = func._function) -> Any:
        row = Row(*values)
        row.set_field_names(names)
        value = function(row)
        return value if declared is None else in_declared_order(value, declared)

    return _mapped(plan, result, call, None)


def _mapped(
    plan: PlanNode, result: Any, fn: Callable[[tuple[Any, ...]], Any], expressions: list[Any] | None
) -> PlanNode:
    """The rows of ``fn``'s values, computed once per row: its fields as columns for a ROW
    ``result``, else one column ``f0`` (PyFlink 2.3.0 names it so)."""
    extra = [expressions] if expressions is not None else []
    if not isinstance(result, RowType):
        return Project(["f0"], [result], plan.updating, plan, [fn], *extra)
    whole = Project(["$row"], [result], plan.updating, plan, [fn], *extra)
    width = len(result.fields)
    fields: list[Callable[[tuple[Any, ...]], Any]] = [functools.partial(_field_of, i) for i in range(width)]
    return Project(result.field_names(), result.field_types(), plan.updating, whole, fields)


def _field_of(index: int, values: tuple[Any, ...]) -> Any:
    """Field ``index`` of the row a mapping function returned (the single column of ``values``)."""
    result = values[0]
    return None if result is None else tuple(result)[index]


def aggregate_function(plan: PlanNode, keys: list[Expression], func: Any, batch: bool) -> PlanNode:
    """A udaf with a ROW result (called with each whole row unless called with columns),
    grouped by ``keys``: the keys and the result's fields as columns."""
    names = plan.names
    aliases: list[str] | None = None
    if isinstance(getattr(func, "operand", None), UserAggregateCall):  # f(col('x')).alias('a', 'b')
        aliases, func = list(func.names), func.operand
    call = func if isinstance(func, UserAggregateCall) else func(whole_row(list(names)))
    result = call.wrapper.result_type
    default = result.field_names() if isinstance(result, RowType) else ["f0"]
    fields = list(aliases or call.wrapper._aliases or default)
    key_names = [n for n in (getattr(k, "name", None) for k in keys) if n is not None]
    grouped = group_select(plan, keys, [*[col(k) for k in key_names], call.alias("$result")], batch)
    if not isinstance(result, RowType):
        return select(grouped, [*[col(k) for k in key_names], col("$result").alias(fields[0])], batch)
    width = len(key_names)
    getters: list[Callable[[tuple[Any, ...]], Any]] = [functools.partial(_key_of, i) for i in range(width)]
    getters += [functools.partial(_row_field, width, i) for i in range(len(fields))]
    types = grouped.types[:width] + result.field_types()
    return Project(key_names + fields, types, grouped.updating, grouped, getters)


def _key_of(index: int, values: tuple[Any, ...]) -> Any:
    return values[index]


def _row_field(width: int, index: int, values: tuple[Any, ...]) -> Any:
    result = values[width]
    return None if result is None else tuple(result)[index]


def flat_aggregate(plan: PlanNode, keys: list[Expression], func: Any) -> PlanNode:
    """A table aggregate (``udtaf``) grouped by ``keys``: the keys and every row it emits for
    the group; each update of a group retracts the rows it emitted before."""
    resolved = [k.resolve(plan.names, plan.types) for k in keys]
    key_names = [k.name or f"$key{i}" for i, k in enumerate(resolved)]
    names = key_names + func.result_names()
    types = [k.data_type for k in resolved] + func.result_types()
    key_fns = [k.fn for k in resolved]
    arguments = None
    if func.arguments is not None:  # a call over columns (top2(col('v'))): their values, not the row
        arguments = _Tuple(func.arguments).resolve(plan.names, plan.types).fn
    return TableAggregate(names, types, True, plan, key_fns, func._function, list(plan.names), arguments)


def window_select(
    plan: PlanNode, window: Any, keys: list[Expression], fields: list[Expression], batch: bool
) -> PlanNode:
    """A group window's aggregation (``Tumble``, ``Slide``, ``Session`` ... ``.alias('w')``):
    keys, aggregates and window properties (``col('w').start`` / ``.end`` / ``.rowtime``).

    Raises:
        ValueError: the window has no time field.
    """
    if window.time_field is None:
        raise ValueError("a group window needs on(time_field)")
    time_name = window.time_field.resolve(plan.names, plan.types).name
    name = window.alias_name
    properties = (f"{name}$start", f"{name}$end", f"{name}$rowtime")
    spec = window.spec()
    return window_aggregate(plan, spec, plan.names.index(time_name), keys, fields, properties, batch=batch)


def over_select(plan: PlanNode, windows: list[Any], fields: list[Expression]) -> PlanNode:
    """Columns and over aggregates (``col('x').sum.over(col('w'))``) over the Table API's over
    windows."""
    frames = {w.alias_name: over_frame(w) for w in windows}
    return over_aggregate(plan, frames, fields)


def over_frame(window: Any) -> OverFrame:
    """The frame of a Table API over window (default: UNBOUNDED RANGE, as Flink's).

    Raises:
        ValueError: the window has no order_by.
    """
    if window.order_by_field is None:
        raise ValueError("an over window needs order_by(time attribute)")
    bound, partition, order = window.preceding_bound, tuple(window.partition_by), window.order_by_field
    if bound is None:
        return OverFrame(partition, order, False, None)
    if isinstance(bound, RowInterval):
        count = bound.count()
        return OverFrame(partition, order, True, None if count < 0 else count)
    millis = interval_millis(bound)
    return OverFrame(partition, order, False, None if millis < 0 else millis)
