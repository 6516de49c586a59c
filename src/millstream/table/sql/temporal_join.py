"""``JOIN t FOR SYSTEM_TIME AS OF left.time_attribute [AS r] ON ...`` in a FROM clause: an
event-time temporal join (``AS OF`` the left's rowtime, ``t`` a versioned table) or a lookup
join (``AS OF`` the left's processing-time attribute, ``t`` a lookup table), planned as
Flink's planner plans them (``planner/temporal_joins.py``), with Flink's messages for what it
refuses:

* a period that is not the left table's time attribute, or not a timestamp;
* RIGHT and FULL joins, a condition without an equality between the inputs (a comma join);
* a versioned table without a primary key or rowtime, or whose key the equalities leave out;
* ``AS OF`` a processing-time attribute against a table that is no lookup table ("Processing-
  time temporal join is not supported yet.", as Flink 2.3); an event-time temporal join in
  batch mode (Flink 2.3's planner fails on it).

The right table's columns are renamed where the left has the name (``currency0``), as
Calcite names them; a computed key of the left (``MOD(b.auction, 10000) = s.key``) becomes a
column ``$f<n>`` of a Calc below the join, as Flink's planner computes it.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from millstream.table.catalog.catalog_manager import CatalogTable
from millstream.table.common.lookup_source import LookupTableSource
from millstream.table.expression.expression import Expression, _Alias, _Column, _Literal, col
from millstream.table.expression.logic import and_
from millstream.table.expression.walk import columns_of, conjuncts, replaced
from millstream.table.planner import builder
from millstream.table.planner.nodes import PlanNode, Project, SourceScan
from millstream.table.planner.projection import project
from millstream.table.planner.temporal_joins import (
    LookupKey,
    LookupTable,
    drop_update_before,
    lookup_join,
    temporal_join,
    versioned_attributes,
)
from millstream.table.planner.windows import WatermarkAssigner
from millstream.table.sql.catalog_tables import table_plan
from millstream.table.sql.context import SqlContext
from millstream.table.sql.expressions import _alias_of, _expression
from millstream.table.sql.parser import SqlError

__all__ = ["is_versioned", "versioned_join"]

_NOT_TIME_ATTRIBUTE = (
    "Temporal table join currently only supports 'FOR SYSTEM_TIME AS OF' left table's time attribute field"
)
_EMPTY_KEY = "Currently the join key in Temporal Table Join can not be empty."
_NO_PRIMARY_KEY = (
    "Temporal Table Join requires primary key in versioned table, but no primary key can be found."
)
_SQL_TYPES = {"INT": "INTEGER", "STRING": "VARCHAR(2147483647)"}

Scope = dict[tuple[str | None, str], str]


def is_versioned(node: exp.Expression) -> bool:
    """Whether a FROM item is ``t FOR SYSTEM_TIME AS OF ...``."""
    return isinstance(node, exp.Table) and node.args.get("version") is not None


def versioned_join(ctx: SqlContext, left: PlanNode, join: exp.Join, scope: Scope) -> PlanNode:
    """The plan of ``left [LEFT] JOIN t FOR SYSTEM_TIME AS OF period ON condition``; the
    right's columns are added to ``scope``."""
    table: exp.Table = join.this
    side = str(join.args.get("side") or "").upper()
    if side in ("RIGHT", "FULL"):
        raise SqlError(f"Unknown join type {side}")
    join_type = "LEFT" if side == "LEFT" else "INNER"
    path = [part.name for part in table.parts]  # t, db.t or catalog.db.t
    derived = ctx.derived.get(table.name) if len(path) == 1 else None  # a WITH query's name is one part
    right = derived or table_plan(ctx.catalog, path)
    right_names = _renamed(left, right, _alias_of(table), scope)
    time = _period(left, _expression(table.args["version"].expression))
    on = join.args.get("on")
    condition = _expression(on) if on is not None else None
    if time == left.proctime:
        source = None if derived is not None else _lookup_source(ctx, path, right)
        if source is None:
            key, _ = versioned_attributes(right, lambda scan: _declared_key(ctx, scan))
            raise SqlError(
                _NO_PRIMARY_KEY if key is None else "Processing-time temporal join is not supported yet."
            )
        identifier = ctx.catalog.qualify(path).as_summary_string()
        return _lookup_join(left, (right, source), right_names, identifier, join_type, condition)
    if ctx.batch:
        raise SqlError(
            f"FOR SYSTEM_TIME AS OF {left.names[time]} (an event-time temporal join) is not supported "
            "in batch mode, as in Flink 2.3 (its planner fails with 'unexpected correlate variable')"
        )
    return _temporal_join(ctx, left, right, right_names, join_type, condition)


