"""RpcEndpoint: a component whose state is touched only by its own main thread.

Gateways call ``run_async`` / ``call_async`` from any thread; the work runs in order on
the endpoint's main thread (Flink's main-thread executor). ``schedule_run_async`` runs
work there after a delay (Flink's ``scheduleRunAsync``: timeouts without a thread of
their own). In one process, calls are plain queued function calls; across processes the
same methods sit behind RPC.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

__all__ = ["RpcEndpoint"]

T = TypeVar("T")
log = logging.getLogger(__name__)
_STOP = object()


class RpcEndpoint:
    """Base of JobMaster, ResourceManager, Dispatcher and TaskExecutor."""

    def __init__(self, name: str) -> None:
        self.endpoint_name = name
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name=f"{name}-main", daemon=True)
        self._started = False
        self._timers: list[tuple[float, int, Callable[..., Any], tuple[Any, ...]]] = []  # owner: main thread
        self._timer_sequence = itertools.count()  # ties run in scheduling order

    def start(self) -> None:
        """Start the main thread."""
        self._started = True
        self._thread.start()

    def _loop(self) -> None:
        while True:
            try:
                item = self._queue.get(timeout=self._until_next_timer())
            except queue.Empty:
                self._run_due_timers()
                continue
            if item is _STOP:
                return
            self._run(*item)
            self._run_due_timers()

    def _run(self, fn: Callable[..., Any], args: tuple[Any, ...], future: Future[Any] | None) -> None:
        # a caller that stopped waiting (a REST request timed out) cancelled its future: the
        # work is done all the same, its answer dropped
        answer = future is not None and future.set_running_or_notify_cancel()
        try:
            result = fn(*args)
        except BaseException as err:
            if future is None:
                log.exception("%s: unhandled error in %s", self.endpoint_name, fn)
            elif answer:
                future.set_exception(err)
            else:
                log.debug("%s: %s failed after its caller stopped waiting: %s", self.endpoint_name, fn, err)
            return
        if future is not None and answer:
            future.set_result(result)

    def _until_next_timer(self) -> float | None:
        if not self._timers:
            return None
        return max(0.0, self._timers[0][0] - time.monotonic())

    def _run_due_timers(self) -> None:
        now = time.monotonic()
        while self._timers and self._timers[0][0] <= now:
            _, _, fn, args = heapq.heappop(self._timers)
            self._run(fn, args, None)

    def run_async(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the main thread; errors are logged."""
        self._queue.put((fn, args, None))

    def call_async(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Run ``fn(*args)`` on the main thread; the future holds the result."""
        future: Future[T] = Future()
        self._queue.put((fn, args, future))
        return future

    def schedule_run_async(self, delay_s: float, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the main thread after ``delay_s`` seconds; errors are logged."""
        due = time.monotonic() + delay_s
        self.run_async(self._add_timer, due, fn, args)

    def _add_timer(self, due: float, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        heapq.heappush(self._timers, (due, next(self._timer_sequence), fn, args))

    def is_main_thread(self) -> bool:
        """Whether the caller is this endpoint's main thread."""
        return threading.current_thread() is self._thread

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the main thread after the queued work."""
        if self._started:
            self._queue.put(_STOP)
            if not self.is_main_thread():
                self._thread.join(timeout)
