"""The Table API's methods of expressions that call built-in functions, as PyFlink's
``Expression`` has them (``col('s').upper_case``, ``.substring(1, 2)``, ``.between(a, b)``,
``.list_agg(',')`` ...): Flink's ``BaseExpressions``, in the API over the built-in function
definitions. ``install_methods`` gives ``Expression`` these methods; the expression DSL
(``api/expressions.py``) calls it when imported, so every expression a program builds has them.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

from millstream.table.common.types import DataType, DataTypes
from millstream.table.expression.expression import AggregateCall, Expression, _Logic, lit
from millstream.table.functions.aggregates_more import LISTAGG
from millstream.table.functions.builtins import call_builtin

__all__ = ["install_methods"]


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
        return call_builtin(function, self, *values)

    method.__signature__ = signature  # type: ignore[attr-defined]
    method.__doc__ = f"{function}(this, {', '.join(n for n, _ in parameters)})"
    return method


def install_methods() -> None:
    """Give ``Expression`` the Table API's methods that call built-in functions."""
    for method, function in _METHODS.items():
        if method in _PROPERTIES:

            def prop(self: Expression, _function: str = function) -> Expression:
                return call_builtin(_function, self)

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
            return call_builtin(function, self)
        unit = getattr(time_interval_unit, "name", time_interval_unit)  # a TimeIntervalUnit, or its name
        return call_builtin(f"{function}_TO", self, lit(str(unit).upper()))

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
    result = call_builtin("JSON_VALUE", self, lit(path))
    return result.try_cast(returning_type) if returning_type is not None else result


def _list_agg(self: Expression, separator: str | None = None) -> Expression:
    """The non-NULL values joined by ``separator`` (``,`` by default)."""
    return AggregateCall(LISTAGG + json.dumps("," if separator is None else separator), self)


def _cast_to(data_type: DataType, doc: str) -> Any:
    """A property of an expression: the value cast to ``data_type`` (Flink's ``toDate`` ...)."""
    return property(lambda self: self.cast(data_type), doc=doc)


_OTHER_METHODS = {
    "to_date": _cast_to(DataTypes.DATE(), "The ``yyyy-MM-dd`` text as a DATE (``cast(DataTypes.DATE())``)."),
    "to_time": _cast_to(DataTypes.TIME(), "The ``HH:mm:ss`` text as a TIME (``cast(DataTypes.TIME())``)."),
    "to_timestamp": _cast_to(
        DataTypes.TIMESTAMP(3),
        "The ``yyyy-MM-dd HH:mm:ss[.SSS]`` text as a TIMESTAMP(3) (``cast(DataTypes.TIMESTAMP(3))``).",
    ),
    "list_agg": _list_agg,
    "in_": _in,
    "between": _between,
    "not_between": _not_between,
    "ceil": _rounding("CEIL"),
    "floor": _rounding("FLOOR"),
    "json_value": _json_value,
}
