"""Over aggregation ordered by a processing-time attribute (``SUM(x) OVER (PARTITION BY k ORDER
BY proc_time ...)``, streaming), as Flink's ``ProcTimeUnboundedPrecedingFunction``,
``ProcTimeRowsBoundedPrecedingFunction`` and ``ProcTimeRangeBoundedPrecedingFunction``:

* ``UNBOUNDED PRECEDING`` (ROWS or RANGE): each row emitted when it arrives, with the
  aggregates over every row of its partition so far, itself included;
* ``ROWS n PRECEDING``: each row emitted when it arrives, over itself and the n rows of its
  partition that arrived before it;
* ``RANGE interval PRECEDING``: the rows of a partition arriving in one millisecond wait for the
  processing-time timer of the next, then are emitted together, each over the rows that
  arrived within the interval before that millisecond (rows of that millisecond included).

The order is the arrival order (processing time), never the attribute's value; the output is
insert-only. The event-time variants are :mod:`millstream.table.runtime.over`'s.
"""

from __future__ import annotations

from typing import Any

from millstream.datastream.state import MapStateDescriptor
from millstream.table.common.row_kind import INSERT
from millstream.table.runtime.over import OverFunction

__all__ = ["ProcTimeOverFunction"]


class ProcTimeOverFunction(OverFunction):
    """Over aggregation in arrival order (the frame's ``preceding``: rows, or milliseconds of a
    RANGE frame; None: unbounded)."""

    def open(self, runtime_context: Any) -> None:
        super().open(runtime_context)
        # RANGE: the rows of each millisecond not emitted yet
        self.arrived = runtime_context.get_map_state(MapStateDescriptor("arrived", None, None))

    def process_element(self, value: Any, ctx: Any) -> Any:
        row = value[1]
        if self.preceding is None:
            return self._unbounded_in_order(row)
        if self.rows:
            history: list[tuple[int, tuple[Any, ...]]] = self.history.value() or []
            history = [*history, (0, row)][-(self.preceding + 1) :]
            self.history.update(history)
            return [(INSERT, row + self._aggregate([r for _, r in history]))]
        timers = ctx.timer_service()
        now = timers.current_processing_time()
        waiting = self.arrived.get(now)
        self.arrived.put(now, [row] if waiting is None else [*waiting, row])
        timers.register_processing_time_timer(now + 1)
        return None

    def _unbounded_in_order(self, row: tuple[Any, ...]) -> list[tuple[str, tuple[Any, ...]]]:
        accs = self.history.value()
        if accs is None:
            accs = [a.create() for a in self.accumulators]
        accs = self._add(accs, row)
        self.history.update(accs)
        return [(INSERT, row + self._results(accs))]

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        """The rows of millisecond ``timestamp - 1``, each over the RANGE before it."""
        current = timestamp - 1
        rows = self.arrived.get(current)
        if rows is None:
            return None
        self.arrived.remove(current)
        history: list[tuple[int, tuple[Any, ...]]] = self.history.value() or []
        assert self.preceding is not None
        history = [
            (t, r) for t, r in [*history, *((current, r) for r in rows)] if t >= current - self.preceding
        ]
        self.history.update(history)
        values = self._aggregate([r for _, r in history])
        return [(INSERT, row + values) for row in rows]
