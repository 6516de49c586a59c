"""Checkpoint storage: where completed checkpoints live (Flink's FileSystemCheckpointStorage).

Layout under ``execution.checkpointing.dir``, as Flink's::

    <dir>/<job id>/chk-<n>/_metadata     the completed checkpoint (written last, atomically)
    <dir>/<job id>/chk-<n>/...            the tasks' state files (written by the tasks)

Each task writes its snapshot to a state file in the checkpoint's directory (off its task
thread: the task goes on processing while the file is written) and acknowledges with a
``FileStateHandle``; the metadata holds the handles. A checkpoint exists once its
``_metadata`` does: it is written to a temporary name and renamed, so a crash never
leaves a half-written checkpoint that looks complete. The
metadata is versioned (``METADATA_VERSION``); a reader refuses versions it does not know.
``InMemoryCheckpointStorage`` keeps completed checkpoints in the JobManager only (no
directory configured: recovery within the job's lifetime, nothing retained after it).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import uuid
from dataclasses import dataclass, field
from typing import Any, Protocol

import cloudpickle

from millstream.runtime.state.snapshot import DeferredSnapshot

__all__ = [
    "METADATA_VERSION",
    "CheckpointStorage",
    "CompletedCheckpoint",
    "FileStateHandle",
    "FileSystemCheckpointStorage",
    "InMemoryCheckpointStorage",
    "SerializedState",
    "complete_task_state",
    "create_savepoint_directory",
    "dumps_task_state",
    "inline_task_state",
    "load_completed_checkpoint",
    "loads_task_state",
    "resolve_state",
    "shared_state_directory",
    "state_size",
    "write_savepoint_metadata",
    "write_state_file",
    "write_task_state",
]

METADATA_VERSION = 1
METADATA_FILE = "_metadata"
SHARED_DIR = "shared"


@dataclass(frozen=True)
class FileStateHandle:
    """A task's snapshot in a state file of a checkpoint's directory.

    ``shared``: the files of the job's shared directory the snapshot references (RocksDB's
    incremental checkpoints), ``uploaded``: those of them this checkpoint wrote (the others
    were written by an earlier checkpoint and must still be registered); ``shared_size`` and
    ``uploaded_size``: their bytes.
    """

    path: str
    size: int
    shared: frozenset[str] = frozenset()
    uploaded: frozenset[str] = frozenset()
    shared_size: int = 0
    uploaded_size: int = 0

    def load(self) -> Any:
        """The snapshot (the file is on storage every TaskManager and the JobManager reach)."""
        with open(self.path, "rb") as f:
            version, state = pickle.load(f)
        if version != METADATA_VERSION:
            raise ValueError(
                f"{self.path}: state file version {version}, this millstream reads {METADATA_VERSION}"
            )
        return state


@dataclass(frozen=True)
class SerializedState:
    """A task's pickled snapshot, kept in the JobManager (no checkpoint directory)."""

    data: bytes


def write_task_state(
    directory: str, job_id: str, checkpoint_id: int, name: str, state: bytes
) -> FileStateHandle | None:
    """Write a task's pickled snapshot into the checkpoint's directory (atomically); None when
    the directory is gone (the checkpoint was aborted meanwhile)."""
    checkpoint_dir = os.path.join(directory.removeprefix("file://"), job_id, f"chk-{checkpoint_id}")
    return write_state_file(checkpoint_dir, name, state)


def shared_state_directory(job_config: Any, job_id: str) -> str | None:
    """``<checkpoint dir>/<job id>/shared``: where state files that several checkpoints of a
    job reference live (Flink's layout); None when the job keeps no checkpoints in a directory."""
    if not job_config.takes_checkpoints or not job_config.checkpointing_dir:
        return None
    return os.path.join(
        os.path.abspath(job_config.checkpointing_dir.removeprefix("file://")), job_id, SHARED_DIR
    )


