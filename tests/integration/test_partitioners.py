"""Partitioner semantics observed end to end: which subtask receives which element."""

from __future__ import annotations

from collections import Counter

import pytest

from millstream.common import WatermarkStrategy
from millstream.datastream import MapFunction
from millstream.datastream.connectors.number_seq import NumberSequenceSource
from millstream.runtime.state.key_groups import assign_key_to_parallel_operator
from tests.conftest import make_env


class Tag(MapFunction):
    """Emits (subtask index of this map, value)."""

    def open(self, runtime_context):
        self.index = runtime_context.get_index_of_this_subtask()

    def map(self, value):
        return (self.index, value)


class TagSource(MapFunction):
    """Emits (subtask index of the producer, value)."""

    def open(self, runtime_context):
        self.index = runtime_context.get_index_of_this_subtask()

    def map(self, value):
        return (self.index, value)


def run(env, ds):
    with ds.execute_and_collect() as results:
        return list(results)


def numbers(env, n, parallelism):
    source = NumberSequenceSource(0, n - 1)
    return env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers").set_parallelism(parallelism)


def test_rebalance_is_round_robin(exchange):
    env = make_env(3, taskmanager__network__local_exchange=exchange)
    out = run(env, env.from_collection(list(range(300))).rebalance().map(Tag()))
    counts = Counter(i for i, _ in out)
    assert sorted(v for _, v in out) == list(range(300))
    assert set(counts.values()) == {100}


def test_broadcast_sends_everything_to_every_subtask():
    env = make_env(3)
    out = run(env, env.from_collection(list(range(10))).broadcast().map(Tag()))
    assert sorted(out) == sorted((i, v) for i in range(3) for v in range(10))


def test_global_sends_everything_to_the_first_subtask():
    env = make_env(3)
    out = run(
        env,
        env.from_collection(list(range(10))).map(lambda x: x).global_().map(Tag()).set_parallelism(3),
    )
    assert {i for i, _ in out} == {0} and sorted(v for _, v in out) == list(range(10))


def test_shuffle_loses_nothing_and_spreads():
    env = make_env(4)
    out = run(env, env.from_collection(list(range(2000))).shuffle().map(Tag()))
    assert sorted(v for _, v in out) == list(range(2000))
    assert len({i for i, _ in out}) == 4


def test_forward_keeps_subtask_i_to_subtask_i():
    env = make_env(3)
    out = run(env, numbers(env, 30, 3).map(TagSource()).forward().map(Tag()))
    assert all(consumer == producer for consumer, (producer, _) in out)
    assert sorted(v for _, (_, v) in out) == list(range(30))


def test_rescale_is_pointwise_round_robin():
    env = make_env(2)
    out = run(env, numbers(env, 400, 2).map(TagSource()).rescale().map(Tag()).set_parallelism(4))
    by_pair = Counter((producer, consumer) for consumer, (producer, _) in out)
    # producer 0 feeds consumers 0,1; producer 1 feeds consumers 2,3, in equal shares
    assert by_pair == {(0, 0): 100, (0, 1): 100, (1, 2): 100, (1, 3): 100}


def test_custom_partitioner_chooses_the_subtask():
    env = make_env(3)
    out = run(
        env,
        env.from_collection(list(range(30))).partition_custom(lambda k, n: k % n, lambda v: v).map(Tag()),
    )
    assert all(i == v % 3 for i, v in out) and len(out) == 30


@pytest.mark.parametrize("parallelism", [2, 3])
def test_key_by_sends_each_key_to_its_key_group_owner(parallelism, exchange):
    env = make_env(parallelism, taskmanager__network__local_exchange=exchange)
    words = [f"w{i % 37}" for i in range(500)]
    out = run(env, env.from_collection(words).key_by(lambda w: w).map(Tag()))
    assert sorted(w for _, w in out) == sorted(words)
    for index, word in out:
        assert index == assign_key_to_parallel_operator(word, 128, parallelism)
