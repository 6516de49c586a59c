"""The keyed states of the RocksDB backend (value, list, map, reducing, aggregating), each
over one column family, with Flink's TTL and incremental cleanup.

A state's RocksDB key is the key group (2 bytes, big-endian), the key and the namespace (and
a map state's user key); its value the declared type's encoding or a pickle. A list state's
value is its elements, each length-prefixed, so appending writes the old bytes and one
element, as Flink's merge operator appends.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from millstream.runtime.state.keyed_backend import (
    VOID_NAMESPACE,
    KeyBoundMapState,
    KeyedStateError,
    accumulator_merge,
    live_stored_value,
    merge_stored,
    ttl_of,
)
from millstream.runtime.state.serialization import decode_key, encode_key, value_codec

if TYPE_CHECKING:
    from millstream.runtime.state.rocksdb import RocksDBKeyedStateBackend

__all__ = ["STATE_KINDS", "frame", "frames", "next_prefix"]

_LEN = struct.Struct(">I")


def next_prefix(prefix: bytes) -> bytes:
    """The smallest bytes greater than every key starting with ``prefix``."""
    data = bytearray(prefix)
    while data and data[-1] == 0xFF:
        data.pop()
    if not data:
        return b"\xff" * (len(prefix) + 1)
    data[-1] += 1
    return bytes(data)


def frame(data: bytes) -> bytes:
    return _LEN.pack(len(data)) + data


def frames(data: bytes) -> Iterator[bytes]:
    pos, end = 0, len(data)
    while pos < end:
        (n,) = _LEN.unpack_from(data, pos)
        pos += 4
        yield data[pos : pos + n]
        pos += n


class _RocksCleanup:
    """Incremental TTL cleanup: each state access checks the next few entries of the column
    family (a cursor that goes round the whole column, again and again)."""

    __slots__ = ("_after", "_state")

    def __init__(self, state: _RocksState) -> None:
        self._state = state
        self._after = b""

    def step(self, now: int) -> None:
        state = self._state
        ttl = state._ttl
        assert ttl is not None
        iterator = state._column.iter()
        iterator.seek(self._after)
        loads, dumps = state._loads, state._dumps
        for _ in range(ttl.cleanup_size):
            if not iterator.valid():
                self._after = b""
                return
            raw_key = iterator.key()
            raw_value = iterator.value()
            if state._kind == "list":
                items = [loads(item) for item in frames(raw_value)]
                live = live_stored_value("list", items, ttl, now)
                if live is None:
                    state._column.delete(raw_key)
                elif len(live) != len(items):
                    state._column.put(raw_key, b"".join(frame(dumps(item)) for item in live))
            elif ttl.expired(loads(raw_value)[1], now):
                state._column.delete(raw_key)
            self._after = raw_key + b"\x00"
            iterator.next()


class _RocksState:
    """A view of one column family at the backend's current key and this state's namespace."""

    __slots__ = ("_backend", "_cleanup", "_column", "_dumps", "_kind", "_loads", "_name", "_ttl", "namespace")

    def __init__(self, backend: RocksDBKeyedStateBackend, name: str, kind: str, descriptor: Any) -> None:
        self._backend = backend
        self._name = name
        self._kind = kind
        self._column = backend.column(name)
        self._ttl = ttl_of(descriptor, rocksdb=True)
        type_info = getattr(descriptor, "type_info", None)
        self._dumps, self._loads = value_codec(type_info)
        self._cleanup = _RocksCleanup(self) if self._ttl is not None and self._ttl.cleanup_size else None
        self.namespace: Any = VOID_NAMESPACE

    def set_current_namespace(self, namespace: Any) -> None:
        """Address ``namespace`` (a window) from now on."""
        self.namespace = namespace

    def _key(self) -> bytes:
        backend = self._backend
        if self._cleanup is not None:
            self._cleanup.step(backend.now_ms())
        return backend.current_prefix() + backend.namespace_bytes(self.namespace)

    def _key_in(self, namespace: Any) -> bytes:
        backend = self._backend
        return backend.current_prefix() + backend.namespace_bytes(namespace)

    def clear(self) -> None:
        """Remove the current key's entry in the current namespace."""
        self._column.delete(self._key())

    # value-like states (value, reducing, aggregating): one RocksDB entry

    def _raw(self) -> Any:
        """The stored value (None if absent), expired TTL entries removed."""
        db_key = self._key()
        return self._live(db_key, self._column.get(db_key))

    def _live(self, db_key: bytes, data: bytes | None) -> Any:
        """The value of an entry read at ``db_key`` (None if absent); with TTL an expired
        entry is deleted (returned only if the visibility says so), a read may refresh it."""
        if data is None:
            return None
        stored = self._loads(data)
        ttl = self._ttl
        if ttl is None:
            return stored
        value, stamp = stored
        now = self._backend.now_ms()
        if ttl.expired(stamp, now):
            self._column.delete(db_key)
            return value if ttl.return_expired else None
        if ttl.refresh_on_read:
            self._column.put(db_key, self._dumps((value, now)))
        return value

    def _store(self, value: Any) -> None:
        db_key = self._key()
        if value is None:
            self._column.delete(db_key)
        elif self._ttl is None:
            self._column.put(db_key, self._dumps(value))
        else:
            self._column.put(db_key, self._dumps((value, self._backend.now_ms())))

    def merge_namespaces(self, target: Any, sources: Iterable[Any]) -> None:
        """Fold the current key's entries in ``sources`` into ``target`` (merging windows)."""
        column = self._column
        target_key = self._key_in(target)
        data = column.get(target_key)
        merged = None if data is None else self._loads(data)
        for source in sources:
            if source == target:
                continue
            source_key = self._key_in(source)
            data = column.get(source_key)
            if data is not None:
                column.delete(source_key)
                value = self._loads(data)
                merged = value if merged is None else self._merge_values(merged, value)
        if merged is not None:
            column.put(target_key, self._dumps(merged))

    def _merge_values(self, a: Any, b: Any) -> Any:
        raise KeyedStateError(f"state '{self._name}' ({self._kind}) cannot be merged")


