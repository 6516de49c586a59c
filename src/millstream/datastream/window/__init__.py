"""Windows, window assigners, triggers and evictors, as ``pyflink.datastream.window``.

These are pure logic: an assigner maps an element to windows, a trigger answers
``TriggerResult``s and uses its context for timers and per-window state, an evictor
removes elements from a window's buffer. The runtime's WindowOperator drives them.
Semantics follow Flink: windows are ``[start, end)`` with ``max_timestamp() = end - 1``;
window starts are aligned to the epoch plus the offset; session windows that touch
are merged; ``count_window`` behaves as PyFlink's (see ``CountSlidingWindowAssigner``).
"""

from typing import TYPE_CHECKING

from millstream._lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        # PyFlink's window module also hands out the names it imports; programs write
        # ``from pyflink.datastream.window import Time``
        "millstream.common.time": ("Time", "TimestampedValue"),
        "millstream.common.typeinfo": ("Types",),
        "millstream.datastream.functions": ("ReduceFunction", "RuntimeContext"),
        "millstream.datastream.output_tag": ("OutputTag",),
        "millstream.datastream.state": (
            "ReducingState",
            "ReducingStateDescriptor",
            "State",
            "StateDescriptor",
            "ValueStateDescriptor",
        ),
        "millstream.datastream.window.assigners": (
            "CountSlidingWindowAssigner",
            "CountTumblingWindowAssigner",
            "DynamicEventTimeSessionWindows",
            "DynamicProcessingTimeSessionWindows",
            "EventTimeSessionWindows",
            "GlobalWindows",
            "MergingWindowAssigner",
            "ProcessingTimeSessionWindows",
            "SessionWindowTimeGapExtractor",
            "SlidingEventTimeWindows",
            "SlidingProcessingTimeWindows",
            "TumblingEventTimeWindows",
            "TumblingProcessingTimeWindows",
            "WindowAssigner",
        ),
        "millstream.datastream.window.evictors": (
            "CountEvictor",
            "DeltaEvictor",
            "Evictor",
            "TimeEvictor",
        ),
        "millstream.datastream.window.triggers": (
            "ContinuousEventTimeTrigger",
            "ContinuousProcessingTimeTrigger",
            "CountTrigger",
            "EventTimeTrigger",
            "NeverTrigger",
            "ProcessingTimeTrigger",
            "PurgingTrigger",
            "Trigger",
            "TriggerResult",
        ),
        "millstream.datastream.window.windows": (
            "CountWindow",
            "GlobalWindow",
            "TimeWindow",
            "Window",
        ),
    },
)

if TYPE_CHECKING:  # the names as type checkers and editors see them (``X as X``: a re-export)
    from millstream.common.time import Time as Time
    from millstream.common.time import TimestampedValue as TimestampedValue
    from millstream.common.typeinfo import Types as Types
    from millstream.datastream.functions import ReduceFunction as ReduceFunction
    from millstream.datastream.functions import RuntimeContext as RuntimeContext
    from millstream.datastream.output_tag import OutputTag as OutputTag
    from millstream.datastream.state import ReducingState as ReducingState
    from millstream.datastream.state import ReducingStateDescriptor as ReducingStateDescriptor
    from millstream.datastream.state import State as State
    from millstream.datastream.state import StateDescriptor as StateDescriptor
    from millstream.datastream.state import ValueStateDescriptor as ValueStateDescriptor
    from millstream.datastream.window.assigners import (
        CountSlidingWindowAssigner as CountSlidingWindowAssigner,
    )
    from millstream.datastream.window.assigners import (
        CountTumblingWindowAssigner as CountTumblingWindowAssigner,
    )
    from millstream.datastream.window.assigners import (
        DynamicEventTimeSessionWindows as DynamicEventTimeSessionWindows,
    )
    from millstream.datastream.window.assigners import (
        DynamicProcessingTimeSessionWindows as DynamicProcessingTimeSessionWindows,
    )
    from millstream.datastream.window.assigners import EventTimeSessionWindows as EventTimeSessionWindows
    from millstream.datastream.window.assigners import GlobalWindows as GlobalWindows
    from millstream.datastream.window.assigners import MergingWindowAssigner as MergingWindowAssigner
    from millstream.datastream.window.assigners import (
        ProcessingTimeSessionWindows as ProcessingTimeSessionWindows,
    )
    from millstream.datastream.window.assigners import (
        SessionWindowTimeGapExtractor as SessionWindowTimeGapExtractor,
    )
    from millstream.datastream.window.assigners import SlidingEventTimeWindows as SlidingEventTimeWindows
    from millstream.datastream.window.assigners import (
        SlidingProcessingTimeWindows as SlidingProcessingTimeWindows,
    )
    from millstream.datastream.window.assigners import TumblingEventTimeWindows as TumblingEventTimeWindows
    from millstream.datastream.window.assigners import (
        TumblingProcessingTimeWindows as TumblingProcessingTimeWindows,
    )
    from millstream.datastream.window.assigners import WindowAssigner as WindowAssigner
    from millstream.datastream.window.evictors import CountEvictor as CountEvictor
    from millstream.datastream.window.evictors import DeltaEvictor as DeltaEvictor
    from millstream.datastream.window.evictors import Evictor as Evictor
    from millstream.datastream.window.evictors import TimeEvictor as TimeEvictor
    from millstream.datastream.window.triggers import ContinuousEventTimeTrigger as ContinuousEventTimeTrigger
    from millstream.datastream.window.triggers import (
        ContinuousProcessingTimeTrigger as ContinuousProcessingTimeTrigger,
    )
    from millstream.datastream.window.triggers import CountTrigger as CountTrigger
    from millstream.datastream.window.triggers import EventTimeTrigger as EventTimeTrigger
    from millstream.datastream.window.triggers import NeverTrigger as NeverTrigger
    from millstream.datastream.window.triggers import ProcessingTimeTrigger as ProcessingTimeTrigger
    from millstream.datastream.window.triggers import PurgingTrigger as PurgingTrigger
    from millstream.datastream.window.triggers import Trigger as Trigger
    from millstream.datastream.window.triggers import TriggerResult as TriggerResult
    from millstream.datastream.window.windows import CountWindow as CountWindow
    from millstream.datastream.window.windows import GlobalWindow as GlobalWindow
    from millstream.datastream.window.windows import TimeWindow as TimeWindow
    from millstream.datastream.window.windows import Window as Window
