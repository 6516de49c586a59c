"""Incremental RocksDB checkpoints (Flink's ``IncrementalRemoteKeyedStateHandle``).

A RocksDB instance is a set of immutable SST files plus a few small files that say which
SST files make up the current version (``CURRENT``, ``MANIFEST-*``, ``OPTIONS-*``). An
incremental checkpoint of one operator subtask:

1. synchronous part (task thread, at the barrier): RocksDB's native checkpoint flushes the
   memtables and hard-links the live files into a local directory (cheap: no data is
   copied); the small files are read into the handle;
2. asynchronous part (the TaskManager's checkpoint I/O thread): the SST files that no
   earlier *confirmed* checkpoint of this instance uploaded are copied to the job's shared
   directory ``<checkpoint dir>/<job id>/shared/`` under fresh names; the others are
   referenced where they already are. The local directory is then removed.

The handle names every SST file it needs by its path in the shared directory. A file is
reused only once the checkpoint that uploaded it completed and the instance took no
incremental snapshot since that checkpoint's barrier (otherwise a newer checkpoint, which
re-uploaded the file, could complete and release it while the snapshot referencing it is
pending); the JobManager's ``SharedStateRegistry`` counts the checkpoints that reference
each shared file and deletes it when none is left.

Restoring builds a RocksDB directory from the handle (shared files linked or copied under
their original names, small files written back) and opens it: as the instance itself when
the key-group range is the same, or as a temporary instance whose key-group ranges are
copied (rescaling) or decoded into the canonical form (a heap backend).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "IncrementalKeyedStateHandle",
    "PendingUpload",
    "delete_files",
    "incremental_handles",
    "materialize",
]


@dataclass
class PendingUpload:
    """What the asynchronous part copies: ``(local file, shared path)`` pairs, then the local
    checkpoint directory goes."""

    local_dir: str
    copies: list[tuple[str, str]]

    def run(self) -> list[str]:
        """Copy the new files into the shared directory; returns their paths. On failure the
        files already copied are deleted again and the error is raised."""
        done: list[str] = []
        try:
            for source, target in self.copies:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(source, target)
                done.append(target)
        except BaseException:
            delete_files(done)
            raise
        finally:
            shutil.rmtree(self.local_dir, ignore_errors=True)
        return done

    def discard(self) -> None:
        """The snapshot is not used (the task could not acknowledge it)."""
        shutil.rmtree(self.local_dir, ignore_errors=True)


@dataclass(frozen=True, eq=False)
class IncrementalKeyedStateHandle:
    """One operator subtask's keyed state in an incremental checkpoint.

    ``shared``: SST file name -> its path in the shared directory (every SST file of the
    instance at the checkpoint); ``uploaded``: the paths this checkpoint copied (the others
    were uploaded by an earlier checkpoint); ``private``: the small files' bytes;
    ``states``: state name -> kind (value, list, map, reducing, aggregating).
    """

    backend_id: str
    checkpoint_id: int
    key_groups: tuple[int, int]  # first and last key group of the subtask
    states: dict[str, str]
    shared: dict[str, str]
    uploaded: frozenset[str]
    private: dict[str, bytes]
    sizes: dict[str, int] = field(default_factory=dict)  # SST file name -> bytes
    pending: PendingUpload | None = field(default=None, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["pending"] = None  # the upload happens once, in the process that took it
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def is_empty(self) -> bool:
        """No state was ever written (no SST file)."""
        return not self.shared

    def __bool__(self) -> bool:
        return not self.is_empty()

    @property
    def shared_size(self) -> int:
        """Bytes of the SST files the checkpoint references."""
        return sum(self.sizes.values())

    @property
    def uploaded_size(self) -> int:
        """Bytes of the SST files this checkpoint uploaded (the new ones)."""
        return sum(size for name, size in self.sizes.items() if self.shared[name] in self.uploaded)


def materialize(handle: IncrementalKeyedStateHandle, directory: str) -> None:
    """A RocksDB directory at ``directory`` holding the state of ``handle`` (SST files hard-linked
    from the shared directory where the file system allows, else copied).

    Raises:
        FileNotFoundError: a shared file of the checkpoint is gone.
    """
    os.makedirs(directory, exist_ok=True)
    for name, path in handle.shared.items():
        target = os.path.join(directory, name)
        if not os.path.isfile(path):
            raise FileNotFoundError(
                f"shared state file {path} of checkpoint {handle.checkpoint_id} is missing: the "
                "checkpoint's files were deleted or moved"
            )
        try:
            os.link(path, target)
        except OSError:
            shutil.copyfile(path, target)
    for name, data in handle.private.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)


def incremental_handles(snapshots: Any) -> list[IncrementalKeyedStateHandle]:
    """The incremental handles among a task's operator snapshots (node id -> snapshot)."""
    found = []
    for snapshot in snapshots.values():
        keyed = getattr(snapshot, "keyed", None)
        if isinstance(keyed, IncrementalKeyedStateHandle):
            found.append(keyed)
        elif isinstance(keyed, list):
            found.extend(k for k in keyed if isinstance(k, IncrementalKeyedStateHandle))
    return found


def delete_files(paths: Any) -> None:
    """Remove ``paths`` (missing ones are fine)."""
    for path in paths:
        with contextlib.suppress(OSError):
            os.remove(path)
