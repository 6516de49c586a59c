"""The public API is explicit and pinned (names as PyFlink's)."""

from __future__ import annotations

import millstream.common
import millstream.datastream

EXPECTED_DATASTREAM = sorted(
    [
        "CustomStateBackend",
        "EmbeddedRocksDBStateBackend",
        "FsStateBackend",
        "HashMapStateBackend",
        "MemoryStateBackend",
        "PredefinedOptions",
        "RocksDBStateBackend",
        "StateBackend",
        "AggregateFunction",
        "AllWindowFunction",
        "AllWindowedStream",
        "AsyncDataStream",
        "AsyncFunction",
        "AsyncRetryPredicate",
        "AsyncRetryStrategy",
        "BroadcastConnectedStream",
        "BroadcastProcessFunction",
        "BroadcastStream",
        "CheckpointConfig",
        "CheckpointingMode",
        "CloseableIterator",
        "CoFlatMapFunction",
        "CoMapFunction",
        "CoProcessFunction",
        "ConnectedStreams",
        "DataStream",
        "DataStreamSink",
        "ExternalizedCheckpointRetention",
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
        # pyflink.datastream re-exports these of pyflink.datastream.window and .timerservice
        "CountWindow",
        "GlobalWindow",
        "MergingWindowAssigner",
        "TimeWindow",
        "TimerService",
        "Trigger",
        "TriggerResult",
        "Window",
        "WindowAssigner",
    ]
)
EXPECTED_COMMON = sorted(
    [
        "ByteArraySchema",
        "ConfigOption",
        "ConfigOptions",
        "Configuration",
        "Duration",
        "Encoder",
        "ExecutionConfig",
        "Instant",
        "JobExecutionException",
        "JobExecutionResult",
        "JobID",
        "JobStatus",
        "RestartStrategies",
        "RestartStrategyConfiguration",
        "Row",
        "RowKind",
        "SimpleStringSchema",
        "Time",
        "TypeInformation",
        "Types",
        "WatermarkStrategy",
    ]
)


def test_datastream_api_is_pinned():
    assert sorted(millstream.datastream.__all__) == EXPECTED_DATASTREAM
    for name in EXPECTED_DATASTREAM:
        assert getattr(millstream.datastream, name)


def test_common_api_is_pinned():
    assert sorted(millstream.common.__all__) == EXPECTED_COMMON


def test_pyflink_module_paths_exist():
    from millstream.common.typeinfo import RowTypeInfo, TupleTypeInfo, Types  # noqa: F401
    from millstream.common.watermark_strategy import TimestampAssigner  # noqa: F401
    from millstream.datastream.connectors.base import DeliveryGuarantee
    from millstream.datastream.connectors.file_system import FileSink, FileSource, StreamFormat  # noqa: F401
    from millstream.datastream.connectors.number_seq import NumberSequenceSource  # noqa: F401
    from millstream.datastream.functions import KeyedProcessFunction, RuntimeContext  # noqa: F401

    # PyFlink 2.3's members, in its order
    assert [g.name for g in DeliveryGuarantee] == ["EXACTLY_ONCE", "AT_LEAST_ONCE", "NONE"]
