"""Event-time timestamps and watermarks of a table's rows (Flink's WatermarkAssignerOperator): each
row's timestamp is its rowtime column, and the watermark the largest value of the watermark
expression seen so far, emitted periodically (``pipeline.auto-watermark-interval``) and at the end
of a bounded input."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.table.common.timestamps import to_epoch_millis

__all__ = ["ExpressionWatermarks", "RowtimeAssigner"]


class RowtimeAssigner:
    """A row's event time: ``fn(row, previous timestamp)`` (a TimestampAssigner)."""

    def __init__(self, fn: Callable[[Any, int], int]) -> None:
        self.extract_timestamp = fn


class ExpressionWatermarks:
    """Watermark = the largest value of the watermark expression over the rows seen, starting
    from 0 (so no negative watermark is emitted); emitted periodically, and at once when it ran
    more than the interval ahead of the last one emitted, as Flink's ``WatermarkAssignerOperator``
    (``currentWatermark - lastWatermark > interval``). ``bounded_delay_ms``: the watermark is the
    largest rowtime seen minus this delay (None: the expression is not of that form), which lets
    a runtime with its own watermark (Spark's ``withWatermark``) express it."""

    def __init__(
        self,
        expression: Callable[[tuple[Any, ...]], Any],
        root: str,
        interval: int,
        bounded_delay_ms: int | None = None,
    ) -> None:
        self.expression, self.root, self.interval = expression, root, interval
        self.bounded_delay_ms = bounded_delay_ms
        self.current = self.emitted = 0

    def on_event(self, event: Any, event_timestamp: int, output: Any) -> None:
        value = self.expression(event[1])
        if value is not None:
            millis = to_epoch_millis(value, self.root)
            if millis > self.current:
                self.current = millis
        if self.current - self.emitted > self.interval:
            self.emitted = self.current
            output.emit_watermark(self.current)

    def on_marks(self, values: list[int], output: Any) -> None:
        """The watermark expression's values (epoch millis) of rows a columnar scan read; the
        scan cuts its output where ``on_event`` would have emitted inline, so this emits at
        the same places."""
        largest = max(values, default=self.current)
        if largest > self.current:
            self.current = largest
        if self.current - self.emitted > self.interval:
            self.emitted = self.current
            output.emit_watermark(self.current)

    def on_periodic_emit(self, output: Any) -> None:
        if self.current > self.emitted:
            self.emitted = self.current
            output.emit_watermark(self.current)
