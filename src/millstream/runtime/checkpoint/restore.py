"""Starting a job from a retained checkpoint (``execution.state-recovery.path``, ``run -s``).

A checkpoint holds each task's operator snapshots under ``(job vertex id, subtask)`` and,
inside, under stream node ids; its metadata names every node's operator by its state id:
its ``uid`` when the program gave one, else its node id (its place in the program). The
state of each operator goes to the operator with the same state id in the job being
started, whichever task it now runs in: with uids, state survives operators added,
removed or chained differently (as Flink matches operator state by uid). State whose
operator the job no longer has is an error unless ``ignore-unclaimed-state`` drops it
(Flink's ``--allowNonRestoredState``); an operator whose parallelism changed cannot be
restored yet (rescaling redistributes key groups: not built). The in-flight data of an
unaligned checkpoint belongs to a task's chain as a whole: it is restored only into the
same chain.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from millstream.graph.job_graph import ChainedOperator, JobGraph
from millstream.runtime.checkpoint.storage import CompletedCheckpoint
from millstream.runtime.state.snapshot import CHANNEL_STATE_KEY

__all__ = ["StateRestoreError", "operator_state_id", "state_to_restore"]


class StateRestoreError(Exception):
    """The checkpoint's state does not fit the job."""


def operator_state_id(op: ChainedOperator) -> str:
    """How an operator's state is found again: its uid, else its node id and name (so that an
    operator inserted before it, which shifts the node ids, makes a mismatch, not a mix-up)."""
    return f"uid:{op.uid}" if op.uid else f"node:{op.node_id}:{op.name}"


def state_to_restore(
    job_graph: JobGraph, checkpoint: CompletedCheckpoint, source: str, ignore_unclaimed: bool
) -> dict[Any, Any]:
    """``(job vertex id, subtask) -> {node id: snapshot}`` for the tasks of ``job_graph``.

    Raises:
        StateRestoreError: state that matches no operator (unless ``ignore_unclaimed``), an
            operator whose parallelism differs from the checkpoint's, or in-flight data for
            a chain that changed.
    """
    targets = {
        operator_state_id(op): (vertex, op) for vertex in job_graph.vertices for op in vertex.operators
    }
    old_ids: dict[int, str] = getattr(checkpoint, "operator_ids", None) or {
        # a checkpoint without the names: taken by the same program
        op.node_id: state_id
        for state_id, (_vertex, op) in targets.items()
    }
    by_operator, old_chains, channel_states = _by_operator(checkpoint, old_ids)
    restored: dict[Any, dict[int, Any]] = defaultdict(dict)
    for state_id, subtasks in sorted(by_operator.items()):
        target = targets.get(state_id)
        if target is None:
            if ignore_unclaimed:
                continue
            raise StateRestoreError(
                f"{source}: the state of operator {state_id} matches no operator of this job: the "
                "program changed since the checkpoint (give operators a uid to keep their state "
                "across changes), or drop that state with "
                "execution.state-recovery.ignore-unclaimed-state (millstream run -n)"
            )
        vertex, op = target
        if len(subtasks) != vertex.parallelism:
            raise StateRestoreError(
                f"{source}: '{op.name}' ran with parallelism {len(subtasks)} when the checkpoint "
                f"was taken and runs with {vertex.parallelism} now; restoring at another "
                "parallelism (rescaling) is not supported yet"
            )
        for subtask, snapshot in subtasks.items():
            restored[(vertex.id, subtask)][op.node_id] = snapshot
    for (vertex_id, subtask), channel_state in channel_states.items():
        if channel_state.is_empty():
            continue
        new_chain = {
            operator_state_id(op) for v in job_graph.vertices if v.id == vertex_id for op in v.operators
        }
        if new_chain != old_chains[vertex_id]:
            raise StateRestoreError(
                f"{source}: the checkpoint holds in-flight data (unaligned) of a chain of operators "
                f"{sorted(old_chains[vertex_id])} that this job no longer has; restore from a "
                "checkpoint taken with aligned checkpoints, or without changing the job"
            )
        restored[(vertex_id, subtask)][CHANNEL_STATE_KEY] = channel_state
    return dict(restored)


def _by_operator(
    checkpoint: CompletedCheckpoint, old_ids: dict[int, str]
) -> tuple[dict[str, dict[int, Any]], dict[Any, set[str]], dict[tuple[Any, int], Any]]:
    """The checkpoint's state per operator state id and subtask, each old task's chain (as
    state ids), and the tasks' in-flight data."""
    by_operator: dict[str, dict[int, Any]] = defaultdict(dict)
    old_chains: dict[Any, set[str]] = defaultdict(set)
    channel_states: dict[tuple[Any, int], Any] = {}
    for (vertex_id, subtask), snapshots in checkpoint.task_snapshots():
        for node_id, snapshot in snapshots.items():
            if node_id == CHANNEL_STATE_KEY:
                channel_states[(vertex_id, subtask)] = snapshot
                continue
            state_id = old_ids.get(node_id, f"node:{node_id}")
            old_chains[vertex_id].add(state_id)
            if not snapshot.is_empty():  # a stateless operator claims nothing
                by_operator[state_id][subtask] = snapshot
    return by_operator, old_chains, channel_states
