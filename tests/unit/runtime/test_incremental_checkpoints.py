"""RocksDB's incremental checkpoints: only new SST files are uploaded, a handle restores
exactly the state it was taken of (as the database itself, into another key-group range, or
into the heap), files are reused only when safe, and the JobManager's registry deletes a
shared file once no checkpoint references it."""

from __future__ import annotations

import os
import pickle
from typing import Any

import pytest

from millstream.datastream.state import ValueStateDescriptor
from millstream.graph.state_backend import StateBackendSettings
from millstream.runtime.checkpoint.shared_state import SharedStateRegistry
from millstream.runtime.checkpoint.storage import FileStateHandle
from millstream.runtime.state.backends import create_keyed_state_backend
from millstream.runtime.state.incremental import IncrementalKeyedStateHandle
from millstream.runtime.state.key_groups import KeyGroupRange, compute_key_group_range, key_group_function
from tests.unit.runtime.test_state_backends import exercise, normalized

INCREMENTAL = StateBackendSettings(type="rocksdb", incremental=True)


def make(kind: str, shared: Any, key_groups: KeyGroupRange | None = None) -> Any:
    settings = INCREMENTAL if kind == "rocksdb" else StateBackendSettings()
    return create_keyed_state_backend(
        settings,
        128,
        key_groups or KeyGroupRange(0, 127),
        key_group_function(128),
        name="test",
        shared_dir=str(shared),
    )


def fill(b: Any, keys: range, tag: str = "") -> None:
    state = b.get_state(ValueStateDescriptor("v"))
    for key in keys:
        b.set_current_key(key)
        state.update(f"{tag}{key}" * 10)


def checkpoint(b: Any, checkpoint_id: int) -> IncrementalKeyedStateHandle:
    """The synchronous part, then the upload (the I/O thread's part); the handle as it is stored."""
    handle = b.checkpoint_snapshot(checkpoint_id, canonical=False)
    assert isinstance(handle, IncrementalKeyedStateHandle) and handle.pending is not None
    uploaded = handle.pending.run()
    assert set(uploaded) == set(handle.uploaded)
    assert not os.path.exists(handle.pending.local_dir)
    return pickle.loads(pickle.dumps(handle))


def test_only_new_files_are_uploaded_and_a_handle_restores_its_state(tmp_path) -> None:
    b = make("rocksdb", tmp_path / "shared")
    try:
        exercise(b)
        fill(b, range(5000))
        first = checkpoint(b, 1)
        assert first.uploaded == frozenset(first.shared.values()) and first.uploaded
        b.notify_checkpoint_complete(1)
        fill(b, range(5000, 5100), "new")
        second = checkpoint(b, 2)
        expected = normalized(b.snapshot())
        reused = set(second.shared.values()) - second.uploaded
        assert reused and reused <= set(first.shared.values())  # the old files, referenced
        assert second.uploaded and second.uploaded_size < second.shared_size / 2
        assert all(os.path.isfile(path) for path in second.shared.values())
    finally:
        b.dispose()
    for kind in ("rocksdb", "hashmap"):
        restored = make(kind, tmp_path / "shared")
        try:
            restored.restore([second])
            assert normalized(restored.snapshot()) == expected
        finally:
            restored.dispose()
    # the handle's files are only read: the shared directory is as the checkpoints left it
    assert all(os.path.isfile(path) for path in second.shared.values())


def test_handles_are_rescaled_by_key_group_range(tmp_path) -> None:
    halves = [compute_key_group_range(128, 2, i) for i in range(2)]
    handles, parts = [], []
    for index, own in enumerate(halves):
        b = make("rocksdb", tmp_path / "shared", own)
        try:
            keys = [k for k in range(3000) if b._key_group(k) in own]
            fill(b, range(0))
            state = b.get_state(ValueStateDescriptor("v"))
            for key in keys:
                b.set_current_key(key)
                state.update(key * 2)
            handles.append(checkpoint(b, 1))
            parts.append(normalized(b.snapshot()))
        finally:
            b.dispose()
        assert index < 2
    merged_groups = {**parts[0][1], **parts[1][1]}
    for kind in ("rocksdb", "hashmap"):
        whole = make(kind, tmp_path / "shared")  # 2 -> 1
        try:
            whole.restore(handles)
            assert normalized(whole.snapshot())[1] == merged_groups
        finally:
            whole.dispose()
        for index in range(3):  # 2 -> 3
            own = compute_key_group_range(128, 3, index)
            part = make(kind, tmp_path / "shared", own)
            try:
                part.restore(handles)
                mine = {g: e for g, e in merged_groups.items() if g in own}
                assert normalized(part.snapshot())[1] == mine
            finally:
                part.dispose()


def test_files_are_reused_only_from_a_completed_checkpoint_with_none_taken_since(tmp_path) -> None:
    b = make("rocksdb", tmp_path / "shared")
    try:
        fill(b, range(2000))
        checkpoint(b, 1)
        fill(b, range(2000, 2100))
        checkpoint(b, 2)  # taken before checkpoint 1 completed
        b.notify_checkpoint_complete(1)  # 2 re-uploaded 1's files and may release them: not reused
        third = checkpoint(b, 3)
        assert third.uploaded == frozenset(third.shared.values())
        b.notify_checkpoint_complete(3)
        fill(b, range(2100, 2110))
        fourth = checkpoint(b, 4)
        assert set(fourth.shared.values()) - fourth.uploaded == set(third.shared.values()) & set(
            fourth.shared.values()
        )
        assert set(fourth.shared.values()) - fourth.uploaded
    finally:
        b.dispose()


