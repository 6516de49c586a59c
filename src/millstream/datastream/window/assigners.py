"""Window assigners: tumbling, sliding, session (static and dynamic gaps), global and count windows."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import Any, Generic

from millstream.common.time import MIN_TIMESTAMP, Time
from millstream.datastream.state import ValueStateDescriptor
from millstream.datastream.window.triggers import (
    CountTrigger,
    EventTimeTrigger,
    NeverTrigger,
    ProcessingTimeTrigger,
    Trigger,
)
from millstream.datastream.window.windows import (
    _GLOBAL_WINDOW,
    W2,
    CountWindow,
    GlobalWindow,
    T,
    TimeWindow,
    W,
    _ms,
)

__all__ = [
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
]

# -- assigners ----------------------------------------------------------------------------


class WindowAssigner(ABC, Generic[T, W]):
    """Assigns an element to zero or more windows."""

    @abstractmethod
    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """The windows of ``element``; ``context`` gives the processing time and runtime context."""

    @abstractmethod
    def get_default_trigger(self, env: Any = None) -> Trigger:
        """The trigger used when none is set."""

    def get_window_serializer(self) -> Any:
        """Windows are pickled."""
        return None

    @abstractmethod
    def is_event_time(self) -> bool:
        """Whether windows follow event time."""


class MergingWindowAssigner(WindowAssigner[T, W]):
    """An assigner whose windows can merge (sessions)."""

    class MergeCallback(ABC, Generic[W2]):
        """Receives the groups of windows ``merge_windows`` merges."""

        @abstractmethod
        def merge(self, to_be_merged: Iterable[Any], merge_result: Any) -> None:
            """``to_be_merged`` become ``merge_result``."""

    @abstractmethod
    def merge_windows(self, windows: Iterable[Any], callback: Any) -> None:
        """Call ``callback.merge(to_be_merged, result)`` for every group of windows to merge."""


def _no_timestamp_error() -> Exception:
    return ValueError(
        "Record has Long.MIN_VALUE timestamp (= no timestamp marker). Did you forget to call "
        "'data_stream.assign_timestamps_and_watermarks(...)'?"
    )


class TumblingEventTimeWindows(WindowAssigner[T, TimeWindow]):
    """Fixed-size, non-overlapping windows by event time."""

    def __init__(self, size: int, offset: int = 0) -> None:
        if size <= 0 or abs(offset) >= size:
            raise ValueError("TumblingEventTimeWindows parameters must satisfy abs(offset) < size")
        self.size = size
        self.offset = offset

    @staticmethod
    def of(size: Time, offset: Time | None = None) -> TumblingEventTimeWindows:
        """Windows of ``size``, starts shifted by ``offset``."""
        return TumblingEventTimeWindows(_ms(size), _ms(offset))

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """The one window holding ``timestamp``."""
        if timestamp is None or timestamp <= MIN_TIMESTAMP:
            raise _no_timestamp_error()
        start = timestamp - (timestamp - self.offset + self.size) % self.size
        return [TimeWindow(start, start + self.size)]

    def aligned_windows(self) -> tuple[int, int, int] | None:
        """(size, size, offset): the runtime assigns these windows itself (not for subclasses)."""
        return (self.size, self.size, self.offset) if type(self) is TumblingEventTimeWindows else None

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """EventTimeTrigger."""
        return EventTimeTrigger()

    def is_event_time(self) -> bool:
        """True."""
        return True

    def __repr__(self) -> str:
        return f"TumblingEventTimeWindows({self.size}, {self.offset})"


class TumblingProcessingTimeWindows(WindowAssigner[T, TimeWindow]):
    """Fixed-size, non-overlapping windows by processing time."""

    def __init__(self, size: int, offset: int = 0) -> None:
        if size <= 0 or abs(offset) >= size:
            raise ValueError("TumblingProcessingTimeWindows parameters must satisfy abs(offset) < size")
        self.size = size
        self.offset = offset

    @staticmethod
    def of(size: Time, offset: Time | None = None) -> TumblingProcessingTimeWindows:
        """Windows of ``size``, starts shifted by ``offset``."""
        return TumblingProcessingTimeWindows(_ms(size), _ms(offset))

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """The window holding the current processing time."""
        now = context.get_current_processing_time()
        start = now - (now - self.offset + self.size) % self.size
        return [TimeWindow(start, start + self.size)]

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """ProcessingTimeTrigger."""
        return ProcessingTimeTrigger()

    def is_event_time(self) -> bool:
        """False."""
        return False

    def __repr__(self) -> str:
        return f"TumblingProcessingTimeWindows({self.size}, {self.offset})"


def _sliding(time: int, size: int, slide: int, offset: int) -> list[Any]:
    last_start = time - (time - offset + slide) % slide
    return [TimeWindow(start, start + size) for start in range(last_start, time - size, -slide)]


class SlidingEventTimeWindows(WindowAssigner[T, TimeWindow]):
    """Windows of ``size`` every ``slide``, by event time (an element is in size/slide windows)."""

    def __init__(self, size: int, slide: int, offset: int = 0) -> None:
        if size <= 0 or slide <= 0 or abs(offset) >= slide:
            raise ValueError(
                "SlidingEventTimeWindows parameters must satisfy abs(offset) < slide and size > 0"
            )
        self.size = size
        self.slide = slide
        self.offset = offset

    @staticmethod
    def of(size: Time, slide: Time, offset: Time | None = None) -> SlidingEventTimeWindows:
        """Windows of ``size`` every ``slide``."""
        return SlidingEventTimeWindows(_ms(size), _ms(slide), _ms(offset))

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """Every window holding ``timestamp``, latest first."""
        if timestamp is None or timestamp <= MIN_TIMESTAMP:
            raise _no_timestamp_error()
        return _sliding(timestamp, self.size, self.slide, self.offset)

    def aligned_windows(self) -> tuple[int, int, int] | None:
        """(size, slide, offset): the runtime assigns these windows itself (not for subclasses)."""
        return (self.size, self.slide, self.offset) if type(self) is SlidingEventTimeWindows else None

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """EventTimeTrigger."""
        return EventTimeTrigger()

    def is_event_time(self) -> bool:
        """True."""
        return True

    def __repr__(self) -> str:
        return f"SlidingEventTimeWindows({self.size}, {self.slide}, {self.offset})"


class SlidingProcessingTimeWindows(WindowAssigner[T, TimeWindow]):
    """Windows of ``size`` every ``slide``, by processing time."""

    def __init__(self, size: int, slide: int, offset: int = 0) -> None:
        if size <= 0 or slide <= 0 or abs(offset) >= slide:
            raise ValueError(
                "SlidingProcessingTimeWindows parameters must satisfy abs(offset) < slide and size > 0"
            )
        self.size = size
        self.slide = slide
        self.offset = offset

    @staticmethod
    def of(size: Time, slide: Time, offset: Time | None = None) -> SlidingProcessingTimeWindows:
        """Windows of ``size`` every ``slide``."""
        return SlidingProcessingTimeWindows(_ms(size), _ms(slide), _ms(offset))

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """Every window holding the current processing time."""
        return _sliding(context.get_current_processing_time(), self.size, self.slide, self.offset)

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """ProcessingTimeTrigger."""
        return ProcessingTimeTrigger()

    def is_event_time(self) -> bool:
        """False."""
        return False

    def __repr__(self) -> str:
        return f"SlidingProcessingTimeWindows({self.size}, {self.slide}, {self.offset})"


class SessionWindowTimeGapExtractor(ABC):
    """Extracts the session gap (ms) from an element (dynamic session windows)."""

    @abstractmethod
    def extract(self, element: Any) -> int:
        """The gap after ``element``."""


def _gap_function(extractor: Any) -> Callable[[Any], int]:
    extract = getattr(extractor, "extract", None)
    if extract is not None:
        return extract
    if callable(extractor):
        return extractor
    raise TypeError("the gap extractor must be a SessionWindowTimeGapExtractor or a callable")


class _SessionWindows(MergingWindowAssigner[T, TimeWindow]):
    event_time = True
    # merge_windows merges exactly the TimeWindows that intersect (overlap or touch): the
    # window operator may find a new window's merges by intersection alone
    merges_intersecting_time_windows = True

    def __init__(self, session_gap: int | None = None, extractor: Any = None) -> None:
        if extractor is None and (session_gap is None or session_gap <= 0):
            raise ValueError(f"{type(self).__name__} parameters must satisfy 0 < size")
        self.gap = session_gap
        self._extract = _gap_function(extractor) if extractor is not None else None

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """``[t, t + gap)`` for the element's time ``t``."""
        if self.event_time:
            if timestamp is None or timestamp <= MIN_TIMESTAMP:
                raise _no_timestamp_error()
            time = timestamp
        else:
            time = context.get_current_processing_time()
        gap = self.gap if self._extract is None else self._extract(element)
        if gap is None or gap <= 0:
            raise ValueError(f"dynamic session gap must be positive, got {gap!r}")
        return [TimeWindow(time, time + gap)]

    def merge_windows(self, windows: Iterable[Any], callback: Any) -> None:
        """Merge overlapping or touching sessions."""
        TimeWindow.merge_windows(windows, callback)

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """Event- or processing-time trigger."""
        return EventTimeTrigger() if self.event_time else ProcessingTimeTrigger()

    def is_event_time(self) -> bool:
        """Whether sessions follow event time."""
        return self.event_time

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.gap})"


