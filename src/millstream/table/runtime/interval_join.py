"""Interval joins: a join of two tables with event-time attributes whose condition bounds one
time by the other (``l.ts BETWEEN r.ts - INTERVAL '5' MINUTE AND r.ts + INTERVAL '1' MINUTE``).

As Flink's ``RowTimeIntervalJoin``: each row waits in keyed state only as long as a row of
the other side could still match it (until the watermark passes the end of its interval), so
state stays bounded; the result is insert-only (outer interval joins emit a row NULL-padded
when it leaves the state without a match); rows already behind the watermark's reach are
late and dropped. Rows keep both time columns; the left one stays the event-time attribute.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.datastream import KeyedProcessFunction
from millstream.datastream.state import MapStateDescriptor
from millstream.table.common.row_kind import INSERT
from millstream.table.common.timestamps import to_epoch_millis
from millstream.table.runtime.join import LEFT, RIGHT

__all__ = ["IntervalJoinFunction"]


class IntervalJoinFunction(KeyedProcessFunction):
    def __init__(
        self,
        join_type: str,
        widths: tuple[int, int],
        condition: Callable[[tuple[Any, ...]], Any] | None,
        bounds: tuple[int, int],
        times: tuple[int, int],
        roots: tuple[str, str],
    ) -> None:
        self.widths, self.condition, self.bounds, self.times, self.roots = (
            widths,
            condition,
            bounds,
            times,
            roots,
        )
        self.outer = (join_type in ("LEFT", "FULL"), join_type in ("RIGHT", "FULL"))

    def open(self, runtime_context: Any) -> None:
        # per side: time -> [[row, matched], ...]
        self.sides = (
            runtime_context.get_map_state(MapStateDescriptor("left", None, None)),
            runtime_context.get_map_state(MapStateDescriptor("right", None, None)),
        )

    def _joined(self, side: int, row: tuple[Any, ...], other: tuple[Any, ...] | None) -> tuple[Any, ...]:
        if other is None:
            other = (None,) * self.widths[1 - side]
        return row + other if side == LEFT else other + row

    def _expiry(self, side: int, ts: int) -> int:
        """The watermark after which no row of the other side can match a row at ``ts``."""
        lo, hi = self.bounds
        return ts - lo if side == LEFT else ts + hi  # left.ts - lo >= right.ts; right.ts + hi >= left.ts

    def process_element(self, value: Any, ctx: Any) -> Any:
        side, _, row = value
        time = row[self.times[side]]
        if time is None:
            return None
        ts = to_epoch_millis(time, self.roots[side])
        timers = ctx.timer_service()
        watermark = timers.current_watermark()
        late = self._expiry(side, ts) <= watermark
        lo, hi = self.bounds
        low, high = (ts - hi, ts - lo) if side == LEFT else (ts + lo, ts + hi)
        out: list[tuple[str, tuple[Any, ...]]] = []
        matched = False
        other_state = self.sides[1 - side]
        condition = self.condition
        for other_ts, entries in list(other_state.items()):
            if not low <= other_ts <= high:
                continue
            changed = False
            for entry in entries:
                joined = self._joined(side, row, entry[0])
                if condition is None or condition(joined) is True:
                    out.append((INSERT, joined))
                    matched = True
                    if not entry[1]:
                        entry[1] = changed = True
            if changed:
                other_state.put(other_ts, entries)
        if late:
            if self.outer[side] and not matched:
                out.append((INSERT, self._joined(side, row, None)))
            return out or None
        state = self.sides[side]
        entries = state.get(ts) or []
        entries.append([row, matched])
        state.put(ts, entries)
        timers.register_event_time_timer(self._expiry(side, ts))
        return out or None

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        out: list[tuple[str, tuple[Any, ...]]] = []
        for side in (LEFT, RIGHT):
            state = self.sides[side]
            for ts, entries in list(state.items()):
                if self._expiry(side, ts) > timestamp:
                    continue
                if self.outer[side]:
                    out.extend(
                        (INSERT, self._joined(side, row, None)) for row, matched in entries if not matched
                    )
                state.remove(ts)
        return out or None
