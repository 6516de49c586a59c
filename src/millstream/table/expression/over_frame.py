"""An over window's partition keys, order and frame, as the Table API's and SQL's over
aggregates describe it to the planner."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["OverFrame"]


@dataclass(frozen=True)
class OverFrame:
    """An over window: partition keys, the time column it is ordered by, and its frame
    (``rows``: a count of preceding rows, or a time range in ms; None: unbounded). In BATCH
    (SQL's), ``order_keys`` are all of its ORDER BY keys as (key, descending, NULLs first),
    ``order_by`` the first (None: no ORDER BY), and ``following`` the frame's end (0: the
    current row, None: UNBOUNDED FOLLOWING)."""

    partition_by: tuple[Any, ...]
    order_by: Any
    rows: bool
    preceding: int | None
    order_keys: tuple[tuple[Any, bool, bool], ...] = ()
    following: int | None = 0
