"""NetworkBufferPool (one per TaskManager) and LocalBufferPool (one per partition or gate).

::

    NetworkBufferPool: total_segments of segment_size bytes
      |-- LocalBufferPool (ResultPartition of task A): min..max, current size set by
      |-- LocalBufferPool (ResultPartition of task B):     redistribution
      '-- ...

Every LocalBufferPool is guaranteed its ``min`` segments; whatever is left is shared out
in proportion to each pool's excess capacity ``max - min`` (Flink's
``redistributeBuffers``). A producer that finds its pool exhausted blocks in
``request_buffer_blocking`` until a consumer recycles a buffer: that is backpressure.
Segments are allocated lazily, but never more than ``total_segments``.

Coordinating code, with one lock per pool; called once per buffer (not per record).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

__all__ = [
    "BufferListener",
    "BufferPoolDestroyedError",
    "InsufficientBuffersError",
    "LocalBufferPool",
    "NetworkBufferPool",
]


class InsufficientBuffersError(RuntimeError):
    """The NetworkBufferPool cannot guarantee a new pool's minimum."""


class BufferPoolDestroyedError(RuntimeError):
    """A buffer was requested from a destroyed pool (the task is shutting down)."""


class BufferListener(Protocol):
    """Waits for a segment of a LocalBufferPool (a remote input channel wanting floating buffers)."""

    def notify_buffer_available(self, segment: bytearray) -> bool:
        """Take ``segment``; return False to decline it (it goes back to the pool)."""
        ...


class NetworkBufferPool:
    """A TaskManager's fixed budget of network memory segments."""

    def __init__(self, total_segments: int, segment_size: int) -> None:
        if total_segments <= 0 or segment_size <= 0:
            raise ValueError("network buffer pool needs a positive number and size of segments")
        self.total_segments = total_segments
        self.segment_size = segment_size
        self._lock = threading.Lock()
        self._free: list[bytearray] = []  # owner: any thread, under _lock
        self._allocated = 0  # segments ever created, under _lock
        self._in_pools = 0  # segments held by local pools, under _lock
        self._pools: list[LocalBufferPool] = []  # under _lock
        self._required = 0  # sum of pools' minimums and exclusive segments, under _lock
        self._generation = 0  # redistribution counter, under _lock
        self._segment_recycled = threading.Condition(self._lock)

    def create_buffer_pool(self, min_segments: int, max_segments: int) -> LocalBufferPool:
        """A new local pool guaranteed ``min_segments``; redistributes the excess."""
        if min_segments < 1 or max_segments < min_segments:
            raise ValueError(f"invalid buffer pool bounds {min_segments}..{max_segments}")
        with self._lock:
            self._check_budget(min_segments, "")
            pool = LocalBufferPool(self, min_segments, max_segments)
            self._pools.append(pool)
            self._required += min_segments
            sizes = self._redistribution()
        self._apply(sizes)
        return pool

    def _check_budget(self, count: int, what: str) -> None:
        if self._required + count > self.total_segments:
            raise InsufficientBuffersError(
                f"Insufficient number of network buffers: required {count}{what}, but only "
                f"{self.total_segments - self._required} available. The total number of "
                f"network buffers is currently set to {self.total_segments} of "
                f"{self.segment_size} bytes each (taskmanager.network.numberOfBuffers)."
            )

    def destroy_buffer_pool(self, pool: LocalBufferPool) -> None:
        """Forget ``pool`` and give its share to the others."""
        with self._lock:
            if pool not in self._pools:
                return
            self._pools.remove(pool)
            self._required -= pool.min_segments
            sizes = self._redistribution()
        self._apply(sizes)

    def _redistribution(self) -> tuple[int, list[tuple[LocalBufferPool, int]]]:
        """New pool sizes (under ``_lock``); applied by ``_apply`` outside it (pools lock first)."""
        self._generation += 1
        available = self.total_segments - self._required
        capacities = [min(available, p.max_segments - p.min_segments) for p in self._pools]
        total_capacity = sum(capacities)
        to_distribute = min(available, total_capacity)
        used = 0
        distributed = 0
        sizes = []
        for pool, capacity in zip(self._pools, capacities):
            share = 0
            if total_capacity > 0 and capacity > 0:
                used += capacity
                share = to_distribute * used // total_capacity - distributed
                distributed += share
            sizes.append((pool, pool.min_segments + share))
        return self._generation, sizes

    @staticmethod
    def _apply(redistribution: tuple[int, list[tuple[LocalBufferPool, int]]]) -> None:
        generation, sizes = redistribution
        for pool, size in sizes:
            pool._set_pool_size(size, generation)

    def request_exclusive_segments(self, count: int, timeout: float = 30.0) -> list[bytearray]:
        """``count`` segments owned by one remote input channel (its exclusive buffers).

        They leave the redistributed budget, as a pool's minimum does; if local pools hold
        the memory right now, this waits for them to give their excess back.
        """
        with self._lock:
            self._check_budget(count, " exclusive buffers")
            self._required += count
            sizes = self._redistribution()
        self._apply(sizes)
        segments: list[bytearray] = []
        deadline = time.monotonic() + timeout
        with self._segment_recycled:
            while len(segments) < count:
                segment = self._take_locked()
                if segment is not None:
                    segments.append(segment)
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    for s in segments:
                        self._give_back_locked(s)
                    self._required -= count
                    raise InsufficientBuffersError(f"timed out waiting for {count} exclusive network buffers")
                self._segment_recycled.wait(remaining)
        return segments

    def recycle_exclusive_segments(self, segments: list[bytearray]) -> None:
        """A remote input channel gives its exclusive buffers back."""
        with self._lock:
            for segment in segments:
                self._give_back_locked(segment)
            self._required -= len(segments)
            sizes = self._redistribution()
        self._apply(sizes)

    def request_segment(self) -> bytearray | None:
        """A free segment, or None if the budget is exhausted."""
        with self._lock:
            return self._take_locked()

    def _take_locked(self) -> bytearray | None:
        if self._free:
            self._in_pools += 1
            return self._free.pop()
        if self._allocated < self.total_segments:
            self._allocated += 1
            self._in_pools += 1
            return bytearray(self.segment_size)
        return None

    def recycle_segment(self, segment: bytearray) -> None:
        """Take a segment back from a local pool."""
        with self._lock:
            self._give_back_locked(segment)

    def _give_back_locked(self, segment: bytearray) -> None:
        self._in_pools -= 1
        self._free.append(segment)
        self._segment_recycled.notify()

    @property
    def number_of_available_segments(self) -> int:
        """Segments not held by any local pool."""
        with self._lock:
            return self.total_segments - self._in_pools

    @property
    def number_of_pools(self) -> int:
        """Local pools alive."""
        with self._lock:
            return len(self._pools)


