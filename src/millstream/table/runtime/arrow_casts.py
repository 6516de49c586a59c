"""CAST on Arrow arrays, for the casts whose Arrow result is the row path's value.

The vectorized evaluator (``runtime/vectorized.py``) computes a CAST here when
``cast_vectorizable`` admits it; any other cast keeps the generated row-at-a-time code. The
casts taken: to the same type (another nullability), integral widening, an integral type to
DOUBLE, an integral type or a DECIMAL to a DECIMAL of at least its scale (no rounding; a value
with more integral digits than the target holds is NULL, as Flink's ``DecimalData``), and
between TIMESTAMP and TIMESTAMP_LTZ of precision up to 3 (a lower precision truncates the
fraction, as the row path does; between the two kinds in the session zone,
``functions/arrow_temporal.py``).
"""

from __future__ import annotations

import struct
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from millstream.table.common.types import DataType
from millstream.table.functions.arrow_temporal import converts_between_zones, from_ltz, to_ltz

__all__ = ["arrow_cast", "cast_vectorizable"]

_WIDTHS = {"TINYINT": 1, "SMALLINT": 2, "INT": 3, "BIGINT": 4}
_DIGITS = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}  # of the largest magnitude
_TIMES = ("TIMESTAMP", "TIMESTAMP_LTZ")


def _precision(data_type: DataType) -> int:
    return int(data_type.params[0]) if data_type.params else 6


def cast_vectorizable(source: DataType, target: DataType) -> bool:
    """Whether ``CAST(x AS target)`` of a ``source`` value has an exact Arrow equal."""
    if (source.root, source.params) == (target.root, target.params):
        return True
    if source.root in _WIDTHS:
        if target.root in _WIDTHS:
            return _WIDTHS[target.root] >= _WIDTHS[source.root]
        if target.root == "DOUBLE":
            return True
        return target.root == "DECIMAL" and len(target.params) == 2
    if source.root == "DECIMAL" and target.root == "DECIMAL":  # no rounding: at least its scale
        same_kind = len(source.params) == len(target.params) == 2
        return same_kind and int(target.params[1]) >= int(source.params[1])
    if source.root in _TIMES and target.root in _TIMES:
        if _precision(source) > 3 or _precision(target) > 3:
            return False
        return source.root == target.root or converts_between_zones(target.root == "TIMESTAMP_LTZ")
    return False


def arrow_cast(value: Any, source: DataType, target: DataType) -> Any:
    """``value`` (an Arrow array or scalar of ``source``) cast to ``target`` (admitted by
    ``cast_vectorizable``)."""
    if source.root in _TIMES:
        if source.root != target.root:
            value = to_ltz(value, "ms") if target.root == "TIMESTAMP_LTZ" else from_ltz(value, "ms")
        if _precision(target) < _precision(source):  # the fraction cut to the target's digits
            value = pc.floor_temporal(value, multiple=10 ** (3 - _precision(target)), unit="millisecond")
        return value
    if (source.root, source.params) == (target.root, target.params):
        return value
    if target.root == "DECIMAL":
        return _to_decimal(value, source, target)
    if target.root == "DOUBLE":  # rounded as Java's (double) of a long (a safe cast refuses past 2^53)
        return pc.cast(value, target.to_arrow(), safe=False)
    return value.cast(target.to_arrow())


def _integral_digits(data_type: DataType) -> int:
    if data_type.root == "DECIMAL":
        return int(data_type.params[0]) - int(data_type.params[1])
    return _DIGITS[data_type.root]


def _to_decimal(value: Any, source: DataType, target: DataType) -> Any:
    """An integral or DECIMAL ``value`` as ``target`` (of at least its scale): NULL where it has
    more integral digits than the target holds."""
    digits = int(target.params[0]) - int(target.params[1])
    if digits < _integral_digits(source):  # NULL for what does not fit, before the cast
        wide = value.cast(pa.decimal128(38, int(source.params[1]) if source.root == "DECIMAL" else 0))
        unscaled = 10 ** (digits + wide.type.scale)  # 10 ** digits in the wide type
        bound = pa.Array.from_buffers(
            wide.type, 1, [None, pa.py_buffer(struct.pack("<QQ", unscaled & (2**64 - 1), unscaled >> 64))]
        )[0]
        value = pc.if_else(pc.less(pc.abs(wide), bound), wide, pa.nulls(1, wide.type)[0])
    return value.cast(target.to_arrow())
