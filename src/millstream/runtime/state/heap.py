"""Heap keyed state backend (Flink's HashMapStateBackend): state as Python objects in dicts.

::

    HeapKeyedStateBackend (one per keyed operator subtask)
      tables[state name] = StateTable
          groups[key group - first key group of this subtask] : {(key, namespace): value}

Every registered state (``ValueState``, ``ListState``, ``MapState``, ``ReducingState``,
``AggregatingState``) is a view on one table that reads and writes the entry of the
current key in its current namespace (``VOID_NAMESPACE`` for state a user function
gets from the RuntimeContext; a window for the window operator's contents). Tables are
partitioned by key group, the unit in which state is snapshotted and redistributed, as
in Flink's heap backend. The key context, TTL rules and snapshots are the base class's
(``keyed_backend.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from millstream.runtime.state.incremental import IncrementalKeyedStateHandle
from millstream.runtime.state.keyed_backend import (
    VOID_NAMESPACE,
    InternalStateDescriptor,
    KeyBoundMapState,
    KeyedStateBackend,
    KeyedStateError,
    accumulator_merge,
    live_stored_value,
    merge_stored,
    ttl_of,
)
from millstream.runtime.state.rocksdb import read_canonical

__all__ = [
    "VOID_NAMESPACE",
    "HeapKeyedStateBackend",
    "InternalStateDescriptor",
    "KeyedStateError",
    "StateTable",
]


class StateTable:
    """The entries of one state, one dict per key group of the subtask."""

    __slots__ = ("groups", "kind", "name")

    def __init__(self, name: str, kind: str, num_groups: int) -> None:
        self.name = name
        self.kind = kind
        self.groups: list[dict[Any, Any]] = [{} for _ in range(num_groups)]

    def __len__(self) -> int:
        return sum(len(g) for g in self.groups)

    def entries(self) -> Iterator[tuple[Any, Any, Any]]:
        """(key, namespace, value) of every entry."""
        for group in self.groups:
            for (key, namespace), value in group.items():
                yield key, namespace, value


class HeapKeyedStateBackend(KeyedStateBackend):
    """The keyed state of one operator subtask, on the Python heap."""

    backend_name = "hashmap"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tables: dict[str, StateTable] = {}

    def _canonical(self, snapshot: Any) -> Any:
        """A RocksDB incremental handle (a job restored on the hashmap backend) as the entries
        of this subtask's key groups, read through a temporary RocksDB instance."""
        if isinstance(snapshot, IncrementalKeyedStateHandle):
            return read_canonical(snapshot, self.key_group_range)
        return snapshot

    def _new_state_storage(self, name: str, kind: str) -> None:
        self.tables[name] = StateTable(name, kind, self._num_groups)

    def table(self, name: str, kind: str) -> StateTable:
        """The table of state ``name`` (created on first use)."""
        self._register(name, kind)
        return self.tables[name]

    def _create_state(self, name: str, kind: str, descriptor: Any) -> Any:
        return _STATE_KINDS[kind](self, self.tables[name], descriptor)

    def _entries(self, name: str) -> Iterable[tuple[int, Any, Any, Any]]:
        for index, group in enumerate(self.tables[name].groups):
            for (key, namespace), value in group.items():
                yield index, key, namespace, value

    def _put_entries(self, name: str, group_index: int, entries: list[tuple[str, Any, Any, Any]]) -> None:
        group = self.tables[name].groups[group_index]
        for _, key, namespace, value in entries:
            group[(key, namespace)] = value

    def clear_all(self) -> None:
        """Drop every entry of every state (BATCH: between keys)."""
        for table in self.tables.values():
            for group in table.groups:
                group.clear()


class _IncrementalCleanup:
    """Flink's incremental TTL cleanup on the heap: every state access checks the next few
    entries of the state's table (round the table, again and again) and drops expired ones."""

    __slots__ = ("_iterator", "_kind", "_table", "_ttl")

    def __init__(self, table: StateTable, ttl: Any) -> None:
        self._table = table
        self._kind = table.kind
        self._ttl = ttl
        self._iterator: Iterator[tuple[int, Any]] = iter(())

    def _keys(self) -> Iterator[tuple[int, Any]]:
        for index, group in enumerate(self._table.groups):
            for entry_key in list(group):
                yield index, entry_key

    def step(self, now: int) -> None:
        groups = self._table.groups
        for _ in range(self._ttl.cleanup_size):
            item = next(self._iterator, None)
            if item is None:
                self._iterator = self._keys()
                return
            index, entry_key = item
            group = groups[index]
            stored = group.get(entry_key)
            if stored is None:
                continue
            live = live_stored_value(self._kind, stored, self._ttl, now)
            if live is None:
                del group[entry_key]
            elif live is not stored:
                group[entry_key] = live


