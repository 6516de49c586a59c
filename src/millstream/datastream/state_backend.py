"""State backends, with PyFlink's names: where keyed state lives while a job runs.

* ``HashMapStateBackend`` (the default): state as Python objects on the heap; fastest,
  bounded by memory.
* ``EmbeddedRocksDBStateBackend``: state in an embedded RocksDB per operator subtask, on
  local disk; memory stays within RocksDB's block cache and write buffers whatever the
  number of keys (``state.backend.rocksdb.memory.*``); incremental checkpoints upload only
  new SST files.

As in Flink 2 a backend is a set of configuration keys (``state.backend.type``,
``state.backend.incremental``, ``state.backend.rocksdb.localdir``):
``env.set_state_backend(backend)`` (PyFlink 1.x's method, gone from 2.x) writes them into
the environment's Configuration, and ``-D state.backend.type=rocksdb`` does the same.
``MemoryStateBackend``, ``FsStateBackend`` and ``RocksDBStateBackend`` are Flink 1.x's
older names, kept for programs written against them.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from millstream.common import state_backend_options as sb
from millstream.common.config_options import CHECKPOINTING_DIR
from millstream.common.configuration import Configuration

__all__ = [
    "CustomStateBackend",
    "EmbeddedRocksDBStateBackend",
    "FsStateBackend",
    "HashMapStateBackend",
    "MemoryStateBackend",
    "PredefinedOptions",
    "RocksDBStateBackend",
    "StateBackend",
    "state_backend_from_configuration",
]


class StateBackend:
    """Where keyed state lives (the base of the backends)."""

    _type = ""

    def _apply_to(self, configuration: Configuration) -> None:
        configuration.set_string(sb.STATE_BACKEND_TYPE.key, self._type)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __hash__(self) -> int:
        return hash(type(self))

    def __str__(self) -> str:
        return f"{type(self).__name__}"


class HashMapStateBackend(StateBackend):
    """Keyed state as objects on the Python heap (Flink's HashMapStateBackend)."""

    _type = "hashmap"


class PredefinedOptions(Enum):
    """Flink's predefined RocksDB tunings; millstream's RocksDB is tuned the same way for each
    (memory is bounded by ``state.backend.rocksdb.memory.*``), the choice is kept."""

    DEFAULT = 0
    SPINNING_DISK_OPTIMIZED = 1
    SPINNING_DISK_OPTIMIZED_HIGH_MEM = 2
    FLASH_SSD_OPTIMIZED = 3


class EmbeddedRocksDBStateBackend(StateBackend):
    """Keyed state in an embedded RocksDB per operator subtask (Flink's EmbeddedRocksDBStateBackend).

    ``enable_incremental_checkpointing``: True or False; None leaves ``state.backend.incremental``
    as configured.
    """

    _type = "rocksdb"

    def __init__(self, enable_incremental_checkpointing: bool | None = None) -> None:
        if enable_incremental_checkpointing not in (None, True, False):
            raise TypeError(
                f"Unsupported input for 'enable_incremental_checkpointing': "
                f"{enable_incremental_checkpointing}, the value of the parameter should be None or "
                "True or False."
            )
        self._incremental = enable_incremental_checkpointing
        self._paths: list[str] = []
        self._predefined = PredefinedOptions.DEFAULT
        self._transfer_threads = 4

    def _apply_to(self, configuration: Configuration) -> None:
        super()._apply_to(configuration)
        if self._incremental is not None:
            configuration.set_string(sb.STATE_BACKEND_INCREMENTAL.key, str(self._incremental).lower())
        if self._paths:
            configuration.set_string(sb.ROCKSDB_LOCAL_DIR.key, self._paths[0])

    def set_db_storage_paths(self, *paths: str) -> None:
        """Local directories for the RocksDB files (the first is used)."""
        self._paths = [str(p).removeprefix("file://") for p in paths]

    def get_db_storage_paths(self) -> list[str]:
        """The configured local directories."""
        return list(self._paths)

    def is_incremental_checkpoints_enabled(self) -> bool:
        """Whether checkpoints upload only new SST files."""
        return bool(self._incremental)

    def set_predefined_options(self, options: PredefinedOptions) -> None:
        """A predefined tuning (kept; see ``PredefinedOptions``)."""
        self._predefined = options

    def get_predefined_options(self) -> PredefinedOptions:
        """The predefined tuning."""
        return self._predefined

    def set_options(self, options_factory_class_name: str) -> None:
        """A Java ``RocksDBOptionsFactory`` class: there is no JVM here."""
        raise NotImplementedError(
            "RocksDB options factories are Java classes; configure millstream's RocksDB with the "
            "state.backend.rocksdb.* options"
        )

    def get_options(self) -> str | None:
        """No options factory is set."""
        return None

    def get_number_of_transfer_threads(self) -> int:
        """Threads that upload and download checkpoint files."""
        return self._transfer_threads

    def set_number_of_transfer_threads(self, number_of_transfering_threads: int) -> None:
        """Threads that upload and download checkpoint files (kept; files are copied by one)."""
        self._transfer_threads = int(number_of_transfering_threads)


class CustomStateBackend(StateBackend):
    """A Java state backend: there is no JVM here."""

    def __init__(self, j_custom_state_backend: Any = None) -> None:
        raise NotImplementedError(
            "custom state backends are Java classes; use HashMapStateBackend or EmbeddedRocksDBStateBackend"
        )


class MemoryStateBackend(HashMapStateBackend):
    """Flink 1.x: state on the heap, checkpoints in the JobManager's memory."""

    def __init__(self, checkpoint_path: str | None = None, **_: Any) -> None:
        self._checkpoint_path = checkpoint_path

    def _apply_to(self, configuration: Configuration) -> None:
        super()._apply_to(configuration)
        if self._checkpoint_path:
            configuration.set_string(CHECKPOINTING_DIR.key, self._checkpoint_path)


class FsStateBackend(MemoryStateBackend):
    """Flink 1.x: state on the heap, checkpoints in files under ``checkpoint_directory_uri``."""

    def __init__(self, checkpoint_directory_uri: str | None = None, **_: Any) -> None:
        super().__init__(checkpoint_directory_uri)


class RocksDBStateBackend(EmbeddedRocksDBStateBackend):
    """Flink 1.x: state in RocksDB, checkpoints in files under ``checkpoint_data_uri``."""

    def __init__(
        self,
        checkpoint_data_uri: str | None = None,
        enable_incremental_checkpointing: bool | None = None,
        **_: Any,
    ) -> None:
        super().__init__(enable_incremental_checkpointing)
        self._checkpoint_path = checkpoint_data_uri

    def _apply_to(self, configuration: Configuration) -> None:
        super()._apply_to(configuration)
        if self._checkpoint_path:
            configuration.set_string(CHECKPOINTING_DIR.key, self._checkpoint_path)


def state_backend_from_configuration(configuration: Configuration) -> StateBackend:
    """The backend ``configuration`` selects."""
    name = sb.backend_type_name(configuration.get(sb.STATE_BACKEND_TYPE))
    if name == "rocksdb":
        backend = EmbeddedRocksDBStateBackend(configuration.get(sb.STATE_BACKEND_INCREMENTAL))
        local = configuration.get(sb.ROCKSDB_LOCAL_DIR)
        if local:
            backend.set_db_storage_paths(local)
        return backend
    return HashMapStateBackend()
