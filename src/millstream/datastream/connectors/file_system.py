"""``pyflink.datastream.connectors.file_system`` names."""

from millstream.connectors.file import (
    BucketAssigner,
    BulkFormat,
    FileSink,
    FileSource,
    FileSourceBuilder,
    OutputFileConfig,
    RollingPolicy,
    StreamFormat,
)

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
