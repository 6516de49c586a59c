"""ORDER BY and LIMIT / OFFSET of a SELECT or a set operation."""

from __future__ import annotations

from sqlglot import exp

from millstream.table.common.variant import check_orderable
from millstream.table.expression.expression import col
from millstream.table.expression.unresolved import UnresolvedFieldError
from millstream.table.planner import builder
from millstream.table.planner.nodes import PlanNode, Sort
from millstream.table.sql.context import SqlContext
from millstream.table.sql.expressions import _STATE, _expression
from millstream.table.sql.parser import SqlError

__all__ = ["order_and_limit"]


def order_and_limit(ctx: SqlContext, plan: PlanNode, select: exp.Select | exp.SetOperation) -> PlanNode:
    """ORDER BY (batch mode: a sort; streaming: refused as Flink refuses sorting on anything
    but time) and LIMIT / OFFSET."""
    order = select.args.get("order")
    limit = select.args.get("limit")
    offset = select.args.get("offset")
    fetch = int(limit.expression.this) if limit is not None else None
    skip = int(offset.expression.this) if offset is not None else 0
    if order is None:
        return builder.limit(plan, fetch, skip) if fetch is not None or skip else plan
    if not ctx.batch:
        _check_names(order, plan)  # Flink's validator first: a name of no column is that error
        raise SqlError(
            "Sort on a non-time-attribute field is not supported: ORDER BY runs in batch mode "
            "(EnvironmentSettings.in_batch_mode())"
        )
    keys = []
    key_expressions = []
    for ordered in order.expressions:
        key = ordered.this
        ordinal = isinstance(key, exp.Literal) and not key.is_string and key.this.isdigit()
        # ORDER BY 2: the select list's second column
        expression = (
            col(plan.names[int(key.this) - 1])
            if ordinal and 0 < int(key.this) <= len(plan.names)
            else _expression(key)
        )
        try:
            compiled = expression.resolve(plan.names, plan.types)
            check_orderable(compiled.data_type)
        except ValueError as err:
            raise SqlError(f"ORDER BY {ordered.this.sql()}: {err}") from err
        keys.append((compiled.fn, bool(ordered.args.get("desc"))))
        key_expressions.append((expression, bool(ordered.args.get("desc"))))
    return Sort(plan.names, plan.types, False, plan, keys, skip, fetch, key_expressions)


def _check_names(order: exp.Order, plan: PlanNode) -> None:
    """Raise ``UnresolvedFieldError`` for an ORDER BY column that is neither a column of
    ``plan`` (the select's output) nor one its FROM clause makes visible."""
    scope = _STATE.scopes[-1] if _STATE.scopes else {}
    for column in order.find_all(exp.Column):
        if column.name not in plan.names and (None, column.name) not in scope and not column.table:
            raise UnresolvedFieldError(column.name, plan.names)
