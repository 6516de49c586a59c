"""One definition per built-in scalar function, read by every evaluator (Flink's
``BuiltInFunctionDefinition``).

A ``FunctionDefinition`` holds a function's row implementation (over plain Python values: the
generated row code and the expression closures call it), its result type rule, and, where
one exists with the same results, a kernel over whole Arrow columns (the Arrow Calc) and one
over Spark Columns (the Spark SQL translation). A function without a kernel still runs on
every path: the Arrow Calc leaves the expression to the row code, Spark to a Python UDF.
Keeping the kernels beside the row implementation is what keeps them equal: the unit tests
compare each kernel with ``impl`` value by value, NULLs and edge values included.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from millstream.table.common.types import DataType

__all__ = [
    "INTEGRAL",
    "NOT_LITERAL",
    "NUMBERS",
    "TEXT",
    "FunctionDefinition",
    "LiteralTypeRule",
    "TypeRule",
    "arrow_double_kernel",
    "arrow_kernel",
    "ieee",
    "java_pow",
    "math_function",
    "spark_kernel",
]

TypeRule = Callable[[list[DataType]], DataType]
# a result type rule that also reads the literal arguments' values (NOT_LITERAL for the others):
# a unit or a precision that decides the type, or whether Flink refuses the call while planning
LiteralTypeRule = Callable[[list[DataType], list[Any]], DataType]
NOT_LITERAL: Any = type("NotLiteral", (), {"__repr__": lambda self: "NOT_LITERAL"})()

TEXT = frozenset({"STRING", "VARCHAR", "CHAR"})
INTEGRAL = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT"})
NUMBERS = INTEGRAL | {"DOUBLE"}  # FLOAT: Arrow's float32 arithmetic is not the row path's float


@dataclass(frozen=True)
class FunctionDefinition:
    """A built-in scalar function: its name, row implementation, result type and kernels.

    Unless ``null_aware``, a NULL argument gives NULL without calling ``impl`` (SQL's rule);
    the kernels follow the same rule by themselves. ``arrow`` takes and returns Arrow arrays
    (or scalars, for literals) and applies to arguments whose type roots are in
    ``arrow_args``; ``spark`` takes and returns ``pyspark.sql.Column``s. ``literal_result``,
    when given, decides the result type instead of ``result`` with the literal arguments' values
    at hand; ``bind``, when given, makes the row implementation from the arguments' types and
    literal values (``implementation``).
    """

    name: str
    impl: Callable[..., Any]
    result: TypeRule
    null_aware: bool = False
    arrow: Callable[..., Any] | None = None
    arrow_args: frozenset[str] = TEXT
    spark: Callable[..., Any] | None = None
    literal_result: LiteralTypeRule | None = None
    bind: Callable[[list[DataType], list[Any]], Callable[..., Any]] | None = None

    def implementation(self, args: list[DataType], literals: list[Any]) -> Callable[..., Any]:
        """The row implementation for a call with these argument types and literal values:
        ``impl``, or what ``bind`` makes of them (a function whose conversions follow its
        arguments' types, as JSON_STRING's of a ROW or a TIMESTAMP_LTZ)."""
        return self.impl if self.bind is None else self.bind(args, literals)

    def result_type(self, args: list[DataType], literals: list[Any]) -> DataType:
        """The call's result type from its arguments' types and literal values (``NOT_LITERAL``
        for an argument that is not a literal); raises ValueError where Flink refuses the call."""
        if self.literal_result is not None:
            return self.literal_result(args, literals)
        return self.result(args)

    def arrow_applies(self, roots: list[str]) -> bool:
        """Whether the Arrow kernel computes this call (its argument count and types)."""
        return self.arrow is not None and _takes(self.arrow, len(roots)) and set(roots) <= self.arrow_args

    def spark_applies(self, count: int) -> bool:
        """Whether the Spark kernel computes a call with ``count`` arguments."""
        return self.spark is not None and _takes(self.spark, count)


def _takes(kernel: Callable[..., Any], count: int) -> bool:
    try:
        inspect.signature(kernel).bind(*range(count))
    except TypeError:
        return False
    return True


def arrow_kernel(name: str, **options: Any) -> Callable[[Any], Any]:
    """``pyarrow.compute.<name>`` of one column, with ``options``."""

    def kernel(values: Any) -> Any:
        return getattr(pc, name)(values, **options)

    return kernel


def arrow_double_kernel(name: str) -> Callable[[Any], Any]:
    """``pyarrow.compute.<name>`` over the column as DOUBLE: the IEEE results Java's ``Math``
    gives (``ln(0)`` -Infinity, ``sqrt(-1)`` NaN), never an error."""

    def kernel(values: Any) -> Any:
        return getattr(pc, name)(pc.cast(values, pa.float64()))

    return kernel


def spark_kernel(name: str) -> Callable[..., Any]:
    """``pyspark.sql.functions.<name>`` of the argument Columns."""

    def kernel(*columns: Any) -> Any:
        # pyspark is optional (the [spark] extra): imported when the Spark runner runs this kernel
        from pyspark.sql import functions as F

        return getattr(F, name)(*columns)

    return kernel


def ieee(fn: Callable[[float], float], name: str) -> Callable[[Any], float]:
    """``fn`` (a ``math`` function) with Java's ``Math`` results where Python's raises: the
    IEEE value numpy computes (``LN(0)`` -Infinity, ``SQRT(-1)`` NaN, ``EXP(1000)``
    Infinity), as Flink returns them."""

    def apply(value: Any) -> float:
        try:
            return fn(value)
        except (ValueError, OverflowError, ZeroDivisionError):
            with np.errstate(all="ignore"):
                return float(getattr(np, name)(np.float64(value)))

    return apply


def java_pow(base: Any, exponent: Any) -> float:
    """Java's ``Math.pow`` (Flink's POWER): NaN for a negative base and a fractional exponent,
    Infinity for 0 to a negative power, never Python's complex result or error."""
    try:
        return math.pow(float(base), float(exponent))
    except (ValueError, OverflowError, ZeroDivisionError):
        with np.errstate(all="ignore"):
            return float(np.power(np.float64(base), np.float64(exponent)))


def math_function(
    name: str,
    python: Callable[[float], float],
    numpy_name: str,
    arrow_name: str,
    result: TypeRule,
    spark: Callable[..., Any] | None = None,
) -> FunctionDefinition:
    """A function of one number to DOUBLE with Java's ``Math`` results (``ieee``): ``python``
    per row, ``pyarrow.compute.<arrow_name>`` over the column as DOUBLE."""
    return FunctionDefinition(
        name,
        ieee(python, numpy_name),
        result,
        arrow=arrow_double_kernel(arrow_name),
        arrow_args=NUMBERS,
        spark=spark,
    )
