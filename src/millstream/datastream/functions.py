"""User function classes, as ``pyflink.datastream.functions``.

Every API method also accepts a plain callable where PyFlink takes one of these classes
(and, beyond PyFlink, wherever a single-method function is expected). The runtime calls
the user's method directly; these classes only define the names.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

__all__ = [
    "AggregateFunction",
    "FilterFunction",
    "FlatMapFunction",
    "Function",
    "KeySelector",
    "KeyedProcessFunction",
    "MapFunction",
    "Partitioner",
    "ProcessFunction",
    "ReduceFunction",
    "RuntimeContext",
    "SinkFunction",
    "SourceFunction",
]


class RuntimeContext(ABC):
    """What a function sees of its task: names, subtask index, parallelism, attempt."""

    @abstractmethod
    def get_task_name(self) -> str:
        """Name of the task (the operator chain)."""

    @abstractmethod
    def get_number_of_parallel_subtasks(self) -> int:
        """Parallelism of the operator."""

    @abstractmethod
    def get_max_number_of_parallel_subtasks(self) -> int:
        """Max parallelism (number of key groups) of the operator."""

    @abstractmethod
    def get_index_of_this_subtask(self) -> int:
        """0-based index of this parallel instance."""

    @abstractmethod
    def get_attempt_number(self) -> int:
        """0 on the first execution, incremented on every restart."""

    @abstractmethod
    def get_task_name_with_subtasks(self) -> str:
        """Task name with ``(index/parallelism)#attempt``."""

    @abstractmethod
    def get_job_parameter(self, key: str, default_value: str) -> str:
        """A global job parameter."""


class Function(ABC):  # noqa: B024 - every method is optional, as in PyFlink
    """Base of all user functions: ``open`` once before processing, ``close`` after."""

    def open(self, runtime_context: RuntimeContext) -> None:  # noqa: B027
        """Called once before the first element, with the task's RuntimeContext."""

    def close(self) -> None:  # noqa: B027
        """Called once after the last element (also on failure)."""


class MapFunction(Function):
    """One output element per input element."""

    @abstractmethod
    def map(self, value: Any) -> Any:
        """Transform one element."""


class FlatMapFunction(Function):
    """Zero or more output elements per input element."""

    @abstractmethod
    def flat_map(self, value: Any) -> Iterable[Any]:
        """Return (or yield) the outputs of one element."""


class FilterFunction(Function):
    """Keeps the elements for which ``filter`` is true."""

    @abstractmethod
    def filter(self, value: Any) -> bool:
        """Whether to keep ``value``."""


class ReduceFunction(Function):
    """Combines two values of the same key into one."""

    @abstractmethod
    def reduce(self, value1: Any, value2: Any) -> Any:
        """Combine the accumulated ``value1`` with the new ``value2``."""


class AggregateFunction(Function):
    """Incremental aggregation through an accumulator."""

    @abstractmethod
    def create_accumulator(self) -> Any:
        """A new, empty accumulator."""

    @abstractmethod
    def add(self, value: Any, accumulator: Any) -> Any:
        """Add ``value`` to ``accumulator`` and return the accumulator."""

    @abstractmethod
    def get_result(self, accumulator: Any) -> Any:
        """The result of an accumulator."""

    @abstractmethod
    def merge(self, acc_a: Any, acc_b: Any) -> Any:
        """Merge two accumulators."""


class KeySelector(Function):
    """Extracts the key of an element."""

    @abstractmethod
    def get_key(self, value: Any) -> Any:
        """The key of ``value``."""


class Partitioner(Function):
    """Chooses the partition of a key (``partition_custom``)."""

    @abstractmethod
    def partition(self, key: Any, num_partitions: int) -> int:
        """A partition index in ``[0, num_partitions)``."""


