"""StreamTask: runs an operator chain in the task's mailbox loop.

The default action processes one input buffer (or one source batch). Output is flushed
every ``buffer_timeout`` ms (0: after every processed batch; -1: only when buffers are
full or at the end). Due processing-time timers run first in every step of the loop,
and the loop sleeps no longer than the next timer. At the end of input pending
processing-time timers are dropped (as Flink quiesces its timer service), the chain
finishes head first, the operators are closed, and the writers send EndOfPartition.

With checkpoints in a STREAMING job the end is Flink's FLIP-147: at the end of its data
the task finishes its operators and sends ``EndOfData``, then keeps taking checkpoints
(barriers still pass through it) until one it took after finishing completes — its final
checkpoint, in which two-phase-commit sinks commit their last output — and only then
closes and ends its partitions.

The time the mailbox waits with nothing to do is the task's idle time (``idle_time``, a
``TimerGauge``); a legacy source's is not measured, as in Flink (its task thread only waits
for the source thread, so neither idle nor busy time says anything about the source).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Protocol

from millstream.runtime.io.network.events import CancelCheckpointMarker, CheckpointBarrier, EndOfData
from millstream.runtime.io.network.record_writer import RecordWriter, flush_all
from millstream.runtime.operators.sources import (
    CheckpointDeclinedError,
    InputStatus,
    LegacySourceOperator,
    SourceOperator,
)
from millstream.runtime.operators.timer_service import ProcessingTimeService
from millstream.runtime.state.snapshot import CHANNEL_STATE_KEY, ChannelState, OperatorSnapshot
from millstream.runtime.taskmanager.input_processor import StreamTaskNetworkInput
from millstream.runtime.taskmanager.mailbox import Mail, MailboxProcessor, TaskMailbox
from millstream.runtime.taskmanager.operator_chain import OperatorChain
from millstream.runtime.taskmanager.sorted_input import SortedKeyedInput
from millstream.runtime.taskmanager.task_metrics import TimerGauge

__all__ = ["CancelTaskError", "CheckpointResponder", "StreamTask"]

_FOREVER = float("inf")
LEGACY_SOURCE_CANCEL_TIMEOUT_S = 30.0


class CancelTaskError(Exception):
    """Raised on the task thread to unwind a cancelled task."""


class CheckpointResponder(Protocol):
    """Where a task reports its part of a checkpoint (the JobMaster's coordinator)."""

    def acknowledge(
        self, checkpoint_id: int, snapshots: dict[int, OperatorSnapshot], savepoint: str | None = None
    ) -> None:
        """The task snapshotted for ``checkpoint_id`` and forwarded the barrier (``savepoint``:
        the savepoint's directory, where its state goes)."""
        ...

    def decline(self, checkpoint_id: int, reason: str, kind: str = "") -> None:
        """The task cannot take part in ``checkpoint_id`` (``kind``: "task-not-ready" or
        "task-closing" when that is why: not counted as a failed checkpoint)."""
        ...


class StreamTask:
    """The invokable of a streaming task."""

    def __init__(
        self,
        mailbox: TaskMailbox,
        chain: OperatorChain,
        network_input: StreamTaskNetworkInput | None,
        writers: list[RecordWriter],
        buffer_timeout_ms: int,
        processing_time_service: ProcessingTimeService | None = None,
        sorted_input: SortedKeyedInput | None = None,
    ) -> None:
        self.mailbox = mailbox
        self.sorted_input = sorted_input
        self.timers = processing_time_service or ProcessingTimeService()
        self.chain = chain
        self.network_input = network_input
        self.writers = writers
        self._flush_interval = buffer_timeout_ms / 1000.0 if buffer_timeout_ms >= 0 else -1.0
        self._next_flush = _FOREVER  # owner: task thread
        self.canceled = False  # written by the cancelling thread, read by the task thread
        self._legacy_source: LegacySourceOperator | None = None
        self._legacy_thread: threading.Thread | None = None
        self.idle_time = TimerGauge()  # Flink's idle time: the mailbox waiting with nothing to do
        self.started_at = 0.0  # owner: task thread: perf_counter when it began to run (0: not yet)
        self.processor = MailboxProcessor(mailbox, self._default_action, self.idle_time)
        self.checkpoint_responder: CheckpointResponder | None = None
        self.running = False  # owner: task thread: opened and not yet finishing
        # FLIP-147 (owner: task thread): wait for a checkpoint after the end of data
        self.final_checkpoint = False
        self._data_finished = False
        self._final_checkpoint_id: int | None = None  # the first checkpoint after the end of data
        self._final_checkpoint_done = False
        self.unaligned = False  # checkpoints are unaligned (sources inject unaligned barriers)
        self._latest_taken = -1  # the newest checkpoint this task snapshotted
        self._unaligned: dict[int, dict[int, Any]] = {}  # snapshotted, recording in-flight input

    @property
    def busy_time_enabled(self) -> bool:
        """Whether busy time is measured: not for a legacy source (Flink's SourceStreamTask
        turns it off; its busy time is NaN)."""
        return not isinstance(self.chain.head, LegacySourceOperator)

    # -- checkpoints (task thread) -----------------------------------------------------------

    def trigger_checkpoint(
        self, checkpoint_id: int, timestamp: int, savepoint: str | None = None, drain: bool = False
    ) -> None:
        """A source task starts checkpoint ``checkpoint_id`` (a mail from the JobMaster's trigger;
        ``savepoint``: a savepoint into that directory). ``drain`` (stop-with-savepoint
        --drain): the source ends its input now (final watermark, end of data) and takes the
        savepoint afterwards, as its final checkpoint."""
        if drain and self.running and not self._data_finished and self._end_input():
            self.mailbox.put(
                Mail(
                    lambda: self.trigger_checkpoint(checkpoint_id, timestamp, savepoint),
                    f"savepoint {checkpoint_id} after draining",
                )
            )
            return
        self.perform_checkpoint(CheckpointBarrier(checkpoint_id, timestamp, self.unaligned, savepoint))

    def _end_input(self) -> bool:
        """End a source's input now, as if it were bounded and at its end (the processing loop
        stops; ``invoke`` then finishes the operators). False: not a source."""
        head = self.chain.head
        if isinstance(head, LegacySourceOperator):
            head.cancel()  # run() returns; the source emits the final watermark as at its end
            thread = self._legacy_thread
            if thread is not None:  # before this mail returns: its last mail stops this processor
                thread.join(LEGACY_SOURCE_CANCEL_TIMEOUT_S)
                if thread.is_alive():
                    raise RuntimeError(
                        f"SourceFunction of '{head.name}' did not return from run() within "
                        f"{LEGACY_SOURCE_CANCEL_TIMEOUT_S:.0f} s of cancel() (stop with --drain)"
                    )
        elif isinstance(head, SourceOperator):
            head.end_input()
        else:
            return False
        self.processor.stop()
        return True

    def perform_checkpoint(self, barrier: CheckpointBarrier) -> None:
        """Snapshot every operator, forward the barrier on every output, acknowledge.

        Called between records (a mail, or the barrier handler once the barriers are in), so
        the snapshot holds exactly what came before the barrier. A task that is not running
        (not yet open, or finishing) declines; so does an operator that cannot snapshot.
        """
        checkpoint_id = barrier.checkpoint_id
        if checkpoint_id <= self._latest_taken:
            return  # triggered after its barriers already came (its producers finished meanwhile)
        if not self.running:
            self._decline(checkpoint_id, "the task is not running", "task-closing")
            return
        head = self.chain.head
        if isinstance(head, LegacySourceOperator):
            with head.lock:  # the SourceFunction emits nothing while it is snapshotted
                snapshots = self._snapshot_and_forward(barrier)
        else:
            snapshots = self._snapshot_and_forward(barrier)
        if snapshots is None:
            return
        if self._data_finished and self._final_checkpoint_id is None:
            self._final_checkpoint_id = checkpoint_id
        if self.checkpoint_responder is not None:
            self.checkpoint_responder.acknowledge(checkpoint_id, snapshots, barrier.savepoint)

    def _snapshot_and_forward(self, barrier: CheckpointBarrier) -> dict[int, Any] | None:
        """The operators' snapshots; the barrier goes out on every output (unaligned: ahead of
        the queued data, which joins the snapshot as the task's in-flight output)."""
        self._latest_taken = barrier.checkpoint_id
        # savepoints are self-contained; so is a finishing task's last checkpoint (its state
        # then stands in for it in every later checkpoint, FLIP-147)
        canonical = barrier.savepoint is not None or self._data_finished
        try:
            snapshots: dict[int, Any] = dict(
                self.chain.snapshot_state(barrier.checkpoint_id, barrier.timestamp, canonical)
            )
        except CheckpointDeclinedError as err:
            self._decline(barrier.checkpoint_id, str(err))
            return None
        if barrier.unaligned:
            outputs = {i: writer.broadcast_priority_event(barrier) for i, writer in enumerate(self.writers)}
            snapshots[CHANNEL_STATE_KEY] = ChannelState({}, outputs)
        else:
            for writer in self.writers:
                writer.broadcast_event(barrier)
        return snapshots

    def start_unaligned_checkpoint(self, barrier: CheckpointBarrier) -> bool:
        """The first barrier of an unaligned checkpoint is in: snapshot and forward now; the
        acknowledgement waits for the in-flight input (``complete_unaligned_checkpoint``)."""
        if barrier.checkpoint_id <= self._latest_taken:
            return False
        if not self.running:
            self._decline(barrier.checkpoint_id, "the task is not running", "task-closing")
            return False
        snapshots = self._snapshot_and_forward(barrier)
        if snapshots is None:
            return False
        self._unaligned[barrier.checkpoint_id] = snapshots
        if self._data_finished and self._final_checkpoint_id is None:
            self._final_checkpoint_id = barrier.checkpoint_id
        return True

    def complete_unaligned_checkpoint(
        self, barrier: CheckpointBarrier, inputs: dict[tuple[int, int], tuple[list[bytes], Any]]
    ) -> None:
        """Every barrier of the checkpoint is in: acknowledge with the recorded input."""
        snapshots = self._unaligned.pop(barrier.checkpoint_id, None)
        if snapshots is None:
            return
        outputs = snapshots[CHANNEL_STATE_KEY].outputs
        snapshots[CHANNEL_STATE_KEY] = ChannelState(inputs, outputs)
        if self.checkpoint_responder is not None:
            self.checkpoint_responder.acknowledge(barrier.checkpoint_id, snapshots, barrier.savepoint)

    def _decline(self, checkpoint_id: int, reason: str, kind: str = "") -> None:
        """Tell the tasks downstream to stop aligning for it, and the coordinator why."""
        self._cancel_downstream(checkpoint_id)
        if self.checkpoint_responder is not None:
            self.checkpoint_responder.decline(checkpoint_id, reason, kind)

    def abort_checkpoint(self, checkpoint_id: int) -> None:
        """The alignment of ``checkpoint_id`` was abandoned: tell the tasks downstream."""
        self._unaligned.pop(checkpoint_id, None)
        self._cancel_downstream(checkpoint_id)

    def _cancel_downstream(self, checkpoint_id: int) -> None:
        for writer in self.writers:
            writer.broadcast_event(CancelCheckpointMarker(checkpoint_id))

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """Checkpoint ``checkpoint_id`` completed (a mail): operators and functions hear of it.
        After the end of data, the first checkpoint taken since lets the task end."""
        if self.running:
            self.chain.notify_checkpoint_complete(checkpoint_id)
            final = self._final_checkpoint_id
            if final is not None and checkpoint_id >= final:
                self._final_checkpoint_done = True

    def invoke(self) -> None:
        """Open, process all input, finish, close, then end the outputs.

        ``close`` also runs after a failure. As in Flink, the produced partitions get
        their end-of-partition only after the operators closed successfully: a consumer
        (or the scheduler, for a blocking result) never sees the end of data of a task
        that may still fail.
        """
        try:
            self.chain.open()
            if self.network_input is not None:
                self.network_input.request_partitions()
            self._next_flush = time.monotonic() + max(self._flush_interval, 0.0)
            self.running = True
            self.started_at = time.perf_counter()
            if isinstance(self.chain.head, LegacySourceOperator):
                self.processor = MailboxProcessor(self.mailbox, self._legacy_source_action)
                self._run_legacy_source(self.chain.head)
            else:
                self.processor.run()
            if self.canceled:
                raise CancelTaskError()
            if self.sorted_input is not None:
                self.sorted_input.replay(lambda: self.canceled)
                if self.canceled:
                    raise CancelTaskError()
            self.running = self.final_checkpoint
            self.timers.quiesce()
            self.chain.finish()
            if self.final_checkpoint:
                self._await_final_checkpoint()
                self.running = False
        finally:
            self.running = False
            if self.sorted_input is not None:
                self.sorted_input.release()
            self.timers.quiesce()
            self.chain.close()
        for writer in self.writers:
            writer.finish()

    def _default_action(self) -> float | None:
        if self.canceled:
            self.processor.stop()
            return None
        timers = self.timers
        if timers.has_timers:
            timers.fire_due()
        head = self.chain.head
        if self.network_input is not None:
            status = self.network_input.process_next()
            available_at = _FOREVER
        else:
            assert isinstance(head, SourceOperator)
            status = head.emit_next()
            available_at = head.available_at
        flush_interval = self._flush_interval
        if flush_interval >= 0:
            now = time.monotonic()
            if flush_interval == 0 or now >= self._next_flush:
                self.flush_outputs()
                self._next_flush = now + flush_interval
        if status is InputStatus.MORE_AVAILABLE:
            return None
        if status is InputStatus.END_OF_INPUT or (
            status is InputStatus.END_OF_DATA and self.final_checkpoint
        ):
            self.processor.stop()
            return None
        if status is InputStatus.END_OF_DATA:
            return None
        # Sleep until input, the next timer or the next flush; with timeout 0 everything is
        # flushed already (waking "now" would spin and hold the GIL the network thread needs).
        wake = min(available_at, self._next_flush if flush_interval > 0 else _FOREVER)
        return min(wake, timers.next_deadline()) if timers.has_timers else wake

    def _await_final_checkpoint(self) -> None:
        """The operators finished: tell the consumers, then take checkpoints until one taken
        from now on completes (and, with inputs, until every producer ended its partition)."""
        self._data_finished = True
        for writer in self.writers:
            writer.broadcast_event(EndOfData())
        self.processor = MailboxProcessor(self.mailbox, self._final_checkpoint_action, self.idle_time)
        self.processor.run()
        if self.canceled:
            raise CancelTaskError()

    def _final_checkpoint_action(self) -> float | None:
        """Default action after the end of data: only events (barriers, EndOfPartition) arrive."""
        if self.canceled:
            self.processor.stop()
            return None
        inputs_ended = True
        if self.network_input is not None:
            status = self.network_input.process_next()
            if status is InputStatus.MORE_AVAILABLE or status is InputStatus.END_OF_DATA:
                return None
            inputs_ended = status is InputStatus.END_OF_INPUT
        if self._final_checkpoint_done and inputs_ended:
            self.processor.stop()
            return None
        return _FOREVER

    def flush_outputs(self) -> None:
        """Hand pending output to consumers."""
        flush_all(self.writers)

    def _run_legacy_source(self, source: LegacySourceOperator) -> None:
        """The source's ``run`` on the legacy source thread; this thread flushes on timeout."""
        errors: list[BaseException] = []

        def run_source() -> None:
            try:
                source.run()
            except BaseException as err:
                errors.append(err)
            finally:
                self.mailbox.put(Mail(self.processor.stop, "legacy source finished"))

        thread = threading.Thread(
            target=run_source, name=f"Legacy Source Thread - {source.name}", daemon=True
        )
        self._legacy_source = source
        self._legacy_thread = thread
        thread.start()
        try:
            self.processor.run()
        finally:
            if thread.is_alive():
                source.cancel()
                thread.join(LEGACY_SOURCE_CANCEL_TIMEOUT_S)
        if thread.is_alive():
            raise RuntimeError(
                f"SourceFunction of '{source.name}' did not return from run() within "
                f"{LEGACY_SOURCE_CANCEL_TIMEOUT_S:.0f} s of cancel(); run() must stop when cancelled"
            )
        if errors:
            raise errors[0]

    def _legacy_source_action(self) -> float | None:
        """Default action while a legacy source runs: flush what it collected on timeout."""
        if self.canceled:
            self.processor.stop()
            return None
        source = self._legacy_source
        assert source is not None
        timers = self.timers
        if timers.has_timers:
            with source.lock:  # timers never run concurrently with the source's emission
                timers.fire_due()
        wake = timers.next_deadline() if timers.has_timers else _FOREVER
        interval = self._flush_interval
        if interval < 0:
            return wake
        now = time.monotonic()
        if now >= self._next_flush:
            with source.lock:
                source.source_context.push()
                self.flush_outputs()
            self._next_flush = now + interval
        return min(self._next_flush, wake)

    def cancel(self) -> None:
        """Ask the task to stop (any thread)."""
        self.canceled = True
        head: Any = self.chain.head
        if isinstance(head, LegacySourceOperator):
            head.cancel()
        self.mailbox.put(Mail(self.processor.stop, "cancel"))