class EventTimeSessionWindows(_SessionWindows[T]):
    """Sessions by event time: a gap of inactivity ends a session."""

    @staticmethod
    def with_gap(size: Time) -> EventTimeSessionWindows:
        """Sessions separated by ``size`` of inactivity."""
        return EventTimeSessionWindows(_ms(size))

    @staticmethod
    def with_dynamic_gap(extractor: Any) -> DynamicEventTimeSessionWindows:
        """Sessions whose gap each element decides."""
        return DynamicEventTimeSessionWindows(extractor)


class ProcessingTimeSessionWindows(_SessionWindows[T]):
    """Sessions by processing time."""

    event_time = False

    @staticmethod
    def with_gap(size: Time) -> ProcessingTimeSessionWindows:
        """Sessions separated by ``size`` of inactivity."""
        return ProcessingTimeSessionWindows(_ms(size))

    @staticmethod
    def with_dynamic_gap(extractor: Any) -> DynamicProcessingTimeSessionWindows:
        """Sessions whose gap each element decides."""
        return DynamicProcessingTimeSessionWindows(extractor)


class DynamicEventTimeSessionWindows(_SessionWindows[T]):
    """Event-time sessions with a gap per element."""

    def __init__(self, session_window_time_gap_extractor: Any) -> None:
        super().__init__(extractor=session_window_time_gap_extractor)

    @staticmethod
    def with_dynamic_gap(extractor: Any) -> DynamicEventTimeSessionWindows:
        """Sessions whose gap each element decides."""
        return DynamicEventTimeSessionWindows(extractor)


