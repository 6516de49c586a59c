"""Subqueries in a WHERE: ``x IN (SELECT ...)``, ``x NOT IN (SELECT ...)`` and ``[NOT] EXISTS
(SELECT ... WHERE inner = outer ...)`` as semi, null-aware anti and anti joins of the query's
table, as Flink's planner decorrelates them."""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from millstream.table.expression.expression import col
from millstream.table.expression.logic import and_
from millstream.table.planner import builder
from millstream.table.planner.nodes import PlanNode
from millstream.table.sql.context import SqlContext
from millstream.table.sql.expressions import _STATE, _alias_of, _expression
from millstream.table.sql.parser import SqlError

__all__: list[str] = []  # internal to the SQL translation (sql/statements.py is its entry)


def _subquery_predicates(
    ctx: SqlContext, select: exp.Select, table: PlanNode, condition: Any
) -> tuple[PlanNode, Any]:
    """``x IN (SELECT ...)`` and ``[NOT] EXISTS (SELECT ... WHERE inner = outer ...)`` among the
    WHERE's conjuncts become semi / anti joins of ``table``; the other conjuncts are returned
    (None: none left)."""
    conjuncts = list(condition.flatten()) if isinstance(condition, exp.And) else [condition]
    remaining = []
    for c in conjuncts:
        negated = isinstance(c, exp.Not)
        inner = c.this if negated else c
        if isinstance(inner, exp.In) and inner.args.get("query") is not None:
            sub = inner.args["query"]
            right = ctx.plan_select(ctx, sub.this if isinstance(sub, exp.Subquery) else sub)
            names = list(right.names)
            if len(names) != 1:
                raise SqlError("the subquery of IN must select one column")
            right = builder.select(right, [col(names[0]).alias("$in0")], ctx.batch)
            if negated:
                table = builder.not_in(table, right, _expression(inner.this))
            else:
                table = builder.join(table, right, "SEMI", _expression(inner.this) == col("$in0"))
        elif isinstance(inner, exp.Exists):
            table = _exists(ctx, table, inner.this, "ANTI" if negated else "SEMI")
        else:
            remaining.append(c)
    if len(remaining) == len(conjuncts):
        return table, condition
    rest = None
    for c in remaining:
        rest = c if rest is None else exp.And(this=rest, expression=c)
    return table, rest


def _where_subqueries(ctx: SqlContext, select: exp.Select, table: PlanNode) -> tuple[PlanNode, Any]:
    """The WHERE's subquery predicates joined into ``table``; the WHERE that remains."""
    where = select.args.get("where")
    if where is None:
        return table, None
    table, rest = _subquery_predicates(ctx, select, table, where.this)
    if rest is None:
        return table, None
    return table, where if rest is where.this else exp.Where(this=rest)


def _exists(ctx: SqlContext, table: PlanNode, sub: Any, kind: str) -> PlanNode:
    """``EXISTS (SELECT ... FROM u WHERE u.k = t.k AND ...)``: the equalities with the outer
    query's columns become the semi join's keys, the rest stays in the subquery."""
    if isinstance(sub, exp.Subquery):
        sub = sub.this
    if not isinstance(sub, exp.Select):
        raise SqlError("EXISTS needs a SELECT")
    source = sub.args.get("from_") or sub.args.get("from")
    inner_aliases = (
        {_alias_of(source.this), getattr(source.this, "name", None)} if source is not None else set()
    )
    outer_aliases = {q for (q, _) in _STATE.scopes[-1]} - {None} - inner_aliases if _STATE.scopes else set()
    where = sub.args.get("where")
    conjuncts = (
        []
        if where is None
        else (list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this])
    )
    pairs, kept, correlated = _correlation(conjuncts, outer_aliases)
    if not pairs:
        raise SqlError("EXISTS is supported with equalities between the subquery and the outer query")
    inner_columns = [b for _, b in pairs]  # the subquery's columns the join reads, as $ex0, $ex1 ...
    for i, c in enumerate(correlated):
        correlated[i] = c.transform(lambda n: _inner_column(n, outer_aliases, inner_columns))
    inner = sub.copy()
    rest = None
    for c in kept:
        rest = c if rest is None else exp.And(this=rest, expression=c)
    inner.set("where", exp.Where(this=rest) if rest is not None else None)
    inner.set(
        "expressions",
        [exp.Alias(this=b.copy(), alias=exp.to_identifier(f"$ex{i}")) for i, b in enumerate(inner_columns)],
    )
    right = ctx.plan_select(ctx, inner)
    condition = None
    for i, (a, _) in enumerate(pairs):
        equal = _expression(a) == col(f"$ex{i}")
        condition = equal if condition is None else and_(condition, equal)
    for c in correlated:  # (over the outer row and the $ex columns)
        condition = and_(condition, _expression(c))
    assert condition is not None
    return builder.join(table, right, kind, condition)


def _correlation(
    conjuncts: list[Any], outer_aliases: set[Any]
) -> tuple[list[tuple[exp.Column, exp.Column]], list[Any], list[Any]]:
    """An EXISTS subquery's WHERE conjuncts: the equalities (outer column, inner column) that
    key the semi / anti join, the conjuncts of the subquery's own columns (kept in it), and
    the other conjuncts reading the outer query's columns (in the join's condition: for NOT
    EXISTS a row failing them has no match, and stays)."""
    pairs: list[tuple[exp.Column, exp.Column]] = []
    kept: list[Any] = []
    correlated: list[Any] = []
    for c in conjuncts:
        if isinstance(c, exp.EQ) and isinstance(c.this, exp.Column) and isinstance(c.expression, exp.Column):
            a, b = c.this, c.expression
            if a.table in outer_aliases and b.table not in outer_aliases:
                pairs.append((a, b))
                continue
            if b.table in outer_aliases and a.table not in outer_aliases:
                pairs.append((b, a))
                continue
        if any(column.table in outer_aliases for column in c.find_all(exp.Column)):
            correlated.append(c)
        else:
            kept.append(c)
    return pairs, kept, correlated


def _inner_column(
    node: exp.Expression, outer_aliases: set[Any], inner_columns: list[exp.Column]
) -> exp.Expression:
    """In a correlated conjunct of an EXISTS subquery, a column of the subquery as the ``$exN``
    column the subquery selects for the join (added to ``inner_columns``)."""
    if not isinstance(node, exp.Column) or node.table in outer_aliases:
        return node
    for i, seen in enumerate(inner_columns):
        if seen.sql() == node.sql():
            return exp.column(f"$ex{i}")
    inner_columns.append(node.copy())
    return exp.column(f"$ex{len(inner_columns) - 1}")
