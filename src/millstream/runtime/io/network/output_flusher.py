"""OutputFlusher: hands a task's written output to its consumers while the task is busy.

Flink gives every RecordWriter an OutputFlusher thread that flushes it every
``execution.buffer-timeout`` ms, whatever the task thread does: a record emitted at time t
is at its consumer by t + timeout even if the task then spends seconds in a user function.
millstream's task thread flushes on the same timeout between batches and bundles; this
flusher (one thread per TaskManager, for every task's writers) covers the time the task
thread is away in user code or blocked:

::

    every timeout / 4:   for each registered writer
        written to, and nobody flushed it for a whole timeout ─> writer.try_flush()
            lock free (the task thread is not writing) ─> pending batches serialized if a
            buffer is free now, partly filled buffers handed to the consumers

so nothing written waits much longer than the timeout (at most a quarter more), and a
task that flushes on time itself is never flushed twice as often (a flush of a partly
filled buffer costs the network a buffer: measured, a threshold of half the timeout made
the word count at parallelism 2 6% slower). A writer whose task is writing, or whose
consumer is backpressured, is left alone: the flusher never waits. Timeout 0 needs no
flusher (the task flushes after every batch), -1 asks for none (flush when full).

Coordinating code: a few comparisons per writer and round; the flushes themselves are
the data plane's (record_writer.py).
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Protocol

__all__ = ["FlushableWriter", "OutputFlusher"]

log = logging.getLogger(__name__)


class FlushableWriter(Protocol):
    """What the flusher needs of a RecordWriter."""

    def try_flush(self, now: float, age: float) -> bool:
        """Flush if written to and not flushed for ``age`` seconds, without waiting."""
        ...


class OutputFlusher:
    """The flusher thread of one TaskManager (started with the first registration)."""

    def __init__(self, name: str = "OutputFlusher", clock: Callable[[], float] = time.monotonic) -> None:
        self._name = name
        self._clock = clock
        self._cond = threading.Condition(threading.Lock())
        self._writers: dict[int, tuple[Sequence[FlushableWriter], float]] = {}  # under _cond
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None  # under _cond
        self._closed = False  # under _cond
        self._round = threading.Lock()  # held while a round flushes

    def register(self, writers: Sequence[FlushableWriter], buffer_timeout_ms: int) -> int | None:
        """Flush ``writers`` within ``buffer_timeout_ms`` from now on (any thread); a handle
        for ``unregister``, or None when the timeout needs no flusher (0 or -1)."""
        if buffer_timeout_ms <= 0 or not writers:
            return None
        handle = next(self._ids)
        with self._cond:
            if self._closed:
                return None
            self._writers[handle] = (list(writers), buffer_timeout_ms / 1000.0)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._cond.notify()
        return handle

    def unregister(self, handle: int | None) -> None:
        """Stop flushing the writers of ``handle`` (any thread; None is ignored). On return no
        flush of them runs, nor will: their partitions may be released."""
        if handle is not None:
            with self._cond:
                self._writers.pop(handle, None)
            with self._round:  # a round that took them before has ended (rounds never wait)
                pass

    def run_step(self) -> float | None:
        """One round: flush what is due; seconds until the next round (None: nothing registered)."""
        with self._round:
            with self._cond:
                registered = list(self._writers.values())
            if not registered:
                return None
            now = self._clock()
            for writers, timeout in registered:
                for writer in writers:
                    try:
                        writer.try_flush(now, timeout)
                    except Exception as err:  # a value that cannot be pickled ...: the task
                        # thread meets the same at its own flush and fails the task with it
                        log.debug("output flusher: a flush failed: %s", err)
            return min(timeout for _, timeout in registered) / 4

    def _run(self) -> None:
        while True:
            interval = self.run_step()
            with self._cond:
                if self._closed:
                    return
                self._cond.wait(interval)
                if self._closed:
                    return

    def close(self) -> None:
        """Stop the thread (any thread)."""
        with self._cond:
            self._closed = True
            self._writers.clear()
            thread, self._thread = self._thread, None
            self._cond.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join(5)
