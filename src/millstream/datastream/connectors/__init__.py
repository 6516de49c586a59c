"""``pyflink.datastream.connectors`` names."""

from typing import TYPE_CHECKING

from millstream._lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "millstream.common.connector": ("DeliveryGuarantee", "Sink", "Source"),
        "millstream.connectors.datagen": ("DataGeneratorSource",),
        "millstream.connectors.jdbc.options": ("JdbcConnectionOptions", "JdbcExecutionOptions"),
        "millstream.connectors.file.sink": (
            "BucketAssigner",
            "FileSink",
            "OutputFileConfig",
            "RollingPolicy",
        ),
        "millstream.connectors.file.source": ("FileSource", "StreamFormat"),
        "millstream.connectors.kafka.legacy": ("FlinkKafkaConsumer", "FlinkKafkaProducer", "Semantic"),
        "millstream.connectors.kafka.sink": ("KafkaSink",),
        "millstream.connectors.kafka.source": ("KafkaSource",),
        "millstream.connectors.number_seq": ("NumberSequenceSource",),
        "millstream.datastream.connectors.jdbc": ("JdbcSink",),
    },
)

if TYPE_CHECKING:  # the names as type checkers and editors see them (``X as X``: a re-export)
    from millstream.common.connector import DeliveryGuarantee as DeliveryGuarantee
    from millstream.common.connector import Sink as Sink
    from millstream.common.connector import Source as Source
    from millstream.connectors.datagen import DataGeneratorSource as DataGeneratorSource
    from millstream.connectors.file.sink import BucketAssigner as BucketAssigner
    from millstream.connectors.file.sink import FileSink as FileSink
    from millstream.connectors.file.sink import OutputFileConfig as OutputFileConfig
    from millstream.connectors.file.sink import RollingPolicy as RollingPolicy
    from millstream.connectors.file.source import FileSource as FileSource
    from millstream.connectors.file.source import StreamFormat as StreamFormat
    from millstream.connectors.jdbc.options import JdbcConnectionOptions as JdbcConnectionOptions
    from millstream.connectors.jdbc.options import JdbcExecutionOptions as JdbcExecutionOptions
    from millstream.connectors.kafka.legacy import FlinkKafkaConsumer as FlinkKafkaConsumer
    from millstream.connectors.kafka.legacy import FlinkKafkaProducer as FlinkKafkaProducer
    from millstream.connectors.kafka.legacy import Semantic as Semantic
    from millstream.connectors.kafka.sink import KafkaSink as KafkaSink
    from millstream.connectors.kafka.source import KafkaSource as KafkaSource
    from millstream.connectors.number_seq import NumberSequenceSource as NumberSequenceSource
    from millstream.datastream.connectors.jdbc import JdbcSink as JdbcSink
