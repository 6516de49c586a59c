"""OperatorSnapshot: one operator's state in a checkpoint, as plain picklable data.

Taken by ``StreamOperator.snapshot_state`` on the task thread at a barrier and restored by
``StreamOperator.restore_state`` before the operator opens (Flink's ``initializeState``):
keyed state entries, event- and processing-time timers, operator state (list, union,
broadcast) and what is particular to the operator (``extra``: a source reader's position,
a sink's pending transactions). ``version`` names the layout; a reader refuses others.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = [
    "CHANNEL_STATE_KEY",
    "SNAPSHOT_VERSION",
    "ChannelState",
    "DeferredSnapshot",
    "KeyedStateSnapshot",
    "OperatorSnapshot",
    "keyed_snapshots",
]

SNAPSHOT_VERSION = 2
CHANNEL_STATE_KEY = -1  # where a task's ChannelState sits among its operators' snapshots


class KeyedStateSnapshot(NamedTuple):
    """The keyed state of one operator subtask in millstream's canonical form, which either
    state backend writes (full snapshots, savepoints) and either reads back.

    ``states``: state name -> kind (value, list, map, reducing, aggregating). ``groups``:
    key group -> its entries ``(state name, key, namespace, stored value)``; a stored value
    is the user's value, a map state's dict of its entries, or with TTL ``(value, last
    access ms)`` (per element of a list and per entry of a map). Grouping by key group is
    what rescaling needs: a subtask restoring from several old subtasks' snapshots takes the
    groups of its own key-group range and skips the others without looking at a key.
    """

    states: dict[str, str]
    groups: dict[int, list[tuple[str, Any, Any, Any]]]
    version: int = SNAPSHOT_VERSION

    def is_empty(self) -> bool:
        """No entries."""
        return not any(self.groups.values())

    def __bool__(self) -> bool:
        return not self.is_empty()


class DeferredSnapshot:
    """A snapshot taken at the barrier but read later (an asynchronous snapshot: RocksDB's
    full snapshot reads a RocksDB snapshot on the checkpoint I/O thread). ``materialize``
    gives the canonical snapshot; pickling one materializes it where it is pickled."""

    def materialize(self) -> Any:
        """The snapshot's content (once)."""
        raise NotImplementedError

    def __reduce__(self) -> tuple[Any, tuple[Any]]:
        return (_same, (self.materialize(),))


def _same(value: Any) -> Any:
    return value


def keyed_snapshots(keyed: Any) -> list[Any]:
    """The keyed state snapshots ``OperatorSnapshot.keyed`` holds: one (the subtask's own), a
    list of them (rescaling: those of every old subtask whose key groups overlap), or none."""
    if isinstance(keyed, DeferredSnapshot):
        keyed = keyed.materialize()
    if not keyed:
        return []
    return list(keyed) if isinstance(keyed, list) else [keyed]


class OperatorSnapshot(NamedTuple):
    """One operator's state (the first four fields are also what the Spark runner keeps per
    key group in its state store, as a plain tuple)."""

    keyed: Any = ()  # a KeyedStateSnapshot, a list of them (rescaled), or () when not keyed
    event_timers: list[tuple[int, Any, Any]] = []
    processing_timers: list[tuple[int, Any, Any]] = []
    operator_state: Any = {}
    extra: Any = None
    version: int = SNAPSHOT_VERSION

    def is_empty(self) -> bool:
        """Nothing to keep."""
        return not (
            self.keyed or self.event_timers or self.processing_timers or self.operator_state or self.extra
        )


class ChannelState(NamedTuple):
    """A task's in-flight data in an unaligned checkpoint (Flink's channel state).

    ``inputs``: per input channel ``(gate index, channel index)``, the stream elements it
    delivered between the task's snapshot and that channel's barrier (pickled, in order),
    and the bytes of a record begun before the barrier whose rest follows it. ``outputs``:
    per output (the task's writer index), per subpartition, the data the barrier overtook
    in the queue. On restore the outputs are queued again before anything new and the
    inputs are processed before anything the channels bring.
    """

    inputs: dict[tuple[int, int], tuple[list[bytes], Any]]
    outputs: dict[int, list[list[tuple[str, Any]]]]
    version: int = SNAPSHOT_VERSION

    def is_empty(self) -> bool:
        """No data in flight."""
        return not any(elements or partial for elements, partial in self.inputs.values()) and not any(
            items for subpartitions in self.outputs.values() for items in subpartitions
        )
