"""SQL queries to plans: FROM (tables, views, subqueries, VALUES, window TVFs,
joins, temporal and lookup joins ``FOR SYSTEM_TIME AS OF``: ``sql/temporal_join.py``, LATERAL
TABLE, UNNEST), WHERE (with IN / EXISTS subqueries), GROUP BY (and legacy
group windows), HAVING, select lists; ORDER BY / LIMIT is ``sql/order.py``, Top-N ``sql/top_n.py``.

Unaliased computed items are named ``EXPR$<position>`` as Flink's SQL names them (a column
keeps its name). Relational operations are the planner's builder, the one the Table API uses.
The query translator reads the catalog and the job's mode from a ``SqlContext``."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from millstream.table.common.types import DataType
from millstream.table.common.window_spec import WindowSpec
from millstream.table.expression.expression import Expression, col
from millstream.table.expression.resolved import common_type
from millstream.table.expression.unresolved import UnknownFunctionError, UnresolvedFieldError
from millstream.table.functions.udf import registered_function
from millstream.table.planner import builder
from millstream.table.planner.grouping_sets import WindowGrouping, grouping_sets_select
from millstream.table.planner.nodes import FlatMap, PlanNode, Values
from millstream.table.planner.over import over_aggregate
from millstream.table.planner.windows import WindowTVF, tvf_columns, window_aggregate, window_time_column
from millstream.table.sql.catalog_tables import table_plan
from millstream.table.sql.context import SqlContext
from millstream.table.sql.errors import (
    TableNotFoundError,
    alias_degree_mismatch,
    locate_in_select,
    not_a_condition,
    not_in_select_clause,
    unknown_identifier,
)
from millstream.table.sql.expressions import (
    _GROUP_WINDOWS,
    _LEGACY_WINDOW,
    _STATE,
    _alias_of,
    _expression,
    _frame,
    _interval_ms,
    _scope_of,
)
from millstream.table.sql.grouping_sets import GroupingSets, grouping_sets
from millstream.table.sql.match_recognize import match_recognize
from millstream.table.sql.order import order_and_limit
from millstream.table.sql.parser import _TVFS, SqlError
from millstream.table.sql.subqueries import _where_subqueries
from millstream.table.sql.temporal_join import is_versioned, versioned_join
from millstream.table.sql.top_n import _top_n
from millstream.table.sql.unnest import unnest

__all__ = ["is_query", "plan_select", "query"]

_ONE_ROW = Values([], [], False, [()], label="Values")  # what FROM UNNEST(...) unnests


@dataclass
class _Windowed:
    """A window TVF in FROM: the plan it windows, the window and its time column."""

    plan: PlanNode
    spec: WindowSpec
    time_column: int


def _from_item(ctx: SqlContext, node: exp.Expression) -> tuple[PlanNode, _Windowed | None]:
    """A FROM or JOIN item's plan, its columns named as its alias's column list says
    (``(VALUES (1, 2)) AS t(a, b)``, ``(SELECT ...) AS t(a, b)``, ``t AS x(a, b)``)."""
    plan, windowed = _from_item_plan(ctx, node)
    alias = node.args.get("alias")
    columns = alias.columns if isinstance(alias, exp.TableAlias) else []
    if columns and isinstance(node, (exp.Subquery, exp.Values, exp.Table)):
        if len(columns) != len(plan.names):
            raise alias_degree_mismatch(columns, plan.names)
        names = [c.name for c in columns]
        plan = (
            dataclasses.replace(plan, names=names) if isinstance(plan, Values) else builder.alias(plan, names)
        )
    return plan, windowed


def _from_item_plan(ctx: SqlContext, node: exp.Expression) -> tuple[PlanNode, _Windowed | None]:
    if isinstance(node, exp.Subquery):
        return query(ctx, node.this), None
    if (
        isinstance(node, exp.Table)
        and isinstance(node.this, exp.Anonymous)
        and node.this.name.upper() == "TABLE"
    ):
        return _window_tvf(ctx, node.this.expressions[0])
    if isinstance(node, exp.Table):
        if node.args.get("version") is not None:  # a temporal join's is planned by _source
            raise SqlError(
                f"FOR SYSTEM_TIME AS OF on table '{node.name}' is supported only on the right of a "
                "JOIN, as of the left table's time attribute (a temporal or lookup join)"
            )
        path = [part.name for part in node.parts]  # t, db.t or catalog.db.t
        derived = ctx.derived.get(node.name) if len(path) == 1 else None  # a WITH query's name is one part
        return (derived if derived is not None else table_plan(ctx.catalog, path)), None
    if isinstance(node, exp.Values):
        return _values(node), None
    if isinstance(node, exp.Unnest):  # FROM UNNEST(ARRAY[...]): its rows alone
        rows_of, names, types = unnest(node, _ONE_ROW)
        return FlatMap(names, types, False, _ONE_ROW, rows_of), None
    raise SqlError(f"unsupported FROM: {node.sql()}")


def _values(node: exp.Values) -> PlanNode:
    """``(VALUES (1, 'a'), (2, 'b')) AS t(x, y)``: the rows as a table (columns ``EXPR$0`` ...
    unless named); a column's type is the common type of its values (Calcite's
    ``leastRestrictive``: ``(1), (2.5)`` is DECIMAL(11, 1)), each value cast to it, nullable when
    one is NULL. A bare NULL among the values is refused, as Calcite refuses it (it has no type:
    ``CAST(NULL AS INT)`` is fine)."""
    items_of = [_row_items(row) for row in node.expressions]
    if any(isinstance(item, exp.Null) for items in items_of for item in items):
        raise SqlError("Illegal use of 'NULL'")
    expressions = [[_expression(item) for item in items] for items in items_of]
    width = len(expressions[0]) if expressions else 0
    if any(len(r) != width for r in expressions):
        raise SqlError(f"the rows of VALUES differ in length: {node.sql()[:80]}")
    typed = [[e.resolve([], []).data_type for e in row] for row in expressions]
    types = []
    for i in range(width):
        column = common_type([t[i] for t in typed])
        if column is None:
            listed = ", ".join(sorted({repr(t[i]) for t in typed}))
            raise SqlError(
                f"Values passed to VALUES operator must have compatible types: column {i + 1} is {listed}"
            )
        types.append(column)
    rows: list[tuple[Any, ...]] = []
    for row, row_types in zip(expressions, typed, strict=True):
        values = []
        for e, t, column in zip(row, row_types, types, strict=True):
            same = t.nullable() == column.nullable() or column.root == "NULL"
            values.append((e if same else e.cast(column.nullable())).resolve([], []).fn(()))
        rows.append(tuple(values))
    types = [t.nullable() if any(r[i] is None for r in rows) else t for i, t in enumerate(types)]
    return Values([f"EXPR${i}" for i in range(width)], types, False, rows, label="Values")


def _row_items(row: exp.Expression) -> list[exp.Expression]:
    """A VALUES row's values: ``(1, 'a')``, ``ROW(1, 'a')`` or ``(ROW(1, 'a'))`` (Calcite's row
    constructor: two columns, not one ROW column)."""
    items = row.expressions if isinstance(row, exp.Tuple) else [row]
    if len(items) == 1 and isinstance(items[0], exp.Anonymous) and items[0].name.upper() == "ROW":
        return list(items[0].expressions)
    return list(items)


def _window_tvf(ctx: SqlContext, call: exp.Expression) -> tuple[PlanNode, _Windowed]:
    """``TUMBLE(t, DESCRIPTOR(ts), size [, offset])``, ``HOP(t, DESCRIPTOR(ts), slide, size)``,
    ``CUMULATE(t, DESCRIPTOR(ts), step, size)``, ``SESSION(t [PARTITION BY k], DESCRIPTOR(ts), gap)``."""
    name = call.name.upper().removeprefix("MS_")
    args = list(call.expressions)
    if name not in _TVFS or len(args) < 3:
        raise SqlError(f"unsupported table function in FROM: {call.sql()}")
    source = args.pop(0)
    plan, _ = _from_item(ctx, source if not isinstance(source, exp.Column) else exp.Table(this=source.this))
    if args and isinstance(args[0], exp.Anonymous) and args[0].name.upper() == "MS_PARTITION_BY":
        args.pop(0)  # a session's partition keys: its GROUP BY keys group it
    descriptor = args.pop(0)
    if not (isinstance(descriptor, exp.Anonymous) and descriptor.name.upper() == "DESCRIPTOR"):
        raise SqlError(f"{name} needs DESCRIPTOR(time_column) as its second argument")
    time_name = descriptor.expressions[0].name
    if time_name not in plan.names:
        raise unknown_identifier(descriptor.expressions[0])
    time_column = plan.names.index(time_name)
    sizes = [_interval_ms(a) for a in args]
    if name == "TUMBLE":
        spec = WindowSpec("TUMBLE", sizes[0], 0, sizes[1] if len(sizes) > 1 else 0)
    elif name in ("HOP", "CUMULATE"):
        spec = WindowSpec(name, sizes[1], sizes[0], sizes[2] if len(sizes) > 2 else 0)
    else:
        spec = WindowSpec("SESSION", sizes[0])
    if not window_time_column(plan, time_column, ctx.batch):
        raise SqlError(
            "The window function requires the timecol is a time attribute type, but is "
            f"{plan.types[time_column]!r}"
        )
    names, types = tvf_columns(plan, time_column)
    node = WindowTVF(
        names,
        types,
        False,
        plan,
        spec,
        time_column,
        rowtime=len(names) - 1,
        window=(len(names) - 3, len(names) - 2),
    )
    return node, _Windowed(plan, spec, time_column)


def _source(ctx: SqlContext, select: exp.Select) -> tuple[PlanNode, _Windowed | None]:
    """The FROM clause: a table, view, subquery or window TVF, joined with the JOINs and
    LATERAL TABLEs after it. Sets the column scope for the rest of the query."""
    source = select.args.get("from_") or select.args.get("from")
    if source is None:  # SELECT 1 + 1: over one row of no columns, as Flink's VALUES
        plan: PlanNode = Values([], [], False, [()], label="Values")
        _STATE.scopes.append(_scope_of(plan, None))
        return plan, None
    plan, windowed = _from_item(ctx, source.this)
    alias, match = _alias_of(source.this), select.args.get("match")
    if match is not None:  # FROM t MATCH_RECOGNIZE (...) [AS] alias: its rows are the source's
        plan = match_recognize(ctx, plan, match, bool(select.args.get("joins")))
        alias, windowed = _alias_of(match), None
    scope = _scope_of(plan, alias)
    _STATE.scopes.append(scope)
    joins = select.args.get("joins") or []
    for i, join in enumerate(joins):
        where = select.args.get("where")
        if isinstance(join.this, (exp.Lateral, exp.Unnest)):
            plan = _lateral(plan, join, scope)
        elif is_versioned(join.this):  # JOIN t FOR SYSTEM_TIME AS OF left.time: its ON only
            plan = versioned_join(ctx, plan, join, scope)
        else:
            implicit = join.args.get("on") is None and i == len(joins) - 1 and where is not None
            plan = _join(ctx, plan, join, scope, where.this if implicit and where is not None else None)
            if implicit:  # FROM a, b WHERE a.k = b.k: the WHERE is the join's condition
                select.set("where", None)
        windowed = None
    return plan, windowed


def _join(
    ctx: SqlContext,
    left: PlanNode,
    join: exp.Join,
    scope: dict[tuple[str | None, str], str],
    implicit_condition: exp.Expression | None,
) -> PlanNode:
    """``left [INNER | LEFT | RIGHT | FULL] JOIN right ON condition``; right's columns whose
    names are taken get a number (``k`` -> ``k0``), as Calcite names them."""
    right, _ = _from_item(ctx, join.this)
    alias = _alias_of(join.this)
    taken = set(left.names)
    renamed: list[Expression] = []
    for name in right.names:
        new = name
        n = 0
        while new in taken:
            new = f"{name}{n}"
            n += 1
        taken.add(new)
        renamed.append(col(name).alias(new) if new != name else col(name))
        scope[(alias, name)] = new
        if (None, name) not in scope:
            scope[(None, name)] = new
    right = builder.select(right, renamed, ctx.batch)
    side = str(join.args.get("side") or "").upper()
    join_type = {"LEFT": "LEFT", "RIGHT": "RIGHT", "FULL": "FULL"}.get(side, "INNER")
    on = join.args.get("on")
    condition = on if on is not None else implicit_condition
    predicate = _expression(condition) if condition is not None else None
    return builder.join(left, right, join_type, predicate)


def _lateral(plan: PlanNode, join: exp.Join, scope: dict[tuple[str | None, str], str]) -> PlanNode:
    """``[CROSS | LEFT] JOIN LATERAL TABLE(udtf(args)) [AS] t(a, b) [ON TRUE]`` (each row with
    every row the function yields for it) or ``CROSS JOIN UNNEST(array) [AS] t(x)`` (each row
    with every element; a ROW element's fields are columns). LEFT keeps a row the function
    yields nothing for, padded with NULLs, as Flink's; its condition must be ``ON TRUE``."""
    node = join.this
    outer = str(join.args.get("side") or "").upper() == "LEFT"
    condition = join.args.get("on")
    if outer and not (isinstance(condition, exp.Boolean) and condition.this):
        raise SqlError("LEFT JOIN LATERAL TABLE(...) supports the condition ON TRUE only, as Flink's")
    if isinstance(node, exp.Unnest):
        rows_of, columns, types = unnest(node, plan)  # named as its alias says
    else:
        rows_of, columns, types = _table_function(node, plan)
    alias = node.args.get("alias")
    if alias is not None and alias.columns and not isinstance(node, exp.Unnest):
        if len(alias.columns) != len(columns):
            raise SqlError(
                f"{node.sql()[:60]} has {len(columns)} columns, its alias names {len(alias.columns)}"
            )
        columns = [c.name for c in alias.columns]
    padding = (None,) * len(columns)

    def joined(row: Any) -> list[tuple[Any, ...]]:
        values = tuple(row)
        produced = [values + tuple(r) for r in rows_of(values)]
        return produced if produced or not outer else [values + padding]

    for c in columns:
        scope[(None, c)] = c
        if alias is not None and alias.name:
            scope[(alias.name, c)] = c
    if outer:
        types = [t.nullable() for t in types]
    return FlatMap(list(plan.names) + columns, list(plan.types) + types, plan.updating, plan, joined)


def _table_function(
    node: exp.Lateral, plan: PlanNode
) -> tuple[Callable[..., Any], list[str], list[DataType]]:
    """A registered table function's call: its rows of an input row, its columns and types."""
    call = node.this
    if isinstance(call, exp.Anonymous) and call.name.upper() == "TABLE":
        call = call.expressions[0]
    if isinstance(call, exp.Anonymous):
        name, arguments = call.name, list(call.expressions)
    elif isinstance(call, exp.Func):  # a name sqlglot knows (EXPLODE ...) registered as a UDTF
        name, arguments = call.sql_name(), [v for v in call.args.values() if isinstance(v, exp.Expression)]
    else:
        raise SqlError(f"LATERAL TABLE expects a table function call, got {call.sql()}")
    function = registered_function(name)
    args = [_expression(a).resolve(plan.names, plan.types).fn for a in arguments]
    rows = function.rows_of()
    return (
        (lambda values: rows(*[a(values) for a in args])),
        function.result_names(),
        list(function.result_types),
    )


def query(ctx: SqlContext, node: exp.Expression) -> PlanNode:
    """The table a query describes: a SELECT, a set operation of queries (``UNION [ALL]``,
    ``INTERSECT [ALL]``, ``EXCEPT [ALL]``, with its own ORDER BY / LIMIT), VALUES, or either in
    parentheses."""
    _STATE.database = ctx.catalog.current_database
    if isinstance(node, exp.Subquery):
        return query(ctx, node.this)
    if isinstance(node, exp.SetOperation):
        left, right = query(ctx, node.this), query(ctx, node.expression)
        every, batch = not node.args.get("distinct"), ctx.batch
        if isinstance(node, exp.Union):
            plan = builder.union_all(left, right) if every else builder.union(left, right, batch)
        elif isinstance(node, exp.Intersect):
            plan = (
                builder.intersect_all(left, right, batch) if every else builder.intersect(left, right, batch)
            )
        else:
            plan = builder.minus_all(left, right, batch) if every else builder.minus(left, right, batch)
        return order_and_limit(ctx, plan, node)
    if isinstance(node, exp.Values):  # VALUES (...), ... alone: its columns EXPR$0 ...
        node = exp.Select(expressions=[exp.Star()]).from_(node)
    if not isinstance(node, exp.Select):
        raise SqlError(f"unsupported query: {node.sql()[:80]}")
    return plan_select(ctx, node)


def is_query(node: exp.Expression) -> bool:
    """Whether ``node`` is a query (``query`` plans it)."""
    return isinstance(node, (exp.Select, exp.SetOperation, exp.Values)) or (
        isinstance(node, exp.Subquery) and is_query(node.this)
    )


def plan_select(ctx: SqlContext, select: exp.Select) -> PlanNode:
    """The plan of a SELECT (in the scopes of the queries it is nested in)."""
    depth = len(_STATE.scopes)
    frames: dict[str, Any] = {}
    for window in select.args.get("windows") or []:  # WINDOW w AS (...)
        frames[window.name] = window
    _STATE.over.append(frames)
    try:
        return _select_in_scope(ctx, select)
    except (UnresolvedFieldError, UnknownFunctionError, TableNotFoundError, TypeError, ValueError) as err:
        # a name this SELECT's own clauses write (not a nested query's): said where it is written
        scope = _STATE.scopes[depth] if len(_STATE.scopes) > depth else None
        located = locate_in_select(select, err, scope, _aggregates(select))
        if located is None:
            raise
        raise located from err
    finally:
        del _STATE.scopes[depth:]
        _STATE.over.pop()


def _aggregates(select: exp.Select) -> bool:
    """Whether ``select`` groups its rows (GROUP BY, HAVING or an aggregate call)."""
    grouped = select.args.get("group") is not None or select.args.get("having") is not None
    return grouped or any(e.find(exp.AggFunc) is not None for e in select.expressions)


def _hidden_order_keys(select: exp.Select) -> exp.Select | None:
    """``select`` with each ORDER BY key reading a column its select list does not name (``SELECT
    name FROM t ORDER BY age``, ``SELECT name AS n ... ORDER BY name``) computed as a hidden item
    ``$order<i>`` and ordered by; None when every key reads the select list's columns (or ``*``).
    With DISTINCT such a key is Calcite's "Expression 'age' is not in the select clause"."""
    order = select.args.get("order")
    if order is None:
        return None
    items = select.expressions
    if any(
        isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star)) for e in items
    ):
        return None
    named = {e.alias_or_name for e in items}
    wanted = [
        i
        for i, ordered in enumerate(order.expressions)
        if (columns := {c.name for c in ordered.find_all(exp.Column)}) and not columns <= named
    ]
    if not wanted:
        return None
    if select.args.get("distinct") is not None:  # DISTINCT rows have no other columns to sort by
        column = next(c for c in order.expressions[wanted[0]].find_all(exp.Column) if c.name not in named)
        raise not_in_select_clause(column)
    copied = select.copy()
    keys = copied.args["order"].expressions
    for i in wanted:
        copied.append("expressions", exp.alias_(keys[i].this.copy(), f"$order{i}", quoted=True))
        keys[i].set("this", exp.column(f"$order{i}", quoted=True))
    return copied


