"""``pyflink.datastream`` names: environment, streams, functions, side outputs."""

from millstream.common.time import TimeDomain
from millstream.datastream.data_stream import (
    CloseableIterator,
    DataStream,
    DataStreamSink,
    KeyedStream,
)
from millstream.datastream.execution_mode import RuntimeExecutionMode
from millstream.datastream.functions import (
    AggregateFunction,
    FilterFunction,
    FlatMapFunction,
    KeyedProcessFunction,
    KeySelector,
    MapFunction,
    Partitioner,
    ProcessFunction,
    ReduceFunction,
    RuntimeContext,
    SinkFunction,
    SourceFunction,
)
from millstream.datastream.output_tag import OutputTag
from millstream.datastream.slot_sharing_group import SlotSharingGroup
from millstream.datastream.stream_execution_environment import StreamExecutionEnvironment

__all__ = [
    "AggregateFunction",
    "CloseableIterator",
    "DataStream",
    "DataStreamSink",
    "FilterFunction",
    "FlatMapFunction",
    "KeySelector",
    "KeyedProcessFunction",
    "KeyedStream",
    "MapFunction",
    "OutputTag",
    "Partitioner",
    "ProcessFunction",
    "ReduceFunction",
    "RuntimeContext",
    "RuntimeExecutionMode",
    "SinkFunction",
    "SlotSharingGroup",
    "SourceFunction",
    "StreamExecutionEnvironment",
    "TimeDomain",
]
