"""Flink's statistical and collecting aggregate functions: STDDEV_POP, STDDEV_SAMP,
VAR_POP, VAR_SAMP (VARIANCE), COLLECT, LISTAGG, FIRST_VALUE, LAST_VALUE, ARRAY_AGG,
JSON_ARRAYAGG and JSON_OBJECTAGG, each retractable and mergeable (the two-phase window
aggregation merges partial accumulators).

Flink computes the variances from SUM(x), SUM(x * x) and COUNT(x) (Calcite's
``AggregateReduceFunctionsRule``) and types them as their operand: an integer operand's
variance is the exact one cast from a double to its type as Java casts (saturating at INT's and
BIGINT's bounds, wrapping TINYINT and SMALLINT: PyFlink 2.3.0 gives VAR_POP of the TINYINTs
127 and 1 -127, of the INTs 2147483647 and 1 2147483647), a DECIMAL one's a DECIMAL(38, 6)
rounded half up (NULL past 38 digits), DOUBLE a DOUBLE; the standard deviations are the square
roots, in the same type. Other operands are refused, as Calcite refuses them.
"""

from __future__ import annotations

import decimal
import fractions
import json
import math
from typing import Any

from millstream.table.common.casts import cast_type_name
from millstream.table.common.java_hashes import hash_map_order
from millstream.table.common.multiset_type import MultisetType
from millstream.table.common.printing import summary_string
from millstream.table.common.types import DataType, DataTypes, RowType
from millstream.table.functions.aggregates import Accumulator, _ValueCounts
from millstream.table.functions.bitmaps import BITMAP_AGGREGATES, BitmapAggregate
from millstream.table.functions.json_text import RawJson, jsonize
from millstream.table.functions.json_values import json_node

__all__ = [
    "ARRAY_AGG_IGNORE_NULLS",
    "JSON_ARRAYAGG",
    "JSON_OBJECTAGG",
    "LAG",
    "LEAD",
    "LISTAGG",
    "NTILE",
    "PERCENTILE",
    "RANKINGS",
    "VARIANCES",
    "java_double_to_integral",
    "keeps_nullability",
    "may_be_null",
    "more_accumulator",
    "more_result_type",
]

LISTAGG = "LISTAGG "  # the spec of LISTAGG(x, sep) is "LISTAGG " + the separator as JSON
ARRAY_AGG_IGNORE_NULLS = "ARRAY_AGG IGNORE NULLS"
# JSON_ARRAYAGG(x NULL ON NULL): "JSON_ARRAYAGG " + {"null": "NULL" | "ABSENT", "raw": a nested
# JSON constructor's value} as JSON (JSON_OBJECTAGG likewise); the bare names take the defaults
JSON_ARRAYAGG = "JSON_ARRAYAGG "
JSON_OBJECTAGG = "JSON_OBJECTAGG "
LAG = "LAG "  # LAG(x, offset, default): "LAG " + [offset, default] as JSON
LEAD = "LEAD "  # LEAD(x, offset, default): "LEAD " + [offset, default] as JSON (BATCH only)
NTILE = "NTILE "  # NTILE(n): "NTILE " + n
# the functions of an OVER window that read the partition's order rather than aggregate a
# frame: computed by the BATCH over aggregation (runtime/over.py) by position
RANKINGS = ("ROW_NUMBER", "RANK", "DENSE_RANK", "PERCENT_RANK", "CUME_DIST")
PERCENTILE = "PERCENTILE "  # PERCENTILE(x, p): "PERCENTILE " + p (a number or a list) as JSON
# the variances by their SQL names: VARIANCE is VAR_SAMP, STDDEV STDDEV_SAMP
VARIANCES = _VARIANCES = {
    "STDDEV_POP": "STDDEV_POP",
    "STDDEV_SAMP": "STDDEV_SAMP",
    "STDDEV": "STDDEV_SAMP",
    "VAR_POP": "VAR_POP",
    "VAR_SAMP": "VAR_SAMP",
    "VARIANCE": "VAR_SAMP",
}
_INTEGRAL = ("TINYINT", "SMALLINT", "INT", "BIGINT")
_NUMERIC = (*_INTEGRAL, "DECIMAL", "FLOAT", "DOUBLE")
_SIX = decimal.Decimal("0.000001")
_DECIMAL_LIMIT = decimal.Decimal(10) ** 38
_EXACT = decimal.Context(prec=200)  # integers and decimals' sums and squares, without rounding
# a double's cast to an integer goes via an int (a long for BIGINT), then narrows
_JAVA_INT_BOUNDS = {"TINYINT": 32, "SMALLINT": 32, "INT": 32, "BIGINT": 64}
_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
# functions whose result keeps a NOT NULL operand's NOT NULL in a group that is never empty
_KEEPING = {"SUM", "AVG", "MIN", "MAX", "FIRST_VALUE", "LAST_VALUE", *_VARIANCES}


