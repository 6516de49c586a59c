"""Row groups of a Parquet file that a filter cannot skip, by the statistics the file keeps
(the use Flink's filter push-down makes of a format that can: read less, never decide a row).

A predicate is a conjunction of simple comparisons ``(column, op, value)``: ``op`` one of
``=``, ``<>``, ``<``, ``<=``, ``>``, ``>=`` with a literal value, or ``IS NULL`` / ``IS NOT
NULL`` (value None). A row group is skipped only when its statistics prove that no row makes
some comparison TRUE (a NULL never does); without statistics for a column, a comparison keeps
the group. The rows of the groups kept still go through the whole filter.
"""

from __future__ import annotations

from typing import Any

__all__ = ["COMPARISONS", "kept_row_groups"]

COMPARISONS = frozenset({"=", "<>", "<", "<=", ">", ">=", "IS NULL", "IS NOT NULL"})


def kept_row_groups(metadata: Any, predicate: list[tuple[str, str, Any]]) -> list[int]:
    """The indexes of the row groups of a file (its ``pyarrow.parquet.FileMetaData``) in which
    some row may satisfy every comparison of ``predicate``."""
    positions = {metadata.schema.column(i).path: i for i in range(metadata.num_columns)}
    kept = []
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        if all(_may_hold(row_group, positions.get(column), op, value) for column, op, value in predicate):
            kept.append(group)
    return kept


def _may_hold(row_group: Any, position: int | None, op: str, value: Any) -> bool:
    """Whether a row of the group may make ``column op value`` TRUE."""
    if position is None:
        return True
    stats = row_group.column(position).statistics
    if stats is None:
        return True
    rows, nulls = row_group.num_rows, stats.null_count if stats.has_null_count else None
    if op == "IS NULL":
        return nulls is None or nulls > 0
    if nulls is not None and nulls == rows:
        return False  # every value NULL: no comparison is TRUE
    if op == "IS NOT NULL" or not stats.has_min_max:
        return True
    low, high = stats.min, stats.max
    try:
        if op == "=":
            return bool(low <= value <= high)
        if op == "<>":
            return not (low == high == value)
        if op == "<":
            return bool(low < value)
        if op == "<=":
            return bool(low <= value)
        if op == ">":
            return bool(high > value)
        return bool(high >= value)  # >=
    except TypeError:  # statistics of another kind than the value: no conclusion
        return True