class LocalBufferPool:
    """A bounded share of network segments for one result partition (or input gate)."""

    def __init__(self, network_pool: NetworkBufferPool, min_segments: int, max_segments: int) -> None:
        self.network_pool = network_pool
        self.min_segments = min_segments
        self.max_segments = max_segments
        self.segment_size = network_pool.segment_size
        self._cond = threading.Condition(threading.Lock())
        self._available: deque[bytearray] = deque()  # under _cond
        self._requested = 0  # segments taken from the network pool, under _cond
        self._pool_size = min_segments  # under _cond; set by redistribution
        self._destroyed = False  # under _cond
        self.blocked_requesters = 0  # under _cond: producers waiting for a segment (backpressure)
        self._generation = 0  # under _cond: of the redistribution that set _pool_size
        self._listeners: deque[BufferListener] = deque()  # under _cond: waiting for a segment

    def _set_pool_size(self, size: int, generation: int) -> None:
        with self._cond:
            if generation < self._generation:
                return  # a newer redistribution was applied first
            self._generation = generation
            self._pool_size = max(self.min_segments, min(size, self.max_segments))
            self._return_excess()
            self._cond.notify_all()
        self._serve_listeners()

    def _return_excess(self) -> None:
        while self._requested > self._pool_size and self._available:
            self.network_pool.recycle_segment(self._available.pop())
            self._requested -= 1

    @property
    def pool_size(self) -> int:
        """Current size granted by redistribution."""
        with self._cond:
            return self._pool_size

    def request_segment(self) -> bytearray | None:
        """A segment if one is available now, else None."""
        with self._cond:
            return self._request_locked()

    def _request_locked(self) -> bytearray | None:
        if self._destroyed:
            raise BufferPoolDestroyedError("buffer pool is destroyed")
        if self._available:
            return self._available.popleft()
        if self._requested < self._pool_size:
            segment = self.network_pool.request_segment()
            if segment is not None:
                self._requested += 1
                return segment
        return None

    def request_segment_blocking(self, timeout: float, should_abort: Callable[[], bool]) -> bytearray:
        """A segment, waiting while the pool is exhausted (backpressure).

        Waits in slices of ``timeout`` seconds and raises ``InterruptedError`` when
        ``should_abort()`` turns true (the task is being cancelled).
        """
        with self._cond:
            self.blocked_requesters += 1
            try:
                while True:
                    segment = self._request_locked()
                    if segment is not None:
                        return segment
                    self._cond.wait(timeout)
                    if should_abort():
                        raise InterruptedError("buffer request aborted: task is cancelling")
            finally:
                self.blocked_requesters -= 1

    def recycle(self, segment: bytearray) -> None:
        """Take a consumed segment back; wakes a producer blocked on this pool."""
        with self._cond:
            if self._destroyed or self._requested > self._pool_size:
                self._requested -= 1
                self.network_pool.recycle_segment(segment)
            else:
                self._available.append(segment)
            self._cond.notify()
            if not self._listeners:
                return
        self._serve_listeners()

    def add_buffer_listener(self, listener: BufferListener) -> bool:
        """Ask to be handed a segment when one frees up; False if one is available right now."""
        with self._cond:
            if self._destroyed or self._available or self._requested < self._pool_size:
                return False
            if listener not in self._listeners:
                self._listeners.append(listener)
            return True

    def remove_buffer_listener(self, listener: BufferListener) -> None:
        """Stop waiting (the channel is released)."""
        with self._cond:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def _serve_listeners(self) -> None:
        # Hand free segments to waiting channels outside the pool lock: a listener takes
        # its own lock and may announce credit.
        while True:
            with self._cond:
                if not self._listeners:
                    return
                segment = self._request_locked()
                if segment is None:
                    return
                listener = self._listeners.popleft()
            if not listener.notify_buffer_available(segment):
                self.recycle(segment)

    def is_available(self) -> bool:
        """Whether a request would succeed now (no backpressure)."""
        with self._cond:
            return bool(self._available) or (
                self._requested < self._pool_size and self.network_pool.number_of_available_segments > 0
            )

    @property
    def number_of_requested_segments(self) -> int:
        """Segments this pool holds (in use or available)."""
        with self._cond:
            return self._requested

    @property
    def number_of_available_segments(self) -> int:
        """Segments ready in this pool."""
        with self._cond:
            return len(self._available)

    def lazy_destroy(self) -> None:
        """Return free segments now and the others as they are recycled."""
        with self._cond:
            self._destroyed = True
            while self._available:
                self.network_pool.recycle_segment(self._available.pop())
                self._requested -= 1
            self._cond.notify_all()
        self.network_pool.destroy_buffer_pool(self)