def write_state_file(checkpoint_dir: str, name: str, state: bytes) -> FileStateHandle | None:
    """Write a task's pickled snapshot as ``name`` in ``checkpoint_dir`` (a checkpoint's or a
    savepoint's directory), atomically; None when the directory is gone (aborted meanwhile)."""
    if not os.path.isdir(checkpoint_dir):
        return None
    path = os.path.join(checkpoint_dir, name)
    temporary = f"{path}.inprogress"
    try:
        with open(temporary, "wb") as f:
            pickle.dump((METADATA_VERSION, state), f, protocol=pickle.HIGHEST_PROTOCOL)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except FileNotFoundError:
        return None  # the directory went away while writing
    return FileStateHandle(path, os.path.getsize(path))


def create_savepoint_directory(directory: str, job_id: str) -> str:
    """A new savepoint's directory under ``directory``: ``savepoint-<job id prefix>-<random>``
    (Flink's naming); it will hold the tasks' state files and the ``_metadata``."""
    base = directory.removeprefix("file://")
    path = os.path.join(base, f"savepoint-{job_id[:6]}-{uuid.uuid4().hex[:12]}")
    os.makedirs(path)
    return os.path.abspath(path)


def write_savepoint_metadata(path: str, checkpoint: CompletedCheckpoint) -> None:
    """Make the savepoint at ``path`` complete: its ``_metadata``, written atomically."""
    checkpoint.external_pointer = path
    checkpoint.is_savepoint = True
    _write_metadata_file(path, checkpoint)


def _write_metadata_file(path: str, checkpoint: CompletedCheckpoint) -> None:
    temporary = os.path.join(path, f".{METADATA_FILE}.inprogress")
    with open(temporary, "wb") as f:
        pickle.dump((METADATA_VERSION, checkpoint), f, protocol=pickle.HIGHEST_PROTOCOL)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, os.path.join(path, METADATA_FILE))


@dataclass(frozen=True)
class _DeferredRef:
    """Where a deferred keyed snapshot goes back (its index among the task's deferred ones)."""

    index: int


@dataclass(frozen=True)
class _WithDeferred:
    """A task's state whose keyed snapshots were read after the rest was pickled."""

    main: bytes
    parts: list[Any]


def dumps_task_state(snapshots: dict[int, Any]) -> tuple[bytes, list[DeferredSnapshot]]:
    """A task's operator snapshots pickled now (on the task thread: they may hold the live
    state's objects), except the deferred keyed snapshots (asynchronous ones), returned to be
    read later by ``complete_task_state``."""
    deferred: list[DeferredSnapshot] = []
    replaced = snapshots
    for node_id, snapshot in snapshots.items():
        keyed = getattr(snapshot, "keyed", None)
        if isinstance(keyed, DeferredSnapshot):
            if replaced is snapshots:
                replaced = dict(snapshots)
            replaced[node_id] = snapshot._replace(keyed=_DeferredRef(len(deferred)))
            deferred.append(keyed)
    return cloudpickle.dumps(replaced, protocol=pickle.HIGHEST_PROTOCOL), deferred


def complete_task_state(main: bytes, deferred: list[DeferredSnapshot]) -> bytes:
    """The task's state with its deferred snapshots read (the checkpoint I/O thread)."""
    if not deferred:
        return main
    parts = [snapshot.materialize() for snapshot in deferred]
    return pickle.dumps(_WithDeferred(main, parts), protocol=pickle.HIGHEST_PROTOCOL)


def loads_task_state(data: bytes) -> Any:
    """A task's operator snapshots from ``dumps_task_state`` / ``complete_task_state``'s bytes."""
    state = pickle.loads(data)
    if not isinstance(state, _WithDeferred):
        return state
    snapshots = pickle.loads(state.main)
    for node_id, snapshot in snapshots.items():
        keyed = getattr(snapshot, "keyed", None)
        if isinstance(keyed, _DeferredRef):
            snapshots[node_id] = snapshot._replace(keyed=state.parts[keyed.index])
    return snapshots


