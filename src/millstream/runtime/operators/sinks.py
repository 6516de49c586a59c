"""Sink operators: print, connector sink writers, user SinkFunctions, collect.

Per-record path: print and file sinks render a batch to text and write it once.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, Protocol, assert_never, runtime_checkable

from millstream.common.connector import TextRenderer, TwoPhaseCommittingSinkWriter
from millstream.runtime.collect_messages import (
    CollectCheckpointed,
    CollectFinished,
    CollectMessage,
    CollectResults,
    CollectStarted,
)
from millstream.runtime.location import UserFunctionError
from millstream.runtime.operators.base import OperatorContext, StreamOperator, record_count

__all__ = [
    "CollectChannel",
    "CollectChannels",
    "CollectResultChannel",
    "CollectSinkOperator",
    "PrintSinkOperator",
    "SinkFunctionOperator",
    "SinkWriterOperator",
    "rescale_two_phase_commit_states",
]


class PrintSinkOperator(StreamOperator):
    """Writes each element's text to stdout, prefixed as Flink's ``PrintSinkFunction`` does.

    Prefix: ``identifier:`` (if given) and ``subtask+1`` when the sink runs in parallel
    (and ``subtask_prefix``: see ``DataStream.print``), followed by ``> `` if anything
    precedes the element.
    """

    def __init__(
        self,
        context: OperatorContext,
        renderer: TextRenderer,
        identifier: str | None,
        subtask_prefix: bool = True,
    ) -> None:
        super().__init__(context, None)
        self._renderer = renderer
        prefix = identifier or ""
        location = context.location
        if subtask_prefix and location.parallelism > 1:
            prefix = f"{prefix}:" if prefix else ""
            prefix += str(location.subtask_index + 1)
        self._prefix = f"{prefix}> " if prefix else ""

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Print the batch with one write."""
        try:
            text = self._renderer.render(values, self._prefix)
        except Exception as err:
            raise self._locate_format_error(values) from err
        self.records_in += len(values)
        sys.stdout.write(text + "\n")

    def _locate_format_error(self, values: list[Any]) -> UserFunctionError:
        for index, v in enumerate(values):
            try:
                self._renderer.exact(v)
            except Exception:
                return UserFunctionError(
                    self.name,
                    self.context.location,
                    self.records_in + index,
                    v,
                    message="element cannot be rendered as text",
                )
        return self.error(0, values)

    def finish(self) -> None:
        """Flush stdout at the end of input."""
        sys.stdout.flush()


class SinkWriterOperator(StreamOperator):
    """Writes through a connector sink's writer (e.g. FileSink)."""

    def __init__(
        self, context: OperatorContext, sink: Any, renderer: TextRenderer, writer_context: Any
    ) -> None:
        super().__init__(context, None)
        self._sink = sink
        self._renderer = renderer
        self._writer_context = writer_context
        self._writer: Any = None
        self._restored: Any = None

    def open(self) -> None:
        """Create this subtask's writer (restored: it commits what the checkpoint prepared)."""
        super().open()
        self._writer = self._sink.create_writer(self._writer_context, self._renderer)
        if self._restored is not None and isinstance(self._writer, TwoPhaseCommittingSinkWriter):
            self._writer.restore_state(self._restored)

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Write the batch."""
        try:
            self._writer.write_batch(values)
        except Exception as err:
            raise UserFunctionError(
                self.name,
                self.context.location,
                self.records_in,
                values[0] if values else None,
                message="sink writer failed on a batch starting at",
            ) from err
        self.records_in += len(values)

    def finish(self) -> None:
        """Commit what was written; with a final checkpoint to come, a two-phase-commit writer
        leaves that to the checkpoint (it prepares and commits the rest, as every other)."""
        writer = self._writer
        if not (self.context.final_checkpoint and isinstance(writer, TwoPhaseCommittingSinkWriter)):
            writer.finish()

    def snapshot_extra_state(self, checkpoint_id: int) -> Any:
        """A two-phase-commit writer prepares its output for commit with this checkpoint;
        other writers (at-least-once) keep nothing."""
        writer = self._writer
        return (
            writer.snapshot_state(checkpoint_id) if isinstance(writer, TwoPhaseCommittingSinkWriter) else None
        )

    def restore_extra_state(self, extra: Any) -> None:
        """Kept until the writer exists (``open``)."""
        self._restored = extra

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """Commit what the checkpoint covers."""
        super().notify_checkpoint_complete(checkpoint_id)
        if isinstance(self._writer, TwoPhaseCommittingSinkWriter):
            self._writer.notify_checkpoint_complete(checkpoint_id)

    def close(self) -> None:
        """Release the writer (uncommitted files are kept, nothing is deleted)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        super().close()