def keeps_nullability(function: str) -> bool:
    """Whether ``function``'s result is NOT NULL over NOT NULL values in a non-empty group."""
    return function in _KEEPING


def may_be_null(function: str, operand_type: DataType) -> bool:
    """Whether ``function`` typed NOT NULL may compute NULL: a sample variance of one value, a
    DECIMAL sum or variance past 38 digits, ARRAY_AGG and LISTAGG over no row (a global
    aggregation's)."""
    if function.split(" ")[-1] in ("VAR_SAMP", "STDDEV_SAMP", "VARIANCE", "STDDEV"):
        return True
    if function.startswith(("ARRAY_AGG", LISTAGG)):
        return True
    return operand_type.root == "DECIMAL" and function.split(" ")[-1] in {"SUM", "AVG", *_VARIANCES}


def java_double_to_integral(value: float, root: str) -> int:
    """``(type) value`` of a double in Java: NaN is 0, to an int (or a long, for BIGINT)
    saturating at its bounds, then narrowed (wrapping) to a TINYINT or SMALLINT."""
    if value != value:
        return 0
    bits = _JAVA_INT_BOUNDS[root]
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    whole = high if value >= high else low if value <= low else int(value)
    narrow = _BITS[root]
    whole &= (1 << narrow) - 1
    return whole - (1 << narrow) if whole >= 1 << (narrow - 1) else whole


class _Variance(Accumulator):
    """(count, sum, sum of squares) of the non-NULL values, exact for integers and DECIMALs;
    DOUBLE and FLOAT values keep (count, mean, sum of squared deviations) instead (Welford's
    updates, Chan's merge), which gives Flink's last digits (sqrt(VAR_SAMP(1, 2, 4)) is
    1.5275252316519465 there, 1.5275252316519468 by the sums)."""

    def __init__(self, function: str, root: str) -> None:
        self.function, self.root = function, root
        self.floating = root in ("DOUBLE", "FLOAT")

    def create(self) -> Any:
        return (0, 0.0, 0.0) if self.floating else (0, 0, 0)

    def add(self, acc: Any, value: Any) -> Any:
        if value is None:
            return acc
        n, a, b = acc
        if self.floating:
            n += 1
            delta = value - a
            mean = a + delta / n
            return (n, mean, b + delta * (value - mean))
        if isinstance(value, decimal.Decimal):  # exactly: the default context keeps 28 digits
            return (n + 1, _EXACT.add(a, value), _EXACT.add(b, _EXACT.multiply(value, value)))
        return (n + 1, a + value, b + value * value)

    def retract(self, acc: Any, value: Any) -> Any:
        if value is None:
            return acc
        n, a, b = acc
        if self.floating:
            if n <= 1:
                return (0, 0.0, 0.0)
            mean = (n * a - value) / (n - 1)
            return (n - 1, mean, b - (value - mean) * (value - a))
        if isinstance(value, decimal.Decimal):
            return (n - 1, _EXACT.subtract(a, value), _EXACT.subtract(b, _EXACT.multiply(value, value)))
        return (n - 1, a - value, b - value * value)

    def merge(self, acc: Any, other: Any) -> Any:
        if not other[0]:
            return acc
        if not acc[0]:
            return other
        if self.floating:
            (na, ma, sa), (nb, mb, sb) = acc, other
            n = na + nb
            delta = mb - ma
            return (n, ma + delta * nb / n, sa + sb + delta * delta * na * nb / n)
        if self.root == "DECIMAL":  # exactly: the default context keeps 28 digits
            return (acc[0] + other[0], _EXACT.add(acc[1], other[1]), _EXACT.add(acc[2], other[2]))
        return (acc[0] + other[0], acc[1] + other[1], acc[2] + other[2])

    def result(self, acc: Any) -> Any:
        n, total, squares = acc
        divisor = n if self.function.endswith("_POP") else n - 1
        if n == 0 or divisor <= 0:
            return None
        stddev = self.function.startswith("STDDEV")
        if self.floating:
            variance = max(squares, 0.0) / divisor
            return math.sqrt(variance) if stddev else variance
        if self.root in _INTEGRAL:  # exactly, then as a double cast to the type
            exact = (fractions.Fraction(squares) - fractions.Fraction(total * total, n)) / divisor
            value = math.sqrt(max(float(exact), 0.0)) if stddev else float(exact)
            return java_double_to_integral(value, self.root)
        total_squared = _EXACT.multiply(total, total)
        if _EXACT.abs(squares) >= _DECIMAL_LIMIT or total_squared >= _DECIMAL_LIMIT:
            return None  # SUM(x * x) or SUM(x) * SUM(x) past DECIMAL(38)'s digits: NULL
        context = decimal.Context(prec=60)  # the divisions keep their digits, the result 6
        exact = context.divide(context.subtract(squares, context.divide(total_squared, n)), divisor)
        if stddev:
            exact = context.sqrt(exact)
        return exact.quantize(_SIX, decimal.ROUND_HALF_UP)


