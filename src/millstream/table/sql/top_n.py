"""Top-N: ``SELECT ... FROM (SELECT ..., ROW_NUMBER() | RANK() | DENSE_RANK() OVER
(PARTITION BY k ORDER BY s) AS rn FROM t) WHERE rn <= N``, row-time deduplication and window
Top-N."""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from millstream.table.common.binary_row import BinaryRowKeyType
from millstream.table.common.types import DataTypes
from millstream.table.expression.expression import col, lit
from millstream.table.planner import builder
from millstream.table.planner.nodes import PlanNode
from millstream.table.planner.over import Rank, WindowRank
from millstream.table.sql.context import SqlContext
from millstream.table.sql.expressions import _STATE, _expression, _scope_of
from millstream.table.sql.parser import SqlError

__all__: list[str] = []  # internal to the SQL translation (sql/statements.py is its entry)


def _row_number_item(select: exp.Select) -> tuple[int, exp.Window, str] | None:
    """The ``ROW_NUMBER() OVER (...) AS rn`` item of a select list: position, window, name."""
    for position, item in enumerate(select.expressions):
        node = item.this if isinstance(item, exp.Alias) else item
        if isinstance(node, exp.Window) and isinstance(node.this, (exp.RowNumber, exp.Rank, exp.DenseRank)):
            return position, node, item.alias if isinstance(item, exp.Alias) else f"EXPR${position}"
    return None


def _rank_limit(condition: Any, name: str) -> tuple[int, Any] | None:
    """N of ``rn <= N`` / ``rn < N`` / ``rn = 1`` (and the other conjuncts) in a WHERE."""
    if condition is None:
        return None
    conjuncts = list(condition.flatten()) if isinstance(condition, exp.And) else [condition]
    limit = None
    rest = []
    for c in conjuncts:
        if (
            isinstance(c, (exp.LTE, exp.LT, exp.EQ))
            and isinstance(c.this, exp.Column)
            and c.this.name == name
            and isinstance(c.expression, exp.Literal)
        ):
            n = int(c.expression.this)
            limit = n - 1 if isinstance(c, exp.LT) else n
            if isinstance(c, exp.EQ) and n != 1:
                raise SqlError("Top-N supports rn <= N, rn < N and rn = 1")
        else:
            rest.append(c)
    if limit is None:
        return None
    remaining = None
    for c in rest:
        remaining = c if remaining is None else exp.And(this=remaining, expression=c)
    return limit, remaining


def _rank_type(ctx: SqlContext, window: exp.Window) -> str:
    """ROW_NUMBER, RANK or DENSE_RANK; the last two in batch mode only, as Flink's."""
    rank_type = {exp.Rank: "RANK", exp.DenseRank: "DENSE_RANK"}.get(type(window.this), "ROW_NUMBER")
    if rank_type != "ROW_NUMBER" and not ctx.batch:  # Flink's Top-N streams ROW_NUMBER only
        raise SqlError(f"{rank_type}() on streaming table is not supported currently")
    return rank_type


def _resolves(plan: PlanNode, node: exp.Expression) -> bool:
    """Whether ``node`` is an expression over ``plan``'s own columns."""
    _STATE.scopes.append(_scope_of(plan, None))
    try:
        _expression(node).resolve(plan.names, plan.types)
        return True
    except (SqlError, ValueError):
        return False
    finally:
        _STATE.scopes.pop()


def _ranked_subquery(select: exp.Select) -> tuple[exp.Select, tuple[int, exp.Window, str]] | None:
    """The subquery ``select`` reads FROM alone and its ROW_NUMBER() item (position, window,
    name), when it has one."""
    source = select.args.get("from_") or select.args.get("from")
    if source is None or not isinstance(source.this, exp.Subquery) or select.args.get("joins"):
        return None
    inner = source.this.this
    found = _row_number_item(inner) if isinstance(inner, exp.Select) else None
    return None if found is None else (inner, found)


