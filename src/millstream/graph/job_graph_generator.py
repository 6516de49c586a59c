"""StreamGraph -> JobGraph, as an ordered tuple of named phases.

``JOB_GRAPH_PHASES`` run in order over a ``_Plan`` record; each phase is a pure function
returning an updated plan. The phases mirror Flink's ``StreamingJobGraphGenerator``:
find chains, name them, create vertices with their chained operators, wire datasets.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field, replace

from millstream.graph.chaining import chain_heads
from millstream.graph.job_graph import (
    ChainedOperator,
    DistributionPattern,
    IntermediateDataSet,
    IntermediateDataSetID,
    JobEdge,
    JobGraph,
    JobVertex,
    JobVertexID,
    NonChainedOutput,
    ResultPartitionType,
)
from millstream.graph.stream_graph import StreamEdge, StreamGraph

__all__ = ["JOB_GRAPH_PHASES", "create_job_graph"]


@dataclass(frozen=True)
class _Plan:
    graph: StreamGraph
    head_of: dict[int, int] = field(default_factory=dict)
    chain_names: dict[int, str] = field(default_factory=dict)
    vertices: tuple[JobVertex, ...] = ()
    data_sets: dict[IntermediateDataSetID, IntermediateDataSet] = field(default_factory=dict)


def _stable_id(*parts: object) -> str:
    return hashlib.md5("/".join(map(str, parts)).encode()).hexdigest()


def vertex_id(head_node_id: int, uid: str | None) -> JobVertexID:
    """The vertex id of the chain headed by ``head_node_id`` (stable across runs)."""
    return JobVertexID(_stable_id("vertex", uid if uid is not None else head_node_id))


def data_set_id(edge: StreamEdge) -> IntermediateDataSetID:
    """The dataset id of a non-chained edge."""
    return IntermediateDataSetID(_stable_id("dataset", edge.edge_id))


def find_chains(plan: _Plan) -> _Plan:
    """Assign every node to the head of its chain (topological order)."""
    return replace(plan, head_of=chain_heads(plan.graph))


def name_chains(plan: _Plan) -> _Plan:
    """Flink's chained names: ``A -> B`` or ``A -> (B, C)`` for fan-out inside a chain."""
    graph = plan.graph

    def chained_name(node_id: int) -> str:
        outs = [e.target_id for e in graph.out_edges(node_id) if _is_chained(plan, e)]
        name = graph.nodes[node_id].name
        if len(outs) == 1:
            return f"{name} -> {chained_name(outs[0])}"
        if outs:
            return f"{name} -> ({', '.join(chained_name(o) for o in outs)})"
        return name

    names = {head: chained_name(head) for head in set(plan.head_of.values())}
    return replace(plan, chain_names=names)


def _is_chained(plan: _Plan, edge: StreamEdge) -> bool:
    return plan.head_of[edge.target_id] == plan.head_of[edge.source_id]


def create_vertices(plan: _Plan) -> _Plan:
    """One JobVertex per chain, holding its operators, inputs and produced datasets."""
    graph = plan.graph
    members: dict[int, list[int]] = {}
    for node in graph.topological():
        members.setdefault(plan.head_of[node.id], []).append(node.id)
    vertices = []
    data_sets = dict(plan.data_sets)
    result_type = (
        ResultPartitionType.BLOCKING
        if graph.exchange_mode == "BLOCKING"
        else ResultPartitionType.PIPELINED_BOUNDED
    )
    for head_id, node_ids in members.items():
        head = graph.nodes[head_id]
        vid = vertex_id(head_id, head.uid)
        operators = tuple(_chained_operator(plan, n) for n in node_ids)
        produced = tuple(o.data_set_id for op in operators for o in op.non_chained_outputs)
        for ds_id in produced:
            data_sets[ds_id] = IntermediateDataSet(ds_id, vid, result_type)
        inputs = tuple(
            JobEdge(
                source_id=data_set_id(edge),
                target_id=vid,
                partitioner=edge.partitioner,
                distribution=(
                    DistributionPattern.POINTWISE
                    if edge.partitioner.is_pointwise()
                    else DistributionPattern.ALL_TO_ALL
                ),
                input_index=edge.type_number,
            )
            for edge in graph.in_edges(head_id)
        )
        vertices.append(
            JobVertex(
                id=vid,
                name=plan.chain_names[head_id],
                parallelism=head.parallelism,
                max_parallelism=head.max_parallelism,
                slot_sharing_group=head.slot_sharing_group,
                head_node_id=head_id,
                operators=operators,
                inputs=inputs,
                produced_data_sets=produced,
                buffer_timeout=_buffer_timeout(graph, node_ids),
            )
        )
    return replace(plan, vertices=tuple(vertices), data_sets=data_sets)


def _chained_operator(plan: _Plan, node_id: int) -> ChainedOperator:
    graph = plan.graph
    node = graph.nodes[node_id]
    chained = []
    non_chained = []
    for edge in graph.out_edges(node_id):
        if _is_chained(plan, edge):
            chained.append((edge.target_id, edge.output_tag))
        else:
            non_chained.append(
                NonChainedOutput(
                    node_id=node_id,
                    data_set_id=data_set_id(edge),
                    partitioner=edge.partitioner,
                    output_tag=edge.output_tag,
                    consumer_parallelism=graph.nodes[edge.target_id].parallelism,
                )
            )
    return ChainedOperator(
        node_id=node_id,
        name=node.name,
        operator=node.operator,
        state_key_selector=node.state_key_selector,
        max_parallelism=node.max_parallelism,
        chained_targets=tuple(chained),
        non_chained_outputs=tuple(non_chained),
        output_type=node.output_type,
        uid=node.uid,
    )


def _buffer_timeout(graph: StreamGraph, node_ids: list[int]) -> int:
    """The chain flushes as often as its most latency-sensitive operator asks (-1: never)."""
    explicit = [graph.nodes[n].buffer_timeout for n in node_ids]
    chosen = [t for t in explicit if t is not None]
    if not chosen:
        return graph.buffer_timeout
    finite = [t for t in chosen if t >= 0]
    return min(finite) if finite else -1


JOB_GRAPH_PHASES = (find_chains, name_chains, create_vertices)


def create_job_graph(graph: StreamGraph, job_id: str | None = None) -> JobGraph:
    """Run every phase over ``graph`` and return the JobGraph."""
    plan = _Plan(graph)
    for phase in JOB_GRAPH_PHASES:
        plan = phase(plan)
    return JobGraph(
        job_id=job_id or uuid.uuid4().hex,
        job_name=graph.job_name,
        vertices=plan.vertices,
        data_sets=plan.data_sets,
        job_config=graph.job_config,
    )
