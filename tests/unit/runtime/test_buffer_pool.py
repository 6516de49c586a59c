"""NetworkBufferPool / LocalBufferPool: guarantees, redistribution, backpressure."""

from __future__ import annotations

import threading

import pytest

from millstream.runtime.io.network.buffer_pool import InsufficientBuffersError, NetworkBufferPool


def test_minimums_are_guaranteed_and_excess_is_shared_by_capacity():
    network = NetworkBufferPool(total_segments=20, segment_size=64)
    a = network.create_buffer_pool(2, 12)  # excess capacity 10
    b = network.create_buffer_pool(3, 8)  # excess capacity 5
    # 15 segments above the minimums, shared 10:5.
    assert (a.pool_size, b.pool_size) == (12, 8)
    c = network.create_buffer_pool(5, 5)
    # Now 10 spare for capacities 10 and 5 -> 6 and 3 (+1 rounding goes to the later pool).
    assert a.pool_size + b.pool_size + c.pool_size == 20
    assert c.pool_size == 5 and a.pool_size >= 2 + 6 and b.pool_size >= 3 + 3
    network.destroy_buffer_pool(c)
    assert (a.pool_size, b.pool_size) == (12, 8)


def test_required_beyond_total_is_an_error():
    network = NetworkBufferPool(total_segments=4, segment_size=64)
    network.create_buffer_pool(3, 3)
    with pytest.raises(InsufficientBuffersError, match="Insufficient number of network buffers"):
        network.create_buffer_pool(2, 4)


def test_exhausted_pool_blocks_the_producer_until_a_buffer_is_recycled():
    network = NetworkBufferPool(total_segments=2, segment_size=64)
    pool = network.create_buffer_pool(2, 2)
    first = pool.request_segment()
    second = pool.request_segment()
    assert first is not None and second is not None
    assert pool.request_segment() is None and not pool.is_available()
    got: list[bytearray] = []
    blocked = threading.Event()

    def producer() -> None:
        blocked.set()
        got.append(pool.request_segment_blocking(0.05, lambda: False))

    thread = threading.Thread(target=producer)
    thread.start()
    assert blocked.wait(5)
    thread.join(0.2)
    assert thread.is_alive() and not got  # still blocked: backpressure
    pool.recycle(first)
    thread.join(5)
    assert got == [first]


def test_blocked_request_aborts_when_the_task_is_cancelled():
    network = NetworkBufferPool(total_segments=1, segment_size=64)
    pool = network.create_buffer_pool(1, 1)
    assert pool.request_segment() is not None
    with pytest.raises(InterruptedError):
        pool.request_segment_blocking(0.01, lambda: True)


def test_destroyed_pool_returns_every_segment():
    network = NetworkBufferPool(total_segments=4, segment_size=64)
    pool = network.create_buffer_pool(1, 4)
    held = [pool.request_segment() for _ in range(3)]
    pool.recycle(held.pop())
    pool.lazy_destroy()
    for segment in held:
        pool.recycle(segment)
    assert network.number_of_available_segments == 4
    assert network.number_of_pools == 0
