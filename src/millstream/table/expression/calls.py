"""Calls in expression trees: built-in functions by name, the Table API's methods that call
them (``col('s').upper_case``, ``.substring(1, 2)``), functions registered in the
TableEnvironment, and user-defined aggregate functions with their arguments."""

from __future__ import annotations

import inspect
from typing import Any

from millstream.table.common.types import DataType, DataTypes, RowType
from millstream.table.expression.expression import (
    AggregateCall,
    Compiled,
    Expression,
    WindowProperty,
    _Logic,
    lit,
)
from millstream.table.expression.resolved import common_type, nullable_if_any

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
        from millstream.table.functions.udf import _UserAccumulator

        function = self.wrapper._function
        if hasattr(function, "with_types"):  # a pandas aggregate builds Series of the argument types
            types = operand_type.field_types() if isinstance(operand_type, RowType) else []
            function = function.with_types(types)
        result = self.wrapper.result_type
        accumulator = _UserAccumulator(
            function, result.field_names() if isinstance(result, RowType) else None
        )
        if self.where is not None:  # the rows the condition leaves out arrive as SKIP
            from millstream.table.functions.aggregates import _Filtered

            return _Filtered(accumulator)  # type: ignore[arg-type]
        return accumulator

    def result_type(self, operand_type: DataType) -> DataType:
        return self.wrapper.result_type


def _builtin(name: str, *args: Any) -> Expression:
    """The built-in function ``name`` applied to ``args`` (``functions/builtins.py``, imported when first
    used: it imports this module, so a module-level import would make a cycle)."""
    from millstream.table.functions.builtins import call_builtin

    return call_builtin(name, *args)


# Table API methods: name -> built-in function (the expression is the first argument); the ones
# in _PROPERTIES are properties in PyFlink (``col('s').upper_case``), the others methods with
# PyFlink's parameters (_PARAMETERS: name, and whether it may be left out).
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
    "round": "ROUND",
    "sign": "SIGN",
    "if_null": "IFNULL",
    "null_if": "NULLIF",
}
_PROPERTIES = {"upper_case", "lower_case", "char_length", "init_cap", "reverse", "abs", "sqrt", "ln",
               "log10", "exp", "sign"}  # fmt: skip
_TRIM = (("character", True),)
_PARAMETERS: dict[str, tuple[tuple[str, bool], ...]] = {
    "trim": _TRIM,
    "trim_leading": _TRIM,
    "trim_trailing": _TRIM,
    "ltrim": (("trim_str", True),),
    "rtrim": (("trim_str", True),),
    "substring": (("begin_index", False), ("length", True)),
    "substr": (("begin_index", False), ("length", True)),
    "replace": (("search", True), ("replacement", True)),
    "like": (("pattern", True), ("escape", True)),
    "repeat": (("n", False),),
    "lpad": (("length", False), ("pad", False)),
    "rpad": (("length", False), ("pad", False)),
    "regexp_replace": (("regex", False), ("replacement", False)),
    "round": (("places", False),),
    "if_null": (("null_replacement", False),),
    "power": (("other", False),),
    "null_if": (("other", False),),
}


