"""AsyncWaitOperator: async I/O (``AsyncDataStream``), as Flink's ``AsyncWaitOperator``.

Threads. Each subtask runs an asyncio event loop on a thread of its own (``SubtaskLoop``).
The user's ``open`` runs on that thread before the loop runs and ``close`` after it stopped,
with the loop as the thread's current loop: what ``open`` builds with
``asyncio.get_event_loop().run_until_complete(...)`` (an asyncpg pool, an aiohttp session)
belongs to the loop the calls run on, ``close`` can close it the same way, and
``asyncio.run`` works in both as in PyFlink (whose ``open`` runs outside any loop).

The task thread owns the queue (``async_queue``): it adds every element, starts its call on
the loop, and emits results. A finished call hands its outcome back (``_hand_over``): into
``_outcomes`` under ``_lock``, waking the task thread if it waits for room, and posting one
mail to the task's mailbox that takes every outcome in (``_take_outcomes``) and emits what
the queue lets out. Without a mailbox (a runner that drives the chain itself) outcomes are
taken in whenever the operator runs.

Back-pressure: an element that finds the queue full (``capacity`` elements not emitted yet)
waits on the task thread for outcomes, emitting as they come, so the task takes no input
meanwhile. ``finish`` (end of input) waits until the queue is empty.

Timeouts and retries run on the loop: a call is bounded by ``timeout`` (retries included, as
in Flink); when it expires the call is cancelled and the task thread calls the function's
``timeout(value)``, whose results stand for the call's (PyFlink's default raises
``TimeoutError``, which fails the task). With a retry strategy, an attempt whose results or
exception its predicates accept is tried again after the strategy's backoff while
``can_retry``, also after the end of input (as in PyFlink 2.3; Flink's Java operator stops
retrying there). An exception that is not retried fails the task, naming the operator, the
subtask and the element.

Checkpoints: the elements in the queue (in flight, or completed and not emitted yet, and the
watermarks between them) are the operator's list state ``_async_wait_operator_state_``; after
a restore ``open`` takes them in again and calls them anew, so nothing is lost and nothing
the operator emitted before the checkpoint is emitted again.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import Any

from millstream.graph.operator_specs import AsyncWaitSpec
from millstream.runtime.location import UserFunctionError
from millstream.runtime.operators.async_queue import (
    RECORD,
    STATUS,
    WATERMARK,
    OrderedStreamElementQueue,
    QueueEntry,
    StreamElementQueue,
    UnorderedStreamElementQueue,
)
from millstream.runtime.operators.base import Emit, OperatorContext, StreamOperator
from millstream.runtime.operators.elements import MIN_TIMESTAMP, Watermark, WatermarkStatus
from millstream.runtime.state.snapshot import OperatorSnapshot

__all__ = ["IN_FLIGHT_STATE", "AsyncWaitOperator", "SubtaskLoop"]

IN_FLIGHT_STATE = "_async_wait_operator_state_"  # Flink's name of the list state

_RESULTS, _ERROR, _TIMEOUT = "results", "error", "timeout"
_WAIT_S = 0.2  # the task thread's waits are this short, so a cancelling interrupt gets in
_JOIN_S = 10.0  # how long closing waits for the loop's thread to end once the function closed


class _StateName:
    """The descriptor of the in-flight elements' list state (all the backend reads is its name)."""

    def get_name(self) -> str:
        return IN_FLIGHT_STATE


