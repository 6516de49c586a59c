"""Choosing a keyed state backend: ``state.backend.type`` hashmap (the default) or rocksdb.

``StateBackendSettings`` (``millstream.graph.state_backend``) is resolved from the job's
configuration when the job is planned (``JobConfig.state_backend``) and reaches every
operator through its OperatorContext;
``create_keyed_state_backend`` builds the backend of one keyed operator subtask. BATCH jobs
always keep keyed state on the heap: their input is sorted by key and state lives for
one key at a time (Flink's BATCH execution ignores the configured backend the same way).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.graph.state_backend import StateBackendSettings
from millstream.runtime.state.heap import HeapKeyedStateBackend
from millstream.runtime.state.key_groups import KeyGroupRange
from millstream.runtime.state.keyed_backend import KeyedStateBackend
from millstream.runtime.state.rocksdb import (
    RocksDBKeyedStateBackend,
    add_task_manager_slots,
    task_manager_slots,
)

__all__ = [
    "StateBackendSettings",
    "add_task_manager_slots",
    "create_keyed_state_backend",
    "task_manager_slots",
]


def create_keyed_state_backend(
    settings: StateBackendSettings,
    max_parallelism: int,
    key_groups: KeyGroupRange,
    key_group: Callable[[Any], int],
    name: str = "",
    batch: bool = False,
    shared_dir: str | None = None,
) -> KeyedStateBackend:
    """The keyed state backend of one operator subtask (``name`` names it in errors and files;
    ``shared_dir``: where RocksDB's incremental checkpoints put their files)."""
    if settings.rocksdb and not batch:
        return RocksDBKeyedStateBackend(
            max_parallelism,
            key_groups,
            key_group=key_group,
            settings=settings,
            name=name,
            shared_dir=shared_dir,
        )
    return HeapKeyedStateBackend(max_parallelism, key_groups, key_group=key_group)
