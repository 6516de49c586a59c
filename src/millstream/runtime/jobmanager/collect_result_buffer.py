"""Result buffers: what the client may see of one collect sink subtask's results.

Flink's ``AbstractCollectResultBuffer`` and its two kinds, chosen as Flink's
``CollectResultIterator`` chooses them (``result_buffer_kind``):

* ``CheckpointedResultBuffer`` (Flink's ``CheckpointedCollectResultBuffer``; checkpoints
  on, EXACTLY_ONCE): a result is held back until a completed checkpoint covers it
  (``CollectCheckpointed``) or the job finished; when the subtask restarts, the results
  after the offset it restored are dropped, and the restarted subtask computes them again.
  The client sees every result exactly once.
* ``UncheckpointedResultBuffer`` (Flink's ``UncheckpointedCollectResultBuffer``): every
  result is visible at once. With AT_LEAST_ONCE checkpoints a restart is tolerated and the
  results after the restored checkpoint come again; without checkpoints (and in BATCH
  mode) a restart raises ``JobRestartedError`` once the results delivered before it were
  read, as Flink's raises ``Job restarted``.

Pure bookkeeping, no threads: the channel calls a buffer under its lock. Offsets count a
subtask's results from the start of the job (``millstream.runtime.collect_messages``).
"""

from __future__ import annotations

from collections import deque
from enum import Enum
from typing import Any, assert_never

from millstream.graph.job_config import JobConfig
from millstream.runtime.collect_messages import (
    CollectCheckpointed,
    CollectFinished,
    CollectMessage,
    CollectResults,
    CollectStarted,
)

__all__ = [
    "CheckpointedResultBuffer",
    "CollectError",
    "CollectProtocolError",
    "CollectResultBuffer",
    "JobRestartedError",
    "ResultBufferKind",
    "UncheckpointedResultBuffer",
    "new_result_buffer",
    "result_buffer_kind",
]


class CollectError(RuntimeError):
    """The client cannot go on reading a collect sink's results."""


class JobRestartedError(CollectError):
    """A collect sink restarted in a job without checkpoints: its results cannot be matched
    with those delivered before (Flink's ``Job restarted``)."""


class CollectProtocolError(CollectError):
    """A collect sink's messages contradict each other (a result missing in between)."""


class ResultBufferKind(Enum):
    """What a client sees of a restarted collect sink."""

    CHECKPOINTED = "exactly-once: results once a checkpoint covers them"
    AT_LEAST_ONCE = "at-least-once: results at once, again after a restart"
    UNCHECKPOINTED = "results at once, a restart fails the reading"


def result_buffer_kind(job_config: JobConfig) -> ResultBufferKind:
    """Flink's choice: checkpoints in EXACTLY_ONCE mode give exactly-once results, in
    AT_LEAST_ONCE mode at-least-once ones; a job without checkpoints (BATCH too) tolerates
    no restart of its collect sink."""
    if not job_config.takes_checkpoints:
        return ResultBufferKind.UNCHECKPOINTED
    if job_config.checkpointing.exactly_once:
        return ResultBufferKind.CHECKPOINTED
    return ResultBufferKind.AT_LEAST_ONCE


