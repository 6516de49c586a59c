"""``INSERT INTO t [(columns)] { SELECT ... | VALUES (...), ... }`` as Flink plans it (Calcite's
validator and ``SqlToOperationConverter``): the source is a query or VALUES; a column list
names some of the sink's columns in any order, each once, as many as the source has, and the
others are NULL (a NOT NULL one must be listed). The query then meets the sink's types as
``DynamicSinkUtils`` demands (``catalog_tables.sink_plan``): implicit casts, or Flink's
``Column types of query result and sink ... do not match`` while planning."""

from __future__ import annotations

from sqlglot import exp

from millstream.table.expression.expression import Expression, col, lit
from millstream.table.planner import builder
from millstream.table.planner.nodes import PlanNode
from millstream.table.sql.catalog_tables import sink_plan
from millstream.table.sql.context import SqlContext
from millstream.table.sql.parser import SqlError
from millstream.table.sql.query import is_query, query

__all__ = ["insert_plan"]


def insert_plan(ctx: SqlContext, tree: exp.Insert) -> PlanNode:
    """The sink plan of an INSERT statement."""
    target = tree.this
    table = target.this if isinstance(target, exp.Schema) else target
    path = [part.name for part in table.parts]  # t, db.t or catalog.db.t
    source = tree.expression
    if is_query(source):  # a query, or VALUES (...), ... (its columns EXPR$0 ...)
        plan = query(ctx, source)
    else:
        raise SqlError(f"INSERT INTO needs a query (SELECT ...) or VALUES, got: {source.sql()[:80]}")
    if isinstance(target, exp.Schema):
        plan = _target_columns(ctx, path, plan, [c.name for c in target.expressions])
    return sink_plan(ctx.catalog, plan, path)


def _target_columns(ctx: SqlContext, path: list[str], plan: PlanNode, listed: list[str]) -> PlanNode:
    """``plan``'s columns as the listed columns of sink ``path``, in the sink's order, NULL for
    the sink's other columns (typed as the sink's): Calcite's messages for a name the sink
    lacks, a name listed twice, a count unlike the source's and a NOT NULL column left out."""
    table = ctx.catalog.get_table(path)
    schema = table.descriptor.schema if table is not None else None
    if schema is None:  # sink_plan says what is wrong
        return plan
    columns = schema.persisted_columns()
    names = [name for name, _ in columns]
    for i, name in enumerate(listed):
        if name not in names:
            raise SqlError(f"Unknown target column '{name}'")
        if name in listed[:i]:
            raise SqlError(f"Target column '{name}' is assigned more than once")
    if len(listed) != len(plan.names):
        raise SqlError("Number of columns must match number of query columns")
    expressions: list[Expression] = []
    for i, (name, data_type) in enumerate(columns):
        if name in listed:
            value = col(plan.names[listed.index(name)])
        elif not data_type.is_nullable():
            raise SqlError(f"Column '{name}' has no default value and does not allow NULLs")
        else:
            value = lit(None, data_type)
        expressions.append(value.alias(f"EXPR${i}"))
    return builder.select(plan, expressions, ctx.batch)
