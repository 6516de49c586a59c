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
and are snapshotted with the operator. The states themselves are in ``rocksdb_states.py``,
full snapshots in ``rocksdb_snapshots.py``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
import uuid
import weakref
from collections.abc import Iterable
from typing import Any

import psutil
import rocksdict

from millstream.graph.state_backend import StateBackendSettings
from millstream.runtime.state.incremental import IncrementalKeyedStateHandle, PendingUpload, materialize
from millstream.runtime.state.key_groups import KeyGroupRange
from millstream.runtime.state.keyed_backend import (
    VOID_NAMESPACE,
    KeyedStateBackend,
    KeyedStateError,
)
from millstream.runtime.state.rocksdb_snapshots import FullSnapshot, copy_range
from millstream.runtime.state.rocksdb_states import STATE_KINDS, frame, frames
from millstream.runtime.state.serialization import decode_key, encode_key, value_codec
from millstream.runtime.state.snapshot import KeyedStateSnapshot

__all__ = ["RocksDBKeyedStateBackend", "add_task_manager_slots", "read_canonical", "task_manager_slots"]

_NAMESPACE_CACHE_LIMIT = 4096

# -- memory shared by every instance of the process ------------------------------------------

_slots = [0]  # slots of the TaskManagers of this process: RocksDB's memory is fixed per slot


def add_task_manager_slots(slots: int) -> None:
    """A TaskManager of ``slots`` slots runs in this process (one per process, or several
    in an embedded cluster's threads)."""
    _slots[0] += max(0, int(slots))


def task_manager_slots() -> int:
    """The slots of the TaskManagers of this process (at least 1)."""
    return max(1, _slots[0])


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
        self._full_snapshots: weakref.WeakSet[FullSnapshot] = weakref.WeakSet()  # not yet read

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
        return STATE_KINDS[kind](self, name, kind, descriptor)

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
                yield group, key, namespace, [loads(item) for item in frames(raw_value)]
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
                batch.put(prefix, b"".join(frame(dumps(item)) for item in stored), handle)
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
            return FullSnapshot(self)
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
                        copy_range(source.get_column_family(f"state-{name}"), self, name, start, end)
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