def _renamed(left: PlanNode, right: PlanNode, alias: str | None, scope: Scope) -> list[str]:
    """The right's column names in the join (``k0`` where the left has ``k``), put in scope."""
    taken = set(left.names)
    names = []
    for name in right.names:
        new, n = name, 0
        while new in taken:
            new, n = f"{name}{n}", n + 1
        taken.add(new)
        names.append(new)
        scope[(alias, name)] = new
        scope.setdefault((None, name), new)
    return names


def _period(left: PlanNode, period: Expression) -> int:
    """The left column ``FOR SYSTEM_TIME AS OF`` names: its rowtime or proctime attribute."""
    if not columns_of(period):
        raise SqlError(
            "FOR SYSTEM_TIME AS OF a constant (time travel) needs a catalog that keeps the table's "
            "versions; the in-memory catalog does not (Flink: getTable(ObjectPath, long) is not "
            "implemented for class org.apache.flink.table.catalog.GenericInMemoryCatalog)"
        )
    try:
        data_type = period.resolve(list(left.names), list(left.types)).data_type
    except ValueError as err:
        raise SqlError(_NOT_TIME_ATTRIBUTE) from err
    if data_type.root not in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        shown = _SQL_TYPES.get(data_type.root, data_type.root)
        raise SqlError(f"The system time period specification expects Timestamp type but is '{shown}'")
    inner = period.operand if isinstance(period, _Alias) else period
    index = left.names.index(inner.name) if isinstance(inner, _Column) and inner.name in left.names else None
    if index is None or index not in (left.rowtime, left.proctime):
        raise SqlError(_NOT_TIME_ATTRIBUTE)
    return index


def _sides(
    condition: Expression | None, left: PlanNode, right_names: list[str]
) -> tuple[list[tuple[Expression, Expression, Any]], list[Any]]:
    """The conjuncts of ``condition`` that equate an expression of the left with one of the
    right, as (left side, right side, conjunct), and the others."""
    left_set, right_set = set(left.names), set(right_names)
    pairs, rest = [], []
    for c in conjuncts(condition) if condition is not None else []:
        if getattr(c, "op", None) == "=":
            a, b = columns_of(c.left), columns_of(c.right)
            if a and b and a <= left_set and b <= right_set:
                pairs.append((c.left, c.right, c))
                continue
            if a and b and b <= left_set and a <= right_set:
                pairs.append((c.right, c.left, c))
                continue
        rest.append(c)
    return pairs, rest


def _column_of(expression: Any) -> str | None:
    inner = expression.operand if isinstance(expression, _Alias) else expression
    return inner.name if isinstance(inner, _Column) else None


def _computed_keys(
    left: PlanNode, keys: list[Expression]
) -> tuple[PlanNode, list[str], dict[int, Expression]]:
    """``left`` with a column ``$f<n>`` per key that is not one of its columns (a Calc below the
    join, as Flink's), each key's column, and the computed ones by position."""
    names = []
    extra: list[Expression] = []
    computed: dict[int, Expression] = {}
    taken = set(left.names)
    for i, key in enumerate(keys):
        column = _column_of(key)
        if column is not None:
            names.append(column)
            continue
        name = _derived_name(key, taken, len(left.names) + len(extra))
        taken.add(name)
        extra.append(key.alias(name))
        computed[i] = col(name)
        names.append(name)
    if not extra:
        return left, names, computed
    return project(left, [col(n) for n in left.names] + extra, lambda i: f"$f{i}"), names, computed


