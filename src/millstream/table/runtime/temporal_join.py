"""Event-time temporal joins: ``orders JOIN rates FOR SYSTEM_TIME AS OF o.order_time ON
o.currency = r.currency``, each order joined with the version of its rate valid at the
order's time, as Flink's ``TemporalRowTimeJoinOperator``.

::

    left (orders)  ──► keyed by the equi-keys ──► held until the watermark passes their time
    right (rates)  ──► keyed by the equi-keys ──► versions by their time (the latest kept)
                                                        │
                          timer: watermark ≥ the oldest held time
                                                        ▼
              each left row ≤ watermark, in arrival order, with the version of the
              largest time ≤ its time (a delete there: no version) ──► (left kind, joined)

Both inputs are one stream of ``(side, kind, row)`` keyed by the join keys. A left row waits
in keyed map state (by an arrival index, so rows leave in arrival order) until the watermark
passes its time; the right side's versions are kept by their time (a later change of the same
time replaces one; an update-before never arrives: the planner drops them). One event-time
timer per key, at the smallest time still waiting, emits and cleans: the versions older than
the newest one at or before the watermark go, that one stays (later left rows may still need
it). A left row whose version is a delete, or fails the rest of the condition, joins nothing:
LEFT pads it with NULLs, INNER drops it. The result keeps each left row's kind. State is keyed
state and the timers are the operator's, so both are checkpointed.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from typing import Any

from millstream.datastream import KeyedProcessFunction
from millstream.datastream.state import MapStateDescriptor, ValueStateDescriptor
from millstream.table.common.options import with_ttl
from millstream.table.common.row_kind import DELETE, UPDATE_BEFORE
from millstream.table.common.timestamps import to_epoch_millis

__all__ = ["TemporalRowTimeJoinFunction"]

LEFT = 0
_NO_TIME = -(2**63)  # a left row without a time: before every version


class TemporalRowTimeJoinFunction(KeyedProcessFunction):
    """The join of one key's left rows with its versions (see the module docstring).

    Args:
        outer: a LEFT join (rows without a version padded with NULLs).
        widths: the left and right inputs' column counts.
        condition: the rest of the ON condition over a joined row (None: none).
        times: the left and right time attribute columns.
        roots: their types' roots (``TIMESTAMP``, ``TIMESTAMP_LTZ``).
    """

    def __init__(
        self,
        outer: bool,
        widths: tuple[int, int],
        condition: Callable[[tuple[Any, ...]], Any] | None,
        times: tuple[int, int],
        roots: tuple[str, str],
    ) -> None:
        self.outer, self.widths, self.condition = outer, widths, condition
        self.times, self.roots = times, roots
        self.ttl_ms = 0  # table.exec.state.ttl: state idle that long is forgotten

    def open(self, runtime_context: Any) -> None:
        ttl = self.ttl_ms
        self.left = runtime_context.get_map_state(with_ttl(MapStateDescriptor("left", None, None), ttl))
        self.right = runtime_context.get_map_state(with_ttl(MapStateDescriptor("right", None, None), ttl))
        self.next_index = runtime_context.get_state(with_ttl(ValueStateDescriptor("next-index", None), ttl))
        self.timer = runtime_context.get_state(with_ttl(ValueStateDescriptor("timer", None), ttl))
        self.padding = (None,) * self.widths[1]

    def _time(self, side: int, row: tuple[Any, ...]) -> int | None:
        value = row[self.times[side]]
        return None if value is None else to_epoch_millis(value, self.roots[side])

    def process_element(self, value: Any, ctx: Any) -> Any:
        side, kind, row = value
        if side == LEFT:
            index = self.next_index.value() or 0
            self.next_index.update(index + 1)
            self.left.put(index, (kind, row))
            time = self._time(LEFT, row)
            self._register_smallest_timer(ctx, _NO_TIME if time is None else time)
            return None
        time = self._time(1 - LEFT, row)
        if kind == UPDATE_BEFORE or time is None or None in ctx.get_current_key():
            return None  # the planner drops -U; a version needs a time; a NULL key matches nothing
        self.right.put(time, (kind, row))
        self._register_smallest_timer(ctx, time)
        return None

    def _register_smallest_timer(self, ctx: Any, time: int) -> None:
        """One timer per key, at the smallest time waiting (Flink's registerSmallestTimer)."""
        registered = self.timer.value()
        timers = ctx.timer_service()
        if registered is None or registered > time:
            if registered is not None:
                timers.delete_event_time_timer(registered)
            self.timer.update(time)
            timers.register_event_time_timer(time)

    def on_timer(self, timestamp: int, ctx: Any) -> list[tuple[str, tuple[Any, ...]]] | None:
        self.timer.clear()
        watermark = ctx.timer_service().current_watermark()
        # a NULL key: ``NULL = x`` is never TRUE, so its left rows find no version
        times, versions = self._versions() if None not in ctx.get_current_key() else ([], [])
        out: list[tuple[str, tuple[Any, ...]]] = []
        waiting = None  # the smallest time of a left row still waiting
        due = []
        for index, (kind, row) in self.left.items():
            time = self._time(LEFT, row)
            time = _NO_TIME if time is None else time
            if time <= watermark:
                due.append((index, kind, row, time))
            elif waiting is None or time < waiting:
                waiting = time
        due.sort(key=lambda d: d[0])  # arrival order
        for index, kind, row, time in due:
            self.left.remove(index)
            joined = self._joined(row, times, versions, time)
            if joined is not None:
                out.append((kind, joined))
        self._clean_versions(times, watermark)
        if waiting is not None:
            self.timer.update(waiting)
            ctx.timer_service().register_event_time_timer(waiting)
        elif self.left.is_empty():
            self.next_index.clear()
        return out or None

    def _versions(self) -> tuple[list[int], list[tuple[str, tuple[Any, ...]]]]:
        """The versions held, sorted by time, and their times."""
        held = sorted(self.right.items(), key=lambda item: item[0])
        return [t for t, _ in held], [v for _, v in held]

    def _joined(
        self,
        row: tuple[Any, ...],
        times: list[int],
        versions: list[tuple[str, tuple[Any, ...]]],
        time: int,
    ) -> tuple[Any, ...] | None:
        """``row`` joined with the version valid at ``time``, padded (LEFT) or None without one."""
        at = bisect_right(times, time) - 1  # the version of the largest time <= the row's
        if at >= 0 and versions[at][0] != DELETE:
            joined = row + versions[at][1]
            if self.condition is None or self.condition(joined) is True:
                return joined
        return row + self.padding if self.outer else None

    def _clean_versions(self, times: list[int], watermark: int) -> None:
        """Drop the versions no left row can need: all before the newest one at or before the
        watermark (Flink keeps that one even when it is older than the watermark)."""
        keep = bisect_right(times, watermark) - 1
        for time in times[: max(keep, 0)]:
            self.right.remove(time)
