"""``pyflink.datastream.connectors.file_system`` names."""

from millstream.connectors.file.sink import BucketAssigner, FileSink, OutputFileConfig, RollingPolicy
from millstream.connectors.file.source import BulkFormat, FileSource, FileSourceBuilder, StreamFormat

__all__ = [
    "BucketAssigner",
    "BulkFormat",
    "FileSink",
    "FileSource",
    "FileSourceBuilder",
    "OutputFileConfig",
    "RollingPolicy",
    "StreamFormat",
]
