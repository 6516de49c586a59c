"""Which columns, and which fields of ROW columns, a columnar chain reads: the scan parses
only those (``planner/columnar.py``), an Arrow Calc after a shared scan computes only those
(``runtime/batch_calc.py``), and a scan shared by several consumers parses the union of theirs
(``planner.columnar_plan``)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from millstream.table.common.types import DataType
from millstream.table.expression import expression as e

__all__ = ["merge_fields", "needed_columns", "read_schemas"]


def needed_columns(
    steps: list[Any], top: list[str] | dict[str, set[str] | None]
) -> dict[str, set[str] | None]:
    """The source columns the chain reads, each with the fields of it read (None: the whole
    value; a ROW column passed through a projection and only read as ``bid.price`` above is
    read with that field alone). ``top``: the chain's output columns read (a list: whole; a
    dict: with the fields read of each, ``ColumnarScan.fields``)."""
    needed: dict[str, set[str] | None] = (
        dict.fromkeys(top)
        if isinstance(top, list)
        else {n: None if f is None else set(f) for n, f in top.items()}
    )
    for step in reversed(steps):
        below: dict[str, set[str] | None] = {} if step.kind == "project" else dict(needed)
        if step.kind == "project":
            step.live = [name in needed for name in step.names_out]
            for name, expression in zip(step.names_out, step.expressions, strict=True):
                if name not in needed:
                    continue
                inner = expression.operand if type(expression) is e._Alias else expression
                if type(inner) is e._Column:
                    merge_fields(below, inner.name, needed[name])
                else:
                    _references(expression, below, e)
        else:
            for expression in step.expressions:
                _references(expression, below, e)
            if step.rowtime is not None:
                merge_fields(below, step.names[step.rowtime], None)
        needed = below
    return needed


def merge_fields(paths: dict[str, set[str] | None], name: str, fields: set[str] | None) -> None:
    if name in paths and (paths[name] is None or fields is None):
        paths[name] = None
    elif name in paths:
        paths[name] = paths[name] | fields  # type: ignore[operator]
    else:
        paths[name] = None if fields is None else set(fields)


def _references(expression: Any, paths: dict[str, set[str] | None], e: Any) -> None:
    """Record into ``paths`` the columns ``expression`` reads, and the fields of a ROW column
    when only some are read (``person.name``)."""
    if type(expression) is e._FieldAccess and type(expression.operand) is e._Column:
        field_name = expression.field
        merge_fields(paths, expression.operand.name, {field_name} if isinstance(field_name, str) else None)
        return
    if type(expression) is e._Column:
        merge_fields(paths, expression.name, None)
        return
    for child in _children(expression):
        _references(child, paths, e)


def _children(expression: Any) -> list[Any]:
    found = []
    for attr in ("operand", "left", "right", "condition", "then", "otherwise"):
        child = getattr(expression, attr, None)
        if child is not None and hasattr(child, "resolve"):
            found.append(child)
    found.extend(getattr(expression, "operands", None) or [])
    found.extend(getattr(expression, "args", None) or [])
    return found


def read_schemas(physical: list[tuple[str, DataType]], needed: dict[str, set[str] | None]) -> tuple[Any, Any]:
    """The Arrow schema to parse (needed columns, ROW columns cut to the fields read) and the
    full one."""
    full = pa.schema([pa.field(n, t.to_arrow()) for n, t in physical])
    read = []
    for name, data_type in physical:
        if name not in needed:
            continue
        arrow = data_type.to_arrow()
        wanted = needed[name]
        if wanted is not None and pa.types.is_struct(arrow):
            arrow = pa.struct(
                [arrow.field(i) for i in range(arrow.num_fields) if arrow.field(i).name in wanted]
            )
        read.append(pa.field(name, arrow))
    return pa.schema(read), full
