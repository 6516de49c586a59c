"""Heap keyed state backend: keyed state in key groups, scoped by key and namespace.

::

    HeapKeyedStateBackend (one per keyed operator subtask)
      current_key, current_group  <- set_current_key(key) before every element / timer
      tables[state name] = StateTable
          groups[key group - first key group of this subtask] : {(key, namespace): value}

Every registered state (``ValueState``, ``ListState``, ``MapState``, ``ReducingState``,
``AggregatingState``) is a view on one table that reads and writes the entry of the
current key in its current namespace (``VOID_NAMESPACE`` for state a user function
gets from the RuntimeContext; a window for the window operator's contents). Tables are
partitioned by key group, the unit in which state is snapshotted and redistributed, as
in Flink's heap backend. The key -> key group assignment of recent keys is cached.

TTL (``StateTtlConfig``, processing time): values are stored with their last access
time; an expired entry is removed when it is read (and then returned only with
``ReturnExpiredIfNotCleanedUp``), as Flink's TTL state does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from millstream.runtime.state.key_groups import KeyGroupRange, assign_to_key_group

__all__ = [
    "VOID_NAMESPACE",
    "HeapKeyedStateBackend",
    "InternalStateDescriptor",
    "KeyedStateError",
    "StateTable",
]

VOID_NAMESPACE: Any = None
_KEY_GROUP_CACHE_LIMIT = 1 << 16


class InternalStateDescriptor:
    """A state descriptor for the runtime's own state (the runtime does not import the API's)."""

    def __init__(self, name: str, kind: str, function: Any = None) -> None:
        self.name = name
        self.kind = kind
        self._function = function
        self.ttl_config = None

    def get_name(self) -> str:
        """The state's name."""
        return self.name

    def get_reduce_function(self) -> Any:
        """The reduce function of reducing state."""
        return self._function

    def get_agg_function(self) -> Any:
        """The aggregate function of aggregating state."""
        return self._function


class KeyedStateError(RuntimeError):
    """Keyed state used where there is no key, or a state re-registered with another kind."""


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


class HeapKeyedStateBackend:
    """The keyed state of one operator subtask."""

    def __init__(
        self,
        max_parallelism: int,
        key_group_range: KeyGroupRange,
        clock: Callable[[], float] = time.time,
        key_group: Callable[[Any], int] | None = None,
    ) -> None:
        self.max_parallelism = max_parallelism
        # key -> key group; the partitioner's function for the operator's key type
        self._key_group = key_group or (lambda key: assign_to_key_group(key, max_parallelism))
        self.key_group_range = key_group_range
        self._first_group = key_group_range.start
        self._num_groups = len(key_group_range)
        self.current_key: Any = None  # owner: task thread
        self.current_group = -1  # index into StateTable.groups of current_key
        self._groups_of_keys: dict[Any, int] = {}
        self.tables: dict[str, StateTable] = {}
        self._states: dict[str, Any] = {}
        self._clock = clock

    def set_current_key(self, key: Any) -> None:
        """Make ``key`` the key that state reads and writes address."""
        self.current_key = key
        group = self._groups_of_keys.get(key)
        if group is None:
            group = self._group_index(key)
        self.current_group = group

    def _group_index(self, key: Any) -> int:
        group = self._key_group(key) - self._first_group
        if not 0 <= group < self._num_groups:
            raise KeyedStateError(
                f"key {key!r} belongs to key group {group + self._first_group}, outside this "
                f"subtask's key groups {self.key_group_range.start}..{self.key_group_range.end}: "
                "the key selector is not deterministic, or the stream was not partitioned by it"
            )
        cache = self._groups_of_keys
        if len(cache) >= _KEY_GROUP_CACHE_LIMIT:
            cache.clear()
        cache[key] = group
        return group

    def now_ms(self) -> int:
        """Processing time in ms (TTL clock)."""
        return int(self._clock() * 1000)

    def table(self, name: str, kind: str) -> StateTable:
        """The table of state ``name`` (created on first use)."""
        table = self.tables.get(name)
        if table is None:
            table = self.tables[name] = StateTable(name, kind, self._num_groups)
        elif table.kind != kind:
            raise KeyedStateError(
                f"state '{name}' was registered as {table.kind} state and cannot be used as {kind} state"
            )
        return table

    def get_state(self, descriptor: Any, namespace: Any = VOID_NAMESPACE) -> Any:
        """The state object for ``descriptor`` (one per name; the same object on every call)."""
        name = descriptor.get_name()
        state = self._states.get(name)
        if state is None:
            kind = descriptor.kind
            factory = _STATE_KINDS.get(kind)
            if factory is None:
                raise KeyedStateError(f"unknown state kind {kind!r} of state '{name}'")
            state = factory(self, self.table(name, kind), descriptor)
            self._states[name] = state
        elif state._table.kind != descriptor.kind:
            raise KeyedStateError(
                f"state '{name}' was registered as {state._table.kind} state and cannot be used "
                f"as {descriptor.kind} state"
            )
        state.namespace = namespace
        return state

    def keys(self, state_name: str, namespace: Any = VOID_NAMESPACE) -> list[Any]:
        """Keys that have an entry of ``state_name`` in ``namespace``."""
        table = self.tables.get(state_name)
        if table is None:
            return []
        return [k for k, ns, _ in table.entries() if ns == namespace]

    def snapshot_entries(self) -> list[tuple[str, str, Any, Any, Any]]:
        """Every entry as (state name, kind, key, namespace, stored value), for a snapshot."""
        return [
            (name, table.kind, key, namespace, value)
            for name, table in self.tables.items()
            for key, namespace, value in table.entries()
        ]

    def restore_entries(self, entries: Iterable[tuple[str, str, Any, Any, Any]]) -> None:
        """Replace every entry with those of a snapshot."""
        self.clear_all()
        for name, kind, key, namespace, value in entries:
            self.set_current_key(key)
            self.table(name, kind).groups[self.current_group][(key, namespace)] = value

    def clear_all(self) -> None:
        """Drop every entry of every state (BATCH: between keys)."""
        for table in self.tables.values():
            for group in table.groups:
                group.clear()