def _derived_name(key: Any, taken: set[str], position: int) -> str:
    """The name Calcite gives a computed key's column: a cast column's own (made unique:
    ``auction0``), else ``$f<position>``."""
    inner = key
    while type(inner).__name__ == "_Cast":
        inner = inner.operand
    base = _column_of(inner)
    if base is None:
        return f"$f{position}"
    name, n = base, 0
    while name in taken:
        name, n = f"{base}{n}", n + 1
    return name


def _rebuilt(condition: Expression, replaced: dict[int, Expression]) -> Expression:
    """``condition`` with the conjuncts at positions ``replaced`` replaced, AND-ed again."""
    parts = [replaced.get(i, c) for i, c in enumerate(conjuncts(condition))]
    return parts[0] if len(parts) == 1 else and_(*parts)


def _temporal_join(
    ctx: SqlContext,
    left: PlanNode,
    right: PlanNode,
    right_names: list[str],
    join_type: str,
    condition: Expression | None,
) -> PlanNode:
    pairs, rest = _sides(condition, left, right_names)
    if not pairs or condition is None:
        raise SqlError(_EMPTY_KEY)
    key, time = versioned_attributes(right, lambda scan: _declared_key(ctx, scan))
    if key is None:
        raise SqlError(_NO_PRIMARY_KEY)
    if time is None:
        raise SqlError(
            "Event-Time Temporal Table Join requires both primary key and row time attribute in "
            "versioned table, but no row time attribute can be found."
        )
    original = dict(zip(right_names, right.names, strict=True))
    right_key_names = [original.get(_column_of(r) or "") for _, r, _ in pairs]
    if not set(key) <= {n for n in right_key_names if n is not None}:
        shown = ", ".join(f"{_shown(left_side, original)}={_shown(r, original)}" for left_side, r, _ in pairs)
        raise SqlError(
            f"Temporal table's primary key [{', '.join(key)}] must be included in the equivalence "
            f"condition of temporal join, but current temporal join condition is [{shown}]."
        )
    left, left_key_names, computed = _computed_keys(left, [p[0] for p in pairs])
    positions = {id(c): i for i, c in enumerate(conjuncts(condition))}
    condition = _rebuilt(
        condition,
        {positions[id(pairs[i][2])]: _equal(pairs[i], new) for i, new in computed.items()},
    )
    return temporal_join(
        (left, drop_update_before(right)),
        right_names,
        join_type,
        condition,
        (left_key_names, [r for _, r, _ in pairs]),
        rest,
        ([right_names[right.names.index(k)] for k in key], time),
    )


def _equal(pair: tuple[Expression, Expression, Any], column: Expression) -> Expression:
    """The equality of ``pair`` with its left side replaced by ``column`` (its order kept)."""
    left_side, right_side, conjunct = pair
    return column == right_side if conjunct.left is left_side else right_side == column


def _shown(expression: Any, original: dict[str, str]) -> str:
    name = _column_of(expression)
    return original.get(name, name) if name is not None else str(expression)


def _declared_key(ctx: SqlContext, scan: SourceScan) -> list[str] | None:
    """The primary key a scanned catalog table declares (None: none)."""
    path = scan.label.split(", ") if scan.label else []  # the scan's label: catalog, database, table
    found = ctx.catalog.get(path) if len(path) == 3 else None
    if not isinstance(found, CatalogTable):
        return None
    key = list(found.context.primary_key)
    return key if key and set(key) <= set(scan.names) else None


