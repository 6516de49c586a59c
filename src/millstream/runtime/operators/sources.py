"""Source operators: connector sources (pulled by the task) and legacy SourceFunctions.

A ``SourceOperator`` is pulled by its task's mailbox loop: ``emit_next`` polls the
reader for a batch and pushes it down the chain; with a ``WatermarkStrategy`` it
assigns timestamps and generates watermarks. At the end of input every source emits
the final (max) watermark, as Flink's do. A ``LegacySourceOperator`` runs the
user's ``run(ctx)`` on a legacy source thread, as Flink does; ``ctx.collect`` batches
elements under the emission lock, and the task thread flushes on the buffer timeout.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from enum import Enum
from typing import Any

from millstream.common.connector import AddSplitsEvent, CheckpointedSourceReader, NoMoreSplitsEvent
from millstream.runtime.location import UserFunctionError
from millstream.runtime.operators.base import Emit, OperatorContext, StreamOperator, record_count
from millstream.runtime.operators.elements import MAX_TIMESTAMP, MAX_WATERMARK, Watermark, WatermarkStatus
from millstream.runtime.operators.watermarks import SplitTimestampsAndWatermarks, TimestampsAndWatermarks
from millstream.runtime.state.snapshot import OperatorSnapshot

__all__ = ["CheckpointDeclinedError", "InputStatus", "LegacySourceOperator", "SourceOperator"]


class CheckpointDeclinedError(RuntimeError):
    """An operator cannot take part in a checkpoint (the task declines it, naming why)."""


SOURCE_BATCH = 1024


class InputStatus(Enum):
    """Result of one pull from an input."""

    MORE_AVAILABLE = 0
    NOTHING_AVAILABLE = 1
    END_OF_INPUT = 2
    END_OF_DATA = 3  # every record is in; events (barriers, EndOfPartition) may still come


class _Source(StreamOperator):
    """What both kinds of source share: the output their batches start from."""

    _output: Emit

    def wrap_output(self, wrap: Callable[[Emit], Emit]) -> None:
        """Emit through ``wrap(output)`` (the task cuts batches into bundles there)."""
        self._output = wrap(self._output)

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Sources have no input."""
        raise RuntimeError("a source has no input")

    def operator_metrics(self) -> dict[str, float]:
        """A source's: ``numRecordsIn`` counts the records it read (Flink's FLIP-33 source
        metric); having no input, it has no input watermark (as Flink's source operators)."""
        metrics = super().operator_metrics()
        del metrics["currentInputWatermark"]
        return metrics


