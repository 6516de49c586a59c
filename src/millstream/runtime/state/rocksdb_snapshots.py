"""Snapshots of the RocksDB backend: a full snapshot taken as a RocksDB checkpoint at the
barrier (memtables flushed, files hard-linked) and read into the canonical form later, off
the task thread; and the canonical form of an incremental checkpoint's key groups, which a
restore at another parallelism or on the heap backend reads.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import rocksdict

from millstream.runtime.state.keyed_backend import (
    canonical_snapshot,
)
from millstream.runtime.state.snapshot import DeferredSnapshot, KeyedStateSnapshot

if TYPE_CHECKING:
    from millstream.runtime.state.rocksdb import RocksDBKeyedStateBackend

__all__ = ["FullSnapshot", "SnapshotAbortedError", "copy_range"]

_COPY_BATCH = 10_000


class SnapshotAbortedError(Exception):
    """A full snapshot could not be read: its backend was disposed (the task ended)."""


class FullSnapshot(DeferredSnapshot):
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


def copy_range(source: Any, backend: RocksDBKeyedStateBackend, name: str, start: bytes, end: bytes) -> None:
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
