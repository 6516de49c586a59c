"""Calls in expression trees: built-in functions by name, the Table API's methods that call
them (``col('s').upper_case``, ``.substring(1, 2)``), functions registered in the
TableEnvironment, and user-defined aggregate functions with their arguments."""

from __future__ import annotations

from typing import Any

from millstream.table.expression import (
    AggregateCall,
    Compiled,
    Expression,
    WindowProperty,
    _Logic,
)
from millstream.table.types import DataType, DataTypes, RowType

__all__ = ["UserAggregateCall", "whole_row"]


class _WholeRow(Expression):
    """Every column as one Row with the columns' names (what a udaf given to ``aggregate``
    without arguments receives)."""

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        from millstream.common.types import Row

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


class UserAggregateCall(AggregateCall):
    """A call of a user-defined aggregate function (``udaf``) on argument expressions."""

    def __init__(self, wrapper: Any, args: list[Expression], where: Expression | None = None) -> None:
        super().__init__(wrapper._name, _Tuple(args), where=where)
        self.wrapper = wrapper

    def filtered(self, where: Expression) -> UserAggregateCall:
        """This call with a ``FILTER (WHERE where)`` condition."""
        assert self.where is None
        return UserAggregateCall(self.wrapper, list(self.operand.items), where)  # type: ignore[attr-defined]

    def accumulator_spec(self, operand_type: DataType) -> Any:
        from millstream.table.udf import _UserAccumulator

        function = self.wrapper._function
        if hasattr(function, "with_types"):  # a pandas aggregate builds Series of the argument types
            types = operand_type.field_types() if isinstance(operand_type, RowType) else []
            function = function.with_types(types)
        result = self.wrapper.result_type
        accumulator = _UserAccumulator(
            function, result.field_names() if isinstance(result, RowType) else None
        )
        if self.where is not None:  # the rows the condition leaves out arrive as SKIP
            from millstream.table.aggregates import _Filtered

            return _Filtered(accumulator)  # type: ignore[arg-type]
        return accumulator

    def result_type(self, operand_type: DataType) -> DataType:
        return self.wrapper.result_type


def _builtin(name: str, *args: Any) -> Expression:
    """The built-in function ``name`` applied to ``args`` (``functions.py``, imported when first
    used: it imports this module, so a module-level import would make a cycle)."""
    from millstream.table.functions import call_builtin

    return call_builtin(name, *args)


# Table API methods: name -> built-in function (the expression is the first argument); the ones
# in _PROPERTIES are properties in PyFlink (``col('s').upper_case``), the others methods.
_METHODS = {
    "upper_case": "UPPER",
    "lower_case": "LOWER",
    "trim": "TRIM",
    "ltrim": "LTRIM",
    "rtrim": "RTRIM",
    "trim_leading": "LTRIM",
    "trim_trailing": "RTRIM",
    "char_length": "CHAR_LENGTH",
    "substring": "SUBSTRING",
    "substr": "SUBSTRING",
    "replace": "REPLACE",
    "like": "LIKE",
    "init_cap": "INITCAP",
    "reverse": "REVERSE",
    "repeat": "REPEAT",
    "lpad": "LPAD",
    "rpad": "RPAD",
    "regexp_replace": "REGEXP_REPLACE",
    "abs": "ABS",
    "power": "POWER",
    "sqrt": "SQRT",
    "ln": "LN",
    "log10": "LOG10",
    "exp": "EXP",
    "floor": "FLOOR",
    "ceil": "CEIL",
    "round": "ROUND",
    "sign": "SIGN",
    "if_null": "IFNULL",
    "null_if": "NULLIF",
}
_PROPERTIES = {"upper_case", "lower_case", "char_length", "init_cap", "reverse", "abs", "sqrt", "ln",
               "log10", "exp", "floor", "ceil", "sign"}  # fmt: skip


def _install_methods() -> None:
    for method, function in _METHODS.items():
        if method in _PROPERTIES:

            def prop(self: Expression, _function: str = function) -> Expression:
                return _builtin(_function, self)

            setattr(Expression, method, property(prop, doc=f"{function}(this)"))
        else:

            def meth(self: Expression, *args: Any, _function: str = function) -> Expression:
                return _builtin(_function, self, *args)

            meth.__doc__ = f"{function}(this, args...)"
            setattr(Expression, method, meth)

    def in_(self: Expression, *values: Any) -> Expression:
        """TRUE if the value is one of ``values``."""
        return _Logic("OR", [self == v for v in values])

    def between(self: Expression, lower: Any, upper: Any) -> Expression:
        """``lower <= this <= upper``."""
        return (self >= lower) & (self <= upper)

    def not_between(self: Expression, lower: Any, upper: Any) -> Expression:
        """NOT ``lower <= this <= upper``."""
        return (self < lower) | (self > upper)

    Expression.in_ = in_  # type: ignore[attr-defined]
    Expression.between = between  # type: ignore[attr-defined]
    Expression.not_between = not_between  # type: ignore[attr-defined]


_install_methods()


class _NamedCall(Expression):
    """A call of a function registered in the TableEnvironment (resolved when planned)."""

    def __init__(self, name: str, args: list[Expression]) -> None:
        self.function_name, self.args = name, args

    def aggregates(self) -> list[AggregateCall]:
        return [a for arg in self.args for a in arg.aggregates()]

    def window_properties(self) -> list[WindowProperty]:
        return [p for arg in self.args for p in arg.window_properties()]

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        from millstream.table.udf import registered_function

        return registered_function(self.function_name)(*self.args).resolve(names, types)


class _IfThenElse(Expression):
    def __init__(self, condition: Expression, then: Expression, otherwise: Expression) -> None:
        self.condition, self.then, self.otherwise = condition, then, otherwise

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        cond = self.condition.resolve(names, types).fn
        then, otherwise = self.then.resolve(names, types), self.otherwise.resolve(names, types)
        ft, fo = then.fn, otherwise.fn
        result = then.data_type if then.data_type.root != "NULL" else otherwise.data_type
        return Compiled(lambda row: ft(row) if cond(row) else fo(row), result, None)


class _Tuple(Expression):
    """The values of several expressions as one tuple (a user aggregate's arguments)."""

    def __init__(self, items: list[Expression]) -> None:
        self.items = items

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        compiled = [i.resolve(names, types) for i in self.items]
        fns = [c.fn for c in compiled]
        row_type = DataTypes.ROW([DataTypes.FIELD(f"f{i}", c.data_type) for i, c in enumerate(compiled)])
        return Compiled(lambda row: tuple([f(row) for f in fns]), row_type, None)
