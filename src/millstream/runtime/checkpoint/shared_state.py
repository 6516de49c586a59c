"""SharedStateRegistry: which checkpoints reference each shared state file (Flink's).

RocksDB's incremental checkpoints put SST files in the job's shared directory, and a file
stays referenced by every later checkpoint of its instance while the file is live in
RocksDB. The coordinator registers a task's references when the task acknowledges (a
pending checkpoint holds its files as a completed one does) and releases them when the
checkpoint is aborted or no longer retained; a file no checkpoint references is deleted.

A task may reference a file uploaded by an earlier checkpoint only while that file is
registered: if it is not (the checkpoint that uploaded it is gone), the acknowledgement is
refused and the checkpoint declined, rather than completing a checkpoint that could not be
restored.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from typing import Any

from millstream.runtime.checkpoint.storage import FileStateHandle

__all__ = ["SharedStateRegistry", "shared_references"]


def shared_references(task_state: Any) -> tuple[frozenset[str], frozenset[str]]:
    """``(every shared file, those uploaded by this checkpoint)`` of an acknowledged state
    (a handle, or the JobMaster's ``(task key, handle)``)."""
    if isinstance(task_state, tuple) and len(task_state) == 2:
        task_state = task_state[1]
    if isinstance(task_state, FileStateHandle):
        return task_state.shared, task_state.uploaded
    return frozenset(), frozenset()


class SharedStateRegistry:
    """Reference counts of shared state files (on the JobMaster's main thread)."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._counts)

    def __contains__(self, path: object) -> bool:
        return path in self._counts

    def register(self, task_state: Any) -> str | None:
        """Count one more reference to every file of ``task_state``; returns why it cannot be
        registered (a file it reuses is no longer registered), registering nothing then."""
        shared, uploaded = shared_references(task_state)
        missing = sorted(path for path in shared - uploaded if path not in self._counts)
        if missing:
            return (
                f"the state references {len(missing)} shared file(s) no retained checkpoint holds "
                f"(e.g. {missing[0]})"
            )
        for path in shared:
            self._counts[path] = self._counts.get(path, 0) + 1
        return None

    def release(self, task_states: Iterable[Any]) -> None:
        """One reference less to every file of each state; files left unreferenced are deleted."""
        for task_state in task_states:
            shared, _ = shared_references(task_state)
            for path in shared:
                count = self._counts.get(path, 0) - 1
                if count > 0:
                    self._counts[path] = count
                    continue
                self._counts.pop(path, None)
                with contextlib.suppress(OSError):
                    os.remove(path)

    def discard_unregistered(self, task_state: Any) -> None:
        """A state that is not kept (a late acknowledgement): the files it uploaded go, unless
        something registered them."""
        _, uploaded = shared_references(task_state)
        for path in uploaded:
            if path not in self._counts:
                with contextlib.suppress(OSError):
                    os.remove(path)
