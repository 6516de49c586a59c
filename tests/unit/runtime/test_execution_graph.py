"""ExecutionGraph wiring: all-to-all and Flink's pointwise rules."""

from __future__ import annotations

import pytest

from millstream.graph.job_graph_generator import create_job_graph
from millstream.runtime.executiongraph.execution_graph import build_execution_graph
from millstream.runtime.executiongraph.intermediate_result import pointwise_wiring
from tests.conftest import make_env


@pytest.mark.parametrize(
    ("producers", "consumers", "expected"),
    [
        (2, 2, [[(0, 0)], [(1, 0)]]),
        (4, 2, [[(0, 0), (1, 0)], [(2, 0), (3, 0)]]),
        (2, 4, [[(0, 0)], [(0, 1)], [(1, 0)], [(1, 1)]]),
        (3, 2, [[(0, 0)], [(1, 0), (2, 0)]]),
        (2, 3, [[(0, 0)], [(0, 1)], [(1, 0)]]),
    ],
)
def test_pointwise_wiring(producers, consumers, expected):
    wiring = pointwise_wiring(producers, consumers)
    assert wiring == expected
    pairs = [pair for consumer in wiring for pair in consumer]
    assert len(pairs) == len(set(pairs))  # every subpartition is read exactly once
    assert {p for p, _ in pairs} == set(range(producers))


def test_all_to_all_edges_and_subpartition_counts():
    env = make_env(3)
    env.from_collection([1]).rebalance().map(lambda x: x).set_parallelism(2).rescale().print()
    graph = build_execution_graph(create_job_graph(env.get_stream_graph()))
    source, mapper, sink = graph.job_vertices.values()
    assert [len(ev.inputs[0]) for ev in mapper.task_vertices] == [1, 1]
    assert [p.num_subpartitions for p in source.produced[0].partitions] == [2]
    # rescale 2 -> 3: partition 0 feeds consumers 0 and 1, partition 1 feeds consumer 2
    assert [p.num_subpartitions for p in mapper.produced[0].partitions] == [2, 1]
    assert [
        (e.source.partition_number, e.subpartition_index) for ev in sink.task_vertices for e in ev.inputs[0]
    ] == [(0, 0), (0, 1), (1, 0)]
