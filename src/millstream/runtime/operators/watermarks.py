"""Timestamp assignment and watermark generation at sources and ``assign_timestamps_and_watermarks``.

``TimestampsAndWatermarks`` (Flink's ProgressiveTimestampsAndWatermarks) runs one
subtask's ``WatermarkStrategy``: the timestamp assigner per element, the generator's
``on_event`` per element (the built-in bounded generator takes a whole batch with one
``max``), and ``on_periodic_emit`` every ``pipeline.auto-watermark-interval`` ms from the
task's processing-time service. Idleness (``with_idleness``) marks the output idle
after the timeout without events. In BATCH mode (``progressive=False``) timestamps are
assigned but no watermarks are emitted: only the final one at the end of input.

``TimestampsAndWatermarksOperator`` is the operator of ``assign_timestamps_and_watermarks``:
it ignores upstream watermarks except the final one, as Flink's does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.common.watermark_strategy import WatermarkOutput
from millstream.runtime.location import UserFunctionError
from millstream.runtime.operators.base import Emit, OperatorContext, StreamOperator
from millstream.runtime.operators.elements import (
    MAX_TIMESTAMP,
    MAX_WATERMARK,
    MIN_TIMESTAMP,
    Watermark,
    WatermarkStatus,
)

__all__ = ["TimestampsAndWatermarks", "TimestampsAndWatermarksOperator", "WatermarkToOutput"]


class WatermarkToOutput(WatermarkOutput):
    """Turns a generator's calls into in-band elements; watermarks only ever advance."""

    def __init__(
        self,
        emit_watermark: Callable[[Watermark], None],
        emit_status: Callable[[WatermarkStatus], None],
    ) -> None:
        self._emit_watermark = emit_watermark
        self._emit_status = emit_status
        self.max_watermark = MIN_TIMESTAMP
        self.idle = False
        self.before_emit: Callable[[], None] | None = None  # flushes the records before a watermark

    def emit_watermark(self, watermark: Watermark | int) -> None:
        """Emit if larger than every earlier one (marks the output active first)."""
        ts = watermark if isinstance(watermark, int) else watermark.timestamp
        if ts <= self.max_watermark:
            return
        self.max_watermark = ts
        if self.before_emit is not None:
            self.before_emit()
        self.mark_active()
        self._emit_watermark(Watermark(ts))

    def mark_idle(self) -> None:
        """Downstream stops waiting for this output's watermark."""
        if not self.idle:
            self.idle = True
            if self.before_emit is not None:
                self.before_emit()
            self._emit_status(WatermarkStatus.IDLE)

    def mark_active(self) -> None:
        """This output holds the watermark back again."""
        if self.idle:
            self.idle = False
            if self.before_emit is not None:
                self.before_emit()
            self._emit_status(WatermarkStatus.ACTIVE)


class _IdlenessTimer:
    """Idle when no event arrived between checks spanning more than the timeout (Flink's)."""

    def __init__(self, timeout_ms: int, clock: Callable[[], float]) -> None:
        self._timeout = timeout_ms / 1000.0
        self._clock = clock
        self.counter = 0
        self._last_counter = 0
        self._inactive_since = 0.0

    def check_if_idle(self) -> bool:
        if self.counter != self._last_counter:
            self._last_counter = self.counter
            self._inactive_since = 0.0
            return False
        if self._inactive_since == 0.0:
            self._inactive_since = self._clock()
            return False
        return self._clock() - self._inactive_since > self._timeout