class SourceOperator(_Source):
    """Pulls batches from a connector source's reader."""

    def __init__(
        self,
        context: OperatorContext,
        source: Any,
        output: Emit,
        reader_context: Any,
        watermark_strategy: Any = None,
    ) -> None:
        super().__init__(context, None)
        self._source = source
        self._output = output
        self._reader_context = reader_context
        self._reader: Any = None
        self._restored_position: Any = None
        self.available_at = 0.0
        self._strategy = watermark_strategy
        self._watermarks: TimestampsAndWatermarks | None = None
        self._split_watermarks: SplitTimestampsAndWatermarks | None = None  # per split (Kafka)
        self._ended = False  # the input was ended early (stop-with-savepoint --drain)
        self._poll_timestamped: Callable[[int], Any] | None = None  # the reader's, if it has one
        self._snapshot_takes_id = False  # the reader's snapshot_state(checkpoint_id)

    def open(self) -> None:
        """Create the reader for this subtask."""
        super().open()
        try:
            self._reader = self._source.create_reader(self._reader_context)
            if self._restored_position is not None:
                self._reader.restore_state(self._restored_position)
            self._poll_timestamped = getattr(self._reader, "poll_timestamped", None)
            snapshot = getattr(self._reader, "snapshot_state", None)
            self._snapshot_takes_id = snapshot is not None and bool(inspect.signature(snapshot).parameters)
        except Exception as err:
            raise UserFunctionError(
                self.name, self.context.location, None, message="creating the source reader failed"
            ) from err
        strategy = self._strategy
        if strategy is not None and (strategy.kind != "none" or strategy.timestamp_assigner is not None):
            if hasattr(self._reader, "poll_splits"):
                self._split_watermarks = SplitTimestampsAndWatermarks(
                    strategy,
                    self.context,
                    lambda wm: self.emit_watermark(wm),
                    lambda status: self.emit_watermark_status(status),
                    self.name,
                    progressive=not self.context.batch,
                )
                return
            self._watermarks = TimestampsAndWatermarks(
                strategy,
                self.context,
                lambda wm: self.emit_watermark(wm),
                lambda status: self.emit_watermark_status(status),
                self.name,
                progressive=not self.context.batch,
            )
            self._watermarks.start()

    def emit_next(self) -> InputStatus:
        """Poll one batch and emit it."""
        if self._ended:
            return InputStatus.END_OF_INPUT
        if self._split_watermarks is not None:
            return self._emit_next_by_split(self._split_watermarks)
        timestamps = marks = None
        try:
            if self._poll_timestamped is not None:
                polled = self._poll_timestamped(SOURCE_BATCH)
                if polled is not None and len(polled) == 3:  # and the watermark events of the rows read
                    batch, timestamps, marks = polled
                else:
                    batch, timestamps = (None, None) if polled is None else polled
            else:
                batch = self._reader.poll(SOURCE_BATCH)
        except Exception as err:
            raise self._reader_failed(err) from err
        if batch is None:
            self._emit_final_watermark()
            return InputStatus.END_OF_INPUT
        if not batch:
            self.available_at = getattr(self._reader, "available_at", 0.0)
            return InputStatus.NOTHING_AVAILABLE
        watermarks = self._watermarks
        self.records_in += record_count(batch)
        if watermarks is None:
            self._output(batch, timestamps)
        else:
            watermarks.process(batch, timestamps, self._output, marks)
        return InputStatus.MORE_AVAILABLE

    def _reader_failed(self, err: Exception) -> UserFunctionError:
        # no record position: the reader failed on input it had not made a record of; its error
        # says where (a file and line, a partition and offset), else the file it was reading
        current = getattr(self._reader, "current_file", None)
        reading = f" reading {current}" if current and current not in str(err) else ""
        return UserFunctionError(
            self.name, self.context.location, None, message=f"source reader failed{reading}", detail=err
        )

    def _emit_next_by_split(self, watermarks: SplitTimestampsAndWatermarks) -> InputStatus:
        try:
            polled = self._reader.poll_splits(SOURCE_BATCH)
        except Exception as err:
            raise self._reader_failed(err) from err
        if polled is None:
            self._emit_final_watermark()
            return InputStatus.END_OF_INPUT
        groups, finished = polled
        emitted = False
        for split, values, timestamps in groups:
            self.records_in += len(values)
            emitted = emitted or bool(values)
            watermarks.process(split, values, timestamps, self._output)
        for split in finished:
            watermarks.release(split)
        if not emitted and not finished:
            self.available_at = getattr(self._reader, "available_at", 0.0)
            return InputStatus.NOTHING_AVAILABLE
        return InputStatus.MORE_AVAILABLE

    def handle_operator_event(self, event: Any) -> None:
        """An event of the source's enumerator (task thread): splits to read, or the end."""
        reader = self._reader
        if reader is None:
            return  # closed: a late answer
        if isinstance(event, AddSplitsEvent):
            reader.add_splits(list(event.splits))
        elif isinstance(event, NoMoreSplitsEvent):
            reader.notify_no_more_splits()
        else:
            raise ValueError(f"operator '{self.name}': unexpected operator event {event!r}")

    def end_input(self) -> None:
        """End the input now, as at the end of a bounded source: the final watermark goes out
        (stop-with-savepoint --drain); the reader keeps its position for the savepoint."""
        self._ended = True
        self._emit_final_watermark()

    def snapshot_extra_state(self, checkpoint_id: int) -> Any:
        """The reader's position (after the last batch emitted)."""
        reader = self._reader
        if not isinstance(reader, CheckpointedSourceReader):
            raise CheckpointDeclinedError(
                f"operator '{self.name}': its source reader ({type(reader).__name__}) cannot "
                "checkpoint its position"
            )
        if self._snapshot_takes_id:
            return reader.snapshot_state(checkpoint_id)  # type: ignore[call-arg]
        return reader.snapshot_state()

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """The reader hears of it (a Kafka reader commits its offsets to the group)."""
        super().notify_checkpoint_complete(checkpoint_id)
        notify = getattr(self._reader, "notify_checkpoint_complete", None)
        if notify is not None:
            notify(checkpoint_id)

    def restore_extra_state(self, extra: Any) -> None:
        """The reader starts at this position when it opens."""
        self._restored_position = extra

    def _emit_final_watermark(self) -> None:
        if self._split_watermarks is not None:
            self._split_watermarks.emit_final_watermark()
        elif self._watermarks is not None:
            self._watermarks.emit_final_watermark()
        elif self.current_watermark != MAX_TIMESTAMP:
            self.current_watermark = MAX_TIMESTAMP
            self.emit_watermark(MAX_WATERMARK)

    def close(self) -> None:
        """Close the reader."""
        if self._watermarks is not None:
            self._watermarks.stop()
        if self._split_watermarks is not None:
            self._split_watermarks.stop()
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        super().close()


