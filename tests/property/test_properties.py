"""Property tests: key groups, buffer accounting, spanning records, routing."""

from __future__ import annotations

from collections import defaultdict

from hypothesis import given
from hypothesis import strategies as st

from millstream.common import Time
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.window import (
    EventTimeSessionWindows,
    SlidingEventTimeWindows,
    TumblingEventTimeWindows,
)
from millstream.graph.partitioning import KeyGroupStreamPartitioner
from millstream.runtime.io.network.buffer_pool import NetworkBufferPool
from millstream.runtime.io.network.partition.result_partition import ResultPartition
from millstream.runtime.io.network.serialization import RecordDeserializer
from millstream.runtime.partitioning import (
    RoundRobinChannelSelector,
    create_channel_selector,
)
from millstream.runtime.state.key_groups import compute_key_group_range
from millstream.testing import OperatorHarness

keys = st.one_of(st.text(max_size=8), st.integers(), st.tuples(st.integers(), st.text(max_size=3)))


@given(max_parallelism=st.integers(1, 512), data=st.data())
def test_key_group_ranges_tile_exactly(max_parallelism, data):
    parallelism = data.draw(st.integers(1, max_parallelism))
    covered = []
    for i in range(parallelism):
        r = compute_key_group_range(max_parallelism, parallelism, i)
        covered.extend(range(r.start, r.end + 1))
    assert covered == list(range(max_parallelism))


@given(values=st.lists(st.tuples(keys, st.integers()), max_size=200), parallelism=st.integers(1, 9))
def test_keyed_routing_is_a_function_of_the_key(values, parallelism):
    selector = create_channel_selector(KeyGroupStreamPartitioner(lambda v: v[0], 128), parallelism)
    owner = {}
    routed = selector.route(values, None)
    assert sorted(map(repr, (v for _, vals, _ in routed for v in vals))) == sorted(map(repr, values))
    for channel, vals, _ in routed:
        for v in vals:
            assert owner.setdefault(repr(v[0]), channel) == channel


@given(batches=st.lists(st.integers(0, 20), max_size=30), n=st.integers(1, 5), start=st.integers(0, 4))
def test_round_robin_matches_per_element_assignment(batches, n, start):
    selector = RoundRobinChannelSelector(n, start % n)
    counter = 0
    for size in batches:
        values = list(range(counter, counter + size))
        for channel, vals, _ in selector.route(values, None):
            assert all((start % n + v) % n == channel for v in vals)
        counter += size


@given(
    payloads=st.lists(st.binary(max_size=300), max_size=40),
    segment_size=st.integers(1, 100),
    flush_every=st.integers(1, 10),
)
def test_spanning_records_round_trip_and_buffers_are_conserved(payloads, segment_size, flush_every):
    network = NetworkBufferPool(4096, segment_size)
    pool = network.create_buffer_pool(2, 4096)
    partition = ResultPartition("p", 1, pool, lambda: False)
    deserializer = RecordDeserializer()
    received = []

    def drain():
        while True:
            buffer, _ = partition.subpartitions[0].poll()
            if buffer is None:
                return
            if buffer.is_buffer:
                received.extend(
                    bytes(r) for r in deserializer.records(memoryview(buffer.segment)[: buffer.size])
                )
            buffer.recycle()

    for i, payload in enumerate(payloads):
        partition.emit_record(0, payload)
        if i % flush_every == 0:
            partition.flush(0)
            drain()
    partition.flush_all()
    drain()
    assert received == payloads
    assert pool.number_of_requested_segments == pool.number_of_available_segments
    pool.lazy_destroy()
    assert network.number_of_available_segments == 4096


@given(
    pairs=st.lists(
        st.tuples(
            st.tuples(st.text(max_size=2), st.integers(-50, 50), st.integers(-50, 50)),
            st.tuples(st.text(max_size=2), st.integers(-50, 50), st.integers(-50, 50)),
        ),
        max_size=30,
    ),
    position=st.integers(0, 2),
)
def test_compiled_aggregations_equal_the_generic_ones(pairs, position):
    from millstream.common import Types
    from millstream.datastream.aggregations import ComparableAggregator, SumAggregator

    declared = Types.TUPLE([Types.STRING(), Types.INT(), Types.INT()])
    if position == 0:
        return  # summing strings is not meaningful for the declared type
    cases = [(SumAggregator(position, declared), SumAggregator(position))]
    for kind in ("min", "max"):
        for by in (False, True):
            cases.append(
                (ComparableAggregator(position, kind, by, declared), ComparableAggregator(position, kind, by))
            )
    for compiled, generic in cases:
        for a, b in pairs:
            assert compiled.reduce(a, b) == generic.reduce(a, b)
        if position == 1:
            # A value of another arity than declared takes the generic path.
            assert compiled.reduce(("k", 1), ("k", 2)) == generic.reduce(("k", 1), ("k", 2))


