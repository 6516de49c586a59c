"""Scheduling decisions (pure): slot sharing and deployment order.

With slot sharing, subtask i of every vertex in a slot-sharing group goes to the group's
i-th shared slot, so a job needs, per group, as many slots as its widest vertex
(Flink's default for streaming jobs). All vertices are deployed at once (streaming).
"""

from __future__ import annotations

from dataclasses import dataclass

from millstream.graph.job_graph import JobGraph, JobVertexID

__all__ = ["SharedSlot", "required_slots", "slot_sharing_assignment"]


@dataclass(frozen=True, slots=True)
class SharedSlot:
    """The i-th slot of a slot-sharing group."""

    group: str
    index: int


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
