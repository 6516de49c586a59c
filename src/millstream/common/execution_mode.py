"""RuntimeExecutionMode, as ``pyflink.datastream.RuntimeExecutionMode``."""

from enum import Enum

__all__ = ["RuntimeExecutionMode"]


class RuntimeExecutionMode(Enum):
    """STREAMING (the default), BATCH (bounded inputs), or AUTOMATIC (BATCH if all bounded)."""

    STREAMING = 0
    BATCH = 1
    AUTOMATIC = 2