@given(
    batches=st.lists(
        st.lists(st.tuples(st.one_of(keys, st.lists(st.integers(), max_size=2)), st.integers()), max_size=60),
        max_size=4,
    ),
    parallelism=st.integers(2, 5),
    with_timestamps=st.booleans(),
)
def test_keyed_routing_equals_per_element_assignment_in_order(batches, parallelism, with_timestamps):
    from millstream.runtime.state.key_groups import assign_key_to_parallel_operator

    # Lists are unhashable keys: routed by their stable hash without the key cache.
    selector = create_channel_selector(KeyGroupStreamPartitioner(lambda v: v[0], 128), parallelism)
    for values in batches:  # later batches hit the key cache warmed by earlier ones
        timestamps = [v[1] for v in values] if with_timestamps else None
        expected: dict[int, list] = {}
        for v in values:
            expected.setdefault(assign_key_to_parallel_operator(v[0], 128, parallelism), []).append(v)
        routed = selector.route(values, timestamps)
        assert {c: vals for c, vals, _ in routed} == expected
        for _, vals, ts in routed:
            assert ts == ([v[1] for v in vals] if with_timestamps else None)


# -- windows against brute force --------------------------------------------------------------

BOUND = 50


@st.composite
def event_streams(draw):  # type: ignore[no-untyped-def]
    """(key, value, ts) events at most BOUND ms out of order, with watermark positions."""
    n = draw(st.integers(0, 120))
    events = []
    high = 0
    for _ in range(n):
        high += draw(st.integers(0, 30))
        ts = high - draw(st.integers(0, BOUND))
        events.append((draw(st.sampled_from("abc")), draw(st.integers(-5, 20)), ts))
    marks = draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=8))
    return events, set(marks)


def _add(a, b):  # type: ignore[no-untyped-def]
    return (a[0], a[1] + b[1], a[2])


def _replay(assigner, events, marks):  # type: ignore[no-untyped-def]
    env = StreamExecutionEnvironment.get_execution_environment()
    stream = env.from_collection([]).key_by(lambda v: v[0]).window(assigner)
    harness = OperatorHarness.of(
        stream.reduce(_add, lambda key, window, sums: [(key, window.start, window.end, sums[0][1])])
    )
    high = -(2**63)
    for i, (k, v, ts) in enumerate(events):
        harness.process_element((k, v, ts), ts)
        high = max(high, ts)
        if i in marks:
            harness.process_watermark(high - BOUND - 1)
    harness.end_input()
    return sorted(harness.values())


@given(stream=event_streams(), size=st.integers(1, 100))
def test_tumbling_window_sums_equal_brute_force(stream, size):  # type: ignore[no-untyped-def]
    events, marks = stream
    expected = defaultdict(int)
    for k, v, ts in events:
        start = ts - ts % size
        expected[(k, start, start + size)] += v
    got = _replay(TumblingEventTimeWindows.of(Time.milliseconds(size)), events, marks)
    assert got == sorted((k, s, e, total) for (k, s, e), total in expected.items())


@given(stream=event_streams(), size=st.integers(1, 60), slide=st.integers(1, 60))
def test_sliding_window_sums_equal_brute_force(stream, size, slide):  # type: ignore[no-untyped-def]
    events, marks = stream
    expected = defaultdict(int)
    for k, v, ts in events:
        start = ts - ts % slide
        while start > ts - size:
            expected[(k, start, start + size)] += v
            start -= slide
    got = _replay(
        SlidingEventTimeWindows.of(Time.milliseconds(size), Time.milliseconds(slide)), events, marks
    )
    assert got == sorted((k, s, e, total) for (k, s, e), total in expected.items())


@given(stream=event_streams(), gap=st.integers(1, 60))
def test_session_window_sums_equal_brute_force(stream, gap):  # type: ignore[no-untyped-def]
    events, _ = stream  # only the final watermark: a session closed by a watermark stays closed
    expected = []
    by_key = defaultdict(list)
    for k, v, ts in events:
        by_key[k].append((ts, v))
    for k, items in by_key.items():
        items.sort()
        start, end, total = items[0][0], items[0][0] + gap, 0
        for ts, v in items:
            if ts > end:  # sessions that merely touch (ts == end) merge
                expected.append((k, start, end, total))
                start, total = ts, 0
            end = max(end, ts + gap)
            total += v
        expected.append((k, start, end, total))
    got = _replay(EventTimeSessionWindows.with_gap(Time.milliseconds(gap)), events, set())
    assert got == sorted(expected)
