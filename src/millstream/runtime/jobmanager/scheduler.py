"""Scheduling decisions (pure): slot sharing and pipelined regions.

With slot sharing, subtask i of every vertex in a slot-sharing group goes to the group's
i-th shared slot, so a job needs, per group, as many slots as its widest vertex
(Flink's default for streaming jobs). Subtasks are deployed region by region (Flink's
``PipelinedRegionSchedulingStrategy``): a region whose inputs are all pipelined at once,
a region that reads BLOCKING results when every partition it reads is consumable. A
streaming job (all exchanges pipelined) is one region per connected component, all
deployed at the start.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from millstream.graph.job_graph import DistributionPattern, IntermediateDataSetID, JobGraph, JobVertexID
from millstream.runtime.executiongraph.execution_graph import ExecutionGraph, ExecutionVertex
from millstream.runtime.executiongraph.intermediate_result import IntermediateResultPartition

__all__ = [
    "SchedulingPipelinedRegion",
    "SharedSlot",
    "minimum_network_buffers",
    "pipelined_regions",
    "required_slots",
    "slot_sharing_assignment",
    "strongly_connected",
]


@dataclass(frozen=True, slots=True)
class SharedSlot:
    """The i-th slot of a slot-sharing group."""

    group: str
    index: int


def minimum_network_buffers(job_graph: JobGraph) -> int:
    """Network buffers the job's tasks need at the least, summed over all TaskManagers.

    A result partition of n subpartitions needs a pool of at least n + 1 buffers (as the
    TaskManager's NetworkEnvironment creates it); input gates may need none (local
    channels). When the cluster's buffers are fewer, no placement can run the job.
    """
    total = 0
    for producer in job_graph.vertices:
        for data_set in producer.produced_data_sets:
            for consumer, edge in job_graph.consumers_of(data_set):
                if edge.distribution is DistributionPattern.ALL_TO_ALL:
                    subpartitions = consumer.parallelism
                else:
                    subpartitions = -(-consumer.parallelism // producer.parallelism)
                total += producer.parallelism * (subpartitions + 1)
    return total


def slot_sharing_assignment(job_graph: JobGraph) -> dict[tuple[JobVertexID, int], SharedSlot]:
    """The shared slot of every (vertex, subtask)."""
    return {
        (v.id, i): SharedSlot(v.slot_sharing_group, i)
        for v in job_graph.vertices
        for i in range(v.parallelism)
    }


def required_slots(job_graph: JobGraph) -> list[SharedSlot]:
    """Every shared slot the job needs (per group: its widest vertex's parallelism)."""
    widest: dict[str, int] = {}
    for v in job_graph.vertices:
        widest[v.slot_sharing_group] = max(widest.get(v.slot_sharing_group, 0), v.parallelism)
    return [SharedSlot(group, i) for group, n in sorted(widest.items()) for i in range(n)]


@dataclass(eq=False)
class SchedulingPipelinedRegion:
    """Subtasks connected by pipelined exchanges: deployed together (Flink's pipelined region).

    ``consumed_blocking`` are the partitions of BLOCKING results the region reads from
    producers outside it; the region is scheduled once all of them are consumable.
    """

    vertices: list[ExecutionVertex]
    consumed_blocking: list[IntermediateResultPartition]
    scheduled: bool = False


def pipelined_regions(
    graph: ExecutionGraph, is_blocking: Callable[[IntermediateDataSetID], bool]
) -> list[SchedulingPipelinedRegion]:
    """The job's pipelined regions, producers' regions first.

    Subtasks joined by a pipelined edge share a region; regions that would wait on each
    other in a cycle of blocking edges are merged (Flink does the same), so a region
    never waits for itself. ``is_blocking(result_id)`` tells a result's exchange type.
    """
    vertices = graph.all_execution_vertices()
    index = {id(ev): i for i, ev in enumerate(vertices)}
    regions = _UnionFind(len(vertices))
    blocking_edges = []
    for ev in vertices:
        for edge in (e for edges in ev.inputs for e in edges):
            producer, consumer = index[id(edge.source.producer)], index[id(ev)]
            if is_blocking(edge.source.result.id):
                blocking_edges.append((producer, consumer))
            else:
                regions.union(producer, consumer)
    successors: dict[int, list[int]] = {}
    for a, b in blocking_edges:
        successors.setdefault(regions.find(a), []).append(regions.find(b))
    for component in strongly_connected(sorted(successors), successors):
        for member in component[1:]:
            regions.union(component[0], member)

    members: dict[int, list[ExecutionVertex]] = {}
    for i, ev in enumerate(vertices):
        members.setdefault(regions.find(i), []).append(ev)
    return [
        SchedulingPipelinedRegion(members[root], _consumed_blocking(members[root], is_blocking))
        for root in sorted(members)
    ]


def _consumed_blocking(
    region: list[ExecutionVertex], is_blocking: Callable[[IntermediateDataSetID], bool]
) -> list[IntermediateResultPartition]:
    """Partitions of blocking results that ``region`` reads from producers outside it."""
    inside = {id(ev) for ev in region}
    consumed: dict[int, IntermediateResultPartition] = {}
    for ev in region:
        for edge in (e for edges in ev.inputs for e in edges):
            partition = edge.source
            if is_blocking(partition.result.id) and id(partition.producer) not in inside:
                consumed[id(partition)] = partition
    return list(consumed.values())


class _UnionFind:
    """Disjoint sets of 0..n-1; a set's representative is its smallest member."""

    def __init__(self, n: int) -> None:
        self._parent = list(range(n))

    def find(self, i: int) -> int:
        parent = self._parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self._parent[max(ra, rb)] = min(ra, rb)


def strongly_connected(nodes: list[int], successors: dict[int, list[int]]) -> list[list[int]]:
    """The strongly connected components of a directed graph (Kosaraju)."""
    finished: list[int] = []
    seen: set[int] = set()
    for node in nodes:
        _post_order(node, successors, seen, finished)
    predecessors: dict[int, list[int]] = {}
    for node, targets in successors.items():
        for target in targets:
            predecessors.setdefault(target, []).append(node)
    seen = set()
    components = []
    for node in reversed(finished):
        if node not in seen:
            component: list[int] = []
            _post_order(node, predecessors, seen, component)
            components.append(component)
    return components


def _post_order(start: int, successors: dict[int, list[int]], seen: set[int], out: list[int]) -> None:
    """Append the nodes reachable from ``start`` and not yet ``seen`` to ``out``, in post-order."""
    if start in seen:
        return
    seen.add(start)
    stack = [(start, iter(successors.get(start, ())))]
    while stack:
        node, children = stack[-1]
        child = next((c for c in children if c not in seen), None)
        if child is None:
            stack.pop()
            out.append(node)
        else:
            seen.add(child)
            stack.append((child, iter(successors.get(child, ()))))