class _KvState:
    """A view of one state table at the backend's current key and this state's namespace."""

    __slots__ = ("_backend", "_cleanup", "_table", "_ttl", "namespace")

    def __init__(self, backend: HeapKeyedStateBackend, table: StateTable, descriptor: Any) -> None:
        self._backend = backend
        self._table = table
        self._ttl = ttl_of(descriptor)
        self._cleanup = (
            _IncrementalCleanup(table, self._ttl)
            if self._ttl is not None and self._ttl.cleanup_size
            else None
        )
        self.namespace: Any = VOID_NAMESPACE

    def set_current_namespace(self, namespace: Any) -> None:
        """Address ``namespace`` (a window) from now on."""
        self.namespace = namespace

    def _slot(self) -> tuple[dict[Any, Any], tuple[Any, Any]]:
        backend = self._backend
        if backend.current_group < 0:
            raise KeyedStateError("keyed state was accessed without a current key")
        if self._cleanup is not None:
            self._cleanup.step(backend.now_ms())
        return self._table.groups[backend.current_group], (backend.current_key, self.namespace)

    def _raw(self) -> Any:
        """The stored entry (None if absent), expired TTL entries removed."""
        group, entry_key = self._slot()
        stored = group.get(entry_key)
        if stored is None or self._ttl is None:
            return stored
        return self._unwrap(group, entry_key, stored)

    def _unwrap(self, group: dict[Any, Any], entry_key: Any, stored: Any) -> Any:
        """TTL: the live value, refreshing its access time if configured."""
        ttl = self._ttl
        assert ttl is not None
        value, stamp = stored
        now = self._backend.now_ms()
        if ttl.expired(stamp, now):
            del group[entry_key]
            return value if ttl.return_expired else None
        if ttl.refresh_on_read:
            group[entry_key] = (value, now)
        return value

    def _store(self, value: Any) -> None:
        group, entry_key = self._slot()
        if value is None:
            group.pop(entry_key, None)
        elif self._ttl is None:
            group[entry_key] = value
        else:
            group[entry_key] = (value, self._backend.now_ms())

    def clear(self) -> None:
        """Remove the current key's entry in the current namespace."""
        group, entry_key = self._slot()
        group.pop(entry_key, None)

    def merge_namespaces(self, target: Any, sources: Iterable[Any]) -> None:
        """Fold the current key's entries in ``sources`` into ``target`` (merging windows)."""
        backend = self._backend
        group = self._table.groups[backend.current_group]
        key = backend.current_key
        merged = group.get((key, target))
        for source in sources:
            if source == target:
                continue
            value = group.pop((key, source), None)
            if value is not None:
                merged = value if merged is None else self._merge_values(merged, value)
        if merged is not None:
            group[(key, target)] = merged

    def _merge_values(self, a: Any, b: Any) -> Any:
        raise KeyedStateError(f"state '{self._table.name}' ({self._table.kind}) cannot be merged")


class ValueStateImpl(_KvState):
    """``ValueState``: ``value()`` (None if unset), ``update(v)``, ``clear()``."""

    __slots__ = ()

    def value(self) -> Any:
        """The current key's value, or None."""
        return self._raw()

    def update(self, value: Any) -> None:
        """Set the current key's value (None clears it)."""
        self._store(value)


class ListStateImpl(_KvState):
    """``ListState``: ``get()``, ``add(v)``, ``add_all(vs)``, ``update(vs)``, ``clear()``.

    With TTL every element carries its own access time, as in Flink.
    """

    __slots__ = ()

    def get(self) -> list[Any]:
        """The current key's elements (an empty list if none)."""
        group, entry_key = self._slot()
        stored = group.get(entry_key)
        if stored is None:
            return []
        if self._ttl is None:
            return list(stored)
        return self._live_elements(group, entry_key, stored)

    def _live_elements(self, group: dict[Any, Any], entry_key: Any, stored: list[Any]) -> list[Any]:
        ttl = self._ttl
        assert ttl is not None
        now = self._backend.now_ms()
        live = [(v, s) for v, s in stored if now - s < ttl.ttl_ms]
        expired = [v for v, s in stored if now - s >= ttl.ttl_ms]
        if ttl.refresh_on_read:
            live = [(v, now) for v, _ in live]
        if live:
            group[entry_key] = live
        else:
            group.pop(entry_key, None)
        result = [v for v, _ in live]
        return expired + result if ttl.return_expired and expired else result

    def add(self, value: Any) -> None:
        """Append ``value``."""
        if value is None:
            raise ValueError("You cannot add null to a ListState.")
        group, entry_key = self._slot()
        item = value if self._ttl is None else (value, self._backend.now_ms())
        stored = group.get(entry_key)
        if stored is None:
            group[entry_key] = [item]
        else:
            stored.append(item)

    def _merge_values(self, a: Any, b: Any) -> Any:
        return a + b

    def add_all(self, values: Iterable[Any]) -> None:
        """Append every element of ``values``."""
        items = list(values)
        if not items:
            return
        if any(value is None for value in items):
            raise ValueError("You cannot add null to a ListState.")
        group, entry_key = self._slot()
        if self._ttl is not None:
            now = self._backend.now_ms()
            items = [(value, now) for value in items]
        stored = group.get(entry_key)
        if stored is None:
            group[entry_key] = items
        else:
            stored.extend(items)

    def update(self, values: Iterable[Any]) -> None:
        """Replace the elements by ``values``."""
        self.clear()
        self.add_all(values)