class _SourceContext:
    """``SourceFunction.SourceContext``: batches collected elements under the emission lock."""

    def __init__(self, operator: LegacySourceOperator, lock: threading.RLock) -> None:
        self._operator = operator
        self._lock = lock
        self._values: list[Any] = []  # under _lock
        self._timestamps: list[int] | None = None  # under _lock

    def collect(self, element: Any) -> None:
        """Emit one element."""
        with self._lock:
            if self._timestamps is not None:
                self.push()
            self._values.append(element)
            if len(self._values) >= SOURCE_BATCH:
                self.push()

    def collect_with_timestamp(self, element: Any, timestamp: int) -> None:
        """Emit one element with an event timestamp."""
        with self._lock:
            if self._timestamps is None:
                self.push()
                self._timestamps = []
            self._values.append(element)
            self._timestamps.append(timestamp)
            if len(self._values) >= SOURCE_BATCH:
                self.push()

    def emit_watermark(self, mark: Watermark | int) -> None:
        """Emit a watermark (after the elements collected so far)."""
        ts = mark if isinstance(mark, int) else mark.timestamp
        with self._lock:
            self.push()
            operator = self._operator
            if ts > operator.current_watermark:
                operator.current_watermark = ts
                operator.mark_active()
                operator.emit_watermark(Watermark(ts))

    def mark_as_temporarily_idle(self) -> None:
        """Downstream stops waiting for this source's watermark until it emits again."""
        with self._lock:
            self.push()
            self._operator.mark_idle()

    def get_checkpoint_lock(self) -> threading.RLock:
        """The lock under which elements are emitted and checkpoints are taken (Flink's
        checkpoint lock; reentrant, as Java's monitor: ``collect`` takes it again inside)."""
        return self._lock

    def push(self) -> None:
        """Send the collected batch down the chain (caller holds the lock)."""
        if self._values:
            values, timestamps = self._values, self._timestamps
            self._values, self._timestamps = [], None
            self._operator.mark_active()  # emitting records ends idleness, as in Flink
            self._operator.emit(values, timestamps)


class LegacySourceOperator(_Source):
    """Runs a user ``SourceFunction`` (its ``run`` goes on the legacy source thread).

    Emission happens under ``lock``; the task thread takes the same lock to flush what a
    quiet source collected when the buffer timeout expires.
    """

    def __init__(self, context: OperatorContext, function: Any, output: Emit) -> None:
        super().__init__(context, function)
        self._function = function
        self._output = output
        self.lock = threading.RLock()
        self.source_context = _SourceContext(self, self.lock)

        self._idle = False

    def snapshot_state(
        self, checkpoint_id: int, timestamp: int = 0, canonical: bool = True
    ) -> OperatorSnapshot:
        """Snapshot under the checkpoint lock (the task thread holds it: see ``StreamTask``), after
        handing on what the source collected: the function's state (a ``CheckpointedFunction``'s
        operator state) then counts exactly the elements before the barrier. A function that is
        not a CheckpointedFunction starts over after a recovery (at least once), as in Flink."""
        self.source_context.push()
        return super().snapshot_state(checkpoint_id, timestamp, canonical)

    def emit(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Push a collected batch down the chain (lock held)."""
        self.records_in += len(values)
        self._output(values, timestamps)

    def mark_idle(self) -> None:
        """Emit IDLE unless idle already (lock held)."""
        if not self._idle:
            self._idle = True
            self.emit_watermark_status(WatermarkStatus.IDLE)

    def mark_active(self) -> None:
        """Emit ACTIVE if idle (lock held)."""
        if self._idle:
            self._idle = False
            self.emit_watermark_status(WatermarkStatus.ACTIVE)

    def run(self) -> None:
        """Run the user's ``run(ctx)`` to completion, then emit what is left."""
        ctx = self.source_context
        try:
            self._function.run(ctx)
        except Exception as err:
            raise UserFunctionError(
                self.name,
                self.context.location,
                self.records_in + len(ctx._values),
                None,
                message="SourceFunction.run raised",
            ) from err
        with self.lock:
            ctx.push()
            if self.current_watermark != MAX_TIMESTAMP:
                self.current_watermark = MAX_TIMESTAMP
                self.mark_active()
                self.emit_watermark(MAX_WATERMARK)

    def cancel(self) -> None:
        """Ask the user's ``run`` to return (called from the cancelling thread)."""
        cancel = getattr(self._function, "cancel", None)
        if cancel is not None:
            cancel()