class _Values(Accumulator):
    """The values in arrival order (a retraction removes the last equal one)."""

    keep_nulls = False

    def create(self) -> Any:
        return []

    def add(self, acc: Any, value: Any) -> Any:
        if value is not None or self.keep_nulls:
            acc.append(value)
        return acc

    def retract(self, acc: Any, value: Any) -> Any:
        for i in range(len(acc) - 1, -1, -1):
            if acc[i] == value:
                del acc[i]
                break
        return acc

    def merge(self, acc: Any, other: Any) -> Any:
        acc.extend(other)
        return acc


class _First(_Values):
    def result(self, acc: Any) -> Any:
        return acc[0] if acc else None


class _Last(_Values):
    def result(self, acc: Any) -> Any:
        return acc[-1] if acc else None


class _ArrayAgg(_Values):
    """ARRAY_AGG(x [RESPECT NULLS | IGNORE NULLS]): the values in arrival order, NULLs too
    unless ``ignoring`` (RESPECT NULLS is Flink's default)."""

    def __init__(self, ignoring: bool = False) -> None:
        self.keep_nulls = not ignoring

    def result(self, acc: Any) -> Any:
        return list(acc) if acc else None


class _ListAgg(_Values):
    def __init__(self, separator: str) -> None:
        self.separator = separator

    def result(self, acc: Any) -> Any:
        return self.separator.join(str(v) for v in acc) if acc else None


def _json_node(data_type: DataType, raw: bool) -> Any:
    """A value's conversion to JSON (a nested JSON constructor's text: as it is), as
    JSON_ARRAY's; refuses a type Flink cannot write (DATE, TIME ...)."""
    if raw:
        return RawJson
    try:
        return json_node(data_type)
    except ValueError as error:
        raise ValueError(str(error)) from None


class _JsonArrayAgg(_Values):
    """JSON_ARRAYAGG: the values in arrival order as a JSON array, written as JSON_ARRAY
    writes them; ABSENT ON NULL (Flink's default) leaves NULLs out, NULL ON NULL keeps them."""

    def __init__(self, data_type: DataType, keep_nulls: bool, raw: bool) -> None:
        self.keep_nulls = keep_nulls
        self.node = _json_node(data_type, raw)

    def result(self, acc: Any) -> Any:
        return jsonize([None if v is None else self.node(v) for v in acc])


class _JsonObjectAgg(_Values):
    """JSON_OBJECTAGG: (key, value) pairs as a JSON object (its keys in order); NULL ON NULL
    (Flink's default) keeps a NULL value, ABSENT ON NULL leaves it out; a key twice fails the
    job, as Flink's."""

    keep_nulls = True

    def __init__(self, data_type: DataType, absent: bool, raw: bool) -> None:
        types = data_type.field_types() if isinstance(data_type, RowType) else []
        value_type = types[1] if len(types) > 1 else DataTypes.STRING()
        self.absent = absent
        self.node = _json_node(value_type, raw)

    def result(self, acc: Any) -> Any:
        out: dict[str, Any] = {}
        for key, value in acc:
            if key in out:
                raise ValueError(
                    f"Key '{key}' is already present. Duplicate keys are not allowed in JSON_OBJECTAGG. "
                    "Please ensure that keys are unique."
                )
            if value is None and self.absent:
                continue
            out[key] = None if value is None else self.node(value)
        return jsonize(out)


