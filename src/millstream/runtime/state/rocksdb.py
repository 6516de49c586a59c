"""RocksDB keyed state backend (Flink's EmbeddedRocksDBStateBackend), on ``rocksdict``.

::

    RocksDBKeyedStateBackend (one per keyed operator subtask)
      one RocksDB instance in <local dir>/millstream-rocksdb/<pid>/<operator>-<uuid>
      one column family per state
      RocksDB key:   key group (2 bytes, big-endian) | key | namespace [| map user key]
      RocksDB value: the stored value (declared type's encoding or pickle); a list state's
                     value is its elements, each length-prefixed (appending is a write of
                     the old bytes plus one element, as Flink's merge operator appends)

State lives on local disk; what stays in memory is RocksDB's block cache and write
buffers, which every instance of a TaskManager shares (a ``Cache`` and a
``WriteBufferManager`` charged to it: ``state.backend.rocksdb.memory.*``), so memory does
not grow with the number of keys. Keys are sorted by key group first: a key group's
entries are one contiguous range, which snapshots and rescaling read (and ``clear_all``
deletes) without touching the others. Writes skip the write-ahead log: a failure
restores from the last checkpoint, never from the local files (as in Flink).

Timers stay on the heap (Flink's ``state.backend.rocksdb.timer-service.factory: HEAP``)
and are snapshotted with the operator.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import struct
import tempfile
import threading
import uuid
import weakref
from collections.abc import Iterable, Iterator
from typing import Any

import psutil
import rocksdict

from millstream.graph.state_backend import StateBackendSettings
from millstream.runtime.state.backends import task_manager_slots
from millstream.runtime.state.incremental import IncrementalKeyedStateHandle, PendingUpload, materialize
from millstream.runtime.state.key_groups import KeyGroupRange
from millstream.runtime.state.keyed_backend import (
    VOID_NAMESPACE,
    KeyedStateBackend,
    KeyedStateError,
    accumulator_merge,
    canonical_snapshot,
    live_stored_value,
    merge_stored,
    ttl_of,
)
from millstream.runtime.state.serialization import decode_key, encode_key, value_codec
from millstream.runtime.state.snapshot import DeferredSnapshot, KeyedStateSnapshot

__all__ = ["RocksDBKeyedStateBackend", "read_canonical"]

_LEN = struct.Struct(">I")
_NAMESPACE_CACHE_LIMIT = 4096

# -- memory shared by every instance of the process ------------------------------------------

_memory_lock = threading.Lock()
_shared: dict[str, Any] = {}


def _shared_memory(settings: Any) -> tuple[Any, Any]:
    """The process's block cache and write buffer manager (created by the first instance)."""
    with _memory_lock:
        if not _shared:
            total = settings.memory_per_tm or settings.memory_per_slot * task_manager_slots()
            cache = rocksdict.Cache(total)
            buffers = int(total * min(max(settings.write_buffer_ratio, 0.05), 0.95))
            _shared["cache"] = cache
            _shared["buffers"] = rocksdict.WriteBufferManager.new_write_buffer_manager_with_cache(
                buffers, False, cache
            )
            _shared["total"] = total
        return _shared["cache"], _shared["buffers"]


def _options(settings: Any) -> Any:
    cache, buffers = _shared_memory(settings)
    options = rocksdict.Options(raw_mode=True)
    options.create_if_missing(True)
    options.create_missing_column_families(True)
    table = rocksdict.BlockBasedOptions()
    table.set_block_cache(cache)
    table.set_cache_index_and_filter_blocks(True)
    table.set_pin_l0_filter_and_index_blocks_in_cache(True)
    table.set_bloom_filter(10, False)
    # partitioned index and filters (Flink's state.backend.rocksdb.memory.partitioned-index-filters):
    # a lookup loads one small partition, not a file's whole filter; with whole filters in a
    # bounded cache, a large state re-read megabytes of filter per lookup once they no
    # longer fit (10M keys: past 4.5M, under 4,000 lookups/s instead of 70,000)
    table.set_index_type(rocksdict.BlockBasedIndexType.two_level_index_search())
    table.set_partition_filters(True)
    table.set_metadata_block_size(4096)
    table.set_pin_top_level_index_and_filter(True)
    options.set_block_based_table_factory(table)
    options.set_write_buffer_manager(buffers)
    options.set_max_background_jobs(2)
    options.set_keep_log_file_num(2)
    options.set_max_log_file_size(1 << 20)
    return options