class ProcessFunction(Function):
    """Low-level processing of each element; side outputs by ``yield output_tag, value``."""

    class Context(ABC):
        """Per-element context."""

        @abstractmethod
        def timestamp(self) -> int | None:
            """Timestamp of the current element, or None."""

        @abstractmethod
        def timer_service(self) -> Any:
            """The timer service."""

    @abstractmethod
    def process_element(self, value: Any, ctx: ProcessFunction.Context) -> Iterable[Any]:
        """Yield outputs for one element."""


class KeyedProcessFunction(Function):
    """Processing of each element of a keyed stream, with the current key in the context."""

    class Context(ABC):
        """Per-element context with the current key."""

        @abstractmethod
        def timestamp(self) -> int | None:
            """Timestamp of the current element, or None."""

        @abstractmethod
        def timer_service(self) -> Any:
            """The timer service."""

        @abstractmethod
        def get_current_key(self) -> Any:
            """Key of the current element."""

    class OnTimerContext(Context):
        """Context of a timer callback."""

        @abstractmethod
        def time_domain(self) -> Any:
            """EVENT_TIME or PROCESSING_TIME."""

    @abstractmethod
    def process_element(self, value: Any, ctx: KeyedProcessFunction.Context) -> Iterable[Any]:
        """Yield outputs for one element."""

    def on_timer(self, timestamp: int, ctx: KeyedProcessFunction.OnTimerContext) -> Any:
        """Called when a timer fires (event-time and processing-time timers)."""
        return None


class SinkFunction(Function):
    """A user sink: ``invoke`` is called for every element."""

    class Context(ABC):  # noqa: B024
        """Per-element context of a sink."""

    @abstractmethod
    def invoke(self, value: Any, context: Any) -> None:
        """Write one element."""


class SourceFunction(Function):
    """A user source: ``run`` emits elements through ``ctx.collect`` until done or cancelled."""

    class SourceContext(ABC):
        """Emits elements from a SourceFunction."""

        @abstractmethod
        def collect(self, element: Any) -> None:
            """Emit one element."""

        @abstractmethod
        def collect_with_timestamp(self, element: Any, timestamp: int) -> None:
            """Emit one element with an event timestamp."""

    @abstractmethod
    def run(self, ctx: SourceFunction.SourceContext) -> None:
        """Emit elements; return when the source is exhausted."""

    def cancel(self) -> None:
        """Ask ``run`` to return as soon as possible."""


class ProcessWindowFunction(Function):
    """Gets all elements of a window (or the incremental result) with a context."""

    class Context(ABC):
        """The window being evaluated, time, and per-window / global keyed state."""

        @abstractmethod
        def window(self) -> Any:
            """The window."""

        @abstractmethod
        def current_processing_time(self) -> int:
            """Now."""

        @abstractmethod
        def current_watermark(self) -> int:
            """The current watermark."""

        @abstractmethod
        def window_state(self) -> Any:
            """Keyed state scoped to this key and window."""

        @abstractmethod
        def global_state(self) -> Any:
            """Keyed state of this key across windows."""

    @abstractmethod
    def process(
        self, key: Any, context: ProcessWindowFunction.Context, elements: Iterable[Any]
    ) -> Iterable[Any]:
        """Evaluate the window; return or yield the results."""

    def clear(self, context: ProcessWindowFunction.Context) -> None:
        """The window is purged: drop per-window state."""


class ProcessAllWindowFunction(Function):
    """``process(context, elements)`` for ``window_all``."""

    @abstractmethod
    def process(self, context: Any, elements: Iterable[Any]) -> Iterable[Any]:
        """Evaluate the window."""

    def clear(self, context: Any) -> None:
        """The window is purged."""


class WindowFunction(Function):
    """``apply(key, window, inputs)``."""

    @abstractmethod
    def apply(self, key: Any, window: Any, inputs: Iterable[Any]) -> Iterable[Any]:
        """Evaluate the window."""


class AllWindowFunction(Function):
    """``apply(window, inputs)`` for ``window_all``."""

    @abstractmethod
    def apply(self, window: Any, inputs: Iterable[Any]) -> Iterable[Any]:
        """Evaluate the window."""
