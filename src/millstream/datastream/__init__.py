"""``pyflink.datastream`` names: environment, streams, functions, side outputs."""

from typing import TYPE_CHECKING

from millstream._lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "millstream.common.time": ("TimeDomain",),
        "millstream.datastream.async_data_stream": ("AsyncDataStream",),
        "millstream.datastream.connected_streams": (
            "BroadcastConnectedStream",
            "BroadcastStream",
            "ConnectedStreams",
        ),
        "millstream.datastream.checkpoint_config": (
            "CheckpointConfig",
            "CheckpointingMode",
            "ExternalizedCheckpointRetention",
        ),
        "millstream.datastream.closeable_iterator": ("CloseableIterator",),
        "millstream.datastream.state_backend": (
            "CustomStateBackend",
            "EmbeddedRocksDBStateBackend",
            "FsStateBackend",
            "HashMapStateBackend",
            "MemoryStateBackend",
            "PredefinedOptions",
            "RocksDBStateBackend",
            "StateBackend",
        ),
        "millstream.datastream.data_stream": (
            "DataStream",
            "DataStreamSink",
            "KeyedStream",
        ),
        "millstream.datastream.execution_mode": ("RuntimeExecutionMode",),
        "millstream.datastream.functions": (
            "AggregateFunction",
            "AllWindowFunction",
            "AsyncFunction",
            "AsyncRetryPredicate",
            "AsyncRetryStrategy",
            "BroadcastProcessFunction",
            "CoFlatMapFunction",
            "CoMapFunction",
            "CoProcessFunction",
            "FilterFunction",
            "FlatMapFunction",
            "KeyedBroadcastProcessFunction",
            "KeyedCoProcessFunction",
            "KeyedProcessFunction",
            "KeySelector",
            "MapFunction",
            "Partitioner",
            "ProcessAllWindowFunction",
            "ProcessFunction",
            "ProcessWindowFunction",
            "ReduceFunction",
            "RuntimeContext",
            "SinkFunction",
            "SourceFunction",
            "WindowFunction",
        ),
        "millstream.datastream.output_tag": ("OutputTag",),
        "millstream.datastream.slot_sharing_group": ("SlotSharingGroup",),
        "millstream.datastream.stream_execution_environment": ("StreamExecutionEnvironment",),
        "millstream.datastream.timerservice": ("TimerService",),
        "millstream.datastream.window": (
            "CountWindow",
            "GlobalWindow",
            "MergingWindowAssigner",
            "TimeWindow",
            "Trigger",
            "TriggerResult",
            "Window",
            "WindowAssigner",
        ),
        "millstream.datastream.windowed_stream": ("AllWindowedStream", "WindowedStream"),
    },
)