def _instance_root(local_dir: str) -> str:
    return os.path.join(local_dir or tempfile.gettempdir(), "millstream-rocksdb")


def _remove_dead_instances(root: str) -> None:
    """Working directories of processes that died without cleaning up (SIGKILL)."""
    with contextlib.suppress(OSError):
        for entry in os.listdir(root):
            if entry.isdigit() and int(entry) != os.getpid() and not psutil.pid_exists(int(entry)):
                shutil.rmtree(os.path.join(root, entry), ignore_errors=True)


def _next_prefix(prefix: bytes) -> bytes:
    """The smallest bytes greater than every key starting with ``prefix``."""
    data = bytearray(prefix)
    while data and data[-1] == 0xFF:
        data.pop()
    if not data:
        return b"\xff" * (len(prefix) + 1)
    data[-1] += 1
    return bytes(data)


def _frame(data: bytes) -> bytes:
    return _LEN.pack(len(data)) + data


def _frames(data: bytes) -> Iterator[bytes]:
    pos, end = 0, len(data)
    while pos < end:
        (n,) = _LEN.unpack_from(data, pos)
        pos += 4
        yield data[pos : pos + n]
        pos += n


class RocksDBKeyedStateBackend(KeyedStateBackend):
    """The keyed state of one operator subtask, in an embedded RocksDB."""

    backend_name = "rocksdb"

    def __init__(
        self, *args: Any, settings: Any, name: str = "", shared_dir: str | None = None, **kwargs: Any
    ) -> None:
        """``shared_dir``: where incremental checkpoints put SST files (the job's
        ``<checkpoint dir>/<job id>/shared``); None: every checkpoint is a full one."""
        super().__init__(*args, **kwargs)
        self.settings = settings
        self.name = name
        self.backend_id = uuid.uuid4().hex[:12]
        root = _instance_root(settings.local_dir)
        _remove_dead_instances(root)
        safe = "".join(c if c.isalnum() else "_" for c in name)[:60]
        # the instance's directory: the database (db/) and local checkpoints (chk-<n>/)
        self.instance_dir = os.path.join(root, str(os.getpid()), f"{safe}-{self.backend_id}")
        self.path = os.path.join(self.instance_dir, "db")
        os.makedirs(self.path, exist_ok=True)
        self._options = _options(settings)
        self.db: Any = None
        self._open()
        self._columns: dict[str, Any] = {}
        self._group_prefixes = [(self._first_group + i).to_bytes(2, "big") for i in range(self._num_groups)]
        self._prefix: bytes = b""
        self._prefix_key: Any = _UNSET
        self._namespaces: dict[Any, bytes] = {}
        self.shared_dir = shared_dir if settings.incremental else None
        self._referenced: dict[int, dict[str, str]] = {}  # checkpoint id -> its SST files' paths
        self._confirmed: dict[str, str] = {}  # SST files a new checkpoint may reference
        self._latest_incremental = -1  # the newest incremental snapshot taken
        self._reading = threading.Lock()  # held while a full snapshot is read (I/O thread)
        self._disposed = False
        self._full_snapshots: weakref.WeakSet[_FullSnapshot] = weakref.WeakSet()  # not yet read

    def _open(self) -> None:
        """Open the database at ``path`` with every column family it has."""
        families: dict[str, Any] = {}
        if os.path.isfile(os.path.join(self.path, "CURRENT")):
            families = {
                family: self._options
                for family in rocksdict.Rdict.list_cf(self.path, self._options)
                if family != "default"
            }
        self.db = rocksdict.Rdict(self.path, self._options, column_families=families or None)
        write_options = rocksdict.WriteOptions()
        setattr(write_options, "disable_wal", True)  # noqa: B010 - a property the stubs call a method
        self.db.set_write_options(write_options)

    # -- key bytes --------------------------------------------------------------------------

    def current_prefix(self) -> bytes:
        """Key group and key bytes of the current key."""
        key = self.current_key
        if self._prefix_key is not key:
            if self.current_group < 0:
                raise KeyedStateError("keyed state was accessed without a current key")
            self._prefix = self._group_prefixes[self.current_group] + encode_key(key)
            self._prefix_key = key
        return self._prefix

    def namespace_bytes(self, namespace: Any) -> bytes:
        """The bytes of a namespace (windows repeat: cached)."""
        if namespace is VOID_NAMESPACE:
            return b"N"
        cached = self._namespaces.get(namespace)
        if cached is None:
            if len(self._namespaces) >= _NAMESPACE_CACHE_LIMIT:
                self._namespaces.clear()
            cached = self._namespaces[namespace] = encode_key(namespace)
        return cached

    # -- states -----------------------------------------------------------------------------

    def _new_state_storage(self, name: str, kind: str) -> None:
        column = f"state-{name}"
        try:
            self._columns[name] = self.db.create_column_family(column, self._options)
        except Exception:  # already there (a state registered again after clear)
            self._columns[name] = self.db.get_column_family(column)

    def column(self, name: str) -> Any:
        """The column family of state ``name``."""
        return self._columns[name]

    def _create_state(self, name: str, kind: str, descriptor: Any) -> Any:
        return _ROCKS_STATE_KINDS[kind](self, name, kind, descriptor)

    def _loads_of(self, name: str) -> Any:
        state = self._states.get(name)
        return state._loads if state is not None else value_codec(None)[1]

    def _entries(
        self, name: str, source: Any = None, loads: Any = None
    ) -> Iterable[tuple[int, Any, Any, Any]]:
        """The entries of state ``name`` in its column family (or in ``source``, a RocksDB
        snapshot of it)."""
        kind = self._kinds[name]
        loads = loads or self._loads_of(name)
        first = self._first_group
        iterator = (source or self._columns[name]).iter()
        iterator.seek_to_first()
        current: tuple[bytes, int, Any, Any] | None = None  # map state: (prefix, group, key, ns)
        user_map: dict[Any, Any] = {}
        while iterator.valid():
            raw_key = iterator.key()
            group = int.from_bytes(raw_key[:2], "big") - first
            key, pos = decode_key(raw_key, 2)
            namespace, pos = decode_key(raw_key, pos)
            raw_value = iterator.value()
            if kind == "map":
                prefix = raw_key[:pos]
                if current is not None and current[0] != prefix:
                    yield current[1], current[2], current[3], user_map
                    user_map = {}
                if current is None or current[0] != prefix:
                    current = (prefix, group, key, namespace)
                user_key, _ = decode_key(raw_key, pos)
                user_map[user_key] = loads(raw_value)
            elif kind == "list":
                yield group, key, namespace, [loads(item) for item in _frames(raw_value)]
            else:
                yield group, key, namespace, loads(raw_value)
            iterator.next()
        if current is not None:
            yield current[1], current[2], current[3], user_map

    def _put_entries(self, name: str, group_index: int, entries: list[tuple[str, Any, Any, Any]]) -> None:
        kind = self._kinds[name]
        state = self._states.get(name)
        dumps = state._dumps if state is not None else value_codec(None)[0]
        column = self._columns[name]
        group = self._group_prefixes[group_index]
        batch = rocksdict.WriteBatch(raw_mode=True)
        handle = self.db.get_column_family_handle(f"state-{name}")
        for _, key, namespace, stored in entries:
            prefix = group + encode_key(key) + self.namespace_bytes(namespace)
            if kind == "map":
                for user_key, value in stored.items():
                    batch.put(prefix + encode_key(user_key), dumps(value), handle)
            elif kind == "list":
                batch.put(prefix, b"".join(_frame(dumps(item)) for item in stored), handle)
            else:
                batch.put(prefix, dumps(stored), handle)
        column.write(batch)

    def clear_all(self) -> None:
        """Drop every entry of this subtask's key groups."""
        start = self._group_prefixes[0]
        end = (self.key_group_range.end + 1).to_bytes(2, "big") if self._num_groups else start
        for column in self._columns.values():
            column.delete_range(start, end)

    def dispose(self) -> None:
        """Close the instance and delete its files (local checkpoints included); a full
        snapshot being read stops first (its checkpoint fails: the task is ending)."""
        self._disposed = True
        with self._reading:
            for pending in list(self._full_snapshots):
                pending.release()  # RocksDB closes only without unreleased snapshots
            self._close()
        self._states.clear()
        shutil.rmtree(self.instance_dir, ignore_errors=True)

    def _close(self) -> None:
        """Close the database. Every handle of a column family goes first: one dropped after
        the instance is closed and its files deleted makes RocksDB wait a second (the GC
        would pay it later)."""
        db = self.db
        if db is None:
            return
        self.db = None
        for state in self._states.values():
            state._column = None
        self._columns.clear()
        with contextlib.suppress(Exception):
            db.close()
        del db

    # -- incremental checkpoints ----------------------------------------------------------------

    def checkpoint_snapshot(self, checkpoint_id: int, canonical: bool) -> Any:
        """An incremental handle when incremental checkpoints are on (``shared_dir``), else
        (and for savepoints) the canonical snapshot, read asynchronously: a RocksDB snapshot
        taken now (the barrier's point), iterated on the checkpoint I/O thread."""
        if canonical or self.shared_dir is None:
            return _FullSnapshot(self)
        return self._incremental_snapshot(checkpoint_id)

    def _incremental_snapshot(self, checkpoint_id: int) -> IncrementalKeyedStateHandle:
        """The synchronous part: RocksDB's checkpoint (memtables flushed, live files hard-linked)
        into ``chk-<n>``; which SST files are new is decided here, their copying is the
        handle's ``pending`` upload (the checkpoint I/O thread runs it)."""
        assert self.shared_dir is not None
        local = os.path.join(self.instance_dir, f"chk-{checkpoint_id}")
        shutil.rmtree(local, ignore_errors=True)
        rocksdict.Checkpoint(self.db).create_checkpoint(local)
        shared: dict[str, str] = {}
        sizes: dict[str, int] = {}
        private: dict[str, bytes] = {}
        copies: list[tuple[str, str]] = []
        for name in sorted(os.listdir(local)):
            path = os.path.join(local, name)
            if name.endswith(".sst"):
                sizes[name] = os.path.getsize(path)
                target = self._confirmed.get(name)
                if target is None:
                    target = os.path.join(
                        self.shared_dir, f"{self.backend_id}-{uuid.uuid4().hex[:12]}-{name}"
                    )
                    copies.append((path, target))
                shared[name] = target
            else:
                with open(path, "rb") as f:
                    private[name] = f.read()
        self._referenced[checkpoint_id] = shared
        self._latest_incremental = checkpoint_id
        return IncrementalKeyedStateHandle(
            backend_id=self.backend_id,
            checkpoint_id=checkpoint_id,
            key_groups=(self.key_group_range.start, self.key_group_range.end),
            states=dict(self._kinds),
            shared=shared,
            uploaded=frozenset(target for _, target in copies),
            private=private,
            sizes=sizes,
            pending=PendingUpload(local, copies),
        )

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """Its files may be referenced from now on, if no incremental snapshot was taken since
        (a newer checkpoint that re-uploaded them could complete and release them first)."""
        shared = self._referenced.pop(checkpoint_id, None)
        if shared is not None and checkpoint_id == self._latest_incremental:
            self._confirmed = shared
        for older in [c for c in self._referenced if c < checkpoint_id]:
            del self._referenced[older]

    def restore(self, snapshots: Iterable[Any]) -> None:
        """Restore canonical snapshots or incremental handles: the handle of the same key-group
        range becomes the database itself (its files, not its entries); handles of other
        ranges (rescaling) give their entries of this subtask's key groups, copied as they
        are stored."""
        snapshots = list(snapshots)
        own = (self.key_group_range.start, self.key_group_range.end)
        if (
            len(snapshots) == 1
            and isinstance(snapshots[0], IncrementalKeyedStateHandle)
            and snapshots[0].key_groups == own
        ):
            self._restore_files(snapshots[0])
            return
        self.clear_all()
        for snapshot in snapshots:
            if isinstance(snapshot, IncrementalKeyedStateHandle):
                self._copy_key_groups(snapshot)
            else:
                self._restore_canonical(snapshot)

    def _restore_files(self, handle: IncrementalKeyedStateHandle) -> None:
        self._close()
        shutil.rmtree(self.path, ignore_errors=True)
        materialize(handle, self.path)
        self._open()
        for name, kind in handle.states.items():
            self._register(name, kind)
        for name in self._kinds:
            self._new_state_storage(name, self._kinds[name])
        for name, state in self._states.items():
            state._column = self._columns[name]
        shared_dir = self.shared_dir
        if shared_dir is not None and all(
            os.path.dirname(path) == shared_dir for path in handle.shared.values()
        ):
            # this job's own files (a restart): the next checkpoint uploads only new ones
            self._confirmed = dict(handle.shared)
            self._latest_incremental = handle.checkpoint_id

    def _copy_key_groups(self, handle: IncrementalKeyedStateHandle) -> None:
        """The entries of this subtask's key groups in ``handle``, copied into this instance."""
        first = max(self.key_group_range.start, handle.key_groups[0])
        last = min(self.key_group_range.end, handle.key_groups[1])
        if first > last:
            return
        directory = os.path.join(self.instance_dir, f"restore-{uuid.uuid4().hex[:12]}")
        try:
            materialize(handle, directory)
            families = {name: self._options for name in rocksdict.Rdict.list_cf(directory, self._options)}
            families.pop("default", None)
            source = rocksdict.Rdict(directory, self._options, column_families=families or None)
            try:
                start, end = first.to_bytes(2, "big"), (last + 1).to_bytes(2, "big")
                for name, kind in handle.states.items():
                    self._register(name, kind)
                    if f"state-{name}" in families:
                        _copy_range(source.get_column_family(f"state-{name}"), self, name, start, end)
            finally:
                source.close()
        finally:
            shutil.rmtree(directory, ignore_errors=True)

    def approximate_size(self) -> int:
        """Bytes of the instance's files on disk."""
        total = 0
        for root, _dirs, files in os.walk(self.path):
            for file in files:
                with contextlib.suppress(OSError):
                    total += os.path.getsize(os.path.join(root, file))
        return total


