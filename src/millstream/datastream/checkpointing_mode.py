"""CheckpointingMode at PyFlink's import path, ``pyflink.datastream.checkpointing_mode``."""

from millstream.datastream.checkpoint_config import CheckpointingMode

__all__ = ["CheckpointingMode"]
