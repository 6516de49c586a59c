"""The options of state backends: Flink's keys (``state.backend.*``), defaults and bounds.

``env.set_state_backend(...)`` (PyFlink 1.x) and the ``state.backend.type`` key (Flink 2)
are one thing: the environment writes the backend's settings into its Configuration.
"""

from __future__ import annotations

from millstream.common.config_option import ConfigOption, ConfigurationError

__all__ = [
    "ROCKSDB_LOCAL_DIR",
    "ROCKSDB_MEMORY_FIXED_PER_SLOT",
    "ROCKSDB_MEMORY_FIXED_PER_TM",
    "ROCKSDB_WRITE_BUFFER_RATIO",
    "STATE_BACKEND_INCREMENTAL",
    "STATE_BACKEND_TYPE",
    "backend_type_name",
]

STATE_BACKEND_TYPE: ConfigOption[str] = ConfigOption(
    "state.backend.type",
    "hashmap",
    str,
    "Where keyed state lives: hashmap (Python objects on the heap) or rocksdb (an embedded "
    "RocksDB per operator subtask, on local disk; state may outgrow memory).",
    choices=("hashmap", "rocksdb", "heap", "filesystem", "jobmanager"),
    fallback_keys=("state.backend",),
)
STATE_BACKEND_INCREMENTAL: ConfigOption[bool] = ConfigOption(
    "state.backend.incremental",
    False,
    bool,
    "RocksDB: checkpoints upload only the SST files that are new since the last checkpoint; "
    "files shared by retained checkpoints are reference-counted.",
)
ROCKSDB_LOCAL_DIR: ConfigOption[str] = ConfigOption(
    "state.backend.rocksdb.localdir",
    "",
    str,
    "Directory of the RocksDB instances' working files (default: the system's temp directory).",
)
ROCKSDB_MEMORY_FIXED_PER_SLOT: ConfigOption[int] = ConfigOption(
    "state.backend.rocksdb.memory.fixed-per-slot",
    128 << 20,
    int,
    "Memory that the RocksDB instances of one slot share (block cache and write buffers): what "
    "bounds the memory of RocksDB state, whatever the number of keys.",
    unit="bytes",
    minimum=1 << 20,
)
ROCKSDB_MEMORY_FIXED_PER_TM: ConfigOption[int] = ConfigOption(
    "state.backend.rocksdb.memory.fixed-per-tm",
    0,
    int,
    "Memory that every RocksDB instance of a TaskManager shares (0: fixed-per-slot times the "
    "TaskManager's slots).",
    unit="bytes",
    minimum=0,
)
ROCKSDB_WRITE_BUFFER_RATIO: ConfigOption[float] = ConfigOption(
    "state.backend.rocksdb.memory.write-buffer-ratio",
    0.5,
    float,
    "Share of the RocksDB memory that write buffers (memtables) may take; the rest is block cache.",
)

_TYPE_NAMES = {
    "hashmap": "hashmap",
    "heap": "hashmap",
    "filesystem": "hashmap",  # Flink 1.x's FsStateBackend / MemoryStateBackend names
    "jobmanager": "hashmap",
    "rocksdb": "rocksdb",
}


def backend_type_name(value: str) -> str:
    """``hashmap`` or ``rocksdb`` for a ``state.backend.type`` value.

    Raises:
        ConfigurationError: a backend millstream does not have.
    """
    name = _TYPE_NAMES.get(value.strip().lower())
    if name is None:
        raise ConfigurationError(f"state.backend.type: '{value}' is not a state backend (hashmap or rocksdb)")
    return name