_UNSET = object()
_COPY_BATCH = 10_000


class SnapshotAbortedError(Exception):
    """A full snapshot could not be read: its backend was disposed (the task ended)."""


class _FullSnapshot(DeferredSnapshot):
    """A full snapshot of a RocksDB instance, taken on the task thread at the barrier as a
    RocksDB checkpoint (memtables flushed, files hard-linked: cheap) and read into the
    canonical form later, where it is pickled (the checkpoint I/O thread), as Flink's
    asynchronous full snapshot. (A RocksDB snapshot object would do, but rocksdict's snapshot
    iterators do not read at the snapshot.)"""

    def __init__(self, backend: RocksDBKeyedStateBackend) -> None:
        self._backend = backend
        self._kinds = dict(backend._kinds)
        self._loads = {name: backend._loads_of(name) for name in self._kinds}
        self._ttls = {name: backend._ttl_of(name) for name in self._kinds}
        self._now = backend.now_ms()
        self._result: KeyedStateSnapshot | None = None
        self._dir: str | None = os.path.join(backend.instance_dir, f"full-{uuid.uuid4().hex[:12]}")
        rocksdict.Checkpoint(backend.db).create_checkpoint(self._dir)
        backend._full_snapshots.add(self)

    def release(self) -> None:
        """Delete the local checkpoint (read, or no longer wanted)."""
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __del__(self) -> None:
        self.release()

    def materialize(self) -> KeyedStateSnapshot:
        """Read every entry of the snapshot (once; the local checkpoint is deleted)."""
        if self._result is not None:
            return self._result
        backend = self._backend
        with backend._reading:
            if backend._disposed or self._dir is None:
                raise SnapshotAbortedError(f"state of '{backend.name}' was disposed while it was snapshotted")
            options = backend._options
            families = {f"state-{name}": options for name in self._kinds}
            reader = rocksdict.Rdict(
                self._dir,
                options,
                column_families=families or None,
                access_type=rocksdict.AccessType.read_only(),
            )
            try:
                columns = {name: reader.get_column_family(f"state-{name}") for name in self._kinds}

                def entries_of(name: str) -> Iterable[tuple[int, Any, Any, Any]]:
                    return backend._entries(name, columns[name], self._loads[name])

                self._result = canonical_snapshot(
                    self._kinds, entries_of, self._ttls, self._now, backend._first_group
                )
            finally:
                columns = {}
                reader.close()
                del reader
                self.release()
        return self._result