def _condition(
    plan: PlanNode, node: exp.Expression, clause: str, written: exp.Expression | None = None
) -> Expression:
    """A WHERE or HAVING condition over ``plan``, refused as Calcite refuses one that is no
    BOOLEAN (``WHERE age``: "WHERE clause must be a condition", where ``written`` stands)."""
    condition = _expression(node)
    if condition.resolve(plan.names, plan.types).data_type.root not in ("BOOLEAN", "NULL"):
        raise not_a_condition(clause, written if written is not None else node)
    return condition


def _select_in_scope(ctx: SqlContext, select: exp.Select) -> PlanNode:
    ranked = _top_n(ctx, select)
    if ranked is not None:
        return ranked
    hidden = _hidden_order_keys(select)
    if hidden:  # ORDER BY what the select list leaves out: computed beside it, dropped after the sort
        plan = _select_in_scope(ctx, hidden)
        return builder.select(plan, [col(n) for n in plan.names if not n.startswith("$order")], ctx.batch)
    plan, windowed = _source(ctx, select)
    plan, where = _where_subqueries(ctx, select, plan)
    if where is not None:
        condition = _condition(plan, where.this, "WHERE")
        plan = builder.filter_rows(plan, condition)
        if windowed is not None:  # a window aggregation reads the TVF's input: filter that too
            try:
                windowed.plan = builder.filter_rows(windowed.plan, condition)
            except ValueError:
                windowed = None  # the condition reads window columns: aggregate the filtered TVF rows
    sets = grouping_sets(select)  # GROUPING SETS / ROLLUP / CUBE; GROUPING(...) as placeholders
    items: list[Expression] = []
    for position, e in enumerate(select.expressions):
        items.extend(_items(plan, e, position))
    items = _uniquify(items)
    group = select.args.get("group")
    having = select.args.get("having")
    aggregating = group is not None or any(e.aggregates() for e in items)
    if aggregating:
        group_nodes = list(group.expressions) if group is not None else []
        aggregate = _window_grouping(ctx, plan, windowed, group_nodes, sets)
        if having is not None:
            condition = _expression(having.this).alias("$having")
            grouped = aggregate(items + [condition])
            _condition(grouped, exp.column("$having"), "HAVING", having.this)
            visible = [col(name) for name in grouped.names if name != "$having"]
            plan = builder.select(builder.filter_rows(grouped, col("$having")), visible, ctx.batch)
        else:
            plan = aggregate(items)
    elif _STATE.over[-1]:
        frames = {n: f if not isinstance(f, exp.Window) else _frame(f) for n, f in _STATE.over[-1].items()}
        plan = over_aggregate(plan, frames, items, ctx.batch)
    else:
        plan = builder.select(plan, items, ctx.batch)
    if select.args.get("distinct") is not None:
        plan = builder.distinct(plan, ctx.batch)
    return order_and_limit(ctx, plan, select)


