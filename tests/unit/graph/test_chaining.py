"""Flink's chaining rules decide which operators share a task."""

from __future__ import annotations

from millstream.graph.job_graph_generator import create_job_graph
from tests.conftest import make_env


def chains(env):
    return [v.name for v in create_job_graph(env.get_stream_graph()).vertices]


def test_same_parallelism_forward_operators_chain_into_one_task():
    env = make_env(1)
    env.from_collection([1, 2]).map(lambda x: x).filter(lambda x: True).print()
    assert chains(env) == ["Source: Collection Source -> Map -> Filter -> Print to Std. Out"]


def test_parallelism_change_breaks_the_chain():
    env = make_env(2)
    env.from_collection([1]).map(lambda x: x).print()
    assert chains(env) == ["Source: Collection Source", "Map -> Print to Std. Out"]


def test_non_forward_partitioner_breaks_the_chain():
    env = make_env(1)
    env.from_collection([1]).rebalance().map(lambda x: x).print()
    assert chains(env) == ["Source: Collection Source", "Map -> Print to Std. Out"]


def test_key_by_breaks_the_chain():
    env = make_env(1)
    env.from_collection([(1, 1)]).key_by(lambda t: t[0]).sum(1).print()
    assert chains(env) == ["Source: Collection Source", "Reduce -> Print to Std. Out"]


def test_disable_chaining_is_never():
    env = make_env(1)
    env.from_collection([1]).map(lambda x: x).disable_chaining().filter(lambda x: True).print()
    assert chains(env) == ["Source: Collection Source", "Map", "Filter -> Print to Std. Out"]


def test_start_new_chain_is_head():
    env = make_env(1)
    env.from_collection([1]).map(lambda x: x).start_new_chain().filter(lambda x: True).print()
    assert chains(env) == ["Source: Collection Source", "Map -> Filter -> Print to Std. Out"]


def test_chaining_disabled_for_the_job():
    env = make_env(1)
    env.disable_operator_chaining()
    env.from_collection([1]).map(lambda x: x).print()
    assert chains(env) == ["Source: Collection Source", "Map", "Print to Std. Out"]


def test_slot_sharing_group_change_breaks_the_chain_and_is_inherited():
    env = make_env(1)
    env.from_collection([1]).map(lambda x: x).slot_sharing_group("other").filter(lambda x: True).print()
    graph = create_job_graph(env.get_stream_graph())
    assert [(v.name, v.slot_sharing_group) for v in graph.vertices] == [
        ("Source: Collection Source", "default"),
        ("Map -> Filter -> Print to Std. Out", "other"),
    ]


def test_in_degree_two_is_not_chained():
    env = make_env(1)
    a = env.from_collection([1])
    b = env.from_collection([2])
    a.union(b).map(lambda x: x).print()
    names = chains(env)
    assert "Map -> Print to Std. Out" in names
    assert len(names) == 3


def test_fan_out_inside_a_chain_is_named_with_parentheses():
    env = make_env(1)
    ds = env.from_collection([1]).map(lambda x: x)
    ds.filter(lambda x: True).print()
    ds.map(lambda x: x + 1).print()
    assert chains(env) == [
        "Source: Collection Source -> Map -> (Filter -> Print to Std. Out, Map -> Print to Std. Out)"
    ]
