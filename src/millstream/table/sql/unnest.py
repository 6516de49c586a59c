"""``UNNEST(array | map) [WITH ORDINALITY] [AS] t[(columns)]`` as Flink's planner unnests
(Calcite's ``Uncollect``): a row per element (a ROW element's fields as columns, a MAP's entries
as ``KEY`` and ``VALUE``), nothing for a NULL or empty collection, and with ``WITH
ORDINALITY`` each element's position from 1 in a last column ``ORDINALITY`` (INT NOT NULL).
Without a column list the columns keep Flink's names: ``EXPR$0`` for the elements of an array,
or the alias itself (``UNNEST(arr) AS u``: a column ``u``).

``query.py`` joins the rows to each row of the FROM item before it (``CROSS JOIN UNNEST``,
``, UNNEST``, ``LEFT JOIN UNNEST ... ON TRUE``) or reads them alone (``FROM UNNEST(...)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from millstream.table.common.types import DataType, DataTypes
from millstream.table.planner.nodes import PlanNode
from millstream.table.sql.expressions import _expression
from millstream.table.sql.parser import SqlError

__all__ = ["unnest"]

RowsOf = Callable[[tuple[Any, ...]], list[tuple[Any, ...]]]


def unnest(node: exp.Unnest, plan: PlanNode) -> tuple[RowsOf, list[str], list[DataType]]:
    """The rows ``node`` makes of a row of ``plan``, their columns' names and types.

    Raises:
        SqlError: no single ARRAY or MAP argument, or a column list of another length than the
            columns (Flink's message).
    """
    if len(node.expressions) != 1:
        raise SqlError(f"UNNEST takes one array here, got: {node.sql()}")
    rows_of, names, types = _elements(node, plan)
    ordinality = bool(node.args.get("offset"))
    if ordinality:
        elements = rows_of
        rows_of = lambda row: [(*e, i) for i, e in enumerate(elements(row), 1)]  # noqa: E731
        names, types = [*names, "ORDINALITY"], [*types, DataTypes.INT().not_null()]
    return rows_of, _named(node, names), types


def _elements(node: exp.Unnest, plan: PlanNode) -> tuple[RowsOf, list[str], list[DataType]]:
    compiled = _expression(node.expressions[0]).resolve(plan.names, plan.types)
    value, data_type = compiled.fn, compiled.data_type
    if data_type.root == "MAP":
        key_type, value_type = data_type.key_type, data_type.value_type  # type: ignore[attr-defined]
        return (lambda row: list((value(row) or {}).items())), ["KEY", "VALUE"], [key_type, value_type]
    if data_type.root != "ARRAY":
        raise SqlError(f"UNNEST needs an ARRAY or MAP, got {data_type!r}: {node.sql()}")
    element = data_type.element_type  # type: ignore[attr-defined]
    fields = getattr(element, "fields", None)
    if element.root == "ROW" and fields is not None:
        width = len(fields)
        return (
            (lambda row: [tuple(e) if e is not None else (None,) * width for e in value(row) or []]),
            [f.name for f in fields],
            [f.data_type for f in fields],
        )
    alias = node.args.get("alias")
    name = alias.name if alias is not None and alias.name and not alias.columns else "EXPR$0"
    return (lambda row: [(e,) for e in value(row) or []]), [name], [element]


def _named(node: exp.Unnest, names: list[str]) -> list[str]:
    """The columns' names as the alias lists them (sqlglot keeps a last name after WITH
    ORDINALITY apart, as ``offset``)."""
    alias, offset = node.args.get("alias"), node.args.get("offset")
    listed = [c.name for c in alias.columns] if alias is not None and alias.columns else []
    if isinstance(offset, exp.Identifier):
        listed.append(offset.name)
    if not listed:
        return names
    if len(listed) != len(names):
        table = ", ".join(f"'{n}'" for n in names)
        raise SqlError(
            f"List of column aliases must have same degree as table; table has {len(names)} columns "
            f"({table}), whereas alias list has {len(listed)} columns"
        )
    return listed