class MapStateImpl(_KvState):
    """``MapState``: a dict per key; with TTL every entry expires on its own."""

    __slots__ = ()

    def get_internal_state(self) -> KeyBoundMapState:
        """This state fixed to the current key and namespace (PyFlink's internal state)."""
        return KeyBoundMapState(self)

    def _map(self, create: bool) -> dict[Any, Any] | None:
        group, entry_key = self._slot()
        stored = group.get(entry_key)
        if stored is None and create:
            stored = group[entry_key] = {}
        return stored

    def _live(self, user_map: dict[Any, Any], user_key: Any) -> Any:
        stored = user_map.get(user_key)
        if stored is None or self._ttl is None:
            return stored
        return self._unwrap(user_map, user_key, stored)

    def get(self, key: Any) -> Any:
        """The value of ``key``, or None."""
        user_map = self._map(False)
        return None if user_map is None else self._live(user_map, key)

    def put(self, key: Any, value: Any) -> None:
        """Set ``key`` to ``value``."""
        user_map = self._map(True)
        assert user_map is not None
        user_map[key] = value if self._ttl is None else (value, self._backend.now_ms())

    def put_all(self, dict_value: dict[Any, Any]) -> None:
        """Set every entry of ``dict_value``."""
        for key, value in dict_value.items():
            self.put(key, value)

    def remove(self, key: Any) -> None:
        """Remove ``key``."""
        user_map = self._map(False)
        if user_map is not None:
            user_map.pop(key, None)
            if not user_map:
                self.clear()

    def contains(self, key: Any) -> bool:
        """Whether ``key`` has a (live) value."""
        return self.get(key) is not None

    def _snapshot(self) -> dict[Any, Any]:
        user_map = self._map(False)
        if not user_map:
            return {}
        if self._ttl is None:
            return dict(user_map)
        return {k: v for k in list(user_map) if (v := self._live(user_map, k)) is not None}

    def items(self) -> Iterable[tuple[Any, Any]]:
        """(key, value) pairs."""
        return self._snapshot().items()

    def keys(self) -> Iterable[Any]:
        """The keys."""
        return self._snapshot().keys()

    def values(self) -> Iterable[Any]:
        """The values."""
        return self._snapshot().values()

    def is_empty(self) -> bool:
        """Whether the map has no (live) entries."""
        return not self._snapshot()

    def __iter__(self) -> Iterator[Any]:
        return iter(self.keys())


class ReducingStateImpl(_KvState):
    """``ReducingState``: ``add(v)`` folds ``v`` into the value with the reduce function."""

    __slots__ = ("_reduce",)

    def __init__(self, backend: HeapKeyedStateBackend, table: StateTable, descriptor: Any) -> None:
        super().__init__(backend, table, descriptor)
        fn = descriptor.get_reduce_function()
        self._reduce = fn.reduce if hasattr(fn, "reduce") else fn

    def get(self) -> Any:
        """The reduced value, or None."""
        return self._raw()

    def _merge_values(self, a: Any, b: Any) -> Any:
        return merge_stored(self._reduce, self._ttl, a, b)

    def add(self, value: Any) -> None:
        """Fold ``value`` in."""
        current = self._raw()
        self._store(value if current is None else self._reduce(current, value))


class AggregatingStateImpl(_KvState):
    """``AggregatingState``: an accumulator per key; ``get()`` is ``get_result(acc)``."""

    __slots__ = ("_fn",)

    def __init__(self, backend: HeapKeyedStateBackend, table: StateTable, descriptor: Any) -> None:
        super().__init__(backend, table, descriptor)
        self._fn = descriptor.get_agg_function()

    def get(self) -> Any:
        """The aggregate of the added values, or None."""
        acc = self._raw()
        return None if acc is None else self._fn.get_result(acc)

    def add(self, value: Any) -> None:
        """Add ``value`` to the accumulator."""
        acc = self._raw()
        if acc is None:
            acc = self._fn.create_accumulator()
        self._store(self._fn.add(value, acc))

    def _merge_values(self, a: Any, b: Any) -> Any:
        return merge_stored(accumulator_merge(self._fn), self._ttl, a, b)

    def get_accumulator(self) -> Any:
        """The raw accumulator (window operator, merging)."""
        return self._raw()

    def set_accumulator(self, acc: Any) -> None:
        """Replace the raw accumulator."""
        self._store(acc)


_STATE_KINDS: dict[str, Any] = {
    "value": ValueStateImpl,
    "list": ListStateImpl,
    "map": MapStateImpl,
    "reducing": ReducingStateImpl,
    "aggregating": AggregatingStateImpl,
}
