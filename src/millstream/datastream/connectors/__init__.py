"""``pyflink.datastream.connectors`` names."""

from millstream.connectors.base import Sink, Source
from millstream.connectors.datagen import DataGeneratorSource
from millstream.connectors.file import (
    BucketAssigner,
    FileSink,
    FileSource,
    OutputFileConfig,
    RollingPolicy,
    StreamFormat,
)
from millstream.connectors.number_seq import NumberSequenceSource

__all__ = [
    "BucketAssigner",
    "DataGeneratorSource",
    "FileSink",
    "FileSource",
    "NumberSequenceSource",
    "OutputFileConfig",
    "RollingPolicy",
    "Sink",
    "Source",
    "StreamFormat",
]
