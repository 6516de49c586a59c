"""Operator state: state of an operator subtask that is not scoped by key.

Three kinds, differing only in how a snapshot is redistributed when the parallelism
changes (Flink's ``OperatorStateHandle.Mode``):

* list state (SPLIT_DISTRIBUTE): the lists of all old subtasks are concatenated and
  split into contiguous, near-equal parts, one per new subtask (Flink's round-robin
  operator state repartitioner);
* union list state (UNION): every new subtask gets the concatenation of all lists;
* broadcast state (BROADCAST): a map that every subtask holds identically; every new
  subtask gets a copy of one old subtask's map.

``OperatorStateBackend.snapshot()`` returns plain data (name -> (mode, value));
``redistribute`` maps the snapshots of n old subtasks to m new ones, and a backend
built with ``restored=`` one of those starts from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

__all__ = [
    "BROADCAST",
    "SPLIT_DISTRIBUTE",
    "UNION",
    "BroadcastStateImpl",
    "OperatorListState",
    "OperatorStateBackend",
    "ReadOnlyBroadcastStateView",
    "redistribute",
]

SPLIT_DISTRIBUTE = "SPLIT_DISTRIBUTE"
UNION = "UNION"
BROADCAST = "BROADCAST"

Snapshot = dict[str, tuple[str, Any]]


class OperatorListState:
    """``ListState`` not scoped by key: ``get``, ``add``, ``add_all``, ``update``, ``clear``."""

    __slots__ = ("_items",)

    def __init__(self, items: list[Any] | None = None) -> None:
        self._items: list[Any] = items if items is not None else []

    def get(self) -> list[Any]:
        """The elements (a copy)."""
        return list(self._items)

    def add(self, value: Any) -> None:
        """Append one element (None is refused, as in Flink)."""
        if value is None:
            raise ValueError("You cannot add null to a ListState.")
        self._items.append(value)

    def add_all(self, values: Iterable[Any]) -> None:
        """Append every element."""
        for v in values:
            self.add(v)

    def update(self, values: Iterable[Any]) -> None:
        """Replace the elements."""
        self._items = []
        self.add_all(values)

    def clear(self) -> None:
        """Remove every element."""
        self._items = []

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._items))


class BroadcastStateImpl:
    """``BroadcastState``: a map, identical on every subtask, written by the broadcast side."""

    __slots__ = ("_map",)

    def __init__(self, entries: dict[Any, Any] | None = None) -> None:
        self._map: dict[Any, Any] = entries if entries is not None else {}

    def get(self, key: Any) -> Any:
        """The value of ``key`` (None if absent)."""
        return self._map.get(key)

    def replace_all(self, entries: dict[Any, Any]) -> None:
        """Replace every entry (a restore)."""
        self._map.clear()
        self._map.update(entries)

    def contains(self, key: Any) -> bool:
        """Whether ``key`` is present."""
        return key in self._map

    def items(self) -> Iterable[tuple[Any, Any]]:
        """(key, value) pairs (a snapshot)."""
        return list(self._map.items())

    def keys(self) -> Iterable[Any]:
        """The keys (a snapshot)."""
        return list(self._map)

    def values(self) -> Iterable[Any]:
        """The values (a snapshot)."""
        return list(self._map.values())

    def is_empty(self) -> bool:
        """Whether the map is empty."""
        return not self._map

    def put(self, key: Any, value: Any) -> None:
        """Set ``key``."""
        self._map[key] = value

    def put_all(self, entries: dict[Any, Any]) -> None:
        """Set every entry of ``entries``."""
        self._map.update(entries)

    def remove(self, key: Any) -> None:
        """Remove ``key`` if present."""
        self._map.pop(key, None)

    def clear(self) -> None:
        """Remove every entry."""
        self._map.clear()

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._map))


class ReadOnlyBroadcastStateView:
    """``ReadOnlyBroadcastState``: what the non-broadcast side may do with broadcast state."""

    __slots__ = ("_state",)

    def __init__(self, state: BroadcastStateImpl) -> None:
        self._state = state

    def get(self, key: Any) -> Any:
        """The value of ``key`` (None if absent)."""
        return self._state.get(key)

    def contains(self, key: Any) -> bool:
        """Whether ``key`` is present."""
        return self._state.contains(key)

    def items(self) -> Iterable[tuple[Any, Any]]:
        """(key, value) pairs."""
        return self._state.items()

    def keys(self) -> Iterable[Any]:
        """The keys."""
        return self._state.keys()

    def values(self) -> Iterable[Any]:
        """The values."""
        return self._state.values()

    def is_empty(self) -> bool:
        """Whether the map is empty."""
        return self._state.is_empty()

    def __getattr__(self, name: str) -> Any:
        if name in ("put", "put_all", "remove", "clear"):
            raise PermissionError(
                f"broadcast state is read-only on the non-broadcast side: {name}() is only "
                "allowed in process_broadcast_element"
            )
        raise AttributeError(name)


class OperatorStateBackend:
    """The operator state of one operator subtask, by state name."""

    def __init__(self, restored: Snapshot | None = None) -> None:
        self._restored = restored or {}
        self._lists: dict[str, tuple[str, OperatorListState]] = {}
        self._broadcast: dict[str, BroadcastStateImpl] = {}

    def is_restored(self) -> bool:
        """Whether the backend started from a snapshot."""
        return bool(self._restored)

    def _list(self, descriptor: Any, mode: str) -> OperatorListState:
        name = descriptor.get_name()
        if name in self._broadcast:
            raise ValueError(f"state {name!r} is already registered as broadcast state")
        existing = self._lists.get(name)
        if existing is not None:
            if existing[0] != mode:
                raise ValueError(f"state {name!r} is already registered with mode {existing[0]}")
            return existing[1]
        restored_mode, items = self._restored.get(name, (mode, []))
        if restored_mode != mode:
            raise ValueError(f"state {name!r} was snapshotted with mode {restored_mode}, not {mode}")
        state = OperatorListState(list(items))
        self._lists[name] = (mode, state)
        return state

    def get_list_state(self, state_descriptor: Any) -> OperatorListState:
        """List state split among subtasks on rescaling."""
        return self._list(state_descriptor, SPLIT_DISTRIBUTE)

    def get_union_list_state(self, state_descriptor: Any) -> OperatorListState:
        """List state of which every subtask gets the whole on restore."""
        return self._list(state_descriptor, UNION)

    def get_broadcast_state(self, state_descriptor: Any) -> BroadcastStateImpl:
        """The broadcast (map) state of ``state_descriptor``."""
        name = state_descriptor.get_name()
        state = self._broadcast.get(name)
        if state is None:
            if name in self._lists:
                raise ValueError(f"state {name!r} is already registered as list state")
            restored_mode, entries = self._restored.get(name, (BROADCAST, {}))
            if restored_mode != BROADCAST:
                raise ValueError(f"state {name!r} was snapshotted with mode {restored_mode}")
            state = self._broadcast[name] = BroadcastStateImpl(dict(entries))
        return state

    def restore(self, snapshot: Snapshot) -> None:
        """Set every state to its value in ``snapshot``, in place (states already handed out
        to functions see it); states not registered yet start from it when they are."""
        self._restored = dict(snapshot)
        for name, (_mode, value) in snapshot.items():
            if name in self._lists:
                self._lists[name][1].update(list(value))
            elif name in self._broadcast:
                self._broadcast[name].replace_all(dict(value))

    def snapshot(self) -> Snapshot:
        """Copies of every state, with its redistribution mode."""
        out: Snapshot = {name: (mode, state.get()) for name, (mode, state) in self._lists.items()}
        for name, bstate in self._broadcast.items():
            out[name] = (BROADCAST, dict(bstate.items()))
        return out


def redistribute(snapshots: list[Snapshot], new_parallelism: int) -> list[Snapshot]:
    """The snapshots of ``new_parallelism`` subtasks from those of the old subtasks."""
    result: list[Snapshot] = [{} for _ in range(new_parallelism)]
    names = {name for snap in snapshots for name in snap}
    for name in sorted(names):
        parts = [snap[name] for snap in snapshots if name in snap]
        mode = parts[0][0]
        if mode == BROADCAST:
            for i in range(new_parallelism):
                result[i][name] = (BROADCAST, dict(parts[i % len(parts)][1]))
            continue
        everything = [item for _, items in parts for item in items]
        if mode == UNION:
            for i in range(new_parallelism):
                result[i][name] = (UNION, list(everything))
            continue
        base, extra = divmod(len(everything), new_parallelism)
        start = 0
        for i in range(new_parallelism):
            end = start + base + (1 if i < extra else 0)
            result[i][name] = (SPLIT_DISTRIBUTE, everything[start:end])
            start = end
    return result