class RocksValueState(_RocksState):
    """``ValueState``."""

    __slots__ = ()

    def value(self) -> Any:
        """The current key's value, or None."""
        return self._raw()

    def update(self, value: Any) -> None:
        """Set the current key's value (None clears it)."""
        self._store(value)


class RocksReducingState(_RocksState):
    """``ReducingState``."""

    __slots__ = ("_reduce",)

    def __init__(self, backend: RocksDBKeyedStateBackend, name: str, kind: str, descriptor: Any) -> None:
        super().__init__(backend, name, kind, descriptor)
        fn = descriptor.get_reduce_function()
        self._reduce = fn.reduce if hasattr(fn, "reduce") else fn

    def get(self) -> Any:
        """The reduced value, or None."""
        return self._raw()

    def add(self, value: Any) -> None:
        """Fold ``value`` in."""
        current = self._raw()
        self._store(value if current is None else self._reduce(current, value))

    def _merge_values(self, a: Any, b: Any) -> Any:
        return merge_stored(self._reduce, self._ttl, a, b)


class RocksAggregatingState(_RocksState):
    """``AggregatingState``."""

    __slots__ = ("_fn",)

    def __init__(self, backend: RocksDBKeyedStateBackend, name: str, kind: str, descriptor: Any) -> None:
        super().__init__(backend, name, kind, descriptor)
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

    def get_accumulator(self) -> Any:
        """The raw accumulator (window operator, merging)."""
        return self._raw()

    def set_accumulator(self, acc: Any) -> None:
        """Replace the raw accumulator."""
        self._store(acc)

    def _merge_values(self, a: Any, b: Any) -> Any:
        return merge_stored(accumulator_merge(self._fn), self._ttl, a, b)