def resolve_state(state: Any) -> Any:
    """A task's snapshots, loaded from their state file if ``state`` is a handle."""
    if isinstance(state, FileStateHandle):
        return loads_task_state(state.load())
    if isinstance(state, SerializedState):
        return loads_task_state(state.data)
    return state


def inline_task_state(task_state: Any) -> Any:
    """``(task key, snapshots or handle)`` with the snapshots loaded (so the state outlives
    the checkpoint directory it was written to)."""
    if isinstance(task_state, tuple) and len(task_state) == 2:
        return (task_state[0], resolve_state(task_state[1]))
    return task_state


def state_size(task_state: Any, full: bool = False) -> int:
    """Bytes a task's acknowledged state wrote for this checkpoint (its file, or its pickled
    form, and the shared files it uploaded: Flink's checkpointed size); ``full``: with every
    shared file it references (Flink's full checkpoint size)."""
    if isinstance(task_state, tuple) and len(task_state) == 2:
        if isinstance(task_state[1], FileStateHandle):
            handle = task_state[1]
            return handle.size + (handle.shared_size if full else handle.uploaded_size)
        if isinstance(task_state[1], SerializedState):
            return len(task_state[1].data)
    return len(pickle.dumps(task_state, protocol=pickle.HIGHEST_PROTOCOL))


@dataclass
class CompletedCheckpoint:
    """A checkpoint every task acknowledged: what a restart restores."""

    job_id: str
    checkpoint_id: int
    timestamp: int  # when it was triggered (ms)
    completion_timestamp: int
    task_states: dict[str, Any] = field(default_factory=dict)  # attempt id -> snapshot (or its handle)
    external_pointer: str | None = None  # the chk-<n> directory, for file storage
    # stream node id -> the operator's state id (its uid, or its node id): how a changed
    # program finds an operator's state (``restore.py``)
    operator_ids: dict[int, str] = field(default_factory=dict)
    max_parallelisms: dict[int, int] = field(default_factory=dict)  # node id -> its key groups
    is_savepoint: bool = False  # a savepoint: owned by the user, never discarded by the job
    # operator state id -> its coordinator's state (a source enumerator's unassigned splits)
    coordinator_states: dict[str, Any] = field(default_factory=dict)

    def task_snapshots(self) -> list[tuple[Any, Any]]:
        """``(task key, {node id: snapshot})`` of every task, state files loaded."""
        return [inline_task_state(state) for state in self.task_states.values()]


class CheckpointStorage(Protocol):
    """Where the coordinator puts checkpoints."""

    def initialize_location(self, job_id: str, checkpoint_id: int) -> str | None:
        """Prepare the place of a new checkpoint; returns its pointer (None: in memory)."""
        ...

    def write_metadata(self, checkpoint: CompletedCheckpoint) -> None:
        """Make ``checkpoint`` durable (after this it exists)."""
        ...

    def discard(self, checkpoint: CompletedCheckpoint) -> None:
        """A completed checkpoint is no longer retained."""
        ...

    def discard_location(self, job_id: str, checkpoint_id: int) -> None:
        """An aborted checkpoint's files go away."""
        ...

    def discard_shared(self, job_id: str) -> None:
        """No checkpoint of the job is retained: its shared directory goes if it is empty."""
        """No checkpoint of the job is retained: its shared directory goes, orphans included."""


class InMemoryCheckpointStorage:
    """Completed checkpoints only in the JobManager (no directory configured)."""

    def initialize_location(self, job_id: str, checkpoint_id: int) -> str | None:
        """Nothing to prepare."""
        return None

    def write_metadata(self, checkpoint: CompletedCheckpoint) -> None:
        """Kept by the coordinator itself."""

    def discard(self, checkpoint: CompletedCheckpoint) -> None:
        """Nothing to delete."""

    def discard_location(self, job_id: str, checkpoint_id: int) -> None:
        """Nothing to delete."""

    def discard_shared(self, job_id: str) -> None:
        """Nothing to delete."""


