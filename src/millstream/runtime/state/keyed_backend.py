"""KeyedStateBackend: what the heap and the RocksDB backend share (Flink's AbstractKeyedStateBackend).

::

    KeyedStateBackend (one per keyed operator subtask)
      current_key, current_group   <- set_current_key(key) before every element / timer
                                      (an unhashable key is stored in its hashable form)
      get_state(descriptor, ns)    -> the state object of that name (value, list, map,
                                      reducing, aggregating), a view at the current key
      snapshot()                   -> KeyedStateSnapshot (canonical: grouped by key group)
      restore([snapshots])         <- its own, or those of several old subtasks (rescaling):
                                      only the key groups of this subtask's range are taken

``current_group`` is the index of the current key's key group within the subtask's range
(``key group - key_group_range.start``); the key -> key group assignment of recent keys is
cached. TTL (``StateTtlConfig``, processing time): values are stored with their last access
time; an expired entry is removed when it is read (and then returned only with
``ReturnExpiredIfNotCleanedUp``), and in the background by the configured cleanup
(``cleanup_full_snapshot``: left out of full snapshots; ``cleanup_incrementally`` and, on
RocksDB, ``cleanup_in_rocksdb_compact_filter``: a few entries checked at every state access).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from millstream.common.hashable_keys import hashable_key
from millstream.runtime.state.key_groups import KeyGroupRange, assign_to_key_group
from millstream.runtime.state.snapshot import SNAPSHOT_VERSION, DeferredSnapshot, KeyedStateSnapshot

__all__ = [
    "STATE_KINDS",
    "VOID_NAMESPACE",
    "InternalStateDescriptor",
    "KeyBoundMapState",
    "KeyedStateBackend",
    "KeyedStateError",
    "TtlSettings",
    "accumulator_merge",
    "canonical_snapshot",
    "live_stored_value",
    "merge_stored",
    "ttl_of",
]

VOID_NAMESPACE: Any = None
STATE_KINDS = ("value", "list", "map", "reducing", "aggregating")
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


class TtlSettings:
    """A state's TTL settings, resolved once."""

    __slots__ = ("cleanup_full_snapshot", "cleanup_size", "refresh_on_read", "return_expired", "ttl_ms")

    def __init__(self, config: Any, rocksdb: bool) -> None:
        self.ttl_ms = int(config.get_ttl().to_milliseconds())
        self.refresh_on_read = config.get_update_type().name == "OnReadAndWrite"
        self.return_expired = config.get_state_visibility().name == "ReturnExpiredIfNotCleanedUp"
        strategies = config.get_cleanup_strategies() if hasattr(config, "get_cleanup_strategies") else {}
        self.cleanup_full_snapshot = bool(strategies.get("full_snapshot"))
        size = 0
        if "incremental" in strategies:
            size = int(strategies["incremental"][0])
        elif rocksdb and "rocksdb_compaction" in strategies:
            # no compaction-filter hook reaches Python: the same cleanup, done by scanning
            size = max(1, int(strategies["rocksdb_compaction"] or 1000) // 100)
        self.cleanup_size = size

    def expired(self, stamp: int, now: int) -> bool:
        """Whether an entry last accessed at ``stamp`` has expired at ``now``."""
        return now - stamp >= self.ttl_ms


def ttl_of(descriptor: Any, rocksdb: bool = False) -> TtlSettings | None:
    """The TTL settings of ``descriptor`` (None: no TTL)."""
    config = getattr(descriptor, "ttl_config", None)
    if config is None or config.get_update_type().name == "Disabled":
        return None
    return TtlSettings(config, rocksdb)


def live_stored_value(kind: str, stored: Any, ttl: TtlSettings, now: int) -> Any:
    """A stored TTL value without its expired parts (None: nothing is left)."""
    if kind == "list":
        live = [item for item in stored if not ttl.expired(item[1], now)]
        return live or None
    if kind == "map":
        live_map = {k: item for k, item in stored.items() if not ttl.expired(item[1], now)}
        return live_map or None
    return None if ttl.expired(stored[1], now) else stored


def merge_stored(fold: Callable[[Any, Any], Any], ttl: TtlSettings | None, a: Any, b: Any) -> Any:
    """Two stored values of a reducing or aggregating state folded into one (merging windows);
    with TTL the newer access time is kept."""
    if ttl is not None:
        return (fold(a[0], b[0]), max(a[1], b[1]))
    return fold(a, b)


def accumulator_merge(function: Any) -> Callable[[Any, Any], Any]:
    """The ``merge`` of an AggregateFunction (merging windows need it)."""
    merge = getattr(function, "merge", None)
    if merge is None:
        raise KeyedStateError("merging windows with an AggregateFunction needs its merge()")
    return merge


def canonical_snapshot(
    kinds: dict[str, str],
    entries_of: Callable[[str], Iterable[tuple[int, Any, Any, Any]]],
    ttls: dict[str, TtlSettings | None],
    now: int,
    first_group: int,
) -> KeyedStateSnapshot:
    """The entries ``entries_of(state name)`` yields (key group index, key, namespace, stored
    value), grouped by key group; expired entries of states cleaned up on full snapshots
    left out."""
    groups: dict[int, list[tuple[str, Any, Any, Any]]] = {}
    for name, kind in kinds.items():
        ttl = ttls.get(name)
        drop_expired = ttl is not None and ttl.cleanup_full_snapshot
        for index, key, namespace, stored in entries_of(name):
            if drop_expired:
                assert ttl is not None
                stored = live_stored_value(kind, stored, ttl, now)
                if stored is None:
                    continue
            entries = groups.get(first_group + index)
            if entries is None:
                entries = groups[first_group + index] = []
            entries.append((name, key, namespace, stored))
    return KeyedStateSnapshot(dict(kinds), groups)


class KeyBoundMapState:
    """A map state fixed to the key and namespace current when it was made: what PyFlink's
    ``MapState.get_internal_state()`` returns (the internal state of that key). A program
    holding it while other keys are processed still reads and writes the first key's map,
    as in PyFlink; each call addresses that key and then puts the key context back."""

    __slots__ = ("_group", "_key", "_namespace", "_state")

    def __init__(self, state: Any) -> None:
        backend = state._backend
        if backend.current_group < 0:
            raise KeyedStateError(
                "get_internal_state() needs a current key: call it while processing an element"
            )
        self._state = state
        self._key = backend.current_key
        self._group = backend.current_group
        self._namespace = state.namespace

    def _call(self, method: str, *args: Any) -> Any:
        state = self._state
        backend = state._backend
        saved = backend.current_key, backend.current_group, state.namespace
        backend.current_key, backend.current_group, state.namespace = self._key, self._group, self._namespace
        try:
            result = getattr(state, method)(*args)
            return list(result) if method in ("items", "keys", "values") else result
        finally:
            backend.current_key, backend.current_group, state.namespace = saved

    def get(self, key: Any) -> Any:
        """The value of ``key``, or None."""
        return self._call("get", key)

    def put(self, key: Any, value: Any) -> None:
        """Set ``key``."""
        self._call("put", key, value)

    def put_all(self, dict_value: dict[Any, Any]) -> None:
        """Set every key of ``dict_value``."""
        self._call("put_all", dict_value)

    def remove(self, key: Any) -> None:
        """Remove ``key``."""
        self._call("remove", key)

    def contains(self, key: Any) -> bool:
        """Whether ``key`` is set."""
        return bool(self._call("contains", key))

    def items(self) -> list[tuple[Any, Any]]:
        """The entries."""
        entries: list[tuple[Any, Any]] = self._call("items")
        return entries

    def keys(self) -> list[Any]:
        """The keys."""
        keys: list[Any] = self._call("keys")
        return keys

    def values(self) -> list[Any]:
        """The values."""
        values: list[Any] = self._call("values")
        return values

    def is_empty(self) -> bool:
        """Whether the map is empty."""
        return bool(self._call("is_empty"))

    def clear(self) -> None:
        """Remove every entry."""
        self._call("clear")


class KeyedStateBackend:
    """The keyed state of one operator subtask: the key context and the registry of states.

    Subclasses store the entries (``_create_state``, ``_entries``, ``_put_entries``,
    ``clear_all``) and may snapshot natively (RocksDB's incremental checkpoints).
    """

    backend_name = "abstract"

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
        self.current_group = -1  # index of current_key's key group within the range
        self._groups_of_keys: dict[Any, int] = {}
        self._kinds: dict[str, str] = {}
        self._states: dict[str, Any] = {}
        self._clock = clock

    # -- the key context ------------------------------------------------------------------

    def set_current_key(self, key: Any) -> Any:
        """Make ``key`` the key that state reads and writes address; returns the key as
        stored: an unhashable key (a list ...) in its hashable form (``hashable_key``), which
        operators that keep keys themselves use from then on."""
        try:
            group = self._groups_of_keys.get(key)
        except TypeError:  # only unhashable keys come here: ordinary ones pay nothing
            key = hashable_key(key)
            group = self._groups_of_keys.get(key)
        self.current_key = key
        if group is None:
            group = self._group_index(key)
        self.current_group = group
        return key

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

    def owns(self, key: Any) -> bool:
        """Whether ``key`` falls in this subtask's key groups (restoring after rescaling)."""
        return self._key_group(key) in self.key_group_range

    def now_ms(self) -> int:
        """Processing time in ms (TTL clock)."""
        return int(self._clock() * 1000)

    # -- states ---------------------------------------------------------------------------

    def _register(self, name: str, kind: str) -> None:
        known = self._kinds.get(name)
        if known is None:
            if kind not in STATE_KINDS:
                raise KeyedStateError(f"unknown state kind {kind!r} of state '{name}'")
            self._kinds[name] = kind
            self._new_state_storage(name, kind)
        elif known != kind:
            raise KeyedStateError(
                f"state '{name}' was registered as {known} state and cannot be used as {kind} state"
            )

    def get_state(self, descriptor: Any, namespace: Any = VOID_NAMESPACE) -> Any:
        """The state object for ``descriptor`` (one per name; the same object on every call)."""
        name = descriptor.get_name()
        state = self._states.get(name)
        if state is None:
            self._register(name, descriptor.kind)
            state = self._states[name] = self._create_state(name, descriptor.kind, descriptor)
        elif self._kinds[name] != descriptor.kind:
            raise KeyedStateError(
                f"state '{name}' was registered as {self._kinds[name]} state and cannot be used "
                f"as {descriptor.kind} state"
            )
        state.namespace = namespace
        return state

    def _ttl_of(self, name: str) -> TtlSettings | None:
        state = self._states.get(name)
        return None if state is None else state._ttl

    def _new_state_storage(self, name: str, kind: str) -> None:
        """Make room for the entries of a newly registered state."""
        raise NotImplementedError

    def _create_state(self, name: str, kind: str, descriptor: Any) -> Any:
        raise NotImplementedError

    # -- snapshots ------------------------------------------------------------------------

    def _entries(self, name: str) -> Iterable[tuple[int, Any, Any, Any]]:
        """(key group index, key, namespace, stored value) of every entry of state ``name``."""
        raise NotImplementedError

    def _put_entries(self, name: str, group_index: int, entries: list[tuple[str, Any, Any, Any]]) -> None:
        """Store restored entries ``(state name, key, namespace, stored value)`` of one key group."""
        raise NotImplementedError

    def keys(self, state_name: str, namespace: Any = VOID_NAMESPACE) -> list[Any]:
        """Keys that have an entry of ``state_name`` in ``namespace``."""
        if state_name not in self._kinds:
            return []
        return [key for _, key, ns, _ in self._entries(state_name) if ns == namespace]

    def snapshot(self) -> KeyedStateSnapshot:
        """Every entry, grouped by key group (canonical form; expired TTL entries are left out of
        states cleaned up on full snapshots)."""
        ttls = {name: self._ttl_of(name) for name in self._kinds}
        return canonical_snapshot(self._kinds, self._entries, ttls, self.now_ms(), self._first_group)

    def checkpoint_snapshot(self, checkpoint_id: int, canonical: bool) -> Any:
        """The keyed state for checkpoint ``checkpoint_id``: the canonical snapshot, unless the
        backend snapshots natively and ``canonical`` is False (RocksDB's incremental ones)."""
        return self.snapshot()

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """Checkpoint ``checkpoint_id`` completed (a native snapshot may build on it)."""

    def restore(self, snapshots: Iterable[Any]) -> None:
        """Replace every entry by those of this subtask's key groups in ``snapshots``
        (canonical snapshots, or what ``_canonical`` reads as one)."""
        self.clear_all()
        for snapshot in snapshots:
            if isinstance(snapshot, DeferredSnapshot):
                snapshot = snapshot.materialize()
            self._restore_canonical(self._canonical(snapshot))

    def _canonical(self, snapshot: Any) -> Any:
        """``snapshot`` in the canonical form (a backend that reads another's snapshots
        converts them here)."""
        return snapshot

    def _restore_canonical(self, snapshot: Any) -> None:
        """Add the entries of this subtask's key groups in a canonical snapshot."""
        if not isinstance(snapshot, KeyedStateSnapshot) or snapshot.version != SNAPSHOT_VERSION:
            raise KeyedStateError(
                f"keyed state snapshot of an unknown format (version "
                f"{getattr(snapshot, 'version', '?')}, this millstream reads {SNAPSHOT_VERSION})"
            )
        first, count = self._first_group, self._num_groups
        for name, kind in snapshot.states.items():
            self._register(name, kind)
        for key_group, entries in snapshot.groups.items():
            index = key_group - first
            if 0 <= index < count and entries:
                self._put_group(index, entries)

    def _put_group(self, index: int, entries: list[tuple[str, Any, Any, Any]]) -> None:
        by_state: dict[str, list[tuple[str, Any, Any, Any]]] = {}
        for entry in entries:
            by_state.setdefault(entry[0], []).append(entry)
        for name, state_entries in by_state.items():
            self._put_entries(name, index, state_entries)

    def clear_all(self) -> None:
        """Drop every entry of every state (BATCH: between keys)."""
        raise NotImplementedError

    def dispose(self) -> None:
        """Release what the backend holds outside Python objects (files, native memory)."""