class RocksListState(_RocksState):
    """``ListState``: the elements of a key, length-prefixed, in one RocksDB value."""

    __slots__ = ()

    def get(self) -> list[Any]:
        """The current key's elements (an empty list if none)."""
        db_key = self._key()
        data = self._column.get(db_key)
        if data is None:
            return []
        loads = self._loads
        items = [loads(item) for item in frames(data)]
        ttl = self._ttl
        if ttl is None:
            return items
        now = self._backend.now_ms()
        live = [(v, s) for v, s in items if not ttl.expired(s, now)]
        expired = [v for v, s in items if ttl.expired(s, now)]
        if ttl.refresh_on_read:
            live = [(v, now) for v, _ in live]
        if expired or ttl.refresh_on_read:
            self._write(db_key, live)
        result = [v for v, _ in live]
        return expired + result if ttl.return_expired and expired else result

    def _write(self, db_key: bytes, items: list[Any]) -> None:
        if items:
            dumps = self._dumps
            self._column.put(db_key, b"".join(frame(dumps(item)) for item in items))
        else:
            self._column.delete(db_key)

    def add(self, value: Any) -> None:
        """Append ``value``."""
        if value is None:
            raise ValueError("You cannot add null to a ListState.")
        db_key = self._key()
        item = value if self._ttl is None else (value, self._backend.now_ms())
        framed = frame(self._dumps(item))
        data = self._column.get(db_key)
        self._column.put(db_key, framed if data is None else data + framed)

    def add_all(self, values: Iterable[Any]) -> None:
        """Append every element of ``values``."""
        items = list(values)
        if any(v is None for v in items):
            raise ValueError("You cannot add null to a ListState.")
        if not items:
            return
        db_key = self._key()
        if self._ttl is not None:
            now = self._backend.now_ms()
            items = [(v, now) for v in items]
        dumps = self._dumps
        framed = b"".join(frame(dumps(item)) for item in items)
        data = self._column.get(db_key)
        self._column.put(db_key, framed if data is None else data + framed)

    def update(self, values: Iterable[Any]) -> None:
        """Replace the elements by ``values``."""
        self.clear()
        self.add_all(values)

    def merge_namespaces(self, target: Any, sources: Iterable[Any]) -> None:
        """Append the current key's elements in ``sources`` to those in ``target``."""
        column = self._column
        target_key = self._key_in(target)
        merged = column.get(target_key) or b""
        for source in sources:
            if source == target:
                continue
            source_key = self._key_in(source)
            data = column.get(source_key)
            if data is not None:
                column.delete(source_key)
                merged += data
        if merged:
            column.put(target_key, merged)


class RocksMapState(_RocksState):
    """``MapState``: one RocksDB entry per user key, after the key's and namespace's bytes."""

    __slots__ = ()

    def get_internal_state(self) -> KeyBoundMapState:
        """This state fixed to the current key and namespace (PyFlink's internal state)."""
        return KeyBoundMapState(self)

    def _scan(self) -> Iterator[tuple[bytes, bytes]]:
        prefix = self._key()
        iterator = self._column.iter()
        iterator.seek(prefix)
        while iterator.valid():
            raw_key = iterator.key()
            if not raw_key.startswith(prefix):
                return
            yield raw_key, iterator.value()
            iterator.next()

    def get(self, key: Any) -> Any:
        """The value of ``key``, or None."""
        db_key = self._key() + encode_key(key)
        return self._live(db_key, self._column.get(db_key))

    def put(self, key: Any, value: Any) -> None:
        """Set ``key`` to ``value``."""
        stored = value if self._ttl is None else (value, self._backend.now_ms())
        self._column.put(self._key() + encode_key(key), self._dumps(stored))

    def put_all(self, dict_value: dict[Any, Any]) -> None:
        """Set every entry of ``dict_value``."""
        for key, value in dict_value.items():
            self.put(key, value)

    def remove(self, key: Any) -> None:
        """Remove ``key``."""
        self._column.delete(self._key() + encode_key(key))

    def contains(self, key: Any) -> bool:
        """Whether ``key`` has a (live) value."""
        return self.get(key) is not None

    def _snapshot(self) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        prefix_length = len(self._key())
        for raw_key, data in list(self._scan()):
            value = self._live(raw_key, data)
            if value is not None:
                out[decode_key(raw_key, prefix_length)[0]] = value
        return out

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
        if self._ttl is not None:
            return not self._snapshot()
        return next(self._scan(), None) is None

    def clear(self) -> None:
        """Remove every entry of the current key's map."""
        prefix = self._key()
        self._column.delete_range(prefix, next_prefix(prefix))

    def __iter__(self) -> Iterator[Any]:
        return iter(self.keys())


STATE_KINDS: dict[str, Any] = {
    "value": RocksValueState,
    "list": RocksListState,
    "map": RocksMapState,
    "reducing": RocksReducingState,
    "aggregating": RocksAggregatingState,
}
