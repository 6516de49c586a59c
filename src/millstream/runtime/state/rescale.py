"""Rescaling: the snapshots of an operator's n old subtasks made into those of m new ones.

Flink's ``StateAssignmentOperation``, per kind of state:

* keyed state and timers: new subtask j gets the snapshots of every old subtask whose
  key-group range overlaps its own; its backend keeps only the key groups of its range
  (a snapshot is grouped by key group) and its timer service only the timers of its keys;
* operator list state is split round-robin, union list state goes whole to every subtask,
  broadcast state is copied (``operator_state.redistribute``);
* what is particular to the operator (``OperatorSnapshot.extra``: a source reader's splits,
  a sink's pending commits) is redistributed by ``rescale_extra``, which the operator's
  connector provides; an operator with such state and no way to split it cannot be rescaled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.runtime.state.key_groups import compute_key_group_range
from millstream.runtime.state.operator_state import redistribute
from millstream.runtime.state.snapshot import OperatorSnapshot, keyed_snapshots

__all__ = ["RescaleError", "rescale_snapshots"]


class RescaleError(Exception):
    """The state of an operator cannot be split for another parallelism."""


def _overlaps(a: Any, b: Any) -> bool:
    return a.start <= b.end and b.start <= a.end


def rescale_snapshots(
    snapshots: dict[int, OperatorSnapshot],
    old_parallelism: int,
    new_parallelism: int,
    max_parallelism: int,
    rescale_extra: Callable[[list[Any], int], list[Any]] | None = None,
    operator_name: str = "",
) -> list[OperatorSnapshot]:
    """The snapshots of ``new_parallelism`` subtasks from ``snapshots`` (old subtask -> its
    snapshot; missing subtasks had no state).

    Raises:
        RescaleError: the operator has state particular to it and no ``rescale_extra``.
    """
    old = [snapshots.get(i, OperatorSnapshot()) for i in range(old_parallelism)]
    old_ranges = [
        compute_key_group_range(max_parallelism, old_parallelism, i) for i in range(old_parallelism)
    ]
    operator_states = redistribute([dict(s.operator_state or {}) for s in old], new_parallelism)
    extras = [s.extra for s in old]
    if all(extra is None for extra in extras):
        new_extras: list[Any] = [None] * new_parallelism
    elif rescale_extra is None:
        raise RescaleError(
            f"operator '{operator_name}' keeps state of its own (a connector's position or pending "
            f"commits) that cannot be split from {old_parallelism} to {new_parallelism} subtasks"
        )
    else:
        new_extras = list(rescale_extra(extras, new_parallelism))
        if len(new_extras) != new_parallelism:
            raise RescaleError(
                f"operator '{operator_name}': its connector split its state into {len(new_extras)} "
                f"parts for {new_parallelism} subtasks"
            )
    result = []
    for index in range(new_parallelism):
        own = compute_key_group_range(max_parallelism, new_parallelism, index)
        sources = [s for s, r in zip(old, old_ranges, strict=True) if _overlaps(r, own)]
        keyed = [k for s in sources for k in keyed_snapshots(s.keyed)]
        result.append(
            OperatorSnapshot(
                keyed=keyed or (),
                event_timers=_merged_timers([s.event_timers for s in sources]),
                processing_timers=_merged_timers([s.processing_timers for s in sources]),
                operator_state=operator_states[index],
                extra=new_extras[index],
            )
        )
    return result


def _merged_timers(lists: list[list[tuple[int, Any, Any]]]) -> list[tuple[int, Any, Any]]:
    """Timers of several old subtasks in firing order (by time; each list keeps its order)."""
    merged = [timer for timers in lists for timer in timers]
    merged.sort(key=lambda timer: timer[0])
    return merged