def _window_grouping(
    ctx: SqlContext,
    plan: PlanNode,
    windowed: _Windowed | None,
    group_nodes: list[exp.Expression],
    sets: GroupingSets | None = None,
) -> Callable[[list[Expression]], PlanNode]:
    """How the select list is aggregated: a window aggregation (GROUP BY window_start,
    window_end of a window TVF, or GROUP BY TUMBLE(ts, size) ...), a group aggregation, or one
    over grouping ``sets`` (``sql/grouping_sets.py``)."""
    names = [n.name if isinstance(n, exp.Column) else None for n in group_nodes]
    legacy = [n for n in group_nodes if isinstance(n, exp.Anonymous) and n.name.upper() in _GROUP_WINDOWS]
    if sets is not None and legacy:
        raise SqlError(
            "GROUPING SETS, ROLLUP and CUBE with a group window (GROUP BY TUMBLE(...)) are not supported"
        )
    if sets is not None:
        properties = ("window_start", "window_end", "window_time")
        per_window = sets.without(properties) if windowed is not None else None
        if windowed is not None and per_window is not None and {"window_start", "window_end"} <= set(names):
            base = windowed.plan  # a window aggregation per grouping set
            window = WindowGrouping(windowed.spec, base.names[windowed.time_column], properties)
            return lambda items: grouping_sets_select(
                base, per_window.keys, per_window.sets, per_window.calls, items, ctx.batch, window
            )
        return lambda items: grouping_sets_select(plan, sets.keys, sets.sets, sets.calls, items, ctx.batch)
    if windowed is not None and "window_start" in names and "window_end" in names:
        keys = [_expression(n) for n, name in zip(group_nodes, names, strict=True)
                if name not in ("window_start", "window_end", "window_time")]  # fmt: skip
        base = windowed.plan

        def by_window(items: list[Expression]) -> PlanNode:
            properties = ("window_start", "window_end", "window_time")
            return window_aggregate(
                base, windowed.spec, windowed.time_column, keys, items, properties, batch=ctx.batch
            )

        return by_window
    if legacy:
        call = legacy[0]
        kind = _GROUP_WINDOWS[call.name.upper()]
        time_expression = call.expressions[0]
        sizes = [_interval_ms(a) for a in call.expressions[1:]]
        spec = WindowSpec(kind, sizes[1], sizes[0]) if kind == "HOP" else WindowSpec(kind, sizes[0])
        keys = [_expression(n) for n in group_nodes if n is not call]
        time_column = plan.names.index(time_expression.name)

        def by_group_window(items: list[Expression]) -> PlanNode:
            return window_aggregate(plan, spec, time_column, keys, items,
                                    tuple(f"{_LEGACY_WINDOW}${p}" for p in ("start", "end", "rowtime")),  # type: ignore[arg-type]
                                    batch=ctx.batch)  # fmt: skip

        return by_group_window
    keys = [_expression(k) for k in group_nodes]
    return lambda items: builder.group_select(plan, keys, items, ctx.batch)


