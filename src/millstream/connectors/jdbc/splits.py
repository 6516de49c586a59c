"""The ranges a partitioned JDBC scan reads (Flink's ``JdbcNumericBetweenParametersProvider``
``ofBatchNum``): ``[lower, upper]`` cut into ``num`` ranges of ``ceil(count / num)`` values, the
last ones a value shorter so that they end exactly at ``upper``; each is one split, read with
``WHERE column BETWEEN ? AND ?``. Pure functions.

    numeric_between_ranges(1, 10, 3) == [(1, 4), (5, 7), (8, 10)]
"""

from __future__ import annotations

import math

__all__ = ["numeric_between_ranges"]


def numeric_between_ranges(lower: int, upper: int, num: int) -> list[tuple[int, int]]:
    """The ``(from, to)`` ranges (inclusive) of a scan partitioned into ``num`` splits.

    Raises:
        ValueError: ``lower`` above ``upper``, or ``num`` not positive (Flink's checks).
    """
    if lower > upper:
        raise ValueError("minVal must not be larger than maxVal")
    if num <= 0:
        raise ValueError("Batch number must be positive")
    count = upper - lower + 1
    num = min(num, count)
    size = math.ceil(float(count) / num)  # in doubles, as Java's Math.ceil((double) count / num)
    # the ranges from this one on are a value shorter (count need not divide evenly)
    big = count - (size - 1) * num
    ranges = []
    start = lower
    for i in range(num - 1):
        end = start + size - 1 - (1 if i >= big else 0)
        ranges.append((start, end))
        start = end + 1
    ranges.append((start, upper))
    return ranges