def test_a_restarted_instance_references_the_files_it_was_restored_from(tmp_path) -> None:
    b = make("rocksdb", tmp_path / "shared")
    try:
        fill(b, range(3000))
        handle = checkpoint(b, 5)
    finally:
        b.dispose()
    same_job = make("rocksdb", tmp_path / "shared")
    other_job = make("rocksdb", tmp_path / "other-job-shared")
    try:
        for restored in (same_job, other_job):
            restored.restore([handle])
            fill(restored, range(3000, 3010), "after")
        after_restart = checkpoint(same_job, 6)
        assert set(handle.shared.values()) <= set(after_restart.shared.values()) - after_restart.uploaded
        # another job (restored with run -s) never references the first job's files
        new_job = checkpoint(other_job, 6)
        assert new_job.uploaded == frozenset(new_job.shared.values())
        assert not set(new_job.shared.values()) & set(handle.shared.values())
    finally:
        same_job.dispose()
        other_job.dispose()


def test_a_savepoint_and_a_finishing_task_get_the_canonical_snapshot(tmp_path) -> None:
    b = make("rocksdb", tmp_path / "shared")
    try:
        fill(b, range(10))
        assert normalized(b.checkpoint_snapshot(1, canonical=True).materialize()) == normalized(b.snapshot())
        assert not os.path.exists(tmp_path / "shared")
    finally:
        b.dispose()


# -- the JobManager's registry ----------------------------------------------------------------


def shared_file(tmp_path: Any, name: str) -> str:
    path = str(tmp_path / name)
    with open(path, "wb") as f:
        f.write(b"sst")
    return path


def ack(shared: list[str], uploaded: list[str]) -> FileStateHandle:
    return FileStateHandle("task-state", 1, frozenset(shared), frozenset(uploaded))


def test_the_registry_deletes_a_file_when_no_checkpoint_references_it(tmp_path) -> None:
    registry = SharedStateRegistry()
    a, b, c = (shared_file(tmp_path, n) for n in "abc")
    first = ack([a, b], [a, b])
    second = ack([b, c], [c])  # b reused
    assert registry.register(first) is None
    assert registry.register(second) is None
    registry.release([first])  # checkpoint 1 subsumed: a goes, b stays
    assert not os.path.exists(a) and os.path.exists(b) and os.path.exists(c)
    registry.release([second])
    assert not os.path.exists(b) and not os.path.exists(c) and len(registry) == 0


def test_a_state_reusing_an_unregistered_file_is_refused(tmp_path) -> None:
    registry = SharedStateRegistry()
    gone, new = shared_file(tmp_path, "gone"), shared_file(tmp_path, "new")
    problem = registry.register(ack([gone, new], [new]))
    assert problem is not None and "no retained checkpoint holds" in problem
    assert len(registry) == 0
    registry.discard_unregistered(ack([gone, new], [new]))  # a refused or late state
    assert not os.path.exists(new) and os.path.exists(gone)


@pytest.mark.parametrize("kind", ["rocksdb"])
def test_a_full_checkpoint_without_a_shared_directory(kind: str, tmp_path) -> None:
    b = create_keyed_state_backend(INCREMENTAL, 128, KeyGroupRange(0, 127), key_group_function(128), name="t")
    try:
        fill(b, range(10))
        assert normalized(b.checkpoint_snapshot(1, canonical=False).materialize()) == normalized(b.snapshot())
    finally:
        b.dispose()


# -- full checkpoints: read asynchronously ----------------------------------------------------


def test_a_full_checkpoint_is_read_later_as_it_was_at_the_barrier(tmp_path) -> None:
    from millstream.runtime.checkpoint.storage import complete_task_state, dumps_task_state, loads_task_state
    from millstream.runtime.state.rocksdb_snapshots import SnapshotAbortedError
    from millstream.runtime.state.snapshot import DeferredSnapshot, OperatorSnapshot

    b = create_keyed_state_backend(
        StateBackendSettings(type="rocksdb"), 128, KeyGroupRange(0, 127), key_group_function(128), name="t"
    )
    try:
        fill(b, range(1000))
        at_barrier = normalized(b.snapshot())
        deferred = b.checkpoint_snapshot(1, canonical=False)
        assert isinstance(deferred, DeferredSnapshot)
        fill(b, range(500, 1500), "after")  # the task goes on before the snapshot is read
        main, parts = dumps_task_state({7: OperatorSnapshot(deferred, extra="x")})
        assert parts == [deferred]
        restored = loads_task_state(complete_task_state(main, parts))  # the I/O thread's part
        assert restored[7].extra == "x" and normalized(restored[7].keyed) == at_barrier
        assert normalized(pickle.loads(pickle.dumps(b.checkpoint_snapshot(2, True)))) == normalized(
            b.snapshot()
        )  # pickled anywhere else, it is read where it is pickled
        unread = b.checkpoint_snapshot(3, canonical=False)
    finally:
        b.dispose()  # releases the unread RocksDB snapshot before closing
    with pytest.raises(SnapshotAbortedError, match="disposed"):
        unread.materialize()