def _uniquify(items: list[Expression]) -> list[Expression]:
    """Select items with unique names, as Calcite names repeats: ``ts``, ``ts0``, ``ts1`` ..."""
    seen: set[str] = set()
    result = []
    for item in items:
        name = getattr(item, "name", None)
        if isinstance(name, str) and name in seen:
            n = 0
            while f"{name}{n}" in seen:
                n += 1
            name = f"{name}{n}"
            item = item.alias(name)
        if isinstance(name, str):
            seen.add(name)
        result.append(item)
    return result


def _items(plan: PlanNode, node: exp.Expression, position: int) -> list[Expression]:
    """A select item with its column name (Flink's ``EXPR$<position>`` when unnamed); ``*``
    is every column."""
    names = [n for n in plan.names if not n.startswith("$")]
    if isinstance(node, exp.Column) and isinstance(node.this, exp.Star) and node.table and _STATE.scopes:
        qualified = {v for (q, _), v in _STATE.scopes[-1].items() if q == node.table}
        return [col(n) for n in names if n in qualified]
    if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
        return [col(n) for n in names]
    return [_item(node, position)]


def _item(node: exp.Expression, position: int) -> Expression:
    """A select item with its column name (Flink's ``EXPR$<position>`` when unnamed)."""
    if isinstance(node, exp.Alias):
        return _expression(node.this).alias(node.alias)
    if isinstance(node, exp.Column):
        converted = _expression(node)
        return converted if getattr(converted, "name", None) == node.name else converted.alias(node.name)
    return _expression(node).alias(f"EXPR${position}")
