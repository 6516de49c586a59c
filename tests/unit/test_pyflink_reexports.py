"""The names PyFlink 2.3's packages hand out are importable from millstream's (issue 46, point 5).

``from pyflink.datastream.window import Time`` and ``from pyflink.datastream import
TimeWindow`` are lines of real programs; both failed here. The lists are PyFlink 2.3.0's
``pyflink.datastream.__all__`` and ``pyflink.datastream.window.__all__`` plus the names
``dir(pyflink.datastream.window)`` shows that it imports from elsewhere (``Time`` ...).
"""

from __future__ import annotations

import importlib

import pytest

PYFLINK_DATASTREAM_ALL = [
    "StreamExecutionEnvironment",
    "DataStream",
    "KeyedStream",
    "WindowedStream",
    "ConnectedStreams",
    "BroadcastStream",
    "BroadcastConnectedStream",
    "AsyncDataStream",
    "DataStreamSink",
    "MapFunction",
    "CoMapFunction",
    "FlatMapFunction",
    "CoFlatMapFunction",
    "ReduceFunction",
    "FilterFunction",
    "ProcessFunction",
    "KeyedProcessFunction",
    "CoProcessFunction",
    "KeyedCoProcessFunction",
    "WindowFunction",
    "ProcessWindowFunction",
    "AggregateFunction",
    "BroadcastProcessFunction",
    "KeyedBroadcastProcessFunction",
    "AsyncFunction",
    "RuntimeContext",
    "TimerService",
    "CheckpointingMode",
    "CheckpointConfig",
    "ExternalizedCheckpointRetention",
    "StateBackend",
    "HashMapStateBackend",
    "EmbeddedRocksDBStateBackend",
    "CustomStateBackend",
    "PredefinedOptions",
    "CheckpointStorage",
    "JobManagerCheckpointStorage",
    "FileSystemCheckpointStorage",
    "CustomCheckpointStorage",
    "RuntimeExecutionMode",
    "Window",
    "TimeWindow",
    "CountWindow",
    "GlobalWindow",
    "WindowAssigner",
    "MergingWindowAssigner",
    "TriggerResult",
    "Trigger",
    "TimeDomain",
    "KeySelector",
    "Partitioner",
    "SourceFunction",
    "SinkFunction",
    "SlotSharingGroup",
    "MemorySize",
    "OutputTag",
    "AsyncRetryPredicate",
    "AsyncRetryStrategy",
]

PYFLINK_WINDOW_NAMES = [
    "Window",
    "TimeWindow",
    "CountWindow",
    "GlobalWindow",
    "WindowAssigner",
    "TumblingProcessingTimeWindows",
    "TumblingEventTimeWindows",
    "SlidingProcessingTimeWindows",
    "SlidingEventTimeWindows",
    "ProcessingTimeSessionWindows",
    "EventTimeSessionWindows",
    "DynamicProcessingTimeSessionWindows",
    "DynamicEventTimeSessionWindows",
    "GlobalWindows",
    "MergingWindowAssigner",
    "CountTumblingWindowAssigner",
    "CountSlidingWindowAssigner",
    "TriggerResult",
    "Trigger",
    "EventTimeTrigger",
    "ProcessingTimeTrigger",
    "ContinuousEventTimeTrigger",
    "ContinuousProcessingTimeTrigger",
    "NeverTrigger",
    "PurgingTrigger",
    "CountTrigger",
    "TimeWindowSerializer",
    "CountWindowSerializer",
    "GlobalWindowSerializer",
    "SessionWindowTimeGapExtractor",
    "Time",
    "Types",
    "OutputTag",
    "RuntimeContext",
    "ReduceFunction",
    "State",
    "StateDescriptor",
    "ValueStateDescriptor",
    "ReducingState",
    "ReducingStateDescriptor",
]

# What millstream does not have at all (checkpoint storage classes, MemorySize, or Java
# window serializers); everything else must import.
NOT_IN_MILLSTREAM = {
    "CheckpointStorage",
    "CustomCheckpointStorage",
    "FileSystemCheckpointStorage",
    "JobManagerCheckpointStorage",
    "MemorySize",
    "CountWindowSerializer",
    "GlobalWindowSerializer",
    "TimeWindowSerializer",
}


@pytest.mark.parametrize(
    ("package", "names"),
    [
        ("millstream.datastream", PYFLINK_DATASTREAM_ALL),
        ("millstream.datastream.window", PYFLINK_WINDOW_NAMES),
    ],
)
def test_pyflinks_names_import_from_the_same_packages(package, names):
    module = importlib.import_module(package)
    missing = [n for n in names if n not in NOT_IN_MILLSTREAM and not hasattr(module, n)]
    assert not missing, f"{package} lacks {missing}"


def test_the_issues_imports():
    from millstream.common import Time as CommonTime
    from millstream.datastream import TimeWindow
    from millstream.datastream.window import Time
    from millstream.datastream.window import TimeWindow as WindowTimeWindow

    assert Time is CommonTime and TimeWindow is WindowTimeWindow
    assert Time.seconds(5).to_milliseconds() == 5000


def test_pyflinks_module_paths_of_single_classes():
    from millstream.datastream import CheckpointingMode, ExternalizedCheckpointRetention, TimeDomain
    from millstream.datastream.checkpointing_mode import CheckpointingMode as ModeAtItsPath
    from millstream.datastream.externalized_checkpoint_retention import (
        ExternalizedCheckpointRetention as RetentionAtItsPath,
    )
    from millstream.datastream.time_domain import TimeDomain as DomainAtItsPath
    from millstream.datastream.timerservice import TimerService

    assert ModeAtItsPath is CheckpointingMode and RetentionAtItsPath is ExternalizedCheckpointRetention
    assert DomainAtItsPath is TimeDomain
    assert {"register_event_time_timer", "current_watermark"} <= TimerService.__abstractmethods__