class TimestampsAndWatermarks:
    """One subtask's timestamp assigner and watermark generator."""

    def __init__(
        self,
        strategy: Any,
        context: OperatorContext,
        emit_watermark: Callable[[Watermark], None],
        emit_status: Callable[[WatermarkStatus], None],
        operator_name: str,
        progressive: bool = True,
    ) -> None:
        self._assigner = strategy.create_timestamp_assigner()
        self._generator = strategy.create_watermark_generator(context.runtime_context)
        self._on_events = getattr(self._generator, "on_events", None)
        self._on_event = self._generator.on_event
        self.output = WatermarkToOutput(emit_watermark, emit_status)
        idleness = strategy.idleness_ms
        self._progressive = progressive
        self._pts = pts = context.processing_time_service
        self._idleness = (
            _IdlenessTimer(idleness, lambda: pts.current_processing_time() / 1000.0)
            if idleness and progressive
            else None
        )
        self._interval = context.auto_watermark_interval if progressive else 0
        self._timer: Any = None
        self._name = operator_name
        self._location = context.location
        self.records = 0
        self._index = 0  # per-event path: the element being fed to the generator
        self._emitted = 0  # per-event path: elements of the batch already emitted

    def start(self) -> None:
        """Schedule the periodic emission."""
        if self._interval > 0:
            self._timer = self._pts.register_timer(
                self._pts.current_processing_time() + self._interval, self._on_periodic
            )

    def _on_periodic(self, now: int) -> None:
        idleness = self._idleness
        if idleness is not None and idleness.check_if_idle():
            self.output.mark_idle()
        else:
            self.on_periodic_emit()
        self._timer = self._pts.register_timer(now + self._interval, self._on_periodic)

    def on_periodic_emit(self) -> None:
        """Ask the generator for a watermark now."""
        if self._progressive:
            try:
                self._generator.on_periodic_emit(self.output)
            except Exception as err:
                raise UserFunctionError(
                    self._name,
                    self._location,
                    self.records,
                    None,
                    message="WatermarkGenerator.on_periodic_emit raised",
                ) from err

    def stop(self) -> None:
        """Stop the periodic emission."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def process(
        self, values: list[Any], timestamps: list[int] | None, emit: Emit, marks: list[Any] | None = None
    ) -> None:
        """Assign timestamps, feed the generator and ``emit`` the records.

        As in Flink, a record goes out before the watermark its ``on_event`` produces:
        a watermark emitted in the middle of a batch splits it. ``marks``: a reader that
        filters inside the source (a columnar scan) reports the watermark values of the rows it
        read, all of them, after the records they follow; a generator with ``on_marks`` takes
        them instead of an event per record.
        """
        on_marks = getattr(self._generator, "on_marks", None) if marks is not None else None
        if on_marks is not None and marks is not None and self._assigner is None:
            self._process_marked(values, timestamps, emit, marks, on_marks)
            return
        assigner = self._assigner
        index = 0
        n = len(values)
        output = self.output
        try:
            if assigner is not None:
                if timestamps is None:
                    timestamps = [assigner(v, MIN_TIMESTAMP) for v in values]
                else:
                    timestamps = [assigner(v, t) for v, t in zip(values, timestamps, strict=True)]
            if self._progressive:
                if self._on_events is not None:
                    if timestamps is not None:
                        self._on_events(timestamps)
                else:
                    self._per_event(values, timestamps, emit)
                    values = values[self._emitted :]
                    timestamps = None if timestamps is None else timestamps[self._emitted :]
                if self._idleness is not None:
                    self._idleness.counter += 1
        except Exception as err:
            if assigner is not None and timestamps is None:
                index = _first_failing(assigner, values)
                message = "TimestampAssigner.extract_timestamp raised"
            else:
                message = "WatermarkGenerator.on_event raised"
                index = self._index
            record = values[index] if index < len(values) else None
            raise UserFunctionError(
                self._name, self._location, self.records + index, record, message=message
            ) from err
        finally:
            output.before_emit = None
        self.records += n
        if values:
            emit(values, timestamps)

    def _process_marked(
        self,
        values: list[Any],
        timestamps: list[int] | None,
        emit: Emit,
        marks: list[Any],
        on_marks: Callable[[list[Any], Any], None],
    ) -> None:
        """The records, then the watermark values of the rows read with them."""
        self.records += len(values)
        if values:
            emit(values, timestamps)
        if self._progressive:
            on_marks(marks, self.output)
            if self._idleness is not None:
                self._idleness.counter += 1

    def _per_event(self, values: list[Any], timestamps: list[int] | None, emit: Emit) -> None:
        """``on_event`` per element; records up to the current one go out before a watermark."""
        self._emitted = 0
        self._index = 0

        def flush() -> None:
            end = self._index + 1
            if end > self._emitted:
                start, self._emitted = self._emitted, end
                emit(values[start:end], None if timestamps is None else timestamps[start:end])

        self.output.before_emit = flush
        on_event = self._on_event
        output = self.output
        for i, v in enumerate(values):
            self._index = i
            on_event(v, MIN_TIMESTAMP if timestamps is None else timestamps[i], output)

    def emit_final_watermark(self) -> None:
        """End of input: the max watermark (fires every event-time timer downstream)."""
        self.stop()
        if self.output.max_watermark != MAX_TIMESTAMP:
            self.output.emit_watermark(MAX_WATERMARK)


def _first_failing(assigner: Callable[[Any, int], int], values: list[Any]) -> int:
    """Index of the first element the assigner fails on (error reporting only)."""
    for index, v in enumerate(values):
        try:
            assigner(v, MIN_TIMESTAMP)
        except Exception:
            return index
    return 0


class TimestampsAndWatermarksOperator(StreamOperator):
    """``assign_timestamps_and_watermarks``: assigns timestamps, generates watermarks."""

    def __init__(self, context: OperatorContext, strategy: Any, output: Emit) -> None:
        super().__init__(context, None)
        self._output = output
        self._strategy = strategy

    def open(self) -> None:
        """Create the generator and start periodic emission."""
        super().open()
        self._logic = TimestampsAndWatermarks(
            self._strategy,
            self.context,
            lambda wm: self.emit_watermark(wm),
            lambda status: self.emit_watermark_status(status),
            self.name,
            progressive=not self.context.batch,
        )
        self._logic.start()

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Assign timestamps, feed the generator, forward the batch."""
        self.records_in += len(values)
        self._logic.process(values, timestamps, self._output)

    def observe_timestamps(self, observe: Callable[[list[int]], None]) -> None:
        """Call ``observe(timestamps)`` with each batch's assigned timestamps before it goes on
        (a runner with its own watermark, Spark's, learns the event times the chain saw)."""
        emit = self._output

        def observed(values: list[Any], timestamps: list[int] | None) -> None:
            if timestamps:
                observe(timestamps)
            emit(values, timestamps)

        self._output = observed

    def process_watermark(self, watermark: Watermark) -> None:
        """Upstream watermarks are replaced by this operator's, except the final one."""
        if watermark.timestamp == MAX_TIMESTAMP:
            self._logic.emit_final_watermark()

    def process_watermark_status(self, status: WatermarkStatus) -> None:
        """This operator decides its own output's status."""

    def finish(self) -> None:
        """A last periodic emission, as Flink's operator does at the end of input."""
        self._logic.stop()
        self._logic.on_periodic_emit()


