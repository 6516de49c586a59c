"""Source coordinators: a source's split enumerator on the JobMaster (FLIP-27).

::

    reader of subtask s (TaskManager)                    JobMaster main thread
      out of splits --RequestSplitEvent-->  SourceCoordinator.handle_event(s, attempt)
                                              enumerator.handle_split_request(s)
                                                context.assign_split(split, s) --tracker--
      add_splits(...) <--AddSplitsEvent-----  (to the current attempt of s)
      ... or notify_no_more_splits <--NoMoreSplitsEvent--

Checkpoints: the CheckpointCoordinator snapshots every enumerator (the splits not handed
out) on this thread just before it triggers the source tasks. An AddSplitsEvent sent
before that goes to the task on the same connection as the trigger and ahead of it into
the task's mailbox, so the reader's snapshot holds the split; one sent after it is not
in the reader's snapshot and is still unassigned in the enumerator's. Restores follow
Flink's ``SplitAssignmentTracker``: a whole-job restart resets each enumerator to the
checkpoint's state (or creates it anew); a restarted subtask alone gets back, through
``add_splits_back``, the splits assigned to it after the checkpoint it restores from.
Coordinating code: everything runs on the JobMaster's main thread, except the callables an
enumerator hands to ``call_async`` (listing directories), which run on the coordinator's
worker thread and return their results to the main thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

from millstream.common.connector import (
    AddSplitsEvent,
    NoMoreSplitsEvent,
    RequestSplitEvent,
    has_enumerator,
)
from millstream.graph.job_graph import JobGraph
from millstream.graph.operator_specs import SourceSpec
from millstream.runtime.checkpoint.restore import operator_state_id

__all__ = ["SourceCoordinator", "create_source_coordinators"]

log = logging.getLogger(__name__)

# (subtask, event) -> whether it went to the subtask's running attempt
SendEvent = Callable[[int, Any], bool]


class SourceCoordinator:
    """One source operator's enumerator and the splits it assigned since the last checkpoints
    (Flink's ``SourceCoordinator`` with its ``SplitAssignmentTracker``)."""

    def __init__(
        self,
        node_id: int,
        state_id: str,
        name: str,
        source: Any,
        parallelism: int,
        send: SendEvent,
        schedule: Callable[[float, Callable[[], None]], None] | None = None,
        fail: Callable[[BaseException], None] | None = None,
    ) -> None:
        self.node_id = node_id
        self.state_id = state_id  # the operator's state id: the key of its state in checkpoints
        self.name = name
        self._source = source
        self._parallelism = parallelism
        self._send = send
        self._schedule = schedule  # (delay s, callback) on the JobMaster thread
        self._fail = fail  # a failure of the whole job, under the restart strategy (JobMaster thread)
        self._generation = 0  # asynchronous calls of an enumerator replaced by a reset stop
        self._worker: ThreadPoolExecutor | None = None  # runs call_async's callables
        self._enumerator: Any = None
        self._uncheckpointed: dict[int, list[Any]] = {}  # subtask -> assigned since the last snapshot
        self._by_checkpoint: dict[int, dict[int, list[Any]]] = {}  # checkpoint -> subtask -> splits
        self._total_bytes: int | None = None  # the source's input size, when it knows it

    def total_bytes(self) -> int | None:
        """The bytes a bounded file source reads in all (asked of the source once)."""
        if self._total_bytes is None:
            total = getattr(self._source, "total_bytes", None)
            try:
                self._total_bytes = total() if total is not None else None
            except OSError:
                return None
            if self._total_bytes is None:
                self._total_bytes = -1
        return self._total_bytes if self._total_bytes >= 0 else None

    # -- SplitEnumeratorContext --------------------------------------------------------------

    @property
    def operator_name(self) -> str:
        """The source operator's name, for the enumerator's messages."""
        return self.name

    @property
    def current_parallelism(self) -> int:
        """The number of readers."""
        return self._parallelism

    def assign_split(self, split: Any, subtask: int) -> None:
        """Hand ``split`` to ``subtask`` (remembered until a checkpoint holding it completes);
        back to the enumerator at once when the subtask is not running."""
        if not self._send(subtask, AddSplitsEvent((split,))):
            self._enumerator.add_splits_back([split], subtask)
            return
        self._uncheckpointed.setdefault(subtask, []).append(split)

    def call_async(
        self,
        callable_: Callable[[], Any],
        handler: Callable[[Any, BaseException | None], None],
        initial_delay_ms: int = 0,
        period_ms: int = 0,
    ) -> None:
        """Flink's ``callAsync``: ``callable_`` runs on this coordinator's worker thread (file
        listings, I/O: the JobMaster thread must not wait for them), then ``handler(result,
        error)`` on the JobMaster thread; with a period, again ``period_ms`` after each call
        has been handled. The calls stop when the enumerator is replaced (a restart) or the
        job ends: a result that arrives after that is dropped."""
        generation = self._generation
        schedule = self._schedule

        def handle(future: Future[Any]) -> None:  # JobMaster thread
            if generation != self._generation:
                return
            error = future.exception()
            try:
                handler(None if error is not None else future.result(), error)
            finally:
                if period_ms > 0 and schedule is not None and generation == self._generation:
                    schedule(period_ms / 1000.0, call)

        def call() -> None:  # JobMaster thread
            if generation != self._generation:
                return
            if self._worker is None:
                self._worker = ThreadPoolExecutor(1, thread_name_prefix=f"SourceCoordinator-{self.name}")
            future = self._worker.submit(callable_)
            if schedule is None:  # no JobMaster thread to go back to: the caller's thread waits
                wait([future])
                handle(future)
            else:
                future.add_done_callback(lambda done: schedule(0.0, lambda: handle(done)))

        if initial_delay_ms > 0 and schedule is not None:
            schedule(initial_delay_ms / 1000.0, call)
        else:
            call()

    def fail_job(self, error: BaseException) -> None:
        """The enumerator cannot go on (a topic that does not exist, no broker answers ...):
        a failure of the whole job, which restarts under the restart strategy (enumerators
        anew) or fails, as Flink's global failure. Its message reaches the client: logged
        here at INFO only."""
        log.info("source %s: %s", self.name, error)
        if self._fail is None:
            raise error
        self._fail(error)

    def close(self) -> None:
        """Stop the enumerator's asynchronous calls (a listing under way finishes unheeded)
        and release what it holds (clients: closed on the worker thread that used them)."""
        self._generation += 1
        worker, self._worker = self._worker, None
        close = getattr(self._enumerator, "close", None)
        if close is not None:
            if worker is not None:
                worker.submit(close)
            else:
                close()
        if worker is not None:
            worker.shutdown(wait=False, cancel_futures=False)

    def signal_no_more_splits(self, subtask: int) -> None:
        """``subtask``'s reader ends once it has read what it holds."""
        self._send(subtask, NoMoreSplitsEvent())

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self, checkpoint: Any = None) -> bool:
        """A new enumerator: from ``checkpoint``'s state of this source when it has one, else
        over the whole input. A checkpoint that knew the operator but kept no enumerator state
        (taken while its readers held every split) starts it empty. False: the source has no
        enumerator in this configuration (its readers assign their splits themselves)."""
        self.close()
        self._uncheckpointed.clear()
        self._by_checkpoint.clear()
        states = getattr(checkpoint, "coordinator_states", None) or {}
        if self.state_id in states:
            self._enumerator = self._source.restore_enumerator(self, states[self.state_id])
        elif (
            checkpoint is not None
            and self.state_id in (getattr(checkpoint, "operator_ids", None) or {}).values()
        ):
            self._enumerator = self._source.restore_enumerator(self, {"version": 1, "splits": []})
        else:
            self._enumerator = self._source.create_enumerator(self)
        return self._enumerator is not None

    def handle_event(self, subtask: int, event: Any) -> None:
        """An event from the current attempt of ``subtask``'s reader."""
        if isinstance(event, RequestSplitEvent):
            self._enumerator.handle_split_request(subtask)
        else:
            log.warning("source %s: ignoring unexpected event %r from subtask %d", self.name, event, subtask)

    def snapshot(self, checkpoint_id: int) -> Any:
        """The enumerator's state for ``checkpoint_id``; the splits assigned until now are in
        the readers' part of it."""
        for subtask, splits in self._uncheckpointed.items():
            self._by_checkpoint.setdefault(checkpoint_id, {}).setdefault(subtask, []).extend(splits)
        self._uncheckpointed.clear()
        return self._enumerator.snapshot_state(checkpoint_id)

    def checkpoint_complete(self, checkpoint_id: int) -> None:
        """The readers' states of ``checkpoint_id`` hold what was assigned before it."""
        for done in [c for c in self._by_checkpoint if c <= checkpoint_id]:
            del self._by_checkpoint[done]

    def subtask_reset(self, subtask: int, checkpoint_id: int | None) -> None:
        """``subtask`` restarts alone from ``checkpoint_id`` (None: from nothing): the splits
        assigned to it after that checkpoint go back to the enumerator."""
        back: list[Any] = []
        for cid in sorted(self._by_checkpoint):
            if checkpoint_id is None or cid > checkpoint_id:
                back.extend(self._by_checkpoint[cid].pop(subtask, []))
        back.extend(self._uncheckpointed.pop(subtask, []))
        if back:
            log.info("source %s: %d split(s) of subtask %d handed out again", self.name, len(back), subtask)
        self._enumerator.add_splits_back(back, subtask)  # also: the subtask waits for nothing now


def create_source_coordinators(
    job_graph: JobGraph,
    send: Callable[[Any, int, int, Any], bool],
    schedule: Callable[[float, Callable[[], None]], None],
    fail: Callable[[BaseException], None] | None = None,
) -> dict[int, SourceCoordinator]:
    """A coordinator per source operator that hands out splits from an enumerator, by node id.
    ``send(job vertex id, node id, subtask, event)`` delivers an event to a running subtask;
    ``schedule(delay s, callback)`` runs a callback later on the JobMaster thread; ``fail``
    handles an enumerator's failure as one of the whole job (the restart strategy decides)."""
    coordinators = {}
    for vertex in job_graph.vertices:
        for op in vertex.operators:
            spec = op.operator
            if not isinstance(spec, SourceSpec) or not has_enumerator(spec.source):
                continue

            def deliver(
                subtask: int, event: Any, vertex_id: Any = vertex.id, node_id: int = op.node_id
            ) -> bool:
                return send(vertex_id, node_id, subtask, event)

            coordinators[op.node_id] = SourceCoordinator(
                op.node_id,
                operator_state_id(op),
                op.name,
                spec.source,
                vertex.parallelism,
                deliver,
                schedule,
                fail,
            )
    return coordinators