class _Lag(Accumulator):
    """LAG(x, offset, default) in an OVER window: the value ``offset`` rows before the current
    one in the partition's order (the current row is the last added), else ``default`` (Flink's
    ``LagAggFunction``); the accumulator holds the last ``offset + 1`` values."""

    def __init__(self, offset: int, default: Any) -> None:
        self.offset, self.default = offset, default

    def create(self) -> Any:
        return []

    def add(self, acc: Any, value: Any) -> Any:
        acc.append(value)
        del acc[: -(self.offset + 1)]
        return acc

    def retract(self, acc: Any, value: Any) -> Any:
        raise ValueError("LAG runs over an insert-only input")

    def merge(self, acc: Any, other: Any) -> Any:
        raise ValueError("LAG runs in one phase")

    def result(self, acc: Any) -> Any:
        return acc[-(self.offset + 1)] if len(acc) > self.offset else self.default


class _Percentile(_ValueCounts):
    """PERCENTILE(x, p): the exact percentile of the non-NULL values, interpolated linearly
    between the two values around position ``p * (n - 1)`` of the sorted values (Flink's
    ``PercentileAggFunction``), as a DOUBLE; for an ARRAY of percentages, an ARRAY of them."""

    def __init__(self, percentage: float | list[float]) -> None:
        self.percentage = percentage

    def result(self, acc: Any) -> Any:
        values = [float(v) for v in sorted(v for v, n in acc.items() for _ in range(n))]
        if not values:
            return None
        if isinstance(self.percentage, list):
            return [_interpolated(values, p) for p in self.percentage]
        return _interpolated(values, self.percentage)


