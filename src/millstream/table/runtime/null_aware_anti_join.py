"""``x NOT IN (SELECT y ...)`` as Flink runs it: a null-aware anti join (SQL's NULL rules),
in one subtask that holds both inputs, as it has no equality key to partition by.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.datastream import KeyedProcessFunction
from millstream.datastream.state import MapStateDescriptor, ValueStateDescriptor
from millstream.table.common.options import with_ttl
from millstream.table.common.row_kind import DELETE, INSERT, UPDATE_AFTER
from millstream.table.runtime.join import LEFT

__all__ = ["NullAwareAntiJoinFunction"]


class NullAwareAntiJoinFunction(KeyedProcessFunction):
    """State: the left rows by their ``x`` (``x -> {row: count}``), the right values' counts,
    and ``[rows, nulls]`` of the right side. A right change that empties the subquery, fills
    it, or adds / removes the last NULL re-decides every left row; any other re-decides the
    rows of its value only."""

    def __init__(self, value: Callable[[tuple[Any, ...]], Any]) -> None:
        self.value = value
        self.ttl_ms = 0

    def open(self, runtime_context: Any) -> None:
        ttl = self.ttl_ms
        state = runtime_context
        self.left_rows = state.get_map_state(with_ttl(MapStateDescriptor("left", None, None), ttl))
        self.right_values = state.get_map_state(with_ttl(MapStateDescriptor("right", None, None), ttl))
        self.summary = state.get_state(with_ttl(ValueStateDescriptor("right-summary", None), ttl))

    @staticmethod
    def _kept(x: Any, rows: int, nulls: int, equal: int) -> bool:
        return rows == 0 or (x is not None and nulls == 0 and equal == 0)

    def process_element(self, value: Any, ctx: Any) -> Any:
        side, kind, row = value
        adding = kind in (INSERT, UPDATE_AFTER)
        rows, nulls = self.summary.value() or (0, 0)
        if side == LEFT:
            return self._left(row, adding, rows, nulls)
        return self._right(row[0], adding, rows, nulls)

    def _left(self, row: tuple[Any, ...], adding: bool, rows: int, nulls: int) -> Any:
        x = self.value(row)
        held = dict(self.left_rows.get(x) or {})
        if not adding and row not in held:
            return None  # never added (or expired)
        count = held.get(row, 0) + (1 if adding else -1)
        if count > 0:
            held[row] = count
        else:
            held.pop(row, None)
        if held:
            self.left_rows.put(x, held)
        else:
            self.left_rows.remove(x)
        equal = 0 if x is None else (self.right_values.get(x) or 0)
        if self._kept(x, rows, nulls, equal):
            return [(INSERT if adding else DELETE, row)]
        return None

    def _right(self, y: Any, adding: bool, rows: int, nulls: int) -> Any:
        step = 1 if adding else -1
        before = (rows, nulls)
        rows, nulls = max(rows + step, 0), max(nulls + (step if y is None else 0), 0)
        if rows:
            self.summary.update((rows, nulls))
        else:
            self.summary.clear()
        old = new = 0
        if y is not None:
            old = self.right_values.get(y) or 0
            new = max(old + step, 0)
            if new:
                self.right_values.put(y, new)
            else:
                self.right_values.remove(y)
        if (before[0] == 0) != (rows == 0) or (before[1] == 0) != (nulls == 0):
            entries = list(self.left_rows.items())  # every left row may flip
        elif y is not None and (old == 0) != (new == 0):
            held = self.left_rows.get(y)
            entries = [(y, held)] if held else []
        else:
            return None
        out: list[tuple[str, tuple[Any, ...]]] = []
        for x, held_rows in entries:
            equal_now = 0 if x is None else (self.right_values.get(x) or 0)
            equal_before = old if y is not None and x == y else equal_now
            now = self._kept(x, rows, nulls, equal_now)
            if self._kept(x, before[0], before[1], equal_before) != now:
                for left_row, count in held_rows.items():
                    out.extend([(INSERT if now else DELETE, left_row)] * count)
        return out or None
