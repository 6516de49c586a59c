"""StreamGraph generation: default partitioners, virtual nodes, validation."""

from __future__ import annotations

import pytest

from millstream.datastream import OutputTag
from millstream.graph.partitioning import (
    ForwardPartitioner,
    KeyGroupStreamPartitioner,
    RebalancePartitioner,
)
from millstream.graph.stream_graph_generator import IllegalGraphError
from tests.conftest import make_env


def edges(env):
    graph = env.get_stream_graph()
    return [
        (graph.nodes[e.source_id].name, graph.nodes[e.target_id].name, str(e.partitioner))
        for e in graph.edges
    ]


def test_forward_when_parallelism_matches_rebalance_otherwise():
    env = make_env(2)
    ds = env.from_collection([1]).map(lambda x: x).name("m1")
    ds.map(lambda x: x).name("m2").set_parallelism(3).print()
    assert edges(env) == [
        ("Source: Collection Source", "m1", "REBALANCE"),
        ("m1", "m2", "REBALANCE"),
        ("m2", "Print to Std. Out", "REBALANCE"),
    ]
    env2 = make_env(2)
    env2.from_collection([1]).map(lambda x: x).map(lambda x: x).print()
    assert [e[2] for e in edges(env2)] == ["REBALANCE", "FORWARD", "FORWARD"]


def test_forward_across_parallelism_change_is_a_clear_error():
    env = make_env(2)
    env.from_collection([1]).forward().map(lambda x: x).print()
    with pytest.raises(IllegalGraphError, match="Forward partitioning does not allow change of parallelism"):
        env.get_stream_graph()


def test_union_and_side_outputs_fold_into_edges():
    env = make_env(1)
    tag = OutputTag("late")
    a = env.from_collection([1]).process(_Split(tag)).name("split")
    a.get_side_output(tag).union(a).map(lambda x: x).name("sink-map").print()
    graph = env.get_stream_graph()
    names = sorted(n.name for n in graph.nodes.values())
    assert names == sorted(["Source: Collection Source", "split", "sink-map", "Print to Std. Out"])
    into_map = [e for e in graph.edges if graph.nodes[e.target_id].name == "sink-map"]
    assert sorted(e.output_tag.tag_id if e.output_tag else "" for e in into_map) == ["", "late"]
    assert all(isinstance(e.partitioner, ForwardPartitioner) for e in into_map)


def test_key_by_gets_the_consumer_max_parallelism():
    env = make_env(3)
    env.from_collection([(1, 1)]).key_by(lambda t: t[0]).sum(1).print()
    graph = env.get_stream_graph()
    hashed = [e for e in graph.edges if isinstance(e.partitioner, KeyGroupStreamPartitioner)]
    assert [e.partitioner.max_parallelism for e in hashed] == [128]
    assert isinstance(graph.edges[0].partitioner, KeyGroupStreamPartitioner)


def test_max_parallelism_setting_reaches_the_partitioner():
    env = make_env(2)
    env.set_max_parallelism(16)
    env.from_collection([(1, 1)]).rebalance().key_by(lambda t: t[0]).sum(1).print()
    graph = env.get_stream_graph()
    assert [e.partitioner.max_parallelism for e in graph.edges if str(e.partitioner) == "HASH"] == [16]
    # Consecutive partitionings: the last one wins, as in Flink.
    assert len(graph.edges) == 2 and not isinstance(graph.edges[0].partitioner, RebalancePartitioner)


@pytest.mark.parametrize("bad", [0, -2, 1.5])
def test_bad_parallelism_is_rejected(bad):
    env = make_env(1)
    with pytest.raises(ValueError, match="parallelism of an operator must be at least 1"):
        env.set_parallelism(bad)
    with pytest.raises(ValueError, match="at least 1"):
        env.from_collection([1]).map(lambda x: x).set_parallelism(bad)


def test_non_parallel_source_and_max_parallelism_are_checked():
    env = make_env(1)
    with pytest.raises(ValueError, match="non parallel operator must be 1"):
        env.from_collection([1]).set_parallelism(2)
    with pytest.raises(ValueError, match="greater than 0"):
        env.set_max_parallelism(0)
    env.from_collection([1]).map(lambda x: x).set_parallelism(8).set_max_parallelism(4).print()
    with pytest.raises(IllegalGraphError, match="larger than its maximum parallelism"):
        env.get_stream_graph()


def test_keyed_stream_refuses_repartitioning_as_pyflink():
    env = make_env(1)
    keyed = env.from_collection([1]).key_by(lambda x: x)
    for method in ("rebalance", "shuffle", "forward", "rescale", "global"):
        with pytest.raises(Exception, match="Cannot override partitioning for KeyedStream"):
            getattr(keyed, method)()


class _Split:
    def __init__(self, tag):
        self.tag = tag

    def __call__(self, value, ctx):
        yield self.tag, value