def _method(function: str, parameters: tuple[tuple[str, bool], ...]) -> Any:
    """The Table API method calling ``function`` with PyFlink's parameters (by position or by
    name); an optional one left out (None) is not passed."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    signature = inspect.Signature(
        [inspect.Parameter("self", kind)]
        + [
            inspect.Parameter(n, kind, default=None if optional else inspect.Parameter.empty)
            for n, optional in parameters
        ]
    )

    def method(self: Expression, *args: Any, **kwargs: Any) -> Expression:
        bound = signature.bind(self, *args, **kwargs).arguments
        values = [bound.get(n) for n, optional in parameters if not optional or bound.get(n) is not None]
        return _builtin(function, self, *values)

    method.__signature__ = signature  # type: ignore[attr-defined]
    method.__doc__ = f"{function}(this, {', '.join(n for n, _ in parameters)})"
    return method


def _install_methods() -> None:
    for method, function in _METHODS.items():
        if method in _PROPERTIES:

            def prop(self: Expression, _function: str = function) -> Expression:
                return _builtin(_function, self)

            setattr(Expression, method, property(prop, doc=f"{function}(this)"))
        else:
            setattr(Expression, method, _method(function, _PARAMETERS[method]))
    for name, value in _OTHER_METHODS.items():
        setattr(Expression, name, value)


def _in(self: Expression, first_element_or_table: Any, *remaining_elements: Any) -> Expression:
    """TRUE if the value is one of the elements."""
    if hasattr(first_element_or_table, "_plan"):
        raise ValueError(
            "in_ with a Table (a sub-query) is not supported in the Table API: use SQL's IN (SELECT ...)"
        )
    return _Logic("OR", [self == v for v in (first_element_or_table, *remaining_elements)])


def _between(self: Expression, lower_bound: Any, upper_bound: Any) -> Expression:
    """``lower_bound <= this <= upper_bound``."""
    return (self >= lower_bound) & (self <= upper_bound)


def _not_between(self: Expression, lower_bound: Any, upper_bound: Any) -> Expression:
    """NOT ``lower_bound <= this <= upper_bound``."""
    return (self < lower_bound) | (self > upper_bound)


def _rounding(function: str) -> Any:
    def rounded(self: Expression, time_interval_unit: Any = None) -> Expression:
        if time_interval_unit is None:
            return _builtin(function, self)
        unit = getattr(time_interval_unit, "name", time_interval_unit)  # a TimeIntervalUnit, or its name
        return _builtin(f"{function}_TO", self, lit(str(unit).upper()))

    rounded.__doc__ = f"{function}(this), or {function}(this TO time_interval_unit) of a date or time."
    return rounded


def _json_value(
    self: Expression,
    path: str,
    returning_type: DataType | None = None,
    on_empty: Any = None,
    default_on_empty: Any = None,
    on_error: Any = None,
    default_on_error: Any = None,
) -> Expression:
    """The scalar at JSON ``path`` (``$.a.b[0]``) of this JSON text, as ``returning_type``
    (STRING by default); NULL when the path is missing, the text is not JSON or the value does
    not convert (Flink's NULL ON EMPTY / NULL ON ERROR, the only behaviours here)."""
    for what, choice in (("on_empty", on_empty), ("on_error", on_error)):
        if choice is not None and getattr(choice, "name", choice) != "NULL":
            raise ValueError(
                f"json_value({what}={getattr(choice, 'name', choice)}) is not supported: only NULL"
            )
    result = _builtin("JSON_VALUE", self, lit(path))
    return result.try_cast(returning_type) if returning_type is not None else result


_OTHER_METHODS = {
    "in_": _in,
    "between": _between,
    "not_between": _not_between,
    "ceil": _rounding("CEIL"),
    "floor": _rounding("FLOOR"),
    "json_value": _json_value,
}

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
        from millstream.table.functions.udf import registered_function

        return registered_function(self.function_name)(*self.args).resolve(names, types)


class _IfThenElse(Expression):
    def __init__(self, condition: Expression, then: Expression, otherwise: Expression) -> None:
        self.condition, self.then, self.otherwise = condition, then, otherwise

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        cond = self.condition.resolve(names, types).fn
        then, otherwise = self.then.resolve(names, types), self.otherwise.resolve(names, types)
        ft, fo = then.fn, otherwise.fn
        # the branches' common type (Flink's: CASE of DECIMAL(5, 2) and DECIMAL(10, 4) is a
        # DECIMAL(10, 4)), nullable when a branch is
        result = common_type([then.data_type, otherwise.data_type])
        if result is None:
            typed = then.data_type if then.data_type.root != "NULL" else otherwise.data_type
            result = nullable_if_any(typed, then.data_type, otherwise.data_type)
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
