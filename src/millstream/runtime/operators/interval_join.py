"""IntervalJoinOperator: joins two keyed streams on ``lower <= right.ts - left.ts <= upper``.

As Flink's IntervalJoinOperator: every element is buffered in keyed map state of its
side (timestamp -> elements), joined against the other side's buffered elements whose
timestamps fall in the relative interval, and dropped from the buffer by an event-time
cleanup timer once no future element of the other side can match it. Elements behind
the watermark are late and dropped. A result carries the larger of the two timestamps.
"""

from __future__ import annotations

from typing import Any

from millstream.runtime.location import UserFunctionError
from millstream.runtime.operators.base import Emit, OperatorContext
from millstream.runtime.operators.elements import MIN_TIMESTAMP, Watermark
from millstream.runtime.operators.process import OutputCollector
from millstream.runtime.operators.two_input import TwoInputOperator
from millstream.runtime.state.heap import InternalStateDescriptor

__all__ = ["IntervalJoinOperator"]

_LEFT = "CLEANUP_LEFT"
_RIGHT = "CLEANUP_RIGHT"


class _JoinContext:
    """``ProcessJoinFunction.Context``."""

    __slots__ = ("left_ts", "right_ts")

    def __init__(self) -> None:
        self.left_ts = MIN_TIMESTAMP
        self.right_ts = MIN_TIMESTAMP

    def get_left_timestamp(self) -> int:
        """Timestamp of the left element."""
        return self.left_ts

    def get_right_timestamp(self) -> int:
        """Timestamp of the right element."""
        return self.right_ts

    def get_timestamp(self) -> int:
        """Timestamp of the joined result: the larger of the two."""
        return max(self.left_ts, self.right_ts)


class IntervalJoinOperator(TwoInputOperator):
    """Keyed interval join; input 1 is the left stream, input 2 the right."""

    def __init__(
        self,
        context: OperatorContext,
        function: Any,
        output: Emit,
        side_outputs: dict[str, Emit],
        key_selectors: tuple[Any, Any],
        bounds: tuple[int, int],
    ) -> None:
        super().__init__(context, function)
        self.init_two_inputs()
        lower, upper = bounds  # inclusive
        if lower > upper:
            raise ValueError(f"operator '{self.name}': lowerBound <= upperBound must be fulfilled")
        self._lower = lower
        self._upper = upper
        self._fn = getattr(function, "process_element", function)
        self._key_selectors = key_selectors
        self._collector = OutputCollector(output, side_outputs)
        backend = self.create_keyed_backend(key_selectors[0])
        self._left = backend.get_state(InternalStateDescriptor("interval-join-left-buffer", "map"))
        self._right = backend.get_state(InternalStateDescriptor("interval-join-right-buffer", "map"))
        self._timers = self.create_timer_service(self)
        self._ctx = _JoinContext()

    def process_batch1(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Left elements: join with right elements in [ts + lower, ts + upper]."""
        self._process(values, timestamps, 0, self._left, self._right, self._lower, self._upper)

    def process_batch2(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Right elements: join with left elements in [ts - upper, ts - lower]."""
        self._process(values, timestamps, 1, self._right, self._left, -self._upper, -self._lower)

    def _process(
        self,
        values: list[Any],
        timestamps: list[int] | None,
        side: int,
        ours: Any,
        others: Any,
        rel_lower: int,
        rel_upper: int,
    ) -> None:
        set_key = self.keyed_backend.set_current_key  # type: ignore[union-attr]
        key_selector = self._key_selectors[side]
        watermark = self.current_watermark
        namespace = _LEFT if side == 0 else _RIGHT
        index = 0
        try:
            for index, value in enumerate(values):
                ts = MIN_TIMESTAMP if timestamps is None else timestamps[index]
                if ts == MIN_TIMESTAMP:
                    raise ValueError(
                        "Long.MIN_VALUE timestamp: Elements used in interval stream joins need "
                        "to have timestamps meaningful timestamps."
                    )
                if watermark != MIN_TIMESTAMP and ts < watermark:
                    continue  # late
                set_key(key_selector(value))
                bucket = ours.get(ts)
                if bucket is None:
                    ours.put(ts, [value])
                else:
                    bucket.append(value)
                    ours.put(ts, bucket)
                low, high = ts + rel_lower, ts + rel_upper
                for other_ts, elements in others.items():
                    if low <= other_ts <= high:
                        for other in elements:
                            if side == 0:
                                self._emit(value, ts, other, other_ts)
                            else:
                                self._emit(other, other_ts, value, ts)
                cleanup = ts + rel_upper if rel_upper > 0 else ts
                self._timers.register_event_time_timer(namespace, cleanup)
        except UserFunctionError:
            self._collector.flush()
            raise
        except Exception as err:
            self._collector.flush()
            raise self.error(index, values) from err
        self.records_in += len(values)
        self._collector.flush()

    def _emit(self, left: Any, left_ts: int, right: Any, right_ts: int) -> None:
        ctx = self._ctx
        ctx.left_ts = left_ts
        ctx.right_ts = right_ts
        self._collector.collect(self._fn(left, right, ctx), max(left_ts, right_ts))

    def process_watermark(self, watermark: Watermark) -> None:
        """Clean up buffers whose elements can no longer match, then forward the watermark."""
        self.current_watermark = watermark.timestamp
        self._timers.advance_watermark(watermark.timestamp)
        self.emit_watermark(watermark)

    def on_event_time(self, timestamp: int, key: Any, namespace: Any) -> None:
        """A cleanup timer: drop the buffered elements of that timestamp."""
        if namespace == _LEFT:
            self._left.remove(timestamp if self._upper <= 0 else timestamp - self._upper)
        else:
            self._right.remove(timestamp + self._lower if self._lower <= 0 else timestamp)

    def on_processing_time(self, timestamp: int, key: Any, namespace: Any) -> None:
        """No processing-time timers."""