class _Ttl:
    """A state's TTL settings, resolved once."""

    __slots__ = ("refresh_on_read", "return_expired", "ttl_ms")

    def __init__(self, config: Any) -> None:
        self.ttl_ms = int(config.get_ttl().to_milliseconds())
        self.refresh_on_read = config.get_update_type().name == "OnReadAndWrite"
        self.return_expired = config.get_state_visibility().name == "ReturnExpiredIfNotCleanedUp"


def _ttl_of(descriptor: Any) -> _Ttl | None:
    config = getattr(descriptor, "ttl_config", None)
    if config is None or config.get_update_type().name == "Disabled":
        return None
    return _Ttl(config)


class _KvState:
    """A view of one state table at the backend's current key and this state's namespace."""

    __slots__ = ("_backend", "_table", "_ttl", "namespace")

    def __init__(self, backend: HeapKeyedStateBackend, table: StateTable, descriptor: Any) -> None:
        self._backend = backend
        self._table = table
        self._ttl = _ttl_of(descriptor)
        self.namespace: Any = VOID_NAMESPACE

    def set_current_namespace(self, namespace: Any) -> None:
        """Address ``namespace`` (a window) from now on."""
        self.namespace = namespace

    def _slot(self) -> tuple[dict[Any, Any], tuple[Any, Any]]:
        backend = self._backend
        if backend.current_group < 0:
            raise KeyedStateError("keyed state was accessed without a current key")
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
        if now - stamp >= ttl.ttl_ms:
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
        for value in values:
            self.add(value)

    def update(self, values: Iterable[Any]) -> None:
        """Replace the elements by ``values``."""
        self.clear()
        self.add_all(values)


class MapStateImpl(_KvState):
    """``MapState``: a dict per key; with TTL every entry expires on its own."""

    __slots__ = ()

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
        if self._ttl is not None:
            return (self._reduce(a[0], b[0]), max(a[1], b[1]))
        return self._reduce(a, b)

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
        merge = getattr(self._fn, "merge", None)
        if merge is None:
            raise KeyedStateError("merging windows with an AggregateFunction needs its merge()")
        if self._ttl is not None:
            return (merge(a[0], b[0]), max(a[1], b[1]))
        return merge(a, b)

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