def _lookup_source(ctx: SqlContext, path: list[str], right: PlanNode) -> LookupTableSource | None:
    """The lookup table ``path`` names: a catalog table (no view) whose source implements
    ``LookupTableSource``, its columns the source's (no computed column)."""
    if not isinstance(ctx.catalog.get(path), CatalogTable):
        return None
    node = right
    while isinstance(node, (WatermarkAssigner, Project)) and node.input is not None:
        node = node.input
    if not isinstance(node, SourceScan) or list(node.names) != list(right.names):
        return None
    return node.source if isinstance(node.source, LookupTableSource) else None


def _lookup_join(
    left: PlanNode,
    right_table: tuple[PlanNode, LookupTableSource],
    right_names: list[str],
    table: str,
    join_type: str,
    condition: Expression | None,
) -> PlanNode:
    right, source = right_table
    path = table  # catalog.database.table, as Flink's messages and plan name it
    on_condition = condition
    pairs, rest = _sides(condition, left, right_names)
    pairs = [p for p in pairs if _column_of(p[1]) is not None]  # a key is a column of the table
    fields = {id(p[2]) for p in pairs}  # (Expressions compare into expressions: by identity)
    rest = [c for c in conjuncts(condition) if id(c) not in fields] if condition is not None else []
    constants = _constant_keys(rest, right_names, right)
    if not pairs and not constants:
        raise SqlError(f"Temporal table join requires an equality condition on fields of table [{path}].")
    keys = []  # the left's side of each field key, cast to the table column's type
    for left_side, right_side, _ in pairs:
        target = right.types[right_names.index(_column_of(right_side) or "")]
        data_type = left_side.resolve(list(left.names), list(left.types)).data_type
        same = (data_type.root, data_type.params) == (target.root, target.params)
        keys.append(left_side if same else left_side.cast(target.nullable()))
    pushed = [c for c in rest if columns_of(c) <= set(left.names)] if join_type == "INNER" else []
    if pushed:  # the left's own conditions filter it below the join, as Flink's
        left = builder.filter_rows(left, pushed[0] if len(pushed) == 1 else and_(*pushed))
        rest = [c for c in rest if all(c is not p for p in pushed)]
    left, left_key_names, _ = _computed_keys(left, keys)
    lookup = constants + [
        LookupKey(right_names.index(_column_of(r) or ""), left=name)
        for (_, r, _), name in zip(pairs, left_key_names, strict=True)
    ]
    own = dict(zip(right_names, right.names, strict=True))
    on_table = [c for c in rest if columns_of(c) <= set(right_names)]  # Flink's calc on the table
    others = [c for c in rest if all(c is not t for t in on_table)]
    table_filter = _conjunction([_renamed_columns(c, own) for c in on_table])
    fetched = LookupTable(source, path, tuple(right.names), tuple(right.types))
    conditions = (on_condition, table_filter, _conjunction(others))
    return lookup_join(left, fetched, right_names, join_type, lookup, conditions)


def _conjunction(parts: list[Any]) -> Expression | None:
    return (parts[0] if len(parts) == 1 else and_(*parts)) if parts else None


def _renamed_columns(expression: Any, names: dict[str, str]) -> Any:
    """``expression`` reading the columns ``names`` maps by their names there."""
    return replaced(
        expression, lambda x: col(names[x.name]) if isinstance(x, _Column) and x.name in names else None
    )


def _constant_keys(rest: list[Any], right_names: list[str], right: PlanNode) -> list[LookupKey]:
    """``table.column = constant`` conjuncts as lookup keys (they stay in the condition too)."""
    keys = []
    for c in rest:
        if getattr(c, "op", None) != "=":
            continue
        for column, value in ((c.left, c.right), (c.right, c.left)):
            name = _column_of(column)
            if name in right_names and isinstance(value, _Literal):
                index = right_names.index(name)
                typed = value.cast(right.types[index]).resolve([], []).fn(())
                keys.append(LookupKey(index, value=typed, value_expression=value))
                break
    return keys
