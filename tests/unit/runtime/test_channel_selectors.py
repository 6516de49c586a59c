"""Channel selectors implement each partitioner's per-element semantics on batches."""

from __future__ import annotations

import pytest

from millstream.graph.partitioning import (
    BroadcastPartitioner,
    CustomPartitionerWrapper,
    GlobalPartitioner,
    KeyGroupStreamPartitioner,
    RescalePartitioner,
    ShufflePartitioner,
)
from millstream.runtime.partitioning import (
    KeySelectorError,
    RoundRobinChannelSelector,
    create_channel_selector,
)
from millstream.runtime.state.key_groups import assign_key_to_parallel_operator


def per_channel(routed):
    result = {}
    for channel, values, _ in routed:
        result.setdefault(channel, []).extend(values)
    return result


def test_round_robin_continues_across_batches():
    selector = RoundRobinChannelSelector(3, start=1)
    first = per_channel(selector.route([0, 1, 2, 3], None))
    second = per_channel(selector.route([4, 5], None))
    # element i of the stream goes to (1 + i) % 3
    assert first == {1: [0, 3], 2: [1], 0: [2]}
    assert second == {2: [4], 0: [5]}


def test_rescale_starts_at_the_first_channel_and_keeps_timestamps_aligned():
    selector = create_channel_selector(RescalePartitioner(), 2)
    assert selector.route(["a", "b", "c"], [1, 2, 3]) == [(0, ["a", "c"], [1, 3]), (1, ["b"], [2])]


def test_broadcast_global_and_single_channel():
    assert per_channel(create_channel_selector(BroadcastPartitioner(), 3).route([7], None)) == {
        0: [7],
        1: [7],
        2: [7],
    }
    assert per_channel(create_channel_selector(GlobalPartitioner(), 3).route([1, 2], None)) == {0: [1, 2]}
    assert per_channel(create_channel_selector(ShufflePartitioner(), 1).route([1, 2], None)) == {0: [1, 2]}


def test_shuffle_reaches_every_channel_and_loses_nothing():
    selector = create_channel_selector(ShufflePartitioner(), 4)
    routed = per_channel(selector.route(list(range(4000)), None))
    assert sorted(v for vals in routed.values() for v in vals) == list(range(4000))
    assert set(routed) == {0, 1, 2, 3}


@pytest.mark.parametrize("parallelism", [2, 3, 7])
def test_key_groups_route_every_key_to_its_owner(parallelism):
    selector = create_channel_selector(KeyGroupStreamPartitioner(lambda v: v[0], 128), parallelism)
    values = [(f"k{i % 50}", i) for i in range(500)] + [((1, "t"), 0), (12345678901, 1)]
    for channel, vals, _ in selector.route(values, None):
        for v in vals:
            assert channel == assign_key_to_parallel_operator(v[0], 128, parallelism)


def test_custom_partitioner_out_of_range_names_the_element():
    selector = create_channel_selector(CustomPartitionerWrapper(lambda k, n: k, lambda v: v), 2)
    assert per_channel(selector.route([0, 1, 1], None)) == {0: [0], 1: [1, 1]}
    with pytest.raises(KeySelectorError, match=r"returned 5, not a partition in \[0, 2\)") as info:
        selector.route([1, 5], None)
    assert info.value.index == 1


def test_failing_key_selector_names_the_element():
    selector = create_channel_selector(KeyGroupStreamPartitioner(lambda v: v["k"], 128), 2)
    with pytest.raises(KeySelectorError) as info:
        selector.route([{"k": 1}, {"x": 2}], None)
    assert info.value.index == 1 and isinstance(info.value.__cause__, KeyError)
