"""Stateful property: buffer-pool accounting under random create/request/recycle/destroy.

A ``NetworkBufferPool`` and its local pools, driven by hypothesis through any sequence of
creating pools (minimum and maximum), requesting and recycling segments, and destroying
pools lazily while their segments are still in use. After every step:

* every live pool's size lies within [min, max], and the sizes add up to at most the total;
* segments are conserved: the network's available segments plus those the local pools
  hold (live, and destroyed ones whose segments are still in use) equal the total;
* no segment is handed out twice, and a pool holds no idle segment above its size.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from millstream.runtime.io.network.buffer_pool import (
    InsufficientBuffersError,
    LocalBufferPool,
    NetworkBufferPool,
)

TOTAL = 24


class BufferPoolAccounting(RuleBasedStateMachine):
    pools = Bundle("pools")

    def __init__(self) -> None:
        super().__init__()
        self.network = NetworkBufferPool(total_segments=TOTAL, segment_size=8)
        self.live: list[LocalBufferPool] = []
        self.in_use: dict[int, list[bytearray]] = {}  # id(pool) -> segments handed out
        self.destroyed: list[LocalBufferPool] = []

    @rule(target=pools, minimum=st.integers(1, 8), extra=st.integers(0, 16))
    def create(self, minimum: int, extra: int) -> Any:
        required = sum(p.min_segments for p in self.live)
        try:
            pool = self.network.create_buffer_pool(minimum, minimum + extra)
        except InsufficientBuffersError:
            assert required + minimum > TOTAL
            return None
        assert required + minimum <= TOTAL
        self.live.append(pool)
        self.in_use[id(pool)] = []
        return pool

    @rule(pool=pools)
    def request(self, pool: LocalBufferPool | None) -> None:
        if pool is None or pool not in self.live:
            return
        segment = pool.request_segment()
        if segment is not None:
            self.in_use[id(pool)].append(segment)

    @rule(pool=pools, index=st.integers(0, 100))
    def recycle(self, pool: LocalBufferPool | None, index: int) -> None:
        if pool is None or not self.in_use[id(pool)]:
            return
        segments = self.in_use[id(pool)]
        pool.recycle(segments.pop(index % len(segments)))

    @rule(pool=pools)
    def destroy(self, pool: LocalBufferPool | None) -> None:
        if pool is None or pool not in self.live:
            return
        self.live.remove(pool)
        self.destroyed.append(pool)
        pool.lazy_destroy()

    @invariant()
    def sizes_within_bounds_and_total(self) -> None:
        sizes = [p.pool_size for p in self.live]
        assert all(p.min_segments <= s <= p.max_segments for p, s in zip(self.live, sizes, strict=True))
        assert sum(sizes) <= TOTAL

    @invariant()
    def segments_are_conserved(self) -> None:
        held = sum(p.number_of_requested_segments for p in self.live + self.destroyed)
        assert self.network.number_of_available_segments + held == TOTAL
        for pool in self.destroyed:
            assert pool.number_of_requested_segments == len(self.in_use[id(pool)])

    @invariant()
    def no_segment_twice_and_no_idle_excess(self) -> None:
        handed_out = [id(s) for segments in self.in_use.values() for s in segments]
        assert len(handed_out) == len(set(handed_out))
        for pool in self.live:
            in_use = len(self.in_use[id(pool)])
            assert pool.number_of_requested_segments == in_use + pool.number_of_available_segments
            assert pool.number_of_requested_segments <= max(pool.pool_size, in_use)


TestBufferPoolAccounting = BufferPoolAccounting.TestCase
