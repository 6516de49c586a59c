"""Calls in expression trees: built-in functions by name, the Table API's methods that call
them (``col('s').upper_case``, ``.substring(1, 2)``), functions registered in the
TableEnvironment, and user-defined aggregate functions with their arguments."""

from __future__ import annotations

from typing import Any

from millstream.common.types import Row
from millstream.table.common.casts import converter
from millstream.table.common.types import DataType, DataTypes
from millstream.table.expression.expression import (
    Compiled,
    Expression,
)
from millstream.table.expression.resolved import common_type

__all__ = ["converts", "whole_row"]


class _WholeRow(Expression):
    """Every column as one Row with the columns' names (what a udaf given to ``aggregate``
    without arguments receives)."""

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        field_names = list(names)

        def whole(row: tuple[Any, ...]) -> Any:
            value = Row(*row)
            value.set_field_names(field_names)
            return value

        row_type = DataTypes.ROW([DataTypes.FIELD(n, t) for n, t in zip(names, types, strict=True)])
        return Compiled(whole, row_type, None)


def whole_row(names: list[str]) -> Expression:
    """The row of all columns ``names`` as one value."""
    return _WholeRow(names)


class _IfThenElse(Expression):
    def __init__(self, condition: Expression, then: Expression, otherwise: Expression) -> None:
        self.condition, self.then, self.otherwise = condition, then, otherwise

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        cond = self.condition.resolve(names, types).fn
        then, otherwise = self.then.resolve(names, types), self.otherwise.resolve(names, types)
        ft, fo = then.fn, otherwise.fn
        # the branches' common type (Flink's: CASE of DECIMAL(5, 2) and DECIMAL(10, 4) is a
        # DECIMAL(10, 4)), nullable when a branch is; a branch's value converted to it (CASE
        # ... THEN 1 ELSE 2.5 is DECIMAL(11, 1)); branches without one are refused, as Calcite
        result = common_type([then.data_type, otherwise.data_type])
        if result is None:
            raise TypeError("Illegal mixing of types in CASE or COALESCE statement")
        ft, fo = _in_type(ft, then.data_type, result), _in_type(fo, otherwise.data_type, result)
        return Compiled(lambda row: ft(row) if cond(row) else fo(row), result, None)

    def typed_as_branches(self, names: list[str], types: list[DataType]) -> bool:
        """Whether both branches' values are already the result's (none is converted)."""
        result = self.resolve(names, types).data_type
        branches = (self.then.resolve(names, types).data_type, self.otherwise.resolve(names, types).data_type)
        return not any(converts(t, result) for t in branches)


_TEXT = ("CHAR", "VARCHAR", "STRING")
_INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT")


def converts(source: DataType, target: DataType) -> bool:
    """Whether a value of ``source`` changes when cast to ``target`` (their common type): not
    from NULL or the same type, a string to a longer VARCHAR, an integer to a wider one."""
    if source.root == "NULL" or source.nullable() == target.nullable():
        return False
    if source.root in _TEXT and target.root in ("VARCHAR", "STRING"):
        return False
    return not (source.root in _INTEGERS and target.root in _INTEGERS)


def _in_type(fn: Any, source: DataType, target: DataType) -> Any:
    """``fn``'s value of ``source`` as the value of ``target``."""
    if not converts(source, target):
        return fn
    convert = converter(source.not_null(), target.not_null())
    return lambda row: None if (value := fn(row)) is None else convert(value)


class _Tuple(Expression):
    """The values of several expressions as one tuple (a user aggregate's arguments)."""

    def __init__(self, items: list[Expression]) -> None:
        self.items = items

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        compiled = [i.resolve(names, types) for i in self.items]
        fns = [c.fn for c in compiled]
        row_type = DataTypes.ROW([DataTypes.FIELD(f"f{i}", c.data_type) for i, c in enumerate(compiled)])
        return Compiled(lambda row: tuple([f(row) for f in fns]), row_type, None)
