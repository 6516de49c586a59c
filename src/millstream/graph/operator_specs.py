"""Operator specs: what the runtime instantiates for one stream node, one frozen class per kind.

The API layer builds a spec per operator call (``map`` -> ``MapSpec``, ``window(...).reduce``
-> ``WindowSpec`` ...); the graphs carry it unchanged; the task's operator chain, the
operator test harness and the Spark runner read it with ``match`` on its class. A spec
holds the user's function (or connector) and the settings of its kind, typed; it never
holds runtime objects, so it pickles with the job.

``OperatorSpec`` is the union of every kind; ``chaining`` is the kind's default chaining
strategy (a transformation's own setting wins), ``is_source`` / ``is_sink`` mark the ends
of the graph; ``yields`` marks operators that wait for results in the task's mailbox (Flink's
``YieldingOperatorFactory``), which are never chained to a legacy source.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, Literal

from millstream.common.connector import TextRenderer

__all__ = [
    "AsyncWaitSpec",
    "BroadcastProcessSpec",
    "ChainingStrategy",
    "CoFlatMapSpec",
    "CoMapSpec",
    "CoProcessSpec",
    "CollectSpec",
    "CombineSpec",
    "FilterSpec",
    "FlatMapSpec",
    "IntervalJoinSpec",
    "KeyedBroadcastProcessSpec",
    "KeyedCoProcessSpec",
    "KeyedProcessSpec",
    "LegacySourceSpec",
    "MapSpec",
    "OperatorSpec",
    "PrintSpec",
    "ProcessSpec",
    "ReduceSpec",
    "SinkFunctionSpec",
    "SinkWriterSpec",
    "SourceSpec",
    "TimestampsWatermarksSpec",
    "TwoInputUdfSpec",
    "UdfSpec",
    "WindowSpec",
    "two_input_key_selectors",
]


class ChainingStrategy(Enum):
    """Whether an operator may be chained to its neighbours (Flink's names)."""

    ALWAYS = "ALWAYS"  # chain to predecessor and successors
    HEAD = "HEAD"  # start a chain; successors may chain to it
    NEVER = "NEVER"  # never chained
    HEAD_WITH_SOURCES = "HEAD_WITH_SOURCES"


@dataclass(frozen=True, slots=True, kw_only=True)
class _Spec:
    """Fields every kind has."""

    chaining: ChainingStrategy = ChainingStrategy.ALWAYS
    is_source: ClassVar[bool] = False
    is_sink: ClassVar[bool] = False
    yields: ClassVar[bool] = False


# -- sources -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SourceSpec(_Spec):
    """A connector ``Source`` (FLIP-27: collection, file, number sequence, data generator)."""

    source: Any
    watermark_strategy: Any = None
    chaining: ChainingStrategy = field(default=ChainingStrategy.HEAD, kw_only=True)
    is_source: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class LegacySourceSpec(_Spec):
    """A user ``SourceFunction`` (``add_source``)."""

    function: Any
    chaining: ChainingStrategy = field(default=ChainingStrategy.HEAD, kw_only=True)
    is_source: ClassVar[bool] = True


# -- one input ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UdfSpec(_Spec):
    """An operator calling one user function: ``function.<method>`` (``method`` None: ``function``
    itself is the callable)."""

    function: Any
    method: str | None = None


@dataclass(frozen=True, slots=True)
class MapSpec(UdfSpec):
    """``map``: one output per element."""


@dataclass(frozen=True, slots=True)
class FlatMapSpec(UdfSpec):
    """``flat_map``: any number of outputs per element."""


@dataclass(frozen=True, slots=True)
class FilterSpec(UdfSpec):
    """``filter``: the elements the predicate keeps."""


@dataclass(frozen=True, slots=True)
class BatchMapSpec(UdfSpec):
    """A function of a whole batch of elements returning ``(outputs, kept)``: ``kept`` the
    indexes of the inputs the outputs come from (None: one output per input, in order).
    Internal (the Table API's vectorized Calc); elements keep their timestamps."""


@dataclass(frozen=True, slots=True)
class ProcessSpec(UdfSpec):
    """A ``ProcessFunction`` on a non-keyed stream."""


@dataclass(frozen=True, slots=True)
class KeyedProcessSpec(UdfSpec):
    """A ``KeyedProcessFunction`` (keyed state and timers).

    ``columnar``: millstream-internal, a function taking every key of a batch at once that
    the embedded runtime runs instead in STREAMING mode (``ColumnarKeyedOperator``: the Table
    runtime's window aggregation on Arrow); its snapshots are the keyed function's, so BATCH
    mode and the Spark runner run the keyed function itself."""

    columnar: Any = None


@dataclass(frozen=True, slots=True)
class ReduceSpec(UdfSpec):
    """A keyed ``reduce`` (and ``sum``/``min``/``max``...): one rolling update per element.
    ``combined``: BATCH, its input is the ``(key, partial)`` pairs of combiners."""

    combined: bool = False


@dataclass(frozen=True, slots=True)
class CombineSpec(UdfSpec):
    """BATCH: the producer-side half of a keyed reduce (inserted by the graph generator before
    the shuffle): folds elements of the same key with the reduce function, holding at most
    ``max_keys`` keys, and sends the partial results on when full and at the end of input."""

    key_selector: Any = None
    max_keys: int = 0


@dataclass(frozen=True, slots=True)
class AsyncWaitSpec(_Spec):
    """``AsyncDataStream.ordered_wait`` / ``unordered_wait`` (and ``_with_retry``): ``function``'s
    ``async_invoke`` on the subtask's event loop, at most ``capacity`` elements in flight, each
    bounded by ``timeout_ms`` (0: no timeout), retried per ``retry_strategy`` (None: never);
    ``ordered``: results leave in input order, otherwise as they complete between watermarks."""

    function: Any
    timeout_ms: int
    capacity: int
    ordered: bool
    retry_strategy: Any = None
    yields: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class TimestampsWatermarksSpec(_Spec):
    """``assign_timestamps_and_watermarks``; a Java operator in PyFlink (its input leaves Python)."""

    watermark_strategy: Any


@dataclass(frozen=True, slots=True)
class WindowSpec(_Spec):
    """A keyed window (``window``, ``window_all``, ``count_window``; joins and co-groups too).

    ``state_kind`` is how the window keeps its contents: a reduced value, an aggregate
    accumulator, or the list of elements (``process``/``apply``, and always with an evictor).
    """

    assigner: Any
    trigger: Any
    window_function: Any
    state_kind: Literal["reduce", "aggregate", "list"] = "list"
    evictor: Any = None
    allowed_lateness: int = 0
    late_data_tag: str | None = None  # the tag id of ``side_output_late_data``
    reduce_function: Any = None
    aggregate_function: Any = None


# -- two inputs --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TwoInputUdfSpec(_Spec):
    """An operator calling ``function.<methods[0]>`` for input 1 and ``<methods[1]>`` for input 2;
    ``key_selectors`` when both inputs are keyed."""

    function: Any
    methods: tuple[str, str]
    key_selectors: tuple[Any, Any] | None = None


@dataclass(frozen=True, slots=True)
class CoMapSpec(TwoInputUdfSpec):
    """``ConnectedStreams.map`` (``map1`` / ``map2``)."""


@dataclass(frozen=True, slots=True)
class CoFlatMapSpec(TwoInputUdfSpec):
    """``ConnectedStreams.flat_map`` (``flat_map1`` / ``flat_map2``)."""


@dataclass(frozen=True, slots=True)
class CoProcessSpec(TwoInputUdfSpec):
    """A ``CoProcessFunction``."""


@dataclass(frozen=True, slots=True)
class KeyedCoProcessSpec(TwoInputUdfSpec):
    """A ``KeyedCoProcessFunction`` on connected streams keyed on both sides."""

    key_selectors: tuple[Any, Any]


@dataclass(frozen=True, slots=True)
class BroadcastProcessSpec(_Spec):
    """A ``BroadcastProcessFunction``: input 2 is the broadcast stream, ``descriptors`` its state."""

    function: Any
    descriptors: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class KeyedBroadcastProcessSpec(_Spec):
    """A ``KeyedBroadcastProcessFunction``: input 1 keyed by ``key_selector``, input 2 broadcast."""

    function: Any
    descriptors: tuple[Any, ...]
    key_selector: Any


@dataclass(frozen=True, slots=True)
class IntervalJoinSpec(_Spec):
    """``KeyedStream.interval_join``: pairs with ``lower <= right.ts - left.ts <= upper``."""

    function: Any
    key_selectors: tuple[Any, Any]
    lower_bound: int
    upper_bound: int
    lower_bound_exclusive: bool = False
    upper_bound_exclusive: bool = False

    def inclusive_bounds(self) -> tuple[int, int]:
        """(lower, upper), both inclusive (an exclusive bound moves one millisecond inwards)."""
        lower = self.lower_bound + 1 if self.lower_bound_exclusive else self.lower_bound
        upper = self.upper_bound - 1 if self.upper_bound_exclusive else self.upper_bound
        return lower, upper


# -- sinks -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _RenderingSink(_Spec):
    """A sink writing each element's text: ``formatter`` exact per element, the others fast paths."""

    formatter: Any = field(kw_only=True)
    fast_formatter: Any = field(default=None, kw_only=True)
    batch_renderer: Any = field(default=None, kw_only=True)

    def renderer(self) -> TextRenderer:
        """The renderer of this sink's elements."""
        return TextRenderer(self.formatter, self.fast_formatter, self.batch_renderer)


@dataclass(frozen=True, slots=True)
class PrintSpec(_RenderingSink):
    """``print``: lines to stdout, ``N> `` prefixes when parallel (``identifier> `` when named);
    ``subtask_prefix=False``: never ``N``."""

    identifier: str | None = None
    subtask_prefix: bool = True
    is_sink: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class SinkWriterSpec(_RenderingSink):
    """``sink_to``: a connector ``Sink`` (``FileSink``)."""

    sink: Any
    is_sink: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class SinkFunctionSpec(UdfSpec):
    """``add_sink``: a user ``SinkFunction``."""

    is_sink: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class CollectSpec(_Spec):
    """``execute_and_collect``: elements sent to the client under ``collect_id``."""

    collect_id: str
    is_sink: ClassVar[bool] = True


OperatorSpec = (
    SourceSpec
    | LegacySourceSpec
    | MapSpec
    | FlatMapSpec
    | FilterSpec
    | BatchMapSpec
    | ProcessSpec
    | KeyedProcessSpec
    | ReduceSpec
    | CombineSpec
    | AsyncWaitSpec
    | TimestampsWatermarksSpec
    | WindowSpec
    | CoMapSpec
    | CoFlatMapSpec
    | CoProcessSpec
    | KeyedCoProcessSpec
    | BroadcastProcessSpec
    | KeyedBroadcastProcessSpec
    | IntervalJoinSpec
    | PrintSpec
    | SinkWriterSpec
    | SinkFunctionSpec
    | CollectSpec
)


def two_input_key_selectors(spec: OperatorSpec) -> tuple[Any, Any] | None:
    """The key selectors of a two-input operator's inputs (None for an unkeyed input), or
    None when neither input is keyed or the operator has one input."""
    match spec:
        case TwoInputUdfSpec(key_selectors=keys) | IntervalJoinSpec(key_selectors=keys):
            return keys
        case KeyedBroadcastProcessSpec(key_selector=key):
            return (key, None)
        case _:
            return None
