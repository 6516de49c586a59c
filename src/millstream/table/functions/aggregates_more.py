"""Flink's statistical and collecting aggregate functions: STDDEV_POP, STDDEV_SAMP,
VAR_POP, VAR_SAMP (VARIANCE), COLLECT, LISTAGG, FIRST_VALUE, LAST_VALUE, ARRAY_AGG,
JSON_ARRAYAGG and JSON_OBJECTAGG, each retractable and mergeable (the two-phase window
aggregation merges partial accumulators).

Flink computes the variances from SUM(x), SUM(x * x) and COUNT(x) in the operand's type
(Calcite's ``AggregateReduceFunctionsRule``): an integer operand gives an integer variance
(divisions truncated), a DECIMAL one a DECIMAL(38, 6) rounded half up, DOUBLE a DOUBLE; the
standard deviations are the square roots, in the same type.
"""

from __future__ import annotations

import decimal
import json
import math
from typing import Any

from millstream.table.common.printing import summary_string
from millstream.table.common.types import DataType, DataTypes, RowType
from millstream.table.functions.aggregates import Accumulator, _ValueCounts
from millstream.table.functions.json_text import RawJson, jsonize
from millstream.table.functions.json_values import json_node

__all__ = [
    "JSON_ARRAYAGG",
    "JSON_OBJECTAGG",
    "LAG",
    "LISTAGG",
    "PERCENTILE",
    "more_accumulator",
    "more_result_type",
]

LISTAGG = "LISTAGG "  # the spec of LISTAGG(x, sep) is "LISTAGG " + the separator as JSON
# JSON_ARRAYAGG(x NULL ON NULL): "JSON_ARRAYAGG " + {"null": "NULL" | "ABSENT", "raw": a nested
# JSON constructor's value} as JSON (JSON_OBJECTAGG likewise); the bare names take the defaults
JSON_ARRAYAGG = "JSON_ARRAYAGG "
JSON_OBJECTAGG = "JSON_OBJECTAGG "
LAG = "LAG "  # LAG(x, offset, default): "LAG " + [offset, default] as JSON
PERCENTILE = "PERCENTILE "  # PERCENTILE(x, p): "PERCENTILE " + p as JSON
_VARIANCES = ("STDDEV_POP", "STDDEV_SAMP", "VAR_POP", "VAR_SAMP")
_INTEGRAL = ("TINYINT", "SMALLINT", "INT", "BIGINT")
_SIX = decimal.Decimal("0.000001")


def _java_divide(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


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
        if self.root in _INTEGRAL:
            whole = _java_divide(squares - _java_divide(total * total, n), divisor)
            return int(math.sqrt(whole)) if stddev else whole
        context = decimal.Context(prec=60)  # the divisions keep their digits, the result 6
        exact = context.divide(squares - context.divide(decimal.Decimal(total) * total, n), divisor)
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
    keep_nulls = True  # RESPECT NULLS, Flink's default

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
    ``PercentileAggFunction``), as a DOUBLE."""

    def __init__(self, percentage: float) -> None:
        self.percentage = percentage

    def result(self, acc: Any) -> Any:
        values = sorted(v for v, n in acc.items() for _ in range(n))
        if not values:
            return None
        position = self.percentage * (len(values) - 1)
        low = math.floor(position)
        high = min(low + 1, len(values) - 1)
        return float(values[low]) + (position - low) * (float(values[high]) - float(values[low]))


class _Collect(_ValueCounts):
    """COLLECT: the multiset of the non-NULL values (a map of each value to its count)."""

    def result(self, acc: Any) -> Any:
        return dict(acc)


def more_accumulator(function: str, data_type: DataType) -> Accumulator | None:
    """The accumulator of one of this module's functions, None for another name."""
    if function in _VARIANCES:
        return _Variance(function, data_type.root)
    if function.startswith(LISTAGG):
        return _ListAgg(json.loads(function[len(LISTAGG) :]))
    if function.startswith(LAG):
        offset, default = json.loads(function[len(LAG) :])
        return _Lag(offset, default)
    if function.startswith(PERCENTILE):
        return _Percentile(float(json.loads(function[len(PERCENTILE) :])))
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
        "COLLECT": _Collect,
    }
    kind = simple.get(function)
    return kind() if kind is not None else None


def _calcite(data_type: DataType) -> str:
    return {"INT": "INTEGER"}.get(data_type.root, summary_string(data_type.nullable()))


def more_result_type(function: str, operand_type: DataType) -> DataType | None:
    """The result type of one of this module's functions, None for another name."""
    if function in _VARIANCES:
        if operand_type.root == "DECIMAL":
            return DataTypes.DECIMAL(38, 6)
        return operand_type.nullable()
    if function.startswith(LISTAGG):
        return DataTypes.STRING()
    if function.startswith(LAG):
        return operand_type.nullable()
    if function.startswith(PERCENTILE):
        return DataTypes.DOUBLE()
    if function in ("FIRST_VALUE", "LAST_VALUE"):
        return operand_type.nullable()
    if function == "ARRAY_AGG":
        return DataTypes.ARRAY(operand_type)
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
        return DataTypes.MAP(operand_type.not_null(), DataTypes.INT(False), False)
    return None