class AsyncWaitOperator(StreamOperator):
    """Calls ``function.async_invoke`` per element on the subtask's event loop."""

    def __init__(self, context: OperatorContext, spec: AsyncWaitSpec, output: Emit) -> None:
        super().__init__(context, spec.function)
        function = spec.function
        self._invoke = function.async_invoke
        self._timeout_fn: Callable[[Any], Any] = getattr(function, "timeout", _default_timeout)
        self._class_name = f"{type(function)}"
        self._timeout_ms = spec.timeout_ms
        self._output = output
        self._mailbox = context.mailbox
        queue = OrderedStreamElementQueue if spec.ordered else UnorderedStreamElementQueue
        self._queue: StreamElementQueue = queue(spec.capacity)
        self._position = 0  # owner: task thread: the next element's position in the subtask's input
        self._to_start: list[QueueEntry] = []  # owner: task thread: added, call not started yet
        self._lock = threading.Condition(threading.Lock())
        self._outcomes: list[tuple[QueueEntry, str, Any]] = []  # under _lock
        self._mail_posted = False  # under _lock: a mail to take the outcomes in is on its way
        self._closed = False
        self._loop: SubtaskLoop | None = None
        # loop thread only: the running calls, and retries (None: none)
        self._tasks: set[asyncio.Task[None]] = set()
        self._retry = spec.retry_strategy
        predicate = self._retry.get_retry_predicate() if self._retry is not None else None
        self._result_predicate = predicate.result_predicate() if predicate is not None else None
        self._exception_predicate = predicate.exception_predicate() if predicate is not None else None

    # -- lifecycle (task thread) ---------------------------------------------------------------

    def open(self) -> None:
        """Start the loop's thread, open the function there, then call the restored elements again."""
        rc = self.context.runtime_context
        name = f"AsyncIO - {self.name} ({rc.subtask_index + 1}/{rc.parallelism})"
        self._loop = SubtaskLoop(name, super().open, super().close)
        self._loop.wait(self._loop.opened)
        state = self.operator_state_backend.get_list_state(_StateName())
        restored = list(state.get())
        state.clear()
        for element in restored:
            if element[0] == RECORD:
                self._add_record(element[1], element[2])
            else:
                self._add_marker(element[0], element[1])
        self._start_added()

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Add every element (waiting for room when the queue is full) and start its call."""
        self.records_in += len(values)
        if timestamps is None:
            for value in values:
                self._add_record(value, None)
        else:
            for value, timestamp in zip(values, timestamps, strict=True):
                self._add_record(value, timestamp)
        self._start_added()
        self._take_outcomes()

    def process_watermark(self, watermark: Watermark) -> None:
        """Queue the watermark; it leaves after every record before it."""
        self.current_watermark = watermark.timestamp
        self._add_marker(WATERMARK, watermark.timestamp)
        self._start_added()
        self._take_outcomes()

    def process_watermark_status(self, status: WatermarkStatus) -> None:
        """Queue the status, as a watermark (Flink's ``WatermarkStatusQueueEntry``)."""
        self._add_marker(STATUS, status)
        self._start_added()
        self._take_outcomes()

    def finish(self) -> None:
        """End of input: wait for every call (retries included)."""
        self._start_added()
        while not self._queue.is_empty():
            self._wait_for_outcomes()

    def close(self) -> None:
        """Stop the loop (cancelling the calls in flight), then close the function on its thread."""
        self._closed = True
        loop, self._loop = self._loop, None
        if loop is None:
            super().close()  # never opened: nothing runs on a loop
            return
        loop.stop()
        try:
            loop.wait(loop.closed)
        finally:
            loop.join()

    def dispose(self) -> None:
        """Stop the loop if ``close`` did not (it raised before)."""
        self._closed = True
        loop, self._loop = self._loop, None
        try:
            if loop is not None:
                loop.stop()
        finally:
            super().dispose()

    # -- checkpoints (task thread) ---------------------------------------------------------------

    def snapshot_state(
        self, checkpoint_id: int, timestamp: int = 0, canonical: bool = True
    ) -> OperatorSnapshot:
        """The elements in the queue are the list state ``_async_wait_operator_state_``."""
        self.operator_state_backend.get_list_state(_StateName()).update(self._queue.elements())
        return super().snapshot_state(checkpoint_id, timestamp, canonical)

    # -- the queue (task thread) -----------------------------------------------------------------

    def _add_record(self, value: Any, timestamp: int | None) -> None:
        self._wait_for_room()
        self._to_start.append(self._queue.put_record(value, timestamp, self._position))
        self._position += 1

    def _add_marker(self, kind: str, value: Any) -> None:
        self._wait_for_room()
        self._queue.put_marker(kind, value)

    def _wait_for_room(self) -> None:
        if not self._queue.has_room():
            self._start_added()
            while not self._queue.has_room():
                self._wait_for_outcomes()

    def _start_added(self) -> None:
        """Start the calls of the records added since the last time, in one hop to the loop."""
        if self._to_start:
            entries, self._to_start = self._to_start, []
            assert self._loop is not None, f"operator '{self.name}' is not open"
            self._loop.loop.call_soon_threadsafe(self._start_on_loop, entries)

    def _wait_for_outcomes(self) -> None:
        """Block until a call finished, then take the outcomes in."""
        loop = self._loop
        with self._lock:
            while not self._outcomes:
                if loop is None or not loop.alive():
                    raise RuntimeError(f"operator '{self.name}': its event loop ended with calls in flight")
                self._lock.wait(_WAIT_S)
        self._take_outcomes()

    def _take_outcomes(self) -> None:
        """Complete the entries whose calls finished, then emit what may leave."""
        with self._lock:
            outcomes, self._outcomes = self._outcomes, []
            self._mail_posted = False
        queue = self._queue
        for entry, kind, payload in outcomes:
            if kind is _ERROR:
                raise self._failure(entry, "async_invoke() raised", payload)
            if kind is _TIMEOUT:
                try:
                    payload = self._timeout_fn(entry.value)
                except Exception as err:
                    message = f"the async call timed out after {self._timeout_ms} ms and timeout() raised"
                    raise self._failure(entry, message, err) from err
            queue.complete(entry, self._results(entry, payload))
        self._emit(queue.pop_completed())

    def _take_outcomes_mail(self) -> None:
        if not self._closed:
            self._take_outcomes()

    def _results(self, entry: QueueEntry, results: Any) -> list[Any]:
        """The call's results as a list; anything but a collection fails the task (PyFlink's checks)."""
        if isinstance(results, list):
            return results
        if isinstance(results, Iterable):
            return list(results)
        what = "cannot be none" if results is None else "should be of list type"
        error = RuntimeError(
            f"The result of AsyncFunction {what}, please check the methods 'async_invoke' and "
            f"'timeout' of class '{self._class_name}'."
        )
        raise self._failure(entry, "async_invoke() returned no collection", error) from error

    def _failure(self, entry: QueueEntry, message: str, error: BaseException) -> UserFunctionError:
        failure = UserFunctionError(self.name, self.context.location, entry.position, entry.value, message)
        failure.__cause__ = error
        return failure

    def _emit(self, entries: list[QueueEntry]) -> None:
        """Records' results in one batch per run between markers, each with its input's timestamp."""
        values: list[Any] = []
        stamps: list[int | None] = []
        for entry in entries:
            if entry.kind == RECORD:
                values.extend(entry.results)
                stamps.extend([entry.timestamp] * len(entry.results))
                continue
            if values:
                self._output(values, _timestamps(stamps))
                values, stamps = [], []
            if entry.kind == WATERMARK:
                self.emit_watermark(Watermark(entry.value))
            else:
                self.emit_watermark_status(entry.value)
        if values:
            self._output(values, _timestamps(stamps))

    # -- the calls (loop thread) -----------------------------------------------------------------

    def _start_on_loop(self, entries: list[QueueEntry]) -> None:
        loop = asyncio.get_running_loop()
        for entry in entries:
            task = loop.create_task(self._call(entry))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _call(self, entry: QueueEntry) -> None:
        """One element's call, bounded by the timeout; its outcome goes to the task thread."""
        outcome: tuple[QueueEntry, str, Any]
        try:
            if self._timeout_ms <= 0:
                outcome = (entry, _RESULTS, await self._attempts(entry.value))
            else:
                deadline = asyncio.timeout(self._timeout_ms / 1000)
                try:
                    async with deadline:
                        outcome = (entry, _RESULTS, await self._attempts(entry.value))
                except TimeoutError as err:
                    outcome = (entry, _TIMEOUT, None) if deadline.expired() else (entry, _ERROR, err)
        except asyncio.CancelledError:
            raise  # the operator closes
        except BaseException as err:  # every failure of the user's call fails the task
            outcome = (entry, _ERROR, err)
        self._hand_over(outcome)

    async def _attempts(self, value: Any) -> Any:
        """Call ``async_invoke``, again after a backoff while the retry strategy says so."""
        attempt = 1
        while True:
            try:
                results, error = await self._invoke(value), None
            except Exception as err:
                results, error = None, err
            if self._retry is None or not self._retries(results, error, attempt):
                if error is not None:
                    raise error
                return results
            await asyncio.sleep(max(self._retry.get_backoff_time_millis(attempt), 0) / 1000)
            attempt += 1

    def _retries(self, results: Any, error: Exception | None, attempt: int) -> bool:
        """Whether attempt ``attempt`` is tried again (PyFlink's order: predicates, then the strategy)."""
        by_result = self._result_predicate
        by_error = self._exception_predicate
        satisfied = (results is not None and by_result is not None and bool(by_result(results))) or (
            error is not None and by_error is not None and bool(by_error(error))
        )
        return satisfied and bool(self._retry.can_retry(attempt))

    def _hand_over(self, outcome: tuple[QueueEntry, str, Any]) -> None:
        """Give a call's outcome to the task thread (one mail for all outcomes until it runs)."""
        with self._lock:
            self._outcomes.append(outcome)
            post = not self._mail_posted and self._mailbox is not None
            self._mail_posted = True
            self._lock.notify()
        if post and self._mailbox is not None:
            self._mailbox(self._take_outcomes_mail, f"async I/O results of '{self.name}'")


class SubtaskLoop:
    """A subtask's event loop on a thread of its own: ``open_function`` there before the loop
    runs, the loop until ``stop``, its remaining tasks cancelled, then ``close_function`` (both
    with the loop as the thread's current loop, not running). ``opened`` and ``closed`` carry
    their outcomes to the task thread."""

    def __init__(
        self, name: str, open_function: Callable[[], None], close_function: Callable[[], None]
    ) -> None:
        self.loop = asyncio.new_event_loop()
        self.opened: Future[None] = Future()
        self.closed: Future[None] = Future()
        self._open = open_function
        self._close = close_function
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        loop = self.loop
        asyncio.set_event_loop(loop)
        try:
            _complete(self.opened, self._open)
            asyncio.set_event_loop(loop)  # again: an ``asyncio.run`` in ``open`` unsets it
            loop.run_forever()
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            _complete(self.closed, self._close)
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            if not self.closed.done():
                self.closed.set_exception(RuntimeError(f"{self._thread.name}: the event loop failed"))
            asyncio.set_event_loop(None)
            loop.close()

    def alive(self) -> bool:
        """Whether the thread still runs (the loop, or the function's ``open`` / ``close``)."""
        return self._thread.is_alive()

    def stop(self) -> None:
        """End the loop after its current step (any thread but the loop's)."""
        if not self.loop.is_closed():
            try:
                self.loop.call_soon_threadsafe(self.loop.stop)
            except RuntimeError:
                pass  # closed meanwhile

    def join(self) -> None:
        """Wait for the thread's end (after ``closed``: the loop's own shutdown)."""
        self._thread.join(_JOIN_S)

    def wait(self, outcome: Future[None]) -> None:
        """Wait for ``opened`` or ``closed`` (in short waits, so a cancelling interrupt gets in);
        re-raises what the function raised."""
        while not outcome.done():
            if not self.alive() and not outcome.done():
                raise RuntimeError(f"{self._thread.name}: the event loop's thread ended")
            try:
                outcome.result(_WAIT_S)
            except TimeoutError:
                continue
        outcome.result()


def _complete(outcome: Future[None], function: Callable[[], None]) -> None:
    try:
        function()
    except BaseException as err:  # the task thread raises it
        outcome.set_exception(err)
    else:
        outcome.set_result(None)


def _default_timeout(value: Any) -> list[Any]:
    raise TimeoutError("Async function call has timed out for input: " + str(value))


def _timestamps(stamps: list[int | None]) -> list[int] | None:
    """None when no result has a timestamp; Flink's Long.MIN_VALUE for those without one."""
    if all(t is None for t in stamps):
        return None
    return [MIN_TIMESTAMP if t is None else t for t in stamps]
