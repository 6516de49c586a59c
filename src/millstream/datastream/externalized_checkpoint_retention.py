"""ExternalizedCheckpointRetention at PyFlink's import path,
``pyflink.datastream.externalized_checkpoint_retention``."""

from millstream.datastream.checkpoint_config import ExternalizedCheckpointRetention

__all__ = ["ExternalizedCheckpointRetention"]