def _top_n(ctx: SqlContext, select: exp.Select) -> PlanNode | None:
    """``SELECT ... FROM (SELECT ..., ROW_NUMBER() OVER (PARTITION BY k ORDER BY s) AS rn FROM t)
    WHERE rn <= N``: Flink's Top-N (deduplication when ordered by the time attribute, N = 1)."""
    found = _ranked_subquery(select)
    if found is None:
        return None
    inner, (position, window, name) = found
    rank_type = _rank_type(ctx, window)
    where = select.args.get("where")
    limited = _rank_limit(where.this if where is not None else None, name)
    if limited is None:
        raise SqlError(f"{rank_type}() is supported in Top-N queries only (WHERE rn <= N)")
    limit, rest = limited
    without = inner.copy()
    without.set("expressions", [e for i, e in enumerate(inner.expressions) if i != position])
    order = window.args.get("order")
    partition = list(window.args.get("partition_by") or [])
    ordering = list(order.expressions if order is not None else [])
    base = ctx.plan_select(ctx, without.copy())  # a copy: planning a FROM a, b WHERE moves the WHERE
    # a key or ordering over the FROM's columns that the select list does not have (A.id of
    # ``SELECT A.*, B.price``): computed as hidden columns of the ranked rows, dropped after
    hidden = [n for n in partition + [o.this for o in ordering] if not _resolves(base, n)]
    if hidden:
        without.set(
            "expressions",
            without.expressions + [exp.alias_(n.copy(), f"$rank{i}") for i, n in enumerate(hidden)],
        )
        base = ctx.plan_select(ctx, without)
    plan = base

    def key(node: exp.Expression) -> Any:
        if node in hidden:
            return col(f"$rank{hidden.index(node)}").resolve(plan.names, plan.types)
        return _expression(node).resolve(plan.names, plan.types)

    _STATE.scopes.append(_scope_of(base, None))
    try:
        partition_keys = [key(p) for p in partition]
        sort = [(key(o.this).fn, bool(o.args.get("desc"))) for o in ordering]
    finally:
        _STATE.scopes.pop()
    keys = [c.fn for c in partition_keys]
    # Flink's Rank partitions by its input's fields in their order there (a computed key after them)
    at = [plan.names.index(c.name) if c.name in plan.names else len(plan.names) + i
          for i, c in enumerate(partition_keys)]  # fmt: skip
    in_input_order = sorted(range(len(at)), key=at.__getitem__)
    key_type = BinaryRowKeyType.of([c.data_type for c in partition_keys], in_input_order)
    names, types = list(plan.names), list(plan.types)
    after = inner.expressions[position + 1 :]  # the row number's column: before the items after it
    after = after + [exp.column(f"$rank{i}") for i in range(len(hidden))]
    if any(
        isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star)) for e in after
    ):
        raise SqlError("put ROW_NUMBER() OVER (...) after the * of the select list")
    position = len(names) - len(after)
    time_order = _time_order(plan, ordering) if limit == 1 and not hidden else None
    dedup = time_order is not None and rank_type == "ROW_NUMBER"
    outputs_rank = _outputs_rank(select, name)
    if outputs_rank and not dedup:  # (a deduplication's row number is added after it: 1)
        names.insert(position, name)
        types.insert(position, DataTypes.BIGINT(False))
    rank_at = position if outputs_rank and not dedup else None
    partition_names = [p.name for p in window.args.get("partition_by") or [] if isinstance(p, exp.Column)]
    windowed = (
        "window_start" in partition_names and "window_end" in partition_names and "window_end" in plan.names
    )
    node: PlanNode
    if windowed and not plan.updating:  # window Top-N: each window ranked once, when it ends
        rowtime = None if plan.rowtime is None else names.index(plan.names[plan.rowtime])
        end_column = plan.names.index("window_end")
        node = WindowRank(names, types, False, plan, keys, sort, limit, rank_at, end_column, rowtime=rowtime)
    else:
        node = Rank(
            names,
            types,
            True,
            plan,
            keys,
            sort,
            limit,
            rank_at,
            dedup=dedup,
            rank_type=rank_type,
            partition_names=tuple(c.name for c in partition_keys) if all(map(_is_column, partition)) else (),
            key_type=key_type,
            time_order="" if time_order is None or ctx.batch else time_order,
        )
        if dedup and outputs_rank:  # a deduplication's row number is 1: Flink's Calc(..., 1 AS rn)
            node = _with_row_number_one(node, name, position, ctx.batch)
    if hidden:
        node = builder.select(node, [col(n) for n in names if not n.startswith("$rank")], ctx.batch)
    derived = f"$ranked{len(ctx.derived)}"  # the outer select reads the ranked rows by this name
    ctx.derived[derived] = node
    outer = select.copy()
    outer.set("from_", exp.From(this=exp.Table(this=exp.to_identifier(derived))))
    outer.set("where", exp.Where(this=rest) if rest is not None else None)
    return ctx.plan_select(ctx, outer)


def _outputs_rank(select: exp.Select, name: str) -> bool:
    """Whether the select around a Top-N reads its row number ``name`` (or ``*``)."""
    return any(
        isinstance(e, exp.Star) or any(c.name == name for c in e.find_all(exp.Column))
        for e in select.expressions
    )


def _with_row_number_one(node: PlanNode, name: str, position: int, batch: bool) -> PlanNode:
    """A deduplication's rows with its row number ``name`` (always 1) at ``position``."""
    items = [col(n) for n in node.names]
    one = lit(1, DataTypes.BIGINT(False)).alias(name)
    return builder.select(node, [*items[:position], one, *items[position:]], batch)


def _time_order(plan: PlanNode, ordering: list[exp.Expression]) -> str | None:
    """``ROWTIME`` or ``PROCTIME`` when a Top-1 is ordered by the event-time or processing-time
    attribute alone (Flink's deduplication), else None."""
    if len(ordering) != 1:
        return None
    name = _expression(ordering[0].this).resolve(plan.names, plan.types).name
    if plan.rowtime is not None and plan.names[plan.rowtime] == name:
        return "ROWTIME"
    if plan.proctime is not None and plan.names[plan.proctime] == name:
        return "PROCTIME"
    return None


def _is_column(node: exp.Expression) -> bool:
    return isinstance(node, exp.Column) and not isinstance(node.this, exp.Star)
