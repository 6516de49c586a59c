"""Starting a job from a retained checkpoint (``execution.state-recovery.path``, ``run -s``).

A checkpoint holds each task's operator snapshots under ``(job vertex id, subtask)`` and,
inside, under stream node ids; its metadata names every node's operator by its state id:
its ``uid`` when the program gave one, else its node id (its place in the program). The
state of each operator goes to the operator with the same state id in the job being
started, whichever task it now runs in: with uids, state survives operators added,
removed or chained differently (as Flink matches operator state by uid). State whose
operator the job no longer has is an error unless ``ignore-unclaimed-state`` drops it
(Flink's ``--allowNonRestoredState``). An operator whose parallelism changed is rescaled
(``runtime/state/rescale.py``: keyed state by key-group ranges, operator state split or
broadcast, a connector's state split by the connector). The in-flight data of an
unaligned checkpoint belongs to a task's chain as a whole: it is restored only into the
same chain at the same parallelism.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from millstream.graph.job_graph import ChainedOperator, JobGraph
from millstream.graph.operator_specs import SinkFunctionSpec, SinkWriterSpec, SourceSpec
from millstream.runtime.checkpoint.storage import CompletedCheckpoint
from millstream.runtime.operators.sinks import rescale_two_phase_commit_states
from millstream.runtime.state.rescale import RescaleError, rescale_snapshots
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
            operator whose state cannot be split for its new parallelism, or in-flight data
            for a chain that changed or was rescaled.
    """
    targets = {
        operator_state_id(op): (vertex, op) for vertex in job_graph.vertices for op in vertex.operators
    }
    old_ids: dict[int, str] = getattr(checkpoint, "operator_ids", None) or {
        # a checkpoint without the names: taken by the same program
        op.node_id: state_id
        for state_id, (_vertex, op) in targets.items()
    }
    old = _by_operator(checkpoint, old_ids)
    restored: dict[Any, dict[int, Any]] = defaultdict(dict)
    for state_id, subtasks in sorted(old.by_operator.items()):
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
        old_parallelism = old.parallelism[state_id]
        if old_parallelism == vertex.parallelism:
            for subtask, snapshot in subtasks.items():
                restored[(vertex.id, subtask)][op.node_id] = snapshot
            continue
        old_max = old.max_parallelism.get(state_id, op.max_parallelism)
        if old_max != op.max_parallelism:
            raise StateRestoreError(
                f"{source}: '{op.name}' had max parallelism {old_max} (its number of key groups) when "
                f"the checkpoint was taken and has {op.max_parallelism} now; keyed state can only be "
                "restored with the same max parallelism"
            )
        try:
            rescaled = rescale_snapshots(
                subtasks,
                old_parallelism,
                vertex.parallelism,
                op.max_parallelism,
                _extra_rescaler(op.operator),
                op.name,
            )
        except (RescaleError, ValueError) as err:
            raise StateRestoreError(f"{source}: {err}") from err
        for subtask, snapshot in enumerate(rescaled):
            if not snapshot.is_empty():
                restored[(vertex.id, subtask)][op.node_id] = snapshot
    _restore_channel_states(job_graph, old, restored, source)
    return dict(restored)


def _extra_rescaler(spec: Any) -> Any:
    """How the state particular to an operator is split (its connector's ``rescale_*``)."""
    if isinstance(spec, SourceSpec):
        return getattr(spec.source, "rescale_reader_states", None)
    if isinstance(spec, SinkWriterSpec):
        return getattr(spec.sink, "rescale_writer_states", None)
    if isinstance(spec, SinkFunctionSpec):
        return rescale_two_phase_commit_states
    return None


def _restore_channel_states(
    job_graph: JobGraph, old: _OldState, restored: dict[Any, dict[int, Any]], source: str
) -> None:
    """The in-flight data of an unaligned checkpoint, into the same chains at the same parallelism."""
    for (vertex_id, subtask), channel_state in old.channel_states.items():
        if channel_state.is_empty():
            continue
        vertices = [v for v in job_graph.vertices if v.id == vertex_id]
        new_chain = {operator_state_id(op) for v in vertices for op in v.operators}
        if new_chain != old.chains[vertex_id]:
            raise StateRestoreError(
                f"{source}: the checkpoint holds in-flight data (unaligned) of a chain of operators "
                f"{sorted(old.chains[vertex_id])} that this job no longer has; restore from a "
                "checkpoint taken with aligned checkpoints, or without changing the job"
            )
        if vertices[0].parallelism != old.vertex_parallelism[vertex_id]:
            raise StateRestoreError(
                f"{source}: the checkpoint holds in-flight data (unaligned) of '{vertices[0].name}', "
                f"which ran with parallelism {old.vertex_parallelism[vertex_id]} and runs with "
                f"{vertices[0].parallelism} now; in-flight data cannot be rescaled: take a savepoint "
                "(always aligned) and rescale from it"
            )
        restored[(vertex_id, subtask)][CHANNEL_STATE_KEY] = channel_state


@dataclass
class _OldState:
    """The checkpoint's state, per operator state id."""

    by_operator: dict[str, dict[int, Any]] = field(default_factory=lambda: defaultdict(dict))
    parallelism: dict[str, int] = field(default_factory=dict)  # state id -> its old parallelism
    max_parallelism: dict[str, int] = field(default_factory=dict)
    chains: dict[Any, set[str]] = field(default_factory=lambda: defaultdict(set))
    vertex_parallelism: dict[Any, int] = field(default_factory=dict)
    channel_states: dict[tuple[Any, int], Any] = field(default_factory=dict)


def _by_operator(checkpoint: CompletedCheckpoint, old_ids: dict[int, str]) -> _OldState:
    """The checkpoint's state per operator state id and subtask, each old task's chain (as
    state ids), the old parallelisms, and the tasks' in-flight data."""
    old = _OldState()
    max_parallelisms: dict[int, int] = getattr(checkpoint, "max_parallelisms", None) or {}
    tasks = checkpoint.task_snapshots()
    subtasks_of: dict[Any, set[int]] = defaultdict(set)
    for (vertex_id, subtask), _ in tasks:
        subtasks_of[vertex_id].add(subtask)
    old.vertex_parallelism = {vertex_id: len(subtasks) for vertex_id, subtasks in subtasks_of.items()}
    for (vertex_id, subtask), snapshots in tasks:
        for node_id, snapshot in snapshots.items():
            if node_id == CHANNEL_STATE_KEY:
                old.channel_states[(vertex_id, subtask)] = snapshot
                continue
            state_id = old_ids.get(node_id, f"node:{node_id}")
            old.chains[vertex_id].add(state_id)
            old.parallelism[state_id] = old.vertex_parallelism[vertex_id]
            if node_id in max_parallelisms:
                old.max_parallelism[state_id] = max_parallelisms[node_id]
            if not snapshot.is_empty():  # a stateless operator claims nothing
                old.by_operator[state_id][subtask] = snapshot
    return old
