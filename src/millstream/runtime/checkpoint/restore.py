"""Starting a job from a retained checkpoint (``execution.state-recovery.path``, ``run -s``).

A checkpoint holds each task's operator snapshots under ``(job vertex id, subtask)`` and,
inside, under stream node ids. Vertex ids come from the operators' ``uid`` (or, without
one, from their place in the program), so the same program submitted again finds its
state. Every piece of state must find its operator: state of a vertex or operator the
job no longer has is an error unless ``ignore-unclaimed-state`` drops it (Flink's
``--allowNonRestoredState``); a vertex whose parallelism changed cannot be restored yet
(rescaling redistributes key groups: not built).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from millstream.graph.job_graph import JobGraph
from millstream.runtime.checkpoint.storage import CompletedCheckpoint
from millstream.runtime.state.snapshot import CHANNEL_STATE_KEY

__all__ = ["StateRestoreError", "state_to_restore"]


class StateRestoreError(Exception):
    """The checkpoint's state does not fit the job."""


def state_to_restore(
    job_graph: JobGraph, checkpoint: CompletedCheckpoint, source: str, ignore_unclaimed: bool
) -> dict[Any, Any]:
    """``(job vertex id, subtask) -> {node id: snapshot}`` for the tasks of ``job_graph``.

    Raises:
        StateRestoreError: state that matches no operator (unless ``ignore_unclaimed``), or a
            vertex whose parallelism differs from the checkpoint's.
    """
    vertices = {vertex.id: vertex for vertex in job_graph.vertices}
    by_vertex: dict[Any, dict[int, dict[int, Any]]] = defaultdict(dict)
    for (vertex_id, subtask), snapshots in checkpoint.task_snapshots():
        by_vertex[vertex_id][subtask] = snapshots
    restored: dict[Any, Any] = {}
    for vertex_id, subtasks in by_vertex.items():
        vertex = vertices.get(vertex_id)
        if vertex is None:
            if ignore_unclaimed:
                continue
            nodes = sorted({node for snapshots in subtasks.values() for node in snapshots})
            raise StateRestoreError(
                f"{source}: state of job vertex {vertex_id} (stream nodes {nodes}) matches no task "
                "of this job: the program changed since the checkpoint (give operators a uid to "
                "keep their state across changes), or drop that state with "
                "execution.state-recovery.ignore-unclaimed-state (millstream run -n)"
            )
        if len(subtasks) != vertex.parallelism:
            raise StateRestoreError(
                f"{source}: '{vertex.name}' ran with parallelism {len(subtasks)} when the checkpoint "
                f"was taken and runs with {vertex.parallelism} now; restoring at another "
                "parallelism (rescaling) is not supported yet"
            )
        own = {op.node_id for op in vertex.operators} | {CHANNEL_STATE_KEY}
        for subtask, snapshots in subtasks.items():
            unclaimed = sorted(set(snapshots) - own)
            if unclaimed and not ignore_unclaimed:
                raise StateRestoreError(
                    f"{source}: state of stream nodes {unclaimed} in '{vertex.name}' matches none of "
                    "its operators; drop it with execution.state-recovery.ignore-unclaimed-state "
                    "(millstream run -n)"
                )
            restored[(vertex_id, subtask)] = {n: s for n, s in snapshots.items() if n in own}
    return restored