def _copy_range(source: Any, backend: RocksDBKeyedStateBackend, name: str, start: bytes, end: bytes) -> None:
    """Entries of ``source`` (a column family) with keys in [start, end) into state ``name``."""
    handle = backend.db.get_column_family_handle(f"state-{name}")
    column = backend.column(name)
    iterator = source.iter()
    iterator.seek(start)
    batch = rocksdict.WriteBatch(raw_mode=True)
    count = 0
    while iterator.valid():
        key = iterator.key()
        if key >= end:
            break
        batch.put(key, iterator.value(), handle)
        count += 1
        if count % _COPY_BATCH == 0:
            column.write(batch)
            batch = rocksdict.WriteBatch(raw_mode=True)
        iterator.next()
    column.write(batch)
    del iterator


def read_canonical(handle: IncrementalKeyedStateHandle, key_groups: Any) -> KeyedStateSnapshot:
    """The entries of ``key_groups`` in an incremental handle, in the canonical form (a heap
    backend restoring a RocksDB checkpoint), read through a temporary instance."""
    reader = RocksDBKeyedStateBackend(
        handle.key_groups[1] + 1,
        KeyGroupRange(*handle.key_groups),
        settings=StateBackendSettings(type="rocksdb"),
        name="restore",
    )
    try:
        reader._restore_files(handle)
        snapshot = reader.snapshot()
    finally:
        reader.dispose()
    groups = {g: entries for g, entries in snapshot.groups.items() if g in key_groups}
    return KeyedStateSnapshot(snapshot.states, groups)


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
                items = [loads(item) for item in _frames(raw_value)]
                live = live_stored_value("list", items, ttl, now)
                if live is None:
                    state._column.delete(raw_key)
                elif len(live) != len(items):
                    state._column.put(raw_key, b"".join(_frame(dumps(item)) for item in live))
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
        items = [loads(item) for item in _frames(data)]
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
            self._column.put(db_key, b"".join(_frame(dumps(item)) for item in items))
        else:
            self._column.delete(db_key)

    def add(self, value: Any) -> None:
        """Append ``value``."""
        if value is None:
            raise ValueError("You cannot add null to a ListState.")
        db_key = self._key()
        item = value if self._ttl is None else (value, self._backend.now_ms())
        frame = _frame(self._dumps(item))
        data = self._column.get(db_key)
        self._column.put(db_key, frame if data is None else data + frame)

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
        frames = b"".join(_frame(dumps(item)) for item in items)
        data = self._column.get(db_key)
        self._column.put(db_key, frames if data is None else data + frames)

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
        self._column.delete_range(prefix, _next_prefix(prefix))

    def __iter__(self) -> Iterator[Any]:
        return iter(self.keys())


_ROCKS_STATE_KINDS: dict[str, Any] = {
    "value": RocksValueState,
    "list": RocksListState,
    "map": RocksMapState,
    "reducing": RocksReducingState,
    "aggregating": RocksAggregatingState,
}