class SplitTimestampsAndWatermarks:
    """Watermarks generated per source split and combined, as Flink's ``SourceOperator`` does
    with a reader that reports its splits (Kafka partitions): each split has its own timestamp
    assigner and watermark generator (idleness included); the source's watermark is the
    minimum over the splits that are not idle, and a split that has not produced a watermark
    yet holds it back. A finished split stops counting. Records of different partitions read
    out of step therefore do not make each other late."""

    def __init__(
        self,
        strategy: Any,
        context: OperatorContext,
        emit_watermark: Callable[[Watermark], None],
        emit_status: Callable[[WatermarkStatus], None],
        operator_name: str,
        progressive: bool = True,
    ) -> None:
        self._strategy = strategy
        self._context = context
        self._emit_watermark = emit_watermark
        self._emit_status = emit_status
        self._name = operator_name
        self._progressive = progressive
        self._splits: dict[Any, TimestampsAndWatermarks] = {}
        self._marks: dict[Any, int] = {}  # split -> its latest watermark
        self._idle: set[Any] = set()
        self.current = MIN_TIMESTAMP
        self._idle_out = False

    def process(self, split: Any, values: list[Any], timestamps: list[int] | None, emit: Emit) -> None:
        """Assign timestamps and generate watermarks for one split's records (none: the split
        was assigned; it holds the watermark back from now on)."""
        generator = self._splits.get(split)
        if generator is None:
            generator = self._splits[split] = self._generator(split)
            generator.start()
        if values:
            generator.process(values, timestamps, emit)

    def _generator(self, split: Any) -> TimestampsAndWatermarks:
        def on_watermark(watermark: Watermark) -> None:
            self._on_watermark(split, watermark)

        def on_status(status: WatermarkStatus) -> None:
            self._on_status(split, status)

        return TimestampsAndWatermarks(
            self._strategy, self._context, on_watermark, on_status, self._name, self._progressive
        )

    def release(self, split: Any) -> None:
        """A finished split stops holding the watermark back."""
        generator = self._splits.pop(split, None)
        if generator is not None:
            generator.stop()
        self._marks.pop(split, None)
        self._idle.discard(split)
        self._combine()

    def _on_watermark(self, split: Any, watermark: Watermark) -> None:
        self._marks[split] = watermark.timestamp
        self._idle.discard(split)
        self._combine()

    def _on_status(self, split: Any, status: WatermarkStatus) -> None:
        if status is WatermarkStatus.IDLE:
            self._idle.add(split)
        else:
            self._idle.discard(split)
        self._combine()

    def _combine(self) -> None:
        active = [s for s in self._splits if s not in self._idle]
        if not active:
            if self._splits and not self._idle_out:
                self._idle_out = True
                self._emit_status(WatermarkStatus.IDLE)
            return
        if self._idle_out:
            self._idle_out = False
            self._emit_status(WatermarkStatus.ACTIVE)
        if any(s not in self._marks for s in active):
            return
        mark = min(self._marks[s] for s in active)
        if mark > self.current:
            self.current = mark
            self._emit_watermark(Watermark(mark))

    def stop(self) -> None:
        """Stop every split's periodic emission."""
        for generator in self._splits.values():
            generator.stop()

    def emit_final_watermark(self) -> None:
        """End of input: the max watermark."""
        self.stop()
        if self._idle_out:
            self._idle_out = False
            self._emit_status(WatermarkStatus.ACTIVE)
        if self.current != MAX_TIMESTAMP:
            self.current = MAX_TIMESTAMP
            self._emit_watermark(MAX_WATERMARK)
