"""StateBackendSettings: the state backend of one job (``state.backend.*``), carried by its JobConfig."""

from __future__ import annotations

from dataclasses import dataclass

from millstream.common import state_backend_options as sb
from millstream.common.configuration import Configuration

__all__ = ["StateBackendSettings"]


@dataclass(frozen=True, slots=True)
class StateBackendSettings:
    """The state backend of one job."""

    type: str = sb.STATE_BACKEND_TYPE.default  # "hashmap" | "rocksdb"
    incremental: bool = sb.STATE_BACKEND_INCREMENTAL.default
    local_dir: str = sb.ROCKSDB_LOCAL_DIR.default
    memory_per_slot: int = sb.ROCKSDB_MEMORY_FIXED_PER_SLOT.default  # bytes
    memory_per_tm: int = sb.ROCKSDB_MEMORY_FIXED_PER_TM.default  # bytes; 0: per slot
    write_buffer_ratio: float = sb.ROCKSDB_WRITE_BUFFER_RATIO.default

    @property
    def rocksdb(self) -> bool:
        """Whether keyed state lives in RocksDB."""
        return self.type == "rocksdb"

    @classmethod
    def from_configuration(cls, configuration: Configuration) -> StateBackendSettings:
        """The ``state.backend.*`` settings of ``configuration``."""
        return cls(
            type=sb.backend_type_name(configuration.get(sb.STATE_BACKEND_TYPE)),
            incremental=configuration.get(sb.STATE_BACKEND_INCREMENTAL),
            local_dir=configuration.get(sb.ROCKSDB_LOCAL_DIR),
            memory_per_slot=configuration.get(sb.ROCKSDB_MEMORY_FIXED_PER_SLOT),
            memory_per_tm=configuration.get(sb.ROCKSDB_MEMORY_FIXED_PER_TM),
            write_buffer_ratio=float(configuration.get(sb.ROCKSDB_WRITE_BUFFER_RATIO)),
        )