class _SinkContext:
    """``SinkFunction.Context``."""

    __slots__ = ("_timestamp",)

    def __init__(self) -> None:
        self._timestamp: int | None = None

    def timestamp(self) -> int | None:
        """Timestamp of the current element."""
        return self._timestamp

    def current_processing_time(self) -> int:
        """Now, in epoch ms."""
        return int(time.time() * 1000)


@runtime_checkable
class TransactionalSinkFunction(Protocol):
    """A sink function with transactions (the API's TwoPhaseCommitSinkFunction)."""

    def begin_transaction(self) -> Any: ...
    def invoke(self, transaction: Any, value: Any, context: Any) -> None: ...
    def pre_commit(self, transaction: Any) -> None: ...
    def commit(self, transaction: Any) -> None: ...
    def abort(self, transaction: Any) -> None: ...
    def recover_and_commit(self, transaction: Any) -> None: ...
    def recover_and_abort(self, transaction: Any) -> None: ...


class SinkFunctionOperator(StreamOperator):
    """Calls a user ``SinkFunction.invoke(value, context)`` (or a plain ``fn(value)``).

    A ``TwoPhaseCommitSinkFunction`` writes into transactions instead: one open at a time,
    pre-committed and replaced at every checkpoint, committed when the checkpoint completes
    (or, after a recovery, from the restored checkpoint), everything committed at the end of
    input (with checkpoints: when the final checkpoint completes); the open one is aborted
    when the task fails.
    """

    def __init__(self, context: OperatorContext, fn: Any, lifecycle: Any) -> None:
        super().__init__(context, lifecycle)
        self._fn = fn
        self._with_context = lifecycle is not None
        self._ctx = _SinkContext()
        self._txn_fn = lifecycle if isinstance(lifecycle, TransactionalSinkFunction) else None
        self._transaction: Any = None
        self._pending: dict[int, Any] = {}  # checkpoint id -> pre-committed transaction
        self._restored: Any = None
        self._finished = False
        self._last: Any = None  # pre-committed at finish, pending with the final checkpoint

    def open(self) -> None:
        """Open the function; a transactional one commits what the restored checkpoint covers."""
        super().open()
        txn_fn = self._txn_fn
        if txn_fn is None:
            return
        if self._restored is not None:
            for transaction in self._restored["pending"]:
                txn_fn.recover_and_commit(transaction)
            if self._restored["current"] is not None:
                txn_fn.recover_and_abort(self._restored["current"])
            for transaction in self._restored.get("aborted", ()):
                txn_fn.recover_and_abort(transaction)
        self._transaction = txn_fn.begin_transaction()
        transaction = self._transaction
        self._fn = lambda value, ctx: txn_fn.invoke(transaction, value, ctx)

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Invoke per element."""
        fn = self._fn
        ctx = self._ctx
        index = 0
        try:
            if self._with_context:
                for index, v in enumerate(values):
                    ctx._timestamp = None if timestamps is None else timestamps[index]
                    fn(v, ctx)
            else:
                for index, v in enumerate(values):  # noqa: B007
                    fn(v)
        except Exception as err:
            raise self.error(index, values) from err
        self.records_in += record_count(values)

    def snapshot_extra_state(self, checkpoint_id: int) -> Any:
        """Pre-commit the open transaction (pending for this checkpoint) and begin a new one."""
        txn_fn = self._txn_fn
        if txn_fn is None:
            return None
        if self._finished:  # after the end of input: the last transaction, pre-committed at finish
            if self._last is not None:
                self._pending[checkpoint_id] = self._last
                self._last = None
        else:
            txn_fn.pre_commit(self._transaction)
            self._pending[checkpoint_id] = self._transaction
            self._transaction = txn_fn.begin_transaction()
            transaction = self._transaction
            self._fn = lambda value, ctx: txn_fn.invoke(transaction, value, ctx)
        current = None if self._finished else self._transaction
        return {"version": 1, "pending": list(self._pending.values()), "current": current}

    def restore_extra_state(self, extra: Any) -> None:
        """Kept for ``open``."""
        self._restored = extra

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """Commit the transactions of checkpoints up to ``checkpoint_id``."""
        super().notify_checkpoint_complete(checkpoint_id)
        if self._txn_fn is not None:
            for cid in sorted(c for c in self._pending if c <= checkpoint_id):
                self._txn_fn.commit(self._pending.pop(cid))

    def finish(self) -> None:
        """End of input: pre-commit the open transaction; commit everything now, or, with a
        final checkpoint to come, when that checkpoint completes (Flink's FLIP-147)."""
        txn_fn = self._txn_fn
        if txn_fn is not None and self.context.final_checkpoint:
            txn_fn.pre_commit(self._transaction)
            self._last = self._transaction
            self._finished = True
        elif txn_fn is not None:
            txn_fn.pre_commit(self._transaction)
            for cid in sorted(self._pending):
                txn_fn.commit(self._pending.pop(cid))
            txn_fn.commit(self._transaction)
            self._finished = True
        super().finish()

    def close(self) -> None:
        """Abort the open transaction of a task that did not finish."""
        try:
            if self._txn_fn is not None and not self._finished and self._transaction is not None:
                self._txn_fn.abort(self._transaction)
        finally:
            super().close()


def rescale_two_phase_commit_states(states: list[Any], parallelism: int) -> list[Any]:
    """A TwoPhaseCommitSinkFunction's states of n old subtasks, for ``parallelism`` new ones:
    old subtask i's pending transactions are committed, and its open one aborted, by new
    subtask ``i % parallelism`` (each exactly once)."""
    out: list[Any] = [None] * parallelism
    for index, state in enumerate(states):
        if state is None:
            continue
        merged = out[index % parallelism]
        if merged is None:
            merged = out[index % parallelism] = {"version": 1, "pending": [], "current": None, "aborted": []}
        merged["pending"].extend(state["pending"])
        if state["current"] is not None:
            merged["aborted"].append(state["current"])
        merged["aborted"].extend(state.get("aborted", ()))
    return out


class CollectChannel(Protocol):
    """Where a collect sink subtask sends its elements when nothing can restart it and
    nobody reads its checkpoints (the Spark driver): values and its end, nothing else."""

    def put(self, values: list[Any]) -> None:
        """Hand over a batch; may block while the consumer is behind."""
        ...

    def producer_finished(self) -> None:
        """This subtask sent everything."""
        ...


@runtime_checkable
class CollectResultChannel(Protocol):
    """Where a collect sink subtask of millstream's runtime sends its messages: the client's
    channel on the JobManager (in process, or over RPC from a TaskManager), which keeps
    Flink's collect protocol (``millstream.runtime.collect_messages``)."""

    def send(self, message: CollectMessage) -> None:
        """Hand over a message; blocks while the client is behind."""
        ...


class CollectChannels(Protocol):
    """The collect channels of a job, by collect-sink id."""

    def channel(self, collect_id: str) -> CollectChannel | CollectResultChannel:
        """The channel of one collect sink."""
        ...


class CollectSinkOperator(StreamOperator):
    """Sends elements back to the client (``execute_and_collect``) through a bounded channel.

    Flink's ``CollectSinkFunction`` on a push channel: the subtask counts its results
    (``offset``, checkpointed, so a restored subtask goes on from the checkpoint's count),
    and tells the client when it starts (attempt and restored offset), which offset each
    completed checkpoint covers, and when it finished. The client's channel decides what
    to show (``millstream.runtime.jobmanager.collect_result_buffer``): with exactly-once
    checkpoints only what a completed checkpoint covers, so a restart shows nothing twice.
    """

    def __init__(self, context: OperatorContext, channel: CollectChannel | CollectResultChannel) -> None:
        super().__init__(context, None)
        self._send = channel.send if isinstance(channel, CollectResultChannel) else _values_only(channel)
        self._subtask = context.location.subtask_index
        self._attempt = context.location.attempt
        self._offset = 0  # owner: task thread: results sent, counted from the start of the job
        self._checkpoints: dict[int, int] = {}  # owner: task thread: checkpoint id -> offset at it

    def open(self) -> None:
        """Tell the client this attempt starts, and from which offset."""
        super().open()
        self._send(CollectStarted(self._subtask, self._attempt, self._offset))

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Hand the batch to the client (blocks while the client is behind)."""
        self.records_in += len(values)
        self._send(CollectResults(self._subtask, self._attempt, self._offset, list(values)))
        self._offset += len(values)

    def snapshot_extra_state(self, checkpoint_id: int) -> Any:
        """The results sent before the barrier: all of them are with the client already."""
        self._checkpoints[checkpoint_id] = self._offset
        return {"offset": self._offset} if self._offset else None

    def restore_extra_state(self, extra: Any) -> None:
        """Go on counting from the checkpoint's offset."""
        if extra is not None:
            self._offset = extra["offset"]

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """The results up to this checkpoint's offset can no longer be taken back."""
        super().notify_checkpoint_complete(checkpoint_id)
        covered = [cid for cid in self._checkpoints if cid <= checkpoint_id]
        if covered:
            offset = max(self._checkpoints.pop(cid) for cid in covered)
            self._send(CollectCheckpointed(self._subtask, self._attempt, offset))

    def finish(self) -> None:
        """This subtask is done."""
        self._send(CollectFinished(self._subtask, self._attempt, self._offset))


def _values_only(channel: CollectChannel) -> Callable[[CollectMessage], None]:
    """Send to a channel that takes only values and the end."""

    def send(message: CollectMessage) -> None:
        match message:
            case CollectResults(values=values):
                channel.put(values)
            case CollectFinished():
                channel.producer_finished()
            case CollectStarted() | CollectCheckpointed():
                pass
            case _:
                assert_never(message)

    return send
