"""Flink's built-in scalar functions, for the Table API (``col('s').upper_case``,
``concat(...)``, ``call('UPPER', ...)``) and SQL (``UPPER(s)``) alike.

Each function is one ``FunctionDefinition`` (``functions/definition.py``): a Python
implementation over plain values, a rule for its result type and, where they give the same
results, kernels over Arrow columns and Spark Columns. ``BUILTIN_FUNCTIONS`` holds them all
(with ``builtin_scalars.py`` and ``builtin_more.py``); the generated row code, the Arrow Calc
and the Spark SQL translation all look functions up there. Unless a function is marked
NULL-aware (COALESCE, IFNULL, CONCAT_WS ...), a NULL argument gives a NULL result without
calling it, as SQL's functions do.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from millstream.table.common.intervals import DAY_TIME, YEAR_MONTH
from millstream.table.common.printing import summary_string
from millstream.table.common.types import DataType, DataTypes
from millstream.table.expression.comparisons import comparison
from millstream.table.expression.expression import Expression, _Literal, _wrap
from millstream.table.expression.resolved import Compiled, common_type, in_width, nullable_if_any
from millstream.table.functions.array_functions import COLLECTIONS
from millstream.table.functions.bitmaps import BITMAPS
from millstream.table.functions.builtin_more import MORE
from millstream.table.functions.builtin_scalars import SCALARS, STATEFUL, STATEFUL_TYPES, converted
from millstream.table.functions.definition import (
    INTEGRAL,
    NOT_LITERAL,
    NUMBERS,
    FunctionDefinition,
    TypeRule,
    arrow_kernel,
    java_pow,
    math_function,
    spark_kernel,
)
from millstream.table.functions.json_functions import JSON_FUNCTIONS
from millstream.table.functions.like import like
from millstream.table.functions.query_time import QUERY_LEVEL, QueryClock
from millstream.table.functions.strings import STRINGS, checked
from millstream.table.functions.temporal import TEMPORAL
from millstream.table.functions.variants import VARIANTS

__all__ = ["BUILTIN_FUNCTIONS", "builtin_definition", "call_builtin", "is_builtin"]


def _string(args: list[DataType]) -> DataType:
    return nullable_if_any(DataTypes.STRING(), *args)


def _same_as_first(args: list[DataType]) -> DataType:
    return args[0]


_NUMERIC = tuple(NUMBERS | {"DECIMAL", "FLOAT"})  # Calcite's NUMERIC family


def _numeric(name: str) -> TypeRule:
    """A math function's DOUBLE result, its argument refused unless a number (Calcite's
    ``'SQRT(<NUMERIC>)'``)."""
    return checked(name, (_NUMERIC,), f"'{name}(<NUMERIC>)'", _double)


def _abs_type(args: list[DataType]) -> DataType:
    """ABS of a number; of an interval Flink's code generation refuses the call."""
    if args[0].root in (YEAR_MONTH, DAY_TIME):
        raise ValueError(f"Unsupported call: ABS({summary_string(args[0])}) ")
    return args[0]


def _double(args: list[DataType]) -> DataType:
    return nullable_if_any(DataTypes.DOUBLE(), *args)


def _boolean(args: list[DataType]) -> DataType:
    return nullable_if_any(DataTypes.BOOLEAN(), *args)


def _first_non_null(args: list[DataType]) -> DataType:
    """COALESCE's type: its arguments' common type (refused without one, as Flink's: COALESCE(1,
    'a') is "Invalid input arguments."), NOT NULL when an argument is."""
    typed = [a for a in args if a.root != "NULL"]
    result = common_type(typed) if typed else DataTypes.NULL()
    if result is None:
        raise TypeError("Invalid input arguments.")
    return result.not_null() if any(not a.is_nullable() for a in typed) else result.nullable()


def _coalesce(args: list[DataType], literals: list[Any]) -> Callable[..., Any]:
    """COALESCE's row implementation: the first non-NULL argument, in the common type."""
    common = _first_non_null(args)
    conversions = [converted(a, common) for a in args]

    def coalesce(*values: Any) -> Any:
        for convert, value in zip(conversions, values, strict=True):
            if value is not None:
                return convert(value)
        return None

    return coalesce


def _if_null(args: list[DataType]) -> DataType:
    """IFNULL(a, b), as Flink's IfNullTypeStrategy: ``a``'s type when it is NOT NULL
    (IFNULL('a', 'bbb') is CHAR(1)), else the common type, as nullable as ``b``
    (IFNULL(NULL INT, 1.5e0) is DOUBLE NOT NULL)."""
    if not args[0].is_nullable():
        return args[0]
    common = common_type(list(args)) or args[1]
    return common.nullable() if args[1].is_nullable() else common.not_null()


