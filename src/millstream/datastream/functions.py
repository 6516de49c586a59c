"""User function classes, as ``pyflink.datastream.functions``.

Every API method also accepts a plain callable where PyFlink takes one of these classes
(and, beyond PyFlink, wherever a single-method function is expected). The runtime calls
the user's method directly; these classes only define the names.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any, Generic, TypeVar

from millstream.datastream.async_retry_strategies import AsyncRetryPredicate, AsyncRetryStrategy

__all__ = [
    "AggregateFunction",
    "AsyncFunction",
    "AsyncRetryPredicate",
    "AsyncRetryStrategy",
    "BroadcastProcessFunction",
    "CheckpointedFunction",
    "CoFlatMapFunction",
    "CoGroupFunction",
    "CoMapFunction",
    "CoProcessFunction",
    "FilterFunction",
    "FlatJoinFunction",
    "FlatMapFunction",
    "Function",
    "JoinFunction",
    "KeySelector",
    "KeyedBroadcastProcessFunction",
    "KeyedCoProcessFunction",
    "KeyedProcessFunction",
    "MapFunction",
    "Partitioner",
    "ProcessFunction",
    "ProcessJoinFunction",
    "ReduceFunction",
    "RuntimeContext",
    "SinkFunction",
    "SourceFunction",
    "TwoPhaseCommitSinkFunction",
]

# Type parameters, named as PyFlink's: its classes are Generic, and programs subscript them
# (``class MyFn(ProcessWindowFunction[tuple, tuple, str, TimeWindow])``).
IN = TypeVar("IN")
IN1 = TypeVar("IN1")
IN2 = TypeVar("IN2")
OUT = TypeVar("OUT")
KEY = TypeVar("KEY")
W = TypeVar("W")
W2 = TypeVar("W2")


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


class TwoPhaseCommitSinkFunction(SinkFunction):
    """A sink with exactly-once output through transactions (Flink's TwoPhaseCommitSinkFunction).

    Elements go into the current transaction (``invoke(transaction, value, context)``). At
    every checkpoint the transaction is pre-committed (flushed, nothing visible yet) and a
    new one begins; when the checkpoint completes, its transactions are committed. After a
    failure, the transactions of the restored (completed) checkpoint are committed again
    with ``recover_and_commit`` (commit must be idempotent) and the one that was open is
    aborted with ``recover_and_abort``. At the end of input everything is committed.
    Transactions are kept in checkpoints, so they must pickle (a file path, an id).
    """

    @abstractmethod
    def begin_transaction(self) -> Any:
        """Start a transaction; returns its handle."""

    @abstractmethod
    def invoke(self, transaction: Any, value: Any, context: Any) -> None:  # type: ignore[override]
        """Write one element into ``transaction``."""

    @abstractmethod
    def pre_commit(self, transaction: Any) -> None:
        """Make ``transaction`` ready to commit (flush); it must not fail to commit later."""

    @abstractmethod
    def commit(self, transaction: Any) -> None:
        """Make ``transaction`` visible; must be idempotent (it may run again after a recovery)."""

    @abstractmethod
    def abort(self, transaction: Any) -> None:
        """Drop ``transaction``."""

    def recover_and_commit(self, transaction: Any) -> None:
        """Commit a transaction of the restored checkpoint."""
        self.commit(transaction)

    def recover_and_abort(self, transaction: Any) -> None:
        """Abort the transaction that was open at the restored checkpoint."""
        self.abort(transaction)


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


class _WindowContext(ABC, Generic[W2]):
    """What a window function's ``process`` learns about its window (both Context classes)."""

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
        """State scoped to this key (if keyed) and window."""

    @abstractmethod
    def global_state(self) -> Any:
        """State across windows."""


class ProcessWindowFunction(Function, Generic[IN, OUT, KEY, W]):
    """Gets all elements of a window (or the incremental result) with a context."""

    class Context(_WindowContext[W2]):
        """The window being evaluated, time, and per-window / global keyed state."""

    @abstractmethod
    def process(
        self, key: Any, context: ProcessWindowFunction.Context, elements: Iterable[Any]
    ) -> Iterable[Any]:
        """Evaluate the window; return or yield the results."""

    def clear(self, context: ProcessWindowFunction.Context) -> None:
        """The window is purged: drop per-window state."""


class ProcessAllWindowFunction(Function, Generic[IN, OUT, W]):
    """``process(context, elements)`` for ``window_all``."""

    class Context(_WindowContext[W2]):
        """The window being evaluated, time, and per-window / global state."""

    @abstractmethod
    def process(self, context: Any, elements: Iterable[Any]) -> Iterable[Any]:
        """Evaluate the window."""

    def clear(self, context: Any) -> None:
        """The window is purged."""


class WindowFunction(Function, Generic[IN, OUT, KEY, W]):
    """``apply(key, window, inputs)``."""

    @abstractmethod
    def apply(self, key: Any, window: Any, inputs: Iterable[Any]) -> Iterable[Any]:
        """Evaluate the window."""


class AllWindowFunction(Function, Generic[IN, OUT, W]):
    """``apply(window, inputs)`` for ``window_all``."""

    @abstractmethod
    def apply(self, window: Any, inputs: Iterable[Any]) -> Iterable[Any]:
        """Evaluate the window."""


class CoMapFunction(Function):
    """One output per element of either connected input: ``map1`` / ``map2``."""

    @abstractmethod
    def map1(self, value: Any) -> Any:
        """An element of the first input."""

    @abstractmethod
    def map2(self, value: Any) -> Any:
        """An element of the second input."""


class CoFlatMapFunction(Function):
    """Any number of outputs per element of either input: ``flat_map1`` / ``flat_map2``."""

    @abstractmethod
    def flat_map1(self, value: Any) -> Iterable[Any]:
        """An element of the first input."""

    @abstractmethod
    def flat_map2(self, value: Any) -> Iterable[Any]:
        """An element of the second input."""


class CoProcessFunction(Function):
    """Low-level processing of two connected inputs; side outputs by ``yield tag, value``."""

    Context = ProcessFunction.Context

    @abstractmethod
    def process_element1(self, value: Any, ctx: ProcessFunction.Context) -> Iterable[Any]:
        """An element of the first input."""

    @abstractmethod
    def process_element2(self, value: Any, ctx: ProcessFunction.Context) -> Iterable[Any]:
        """An element of the second input."""


class KeyedCoProcessFunction(Function):
    """Two connected keyed inputs sharing keyed state and timers per key."""

    Context = KeyedProcessFunction.Context
    OnTimerContext = KeyedProcessFunction.OnTimerContext

    @abstractmethod
    def process_element1(self, value: Any, ctx: KeyedProcessFunction.Context) -> Iterable[Any]:
        """An element of the first input."""

    @abstractmethod
    def process_element2(self, value: Any, ctx: KeyedProcessFunction.Context) -> Iterable[Any]:
        """An element of the second input."""

    def on_timer(self, timestamp: int, ctx: KeyedProcessFunction.OnTimerContext) -> Any:
        """Called when a timer fires."""
        return None


class BroadcastProcessFunction(Function, Generic[IN1, IN2, OUT]):
    """A non-keyed stream connected with a broadcast stream.

    ``process_broadcast_element(value, ctx)`` may change broadcast state
    (``ctx.get_broadcast_state(descriptor)``); ``process_element(value, ctx)`` only reads it.
    """

    @abstractmethod
    def process_element(self, value: Any, ctx: Any) -> Iterable[Any]:
        """An element of the non-broadcast input (read-only broadcast state)."""

    @abstractmethod
    def process_broadcast_element(self, value: Any, ctx: Any) -> Iterable[Any]:
        """An element of the broadcast input (writable broadcast state)."""


class KeyedBroadcastProcessFunction(Function, Generic[KEY, IN1, IN2, OUT]):
    """A keyed stream connected with a broadcast stream: keyed state and timers as well."""

    @abstractmethod
    def process_element(self, value: Any, ctx: Any) -> Iterable[Any]:
        """An element of the keyed input (read-only broadcast state, keyed state, timers)."""

    @abstractmethod
    def process_broadcast_element(self, value: Any, ctx: Any) -> Iterable[Any]:
        """An element of the broadcast input (writable broadcast state)."""

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        """Called when a timer of the keyed input fires."""
        return None


class JoinFunction(Function):
    """``join(first, second)``: one output per pair of a window join."""

    @abstractmethod
    def join(self, first: Any, second: Any) -> Any:
        """Combine one pair."""


class FlatJoinFunction(Function):
    """``join(first, second)`` yielding any number of outputs per pair."""

    @abstractmethod
    def join(self, first: Any, second: Any) -> Iterable[Any]:
        """Combine one pair."""


class CoGroupFunction(Function):
    """``co_group(first, second)``: all elements of both inputs for one key and window."""

    @abstractmethod
    def co_group(self, first: Iterable[Any], second: Iterable[Any]) -> Iterable[Any]:
        """Combine the two groups (either may be empty)."""


class ProcessJoinFunction(Function):
    """``process_element(left, right, ctx)`` for each pair of an interval join."""

    class Context(ABC):
        """Timestamps of the pair."""

        @abstractmethod
        def get_left_timestamp(self) -> int:
            """Timestamp of the left element."""

        @abstractmethod
        def get_right_timestamp(self) -> int:
            """Timestamp of the right element."""

        @abstractmethod
        def get_timestamp(self) -> int:
            """Timestamp of the result: the larger of the two."""

    @abstractmethod
    def process_element(self, left: Any, right: Any, ctx: ProcessJoinFunction.Context) -> Iterable[Any]:
        """Yield outputs for one joined pair."""


class AsyncFunction(Function, Generic[IN, OUT]):
    """A function calling an external system asynchronously (``AsyncDataStream``).

    ``async_invoke`` is a coroutine (``async def``) run on the subtask's asyncio event loop;
    up to the operator's capacity of them are in flight at once. It returns the element's
    results as a collection (a list, even of one). It may use any asyncio client (aiohttp,
    asyncpg ...): ``open`` runs on the loop's thread before the loop starts and ``close`` after
    it stopped, with the loop as the thread's current loop, so
    ``asyncio.get_event_loop().run_until_complete(...)`` builds (and closes) clients on the
    loop the calls run on. An exception from it fails the task.
    """

    @abstractmethod
    async def async_invoke(self, value: IN) -> list[OUT]:
        """The results for one input element (a collection, possibly empty)."""

    def timeout(self, value: IN) -> list[OUT]:
        """The results of an element whose call did not finish within the operator's timeout;
        by default the call fails the task."""
        raise TimeoutError("Async function call has timed out for input: " + str(value))


class CheckpointedFunction(ABC):
    """A function with operator state (Flink's CheckpointedFunction).

    ``initialize_state(context)`` runs before ``open``: ``context.get_operator_state_store()``
    gives list state (split among subtasks when rescaled) and union list state (every
    subtask gets all of it); ``context.is_restored()`` tells whether state was restored.
    ``snapshot_state(context)`` runs when a checkpoint is taken.
    """

    @abstractmethod
    def snapshot_state(self, context: Any) -> None:
        """Bring operator state up to date for a checkpoint."""

    @abstractmethod
    def initialize_state(self, context: Any) -> None:
        """Obtain operator (and keyed) state handles."""