def _interpolated(values: list[float], percentage: float) -> float:
    position = percentage * (len(values) - 1)
    low = math.floor(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (position - low) * (values[high] - values[low])


class _Collect(_ValueCounts):
    """COLLECT: the multiset of the non-NULL values (a map of each value to its count), its
    values in the order the ``HashMap`` of Flink's accumulator holds them (PyFlink 2.3.0
    prints COLLECT over 'b', 'a', 'c', 'a' as ``{a=2, c=1, b=1}``)."""

    def __init__(self, data_type: DataType) -> None:
        self.data_type = data_type

    def result(self, acc: Any) -> Any:
        return {value: acc[value] for value in hash_map_order(acc, self.data_type)}


def more_accumulator(function: str, data_type: DataType) -> Accumulator | None:
    """The accumulator of one of this module's functions, None for another name."""
    if function in _VARIANCES:
        return _Variance(_VARIANCES[function], data_type.root)
    if function.startswith(LISTAGG):
        return _ListAgg(json.loads(function[len(LISTAGG) :]))
    if function.startswith(LAG):
        offset, default = json.loads(function[len(LAG) :])
        return _Lag(offset, default)
    if function.startswith(PERCENTILE):
        return _Percentile(json.loads(function[len(PERCENTILE) :]))
    if function in BITMAP_AGGREGATES:
        return BitmapAggregate(function)
    if function == ARRAY_AGG_IGNORE_NULLS:
        return _ArrayAgg(ignoring=True)
    if function == "COLLECT":
        return _Collect(data_type)
    if function.startswith("JSON_ARRAYAGG"):
        options = json.loads(function[len(JSON_ARRAYAGG) :] or "{}")
        return _JsonArrayAgg(data_type, options.get("null") == "NULL", bool(options.get("raw")))
    if function.startswith("JSON_OBJECTAGG"):
        options = json.loads(function[len(JSON_OBJECTAGG) :] or "{}")
        return _JsonObjectAgg(data_type, options.get("null") == "ABSENT", bool(options.get("raw")))
    simple: dict[str, type[Accumulator]] = {
        "FIRST_VALUE": _First,
        "LAST_VALUE": _Last,
        "ARRAY_AGG": _ArrayAgg,
    }
    kind = simple.get(function)
    return kind() if kind is not None else None


def _calcite(data_type: DataType) -> str:
    return {"INT": "INTEGER"}.get(data_type.root, summary_string(data_type.nullable()))


def _variance_type(function: str, operand_type: DataType) -> DataType:
    """A variance's type: a DECIMAL's DECIMAL(38, 6), a number's its own; anything else is
    refused as Calcite refuses it."""
    if operand_type.root not in _NUMERIC:
        name = cast_type_name(operand_type)
        raise TypeError(
            f"Cannot apply '{function}' to arguments of type '{function}(<{name}>)'. "
            f"Supported form(s): '{function}(<NUMERIC>)'"
        )
    if operand_type.root == "DECIMAL":
        return DataTypes.DECIMAL(38, 6)
    return operand_type.nullable()


def _window_function_type(function: str, operand_type: DataType) -> DataType:
    """An OVER window function's type: ROW_NUMBER, RANK, DENSE_RANK and NTILE BIGINT NOT NULL,
    PERCENT_RANK and CUME_DIST DOUBLE NOT NULL, LEAD and LAG their value's (NOT NULL with a NOT
    NULL value and default: PyFlink 2.3.0 types LAG(x, 1, 0) of NOT NULL x INT NOT NULL)."""
    if function.startswith((LAG, LEAD)):
        default = json.loads(function.split(" ", 1)[1])[1]
        return operand_type if default is not None else operand_type.nullable()
    if function in ("PERCENT_RANK", "CUME_DIST"):
        return DataTypes.DOUBLE(False)
    return DataTypes.BIGINT(False)


def more_result_type(function: str, operand_type: DataType) -> DataType | None:
    """The result type of one of this module's functions, None for another name; raises
    TypeError where Flink refuses the operand."""
    if function in _VARIANCES:
        return _variance_type(function, operand_type)
    if function.startswith(LISTAGG):  # Calcite's: the operand's type (CHAR(1) NOT NULL ...)
        return operand_type
    if function.startswith((LAG, LEAD, NTILE)) or function in RANKINGS:
        return _window_function_type(function, operand_type)
    if function.startswith(PERCENTILE):
        if operand_type.root not in _NUMERIC:
            raise TypeError("Invalid input arguments.")
        many = function[len(PERCENTILE) :].startswith("[")
        return DataTypes.ARRAY(DataTypes.DOUBLE()) if many else DataTypes.DOUBLE()
    if function in ("FIRST_VALUE", "LAST_VALUE"):
        return operand_type.nullable()
    if function in ("ARRAY_AGG", ARRAY_AGG_IGNORE_NULLS):  # NOT NULL of NOT NULL values, as Flink's
        return DataTypes.ARRAY(operand_type, operand_type.is_nullable())
    if function.startswith(("JSON_ARRAYAGG", "JSON_OBJECTAGG")):  # Calcite's VARCHAR(2000)
        if function.startswith("JSON_OBJECTAGG"):
            types = operand_type.field_types() if isinstance(operand_type, RowType) else []
            key_type = types[0] if types else DataTypes.STRING()
            if key_type.root not in ("CHAR", "VARCHAR", "STRING"):
                name = (
                    "JSON_OBJECTAGG_ABSENT_ON_NULL"
                    if '"ABSENT"' in function
                    else "JSON_OBJECTAGG_NULL_ON_NULL"
                )
                shown = ", ".join(f"<{_calcite(t)}>" for t in types)
                raise ValueError(
                    f"Cannot apply '{name}' to arguments of type '{name}({shown})'. Supported form(s): "
                    f"'{name}(<CHARACTER>, <ANY>)'"
                )
        return DataTypes.VARCHAR(2000, False)
    if function == "COLLECT":
        return MultisetType(operand_type, False)
    return _bitmap_aggregate_type(function, operand_type)


def _bitmap_aggregate_type(function: str, operand_type: DataType) -> DataType | None:
    """A bitmap aggregate's type (BITMAP_OR_AGG's BITMAP ...), of a BITMAP; None for another
    function."""
    if function not in BITMAP_AGGREGATES:
        return None
    if operand_type.root not in ("BITMAP", "NULL"):
        shown = summary_string(operand_type)
        raise TypeError(f"Invalid input arguments: {function} takes a BITMAP, got {shown}")
    return BITMAP_AGGREGATES[function]
