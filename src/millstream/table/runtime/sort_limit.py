"""Sorting and limiting rows (Flink's SortOperator and LimitOperator, in one subtask): the first
``fetch`` rows after ``offset`` in arrival order, and BATCH's ORDER BY over every row once the input
ended."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from millstream.datastream import KeyedProcessFunction
from millstream.datastream.state import ListStateDescriptor, ValueStateDescriptor
from millstream.table.common.row_kind import INSERT

__all__ = ["LimitFunction", "SortFunction"]

_MAX_TIMESTAMP = 2**63 - 1


class LimitFunction(KeyedProcessFunction):
    """The first ``fetch`` rows after ``offset``, in arrival order (one key: every row)."""

    def __init__(self, offset: int, fetch: int | None) -> None:
        self.offset, self.fetch = offset, fetch

    def open(self, runtime_context: Any) -> None:
        self.seen = runtime_context.get_state(ValueStateDescriptor("seen"))

    def process_element(self, value: Any, ctx: Any) -> Any:
        seen = self.seen.value() or 0
        self.seen.update(seen + 1)
        if seen < self.offset or (self.fetch is not None and seen >= self.offset + self.fetch):
            return None
        return [value]


def _nulls_low(key: Callable[[tuple[Any, ...]], Any], row: tuple[Any, ...]) -> tuple[bool, Any]:
    """A sort key placing NULL below every value."""
    value = key(row)
    return (False, 0) if value is None else (True, value)


class SortFunction(KeyedProcessFunction):
    """Every row held until the input ends, then sorted by ``keys`` and cut to ``offset`` /
    ``fetch`` (BATCH's ORDER BY; one key: every row)."""

    def __init__(
        self, keys: list[tuple[Callable[[tuple[Any, ...]], Any], bool]], offset: int, fetch: int | None
    ) -> None:
        self.keys, self.offset, self.fetch = keys, offset, fetch

    def open(self, runtime_context: Any) -> None:
        self.rows = runtime_context.get_list_state(ListStateDescriptor("rows"))

    def process_element(self, value: Any, ctx: Any) -> Any:
        self.rows.add(value[1])
        ctx.timer_service().register_event_time_timer(_MAX_TIMESTAMP)
        return None

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        rows = list(self.rows.get() or [])
        for key, descending in reversed(self.keys):  # stable sorts, last key first
            rows.sort(key=functools.partial(_nulls_low, key), reverse=descending)
        end = None if self.fetch is None else self.offset + self.fetch
        return [(INSERT, r) for r in rows[self.offset : end]]