class FileSystemCheckpointStorage:
    """Checkpoints in a directory (``execution.checkpointing.dir``; ``file://`` accepted)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory.removeprefix("file://")

    def checkpoint_dir(self, job_id: str, checkpoint_id: int) -> str:
        """``<dir>/<job id>/chk-<n>``."""
        return os.path.join(self.directory, job_id, f"chk-{checkpoint_id}")

    def initialize_location(self, job_id: str, checkpoint_id: int) -> str | None:
        """Create the checkpoint's directory."""
        path = self.checkpoint_dir(job_id, checkpoint_id)
        os.makedirs(path, exist_ok=True)
        return path

    def write_metadata(self, checkpoint: CompletedCheckpoint) -> None:
        """Write ``_metadata`` atomically (temporary file, fsync, rename)."""
        path = self.checkpoint_dir(checkpoint.job_id, checkpoint.checkpoint_id)
        os.makedirs(path, exist_ok=True)
        checkpoint.external_pointer = path
        _write_metadata_file(path, checkpoint)

    def discard(self, checkpoint: CompletedCheckpoint) -> None:
        """Delete a checkpoint no longer retained."""
        self.discard_location(checkpoint.job_id, checkpoint.checkpoint_id)

    def discard_location(self, job_id: str, checkpoint_id: int) -> None:
        """Delete the checkpoint's directory: its ``_metadata`` first (as Flink discards a
        completed checkpoint's metadata before its state), so nothing reading the job's
        directory takes it for a completed checkpoint meanwhile. It is then renamed out of
        the way before the rest goes: a task still writing its state file (an abort racing
        the task's write) finds no directory (``write_state_file`` gives up), where deleting
        in place could leave ``chk-<n>`` behind holding the file written between the listing
        and the final rmdir."""
        path = self.checkpoint_dir(job_id, checkpoint_id)
        with contextlib.suppress(FileNotFoundError):  # first: it no longer looks completed
            os.remove(os.path.join(path, METADATA_FILE))
        doomed = os.path.join(os.path.dirname(path), f".discarded-chk-{checkpoint_id}-{uuid.uuid4().hex[:8]}")
        try:
            os.rename(path, doomed)
        except FileNotFoundError:
            return
        except OSError:  # a file system that cannot rename a directory: delete it in place
            doomed = path
        shutil.rmtree(doomed, ignore_errors=True)

    def discard_shared(self, job_id: str) -> None:
        """Remove ``<dir>/<job id>/shared`` with whatever is left in it: called once no
        checkpoint of the job is retained, so a file still there is an orphan (uploaded for a
        checkpoint whose acknowledgement never came, e.g. its TaskManager was killed)."""
        shutil.rmtree(os.path.join(self.directory, job_id, SHARED_DIR), ignore_errors=True)


def load_completed_checkpoint(path: str) -> CompletedCheckpoint:
    """The checkpoint at ``path``: a ``chk-<n>`` directory, its ``_metadata`` file, or a job's
    checkpoint directory (its newest completed checkpoint).

    Raises:
        FileNotFoundError: no completed checkpoint there.
        ValueError: a metadata version this millstream does not know.
    """
    path = path.removeprefix("file://")
    if os.path.isdir(path) and not os.path.isfile(os.path.join(path, METADATA_FILE)):
        completed = [
            name
            for name in os.listdir(path)
            if name.startswith("chk-")
            and name[4:].isdigit()
            and os.path.isfile(os.path.join(path, name, METADATA_FILE))
        ]
        if completed:
            path = os.path.join(path, max(completed, key=lambda name: int(name[4:])))
    metadata = path if os.path.basename(path) == METADATA_FILE else os.path.join(path, METADATA_FILE)
    if not os.path.isfile(metadata):
        raise FileNotFoundError(f"no completed checkpoint at {path} (missing {METADATA_FILE})")
    with open(metadata, "rb") as f:
        version, checkpoint = pickle.load(f)
    if version != METADATA_VERSION:
        raise ValueError(
            f"{metadata}: checkpoint metadata version {version}, this millstream reads {METADATA_VERSION}"
        )
    return checkpoint