def _common(args: list[DataType]) -> DataType:
    """GREATEST / LEAST's type: the arguments' common type, as Flink's; arguments that do not
    compare are refused with Flink's message."""
    common = common_type(args)
    if common is None:
        first = args[0]
        other = next(a for a in args[1:] if common_type([first, a]) is None)
        raise TypeError(
            "All types in a comparison should support both 'EQUALS' and 'ORDER' comparison with each "
            f"other. Can not compare {summary_string(first)} with {summary_string(other)}"
        )
    return common


def _java_order(value: Any) -> Any:
    """The order Java's ``Double.compare`` gives a number: NaN above all, -0.0 below 0.0."""
    if isinstance(value, float):
        return (value != value, value, math.copysign(1.0, value))
    return (False, value, 1.0)


def _extreme_implementation(
    pick: Callable[..., Any],
) -> Callable[[list[DataType], list[Any]], Callable[..., Any]]:
    """GREATEST / LEAST over the arguments in their common type, ordered as Java compares
    (LEAST(NaN, 1.0) is 1.0, as PyFlink 2.3.0 gives it); NULL when any is NULL."""

    def bind(args: list[DataType], literals: list[Any]) -> Callable[..., Any]:
        common = _common(args)
        conversions = [converted(a, common) for a in args]

        def extreme(*values: Any) -> Any:
            return pick((c(v) for c, v in zip(conversions, values, strict=True)), key=_java_order)

        return extreme

    return bind


def _mod(a: Any, b: Any) -> Any:
    """Java's ``%``: the remainder takes the dividend's sign; exact for integers of any size
    (``a - b * int(a / b)`` went through a float)."""
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            raise ZeroDivisionError("/ by zero")
        remainder = abs(a) % abs(b)
        return -remainder if a < 0 else remainder
    return math.fmod(a, b)


def _round(value: Any, digits: int = 0) -> Any:
    if isinstance(value, float):
        if not math.isfinite(value):  # Flink rounds a double through a BigDecimal, which has none
            first = "N" if value != value else "I"  # of Java's NaN / Infinity
            raise ValueError(
                f"Character {first} is neither a decimal digit number, decimal point, nor "
                '"e" notation exponential mark.'
            )
        quantum = decimal.Decimal(1).scaleb(-digits)  # (Java's BigDecimal has no negative zero)
        return float(decimal.Decimal(repr(value)).quantize(quantum, rounding=decimal.ROUND_HALF_UP)) + 0.0
    if isinstance(value, decimal.Decimal):
        return value.quantize(decimal.Decimal(1).scaleb(-digits), rounding=decimal.ROUND_HALF_UP)
    if digits >= 0:
        return value
    factor = 10 ** (-digits)
    return int(decimal.Decimal(value / factor).quantize(1, rounding=decimal.ROUND_HALF_UP)) * factor


def _round_type(first: DataType, places: int | None) -> DataType:
    """ROUND's type: a DECIMAL(p, s) rounded to r < s places is DECIMAL(1 + p - s + r, r), as
    Flink's ``findRoundDecimalType`` (``places``: the literal number of places)."""
    if first.root != "DECIMAL":
        return first
    precision, scale = int(first.params[0]), int(first.params[1])
    if places is None or places >= scale:
        return first
    if places < 0:
        return nullable_if_any(DataTypes.DECIMAL(min(38, 1 + precision - scale), 0), first)
    return nullable_if_any(DataTypes.DECIMAL(1 + precision - scale + places, places), first)


def _mod_arrow(a: Any, b: Any) -> Any:
    """Java's ``%`` of integers on Arrow (division truncates toward zero, so the remainder
    takes the dividend's sign)."""
    return pc.subtract(a, pc.multiply(pc.divide(a, b), b))


def _power_arrow(a: Any, b: Any) -> Any:
    return pc.power(pc.cast(a, pa.float64()), pc.cast(b, pa.float64()))


def _element_wise_arrow(name: str) -> Callable[..., Any]:
    """GREATEST / LEAST on Arrow: NULL when any argument is NULL, as Flink's."""

    def kernel(first: Any, second: Any, *rest: Any) -> Any:
        return getattr(pc, name)(first, second, *rest, skip_nulls=False)

    return kernel


