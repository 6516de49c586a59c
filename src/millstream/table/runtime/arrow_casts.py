"""CAST on Arrow arrays, for the casts whose Arrow result is the row path's value.

The vectorized evaluator (``runtime/vectorized.py``) computes a CAST here when
``cast_vectorizable`` admits it; any other cast keeps the generated row-at-a-time code. The
casts taken: to the same type (another nullability), integral widening, an integral type to
DOUBLE or to a DECIMAL wide enough for all its values, and between TIMESTAMP and
TIMESTAMP_LTZ of precision up to 3 (a lower precision truncates the fraction, as the row path
does; between the two kinds in the session zone, ``functions/arrow_temporal.py``).
"""

from __future__ import annotations

from typing import Any

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
        if target.root == "DECIMAL" and len(target.params) == 2:
            return int(target.params[0]) - int(target.params[1]) >= _DIGITS[source.root]
        return False
    if source.root in _TIMES and target.root in _TIMES:
        if _precision(source) > 3 or _precision(target) > 3:
            return False
        return source.root == target.root or converts_between_zones(target.root == "TIMESTAMP_LTZ")
    return False


def arrow_cast(value: Any, source: DataType, target: DataType) -> Any:
    """``value`` (an Arrow array or scalar of ``source``) cast to ``target`` (admitted by
    ``cast_vectorizable``)."""
    import pyarrow.compute as pc

    if source.root in _TIMES:
        if source.root != target.root:
            value = to_ltz(value, "ms") if target.root == "TIMESTAMP_LTZ" else from_ltz(value, "ms")
        if _precision(target) < _precision(source):  # the fraction cut to the target's digits
            value = pc.floor_temporal(value, multiple=10 ** (3 - _precision(target)), unit="millisecond")
        return value
    if (source.root, source.params) == (target.root, target.params):
        return value
    return value.cast(target.to_arrow())
