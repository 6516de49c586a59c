"""EventLoopThread: one asyncio event loop on a thread of its own, a process's network I/O.

Every socket of a process (RPC connections, the data-plane server and client
connections) lives on this loop; other threads reach it only through ``call_soon`` and
``submit``, which are thread-safe. Coordinating code.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

__all__ = ["EventLoopThread"]

T = TypeVar("T")
log = logging.getLogger(__name__)


class EventLoopThread:
    """An asyncio loop running on its own daemon thread."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._started = False

    def start(self) -> None:
        """Start the loop thread."""
        if not self._started:
            self._started = True
            self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.set_exception_handler(self._on_unhandled)
        try:
            self.loop.run_forever()
        finally:
            try:
                pending = asyncio.all_tasks(self.loop)
                for task in pending:
                    task.cancel()
                if pending:
                    self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            finally:
                self.loop.close()

    def _on_unhandled(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        log.error("%s: %s", self.name, context.get("message"), exc_info=context.get("exception"))

    def in_loop(self) -> bool:
        """Whether the caller runs on the loop thread."""
        return threading.current_thread() is self._thread

    def call_soon(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the loop (from any thread)."""
        if self.in_loop():
            self.loop.call_soon(fn, *args)
        else:
            self.loop.call_soon_threadsafe(fn, *args)

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        """Schedule ``coro`` on the loop (from any other thread)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coro`` on the loop and wait for its result (never from the loop thread)."""
        if self.in_loop():
            coro.close()
            raise RuntimeError(f"{self.name}: blocking call from the loop thread")
        return self.submit(coro).result(timeout)

    def run_if_open(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T | None:
        """``run`` unless the loop is already closed (shutdown paths); None then."""
        if self.loop.is_closed():
            coro.close()
            return None
        try:
            return self.run(coro, timeout)
        except RuntimeError:
            return None

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the loop (cancelling its tasks) and wait for the thread; a loop that never
        started is closed here (it holds a selector and a self-pipe)."""
        if self.loop.is_closed():
            return
        if not self._started:
            self.loop.close()
            return
        try:
            self.loop.call_soon_threadsafe(self.loop.stop)
        except RuntimeError:
            return  # already closed
        if not self.in_loop():
            self._thread.join(timeout)