if TYPE_CHECKING:  # the names as type checkers and editors see them (``X as X``: a re-export)
    from millstream.common.time import TimeDomain as TimeDomain
    from millstream.datastream.async_data_stream import AsyncDataStream as AsyncDataStream
    from millstream.datastream.checkpoint_config import CheckpointConfig as CheckpointConfig
    from millstream.datastream.checkpoint_config import CheckpointingMode as CheckpointingMode
    from millstream.datastream.checkpoint_config import (
        ExternalizedCheckpointRetention as ExternalizedCheckpointRetention,
    )
    from millstream.datastream.closeable_iterator import CloseableIterator as CloseableIterator
    from millstream.datastream.connected_streams import (
        BroadcastConnectedStream as BroadcastConnectedStream,
    )
    from millstream.datastream.connected_streams import (
        BroadcastStream as BroadcastStream,
    )
    from millstream.datastream.connected_streams import (
        ConnectedStreams as ConnectedStreams,
    )
    from millstream.datastream.data_stream import (
        DataStream as DataStream,
    )
    from millstream.datastream.data_stream import (
        DataStreamSink as DataStreamSink,
    )
    from millstream.datastream.data_stream import (
        KeyedStream as KeyedStream,
    )
    from millstream.datastream.execution_mode import RuntimeExecutionMode as RuntimeExecutionMode
    from millstream.datastream.functions import (
        AggregateFunction as AggregateFunction,
    )
    from millstream.datastream.functions import (
        AllWindowFunction as AllWindowFunction,
    )
    from millstream.datastream.functions import (
        AsyncFunction as AsyncFunction,
    )
    from millstream.datastream.functions import (
        AsyncRetryPredicate as AsyncRetryPredicate,
    )
    from millstream.datastream.functions import (
        AsyncRetryStrategy as AsyncRetryStrategy,
    )
    from millstream.datastream.functions import (
        BroadcastProcessFunction as BroadcastProcessFunction,
    )
    from millstream.datastream.functions import (
        CoFlatMapFunction as CoFlatMapFunction,
    )
    from millstream.datastream.functions import (
        CoMapFunction as CoMapFunction,
    )
    from millstream.datastream.functions import (
        CoProcessFunction as CoProcessFunction,
    )
    from millstream.datastream.functions import (
        FilterFunction as FilterFunction,
    )
    from millstream.datastream.functions import (
        FlatMapFunction as FlatMapFunction,
    )
    from millstream.datastream.functions import (
        KeyedBroadcastProcessFunction as KeyedBroadcastProcessFunction,
    )
    from millstream.datastream.functions import (
        KeyedCoProcessFunction as KeyedCoProcessFunction,
    )
    from millstream.datastream.functions import (
        KeyedProcessFunction as KeyedProcessFunction,
    )
    from millstream.datastream.functions import (
        KeySelector as KeySelector,
    )
    from millstream.datastream.functions import (
        MapFunction as MapFunction,
    )
    from millstream.datastream.functions import (
        Partitioner as Partitioner,
    )
    from millstream.datastream.functions import (
        ProcessAllWindowFunction as ProcessAllWindowFunction,
    )
    from millstream.datastream.functions import (
        ProcessFunction as ProcessFunction,
    )
    from millstream.datastream.functions import (
        ProcessWindowFunction as ProcessWindowFunction,
    )
    from millstream.datastream.functions import (
        ReduceFunction as ReduceFunction,
    )
    from millstream.datastream.functions import (
        RuntimeContext as RuntimeContext,
    )
    from millstream.datastream.functions import (
        SinkFunction as SinkFunction,
    )
    from millstream.datastream.functions import (
        SourceFunction as SourceFunction,
    )
    from millstream.datastream.functions import (
        WindowFunction as WindowFunction,
    )
    from millstream.datastream.output_tag import OutputTag as OutputTag
    from millstream.datastream.slot_sharing_group import SlotSharingGroup as SlotSharingGroup
    from millstream.datastream.state_backend import CustomStateBackend as CustomStateBackend
    from millstream.datastream.state_backend import EmbeddedRocksDBStateBackend as EmbeddedRocksDBStateBackend
    from millstream.datastream.state_backend import FsStateBackend as FsStateBackend
    from millstream.datastream.state_backend import HashMapStateBackend as HashMapStateBackend
    from millstream.datastream.state_backend import MemoryStateBackend as MemoryStateBackend
    from millstream.datastream.state_backend import PredefinedOptions as PredefinedOptions
    from millstream.datastream.state_backend import RocksDBStateBackend as RocksDBStateBackend
    from millstream.datastream.state_backend import StateBackend as StateBackend
    from millstream.datastream.stream_execution_environment import (
        StreamExecutionEnvironment as StreamExecutionEnvironment,
    )
    from millstream.datastream.timerservice import TimerService as TimerService
    from millstream.datastream.window import CountWindow as CountWindow
    from millstream.datastream.window import GlobalWindow as GlobalWindow
    from millstream.datastream.window import MergingWindowAssigner as MergingWindowAssigner
    from millstream.datastream.window import TimeWindow as TimeWindow
    from millstream.datastream.window import Trigger as Trigger
    from millstream.datastream.window import TriggerResult as TriggerResult
    from millstream.datastream.window import Window as Window
    from millstream.datastream.window import WindowAssigner as WindowAssigner
    from millstream.datastream.windowed_stream import (
        AllWindowedStream as AllWindowedStream,
    )
    from millstream.datastream.windowed_stream import (
        WindowedStream as WindowedStream,
    )