def _extreme(name: str, python: Callable[..., Any], arrow_name: str, spark_name: str) -> FunctionDefinition:
    """GREATEST / LEAST: NULL when any argument is NULL. On Arrow for integers only: Arrow
    orders NaN and -0.0 unlike Java's ``>``, which keeps the first of them, as ``max`` does."""
    return FunctionDefinition(
        name,
        python,
        _common,
        arrow=_element_wise_arrow(arrow_name),
        arrow_args=INTEGRAL,
        spark=_null_if_any_null_spark(spark_name),
        bind=_extreme_implementation(python),
    )


def _null_if_any_null_spark(name: str) -> Callable[..., Any]:
    """GREATEST / LEAST on Spark, whose own skip NULL arguments: NULL when any is NULL."""

    def kernel(first: Any, second: Any, *rest: Any) -> Any:
        # pyspark is optional (the [spark] extra): imported when the Spark runner runs this kernel
        from pyspark.sql import functions as F

        any_null = first.isNull() | second.isNull()
        for column in rest:
            any_null = any_null | column.isNull()
        return F.when(any_null, F.lit(None)).otherwise(getattr(F, name)(first, second, *rest))

    return kernel


def _logarithm_spark(name: str) -> Callable[[Any], Any]:
    """LN / LOG10 on Spark, whose own give NULL at and below 0: Java's -Infinity and NaN."""

    def kernel(column: Any) -> Any:
        # pyspark is optional (the [spark] extra): imported when the Spark runner runs this kernel
        from pyspark.sql import functions as F

        return (
            F.when(column == 0, F.lit(float("-inf")))
            .when(column < 0, F.lit(float("nan")))
            .otherwise(getattr(F, name)(column))
        )

    return kernel


def _distinct_from(name: str, negated: bool) -> FunctionDefinition:
    """``a IS [NOT] DISTINCT FROM b``: NULL is not distinct from NULL, never NULL; two values
    compared as the orderings compare them (a FLOAT and a DOUBLE as doubles: CAST(0.1 AS
    FLOAT) IS DISTINCT FROM CAST(0.1 AS DOUBLE) is TRUE, as PyFlink 2.3.0 gives it); types
    that do not compare are refused while planning, as ``=`` refuses them."""

    def bind(args: list[DataType], literals: list[Any]) -> Callable[[Any, Any], bool]:
        unequal = comparison("<>", args[0], args[1], name, promoted=True)

        def distinct(a: Any, b: Any) -> bool:
            if a is None or b is None:
                return (a is None) is not (b is None) if not negated else (a is None) is (b is None)
            return bool(unequal(a, b)) is not negated

        return distinct

    def result(args: list[DataType]) -> DataType:
        comparison("<>", args[0], args[1], name)  # refuses what does not compare
        return DataTypes.BOOLEAN(False)

    return FunctionDefinition(name, bind([DataTypes.NULL()] * 2, []), result, null_aware=True, bind=bind)


_DEFINITIONS = [
    FunctionDefinition("LIKE", like, _boolean),  # x LIKE p [ESCAPE c]
    _distinct_from("IS DISTINCT FROM", False),
    _distinct_from("IS NOT DISTINCT FROM", True),
    FunctionDefinition(
        "ABS",
        abs,
        checked("ABS", (_NUMERIC + (YEAR_MONTH, DAY_TIME),), "'ABS(<NUMERIC>)'", _abs_type),
        arrow=arrow_kernel("abs"),
        arrow_args=NUMBERS | {"DECIMAL"},
        spark=spark_kernel("abs"),
    ),
    FunctionDefinition("MOD", _mod, lambda args: args[1], arrow=_mod_arrow, arrow_args=INTEGRAL),
    FunctionDefinition(
        "POWER",
        java_pow,
        checked("POWER", (_NUMERIC,), "'POWER(<NUMERIC>, <NUMERIC>)'", _double),
        arrow=_power_arrow,
        arrow_args=NUMBERS | {"DECIMAL"},
        spark=spark_kernel("pow"),
    ),
    math_function("SQRT", math.sqrt, "sqrt", "sqrt", _numeric("SQRT"), spark=spark_kernel("sqrt")),
    math_function("LN", math.log, "log", "ln", _numeric("LN"), spark=_logarithm_spark("log")),
    math_function("LOG10", math.log10, "log10", "log10", _numeric("LOG10"), spark=_logarithm_spark("log10")),
    math_function("EXP", math.exp, "exp", "exp", _numeric("EXP"), spark=spark_kernel("exp")),
    FunctionDefinition(
        "ROUND",
        _round,
        checked("ROUND", (_NUMERIC, tuple(INTEGRAL)), "'ROUND(<NUMERIC>, <INTEGER>)'", _same_as_first),
    ),  # DECIMAL: _round_type (needs the literal places)
    FunctionDefinition(
        "COALESCE",
        lambda *vs: next((v for v in vs if v is not None), None),
        _first_non_null,
        null_aware=True,
        spark=spark_kernel("coalesce"),
        bind=_coalesce,
    ),
    FunctionDefinition("IFNULL", lambda a, b: b if a is None else a, _if_null, null_aware=True),
    FunctionDefinition(
        "NULLIF", lambda a, b: None if a == b else a, lambda args: args[0].nullable(), null_aware=True
    ),
    _extreme("GREATEST", max, "max_element_wise", "greatest"),
    _extreme("LEAST", min, "min_element_wise", "least"),
    FunctionDefinition(
        "DATE_FORMAT_PY", lambda v, fmt: v.strftime(fmt), _string
    ),  # SQL's, format already strftime
    *SCALARS,
    *BITMAPS,
    *VARIANTS,
    *MORE,
    *TEMPORAL,
    *STRINGS,
    *JSON_FUNCTIONS,
    *COLLECTIONS,
]

