"""RpcEndpoint: a component whose state is touched only by its own main thread.

Gateways call ``run_async`` / ``call_async`` from any thread; the work runs in order on
the endpoint's main thread (Flink's main-thread executor). In one process, calls are
plain queued function calls; across processes the same methods sit behind RPC.
"""

from __future__ import annotations

import logging
import queue
import threading
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

    def start(self) -> None:
        """Start the main thread."""
        self._started = True
        self._thread.start()

    def _loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            fn, args, future = item
            try:
                result = fn(*args)
            except BaseException as err:
                if future is not None:
                    future.set_exception(err)
                else:
                    log.exception("%s: unhandled error in %s", self.endpoint_name, fn)
                continue
            if future is not None:
                future.set_result(result)

    def run_async(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the main thread; errors are logged."""
        self._queue.put((fn, args, None))

    def call_async(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Run ``fn(*args)`` on the main thread; the future holds the result."""
        future: Future[T] = Future()
        self._queue.put((fn, args, future))
        return future

    def is_main_thread(self) -> bool:
        """Whether the caller is this endpoint's main thread."""
        return threading.current_thread() is self._thread

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the main thread after the queued work."""
        if self._started:
            self._queue.put(_STOP)
            if not self.is_main_thread():
                self._thread.join(timeout)
