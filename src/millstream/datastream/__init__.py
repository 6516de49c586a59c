"""``pyflink.datastream`` names: environment, streams, functions, side outputs."""

from millstream.common.time import TimeDomain
from millstream.datastream.connected_streams import (
    BroadcastConnectedStream,
    BroadcastStream,
    ConnectedStreams,
)
from millstream.datastream.data_stream import (
    CloseableIterator,
    DataStream,
    DataStreamSink,
    KeyedStream,
)
from millstream.datastream.execution_mode import RuntimeExecutionMode
from millstream.datastream.functions import (
    AggregateFunction,
    AllWindowFunction,
    BroadcastProcessFunction,
    CoFlatMapFunction,
    CoMapFunction,
    CoProcessFunction,
    FilterFunction,
    FlatMapFunction,
    KeyedBroadcastProcessFunction,
    KeyedCoProcessFunction,
    KeyedProcessFunction,
    KeySelector,
    MapFunction,
    Partitioner,
    ProcessAllWindowFunction,
    ProcessFunction,
    ProcessWindowFunction,
    ReduceFunction,
    RuntimeContext,
    SinkFunction,
    SourceFunction,
    WindowFunction,
)
from millstream.datastream.output_tag import OutputTag
from millstream.datastream.slot_sharing_group import SlotSharingGroup
from millstream.datastream.stream_execution_environment import StreamExecutionEnvironment
from millstream.datastream.windowed_stream import AllWindowedStream, WindowedStream

__all__ = [
    "AggregateFunction",
    "AllWindowFunction",
    "AllWindowedStream",
    "BroadcastConnectedStream",
    "BroadcastProcessFunction",
    "BroadcastStream",
    "CloseableIterator",
    "CoFlatMapFunction",
    "CoMapFunction",
    "CoProcessFunction",
    "ConnectedStreams",
    "DataStream",
    "DataStreamSink",
    "FilterFunction",
    "FlatMapFunction",
    "KeySelector",
    "KeyedBroadcastProcessFunction",
    "KeyedCoProcessFunction",
    "KeyedProcessFunction",
    "KeyedStream",
    "MapFunction",
    "OutputTag",
    "Partitioner",
    "ProcessAllWindowFunction",
    "ProcessFunction",
    "ProcessWindowFunction",
    "ReduceFunction",
    "RuntimeContext",
    "RuntimeExecutionMode",
    "SinkFunction",
    "SlotSharingGroup",
    "SourceFunction",
    "StreamExecutionEnvironment",
    "TimeDomain",
    "WindowFunction",
    "WindowedStream",
]