class CollectResultBuffer:
    """One subtask's results as the client received them.

    ``received``: the offset of the next result expected (Flink's ``offset``); ``visible``:
    results before it went to the user; ``pending``: (offset, values) received but not yet
    visible, in order. ``receive`` returns the batches a message makes visible.
    """

    __slots__ = ("attempt", "finished", "parallelism", "pending", "received", "subtask", "visible")

    def __init__(self, subtask: int, parallelism: int) -> None:
        self.subtask = subtask
        self.parallelism = parallelism
        self.attempt = -1  # the current attempt (Flink's ``version``); -1: none heard of yet
        self.received = 0
        self.visible = 0
        self.pending: deque[tuple[int, list[Any]]] = deque()
        self.finished = False

    def receive(self, message: CollectMessage) -> list[list[Any]]:
        """The batches that ``message`` makes visible, in order.

        A message of an attempt replaced since is dropped; the first message of a newer
        attempt starts it (a restart: ``_sink_restarted``).

        Raises:
            JobRestartedError: the subtask restarted and the buffer tolerates no restart.
            CollectProtocolError: results are missing before ``message``'s.
        """
        if message.attempt < self.attempt:
            return []
        if message.attempt > self.attempt:
            self._start(message.attempt, message.offset)
        match message:
            case CollectStarted():
                return []
            case CollectResults(offset=offset, values=values):
                return self._add(offset, values)
            case CollectCheckpointed(offset=offset):
                self._check_received(offset)
                return self._checkpointed(offset)
            case CollectFinished(offset=offset):
                self._check_received(offset)
                self.finished = True
                return []
            case _:
                assert_never(message)

    def complete(self) -> list[list[Any]]:
        """The job finished: every result received is final (Flink's ``complete``)."""
        batches = [values for _, values in self.pending]
        self.pending.clear()
        self.visible = self.received
        return batches

    def describe(self) -> str:
        """``collect sink subtask 1/2``."""
        return f"collect sink subtask {self.subtask + 1}/{self.parallelism}"

    def _start(self, attempt: int, offset: int) -> None:
        if self.attempt < 0:  # the first attempt heard of: offsets go on from its restored one
            self.received = self.visible = offset
        else:
            self._check_received(offset)
            self._sink_restarted(attempt, offset)
        self.attempt = attempt
        self.finished = False

    def _add(self, offset: int, values: list[Any]) -> list[list[Any]]:
        if offset > self.received:
            raise CollectProtocolError(
                f"{self.describe()} sent result {offset} while result {self.received} was the next expected"
            )
        skip = self.received - offset  # received already: a restart reverted to before them
        if skip >= len(values):
            return []
        fresh = values[skip:] if skip else values
        self.received += len(fresh)
        return self._results_received(offset + skip, fresh)

    def _check_received(self, offset: int) -> None:
        if offset > self.received:
            raise CollectProtocolError(
                f"{self.describe()} reached result {offset} but only {self.received} were received"
            )

    def _results_received(self, offset: int, values: list[Any]) -> list[list[Any]]:
        raise NotImplementedError

    def _checkpointed(self, offset: int) -> list[list[Any]]:
        raise NotImplementedError

    def _sink_restarted(self, attempt: int, offset: int) -> None:
        raise NotImplementedError


class CheckpointedResultBuffer(CollectResultBuffer):
    """Exactly-once: results become visible when a completed checkpoint covers them."""

    __slots__ = ()

    def _results_received(self, offset: int, values: list[Any]) -> list[list[Any]]:
        self.pending.append((offset, values))
        return []

    def _checkpointed(self, offset: int) -> list[list[Any]]:
        batches: list[list[Any]] = []
        pending = self.pending
        while pending and pending[0][0] < offset:
            start, values = pending.popleft()
            if start + len(values) > offset:  # a batch the checkpoint cut (it never does, between batches)
                cut = offset - start
                pending.appendleft((offset, values[cut:]))
                values = values[:cut]
            batches.append(values)
        self.visible = max(self.visible, offset)
        return batches

    def _sink_restarted(self, attempt: int, offset: int) -> None:
        """Drop what came after the restored offset: the new attempt sends it again (results
        already visible stay, and their copies are skipped)."""
        target = max(offset, self.visible)
        pending = self.pending
        while pending and pending[-1][0] >= target:
            pending.pop()
        if pending:
            start, values = pending[-1]
            if start + len(values) > target:
                pending[-1] = (start, values[: target - start])
        self.received = target


class UncheckpointedResultBuffer(CollectResultBuffer):
    """Results visible at once; a restart raises, or (``tolerates_restarts``, at-least-once)
    the results after the restored offset come again."""

    __slots__ = ("tolerates_restarts",)

    def __init__(self, subtask: int, parallelism: int, tolerates_restarts: bool) -> None:
        super().__init__(subtask, parallelism)
        self.tolerates_restarts = tolerates_restarts

    def _results_received(self, offset: int, values: list[Any]) -> list[list[Any]]:
        self.visible = self.received
        return [values]

    def _checkpointed(self, offset: int) -> list[list[Any]]:
        return []

    def _sink_restarted(self, attempt: int, offset: int) -> None:
        if not self.tolerates_restarts:
            raise JobRestartedError(
                f"Job restarted: {self.describe()} started again (attempt {attempt}) in a job without "
                "checkpoints, so the results it sends again cannot be told from those delivered before; "
                "enable checkpointing to collect results across restarts"
            )
        self.received = self.visible = offset


def new_result_buffer(kind: ResultBufferKind, subtask: int, parallelism: int) -> CollectResultBuffer:
    """The buffer of one collect sink subtask."""
    match kind:
        case ResultBufferKind.CHECKPOINTED:
            return CheckpointedResultBuffer(subtask, parallelism)
        case ResultBufferKind.AT_LEAST_ONCE:
            return UncheckpointedResultBuffer(subtask, parallelism, tolerates_restarts=True)
        case ResultBufferKind.UNCHECKPOINTED:
            return UncheckpointedResultBuffer(subtask, parallelism, tolerates_restarts=False)
        case _:
            assert_never(kind)