class DynamicProcessingTimeSessionWindows(_SessionWindows[T]):
    """Processing-time sessions with a gap per element."""

    event_time = False

    def __init__(self, session_window_time_gap_extractor: Any) -> None:
        super().__init__(extractor=session_window_time_gap_extractor)

    @staticmethod
    def with_dynamic_gap(extractor: Any) -> DynamicProcessingTimeSessionWindows:
        """Sessions whose gap each element decides."""
        return DynamicProcessingTimeSessionWindows(extractor)


class GlobalWindows(WindowAssigner[T, GlobalWindow]):
    """One window for everything; fires only through a custom trigger (default: never)."""

    @staticmethod
    def create() -> GlobalWindows:
        """The global windows assigner."""
        return GlobalWindows()

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """The global window."""
        return [_GLOBAL_WINDOW]

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """NeverTrigger."""
        return NeverTrigger()

    def is_event_time(self) -> bool:
        """False."""
        return False

    def __repr__(self) -> str:
        return "GlobalWindows()"


class CountTumblingWindowAssigner(WindowAssigner[T, CountWindow]):
    """Consecutive groups of ``window_size`` elements per key (PyFlink's ``count_window(size)``)."""

    def __init__(self, window_size: int) -> None:
        if window_size <= 0:
            raise ValueError("count window size must be positive")
        self.window_size = window_size
        self.count_descriptor = ValueStateDescriptor("tumble-count-assigner")

    @staticmethod
    def of(window_size: int) -> CountTumblingWindowAssigner:
        """Windows of ``window_size`` elements."""
        return CountTumblingWindowAssigner(window_size)

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """Window ``n // size`` for the key's n-th element."""
        counter = context.get_runtime_context().get_state(self.count_descriptor)
        count = counter.value() or 0
        counter.update(count + 1)
        return [CountWindow(count // self.window_size)]

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """Fire at ``window_size`` elements."""
        return CountTrigger(self.window_size)

    def is_event_time(self) -> bool:
        """False."""
        return False

    def __repr__(self) -> str:
        return f"CountTumblingWindowAssigner({self.window_size})"


class CountSlidingWindowAssigner(WindowAssigner[T, CountWindow]):
    """Windows of ``window_size`` elements every ``window_slide`` elements (PyFlink's).

    The key's n-th element (from 0) belongs to every window ``w`` with
    ``w * slide <= n < w * slide + size``; a window fires when it holds ``size`` elements.
    """

    def __init__(self, window_size: int, window_slide: int) -> None:
        if window_size <= 0 or window_slide <= 0:
            raise ValueError("count window size and slide must be positive")
        self.window_size = window_size
        self.window_slide = window_slide
        self.count_descriptor = ValueStateDescriptor("slide-count-assigner")

    @staticmethod
    def of(window_size: int, window_slide: int) -> CountSlidingWindowAssigner:
        """Windows of ``window_size`` every ``window_slide`` elements."""
        return CountSlidingWindowAssigner(window_size, window_slide)

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """The windows holding the key's n-th element, latest first."""
        counter = context.get_runtime_context().get_state(self.count_descriptor)
        count = counter.value() or 0
        counter.update(count + 1)
        windows = []
        window_id = count // self.window_slide
        while (
            window_id >= 0
            and window_id * self.window_slide <= count < window_id * self.window_slide + self.window_size
        ):
            windows.append(CountWindow(window_id))
            window_id -= 1
        return windows

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """Fire at ``window_size`` elements."""
        return CountTrigger(self.window_size)

    def is_event_time(self) -> bool:
        """False."""
        return False

    def __repr__(self) -> str:
        return f"CountSlidingWindowAssigner({self.window_size}, {self.window_slide})"