BUILTIN_FUNCTIONS: Mapping[str, FunctionDefinition] = MappingProxyType({d.name: d for d in _DEFINITIONS})

# SQL spellings of the same functions
_ALIASES = {
    "CHARACTER_LENGTH": "CHAR_LENGTH",
    "CEILING": "CEIL",
    "SUBSTR": "SUBSTRING",
    "UPPER_CASE": "UPPER",
    "LOWER_CASE": "LOWER",
    "POW": "POWER",
    "LCASE": "LOWER",
    "UCASE": "UPPER",
}


def is_builtin(name: str) -> bool:
    """Whether ``name`` (any case) is a built-in scalar function."""
    upper = name.upper()
    return _ALIASES.get(upper, upper) in BUILTIN_FUNCTIONS or upper in STATEFUL


def builtin_definition(name: str) -> FunctionDefinition | None:
    """The definition of the built-in scalar function ``name`` (any case or SQL spelling)."""
    upper = name.upper()
    return BUILTIN_FUNCTIONS.get(_ALIASES.get(upper, upper))


class _Call(Expression):
    """A built-in function applied to argument expressions. ``clock``: the clock a query-level
    time function reads (``functions/query_time.py``; None for the other functions)."""

    def __init__(self, name: str, args: list[Expression]) -> None:
        upper = name.upper()
        self.name_, self.args = _ALIASES.get(upper, upper), args
        self.clock = QueryClock() if self.name_ in QUERY_LEVEL and not args else None

    def aggregates(self) -> list[Any]:
        return [a for arg in self.args for a in arg.aggregates()]

    def window_properties(self) -> list[Any]:
        return [p for arg in self.args for p in arg.window_properties()]

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        spec = BUILTIN_FUNCTIONS.get(self.name_)
        if spec is None and self.name_ in STATEFUL:  # a generator of its own per call site
            spec = FunctionDefinition(self.name_, STATEFUL[self.name_](), STATEFUL_TYPES[self.name_])
        if spec is None:
            raise ValueError(f"No match found for function signature {self.name_}()")
        compiled = [a.resolve(names, types) for a in self.args]
        fns = [c.fn for c in compiled]
        literals = [a.value if isinstance(a, _Literal) else NOT_LITERAL for a in self.args]
        result_type = spec.result_type([c.data_type for c in compiled], literals)
        impl = spec.implementation([c.data_type for c in compiled], literals)
        if self.name_ in ("ROUND", "TRUNCATE"):  # NULL places make it NULL (nullable)
            places = getattr(self.args[1], "value", None) if len(self.args) > 1 else 0
            rounded = _round_type(compiled[0].data_type, places if isinstance(places, int) else None)
            result_type = nullable_if_any(rounded, *(c.data_type for c in compiled))
        impl = in_width(impl, result_type.root)  # an integer in its type's width, as Java's
        if self.clock is not None:  # the query's start in BATCH mode, else the clock per record
            clock, value_at = self.clock, QUERY_LEVEL[self.name_]
            return Compiled(lambda row: value_at(clock.now()), result_type, None)
        if spec.null_aware:

            def apply(row: tuple[Any, ...]) -> Any:
                return impl(*[f(row) for f in fns])

        else:

            def apply(row: tuple[Any, ...]) -> Any:
                values = [f(row) for f in fns]
                if None in values:
                    return None
                return impl(*values)

        return Compiled(apply, result_type, None)

    def __repr__(self) -> str:
        return f"{self.name_}({', '.join(map(repr, self.args))})"


def call_builtin(name: str, *args: Any) -> Expression:
    """The built-in function ``name`` applied to ``args`` (expressions or literals)."""
    return _Call(name, [_wrap(a) for a in args])
