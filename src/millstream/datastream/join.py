"""Window join, co-group and interval join (the names of Flink's Java DataStream API in snake case).

``a.join(b).where(ka).equal_to(kb).window(assigner).apply(JoinFunction)`` and
``a.co_group(b)...apply(CoGroupFunction)`` are built as Flink builds them: each input is
tagged (input 1 or 2), the tagged streams are unioned, keyed by the key of their side
and windowed; a window function splits each window's contents by tag and calls
``co_group(first, second)`` (a join calls ``join(x, y)`` for every pair, first input
outer, as Flink's JoinCoGroupFunction). A window where one side is empty produces
no join output.

``keyed_a.interval_join(keyed_b).between(lower, upper).process(ProcessJoinFunction)``
joins every pair with ``a.ts + lower <= b.ts <= a.ts + upper`` (bounds inclusive unless
``lower_bound_exclusive()`` / ``upper_bound_exclusive()``), in event time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from millstream.common.typeinfo import TypeInformation
from millstream.datastream.functions import (
    CoGroupFunction,
    FlatJoinFunction,
    JoinFunction,
    ProcessJoinFunction,
    WindowFunction,
)
from millstream.datastream.windowed_stream import WindowFunctionAdapter
from millstream.graph.operator_specs import IntervalJoinSpec

if TYPE_CHECKING:
    from millstream.datastream.data_stream import DataStream, KeyedStream

__all__ = ["CoGroupedStreams", "IntervalJoin", "IntervalJoined", "JoinedStreams"]


def _millis(value: Any) -> int:
    if isinstance(value, int):
        return value
    if hasattr(value, "to_milliseconds"):
        return int(value.to_milliseconds())
    raise TypeError(f"expected milliseconds (int), Time or Duration, got {type(value).__name__}")


def _key_fn(key_selector: Any) -> Any:
    get_key = getattr(key_selector, "get_key", None)
    if get_key is not None:
        return get_key
    if callable(key_selector):
        return key_selector
    raise TypeError("The key selector must be a KeySelector or a callable function")


class _Tag1:
    def __call__(self, value: Any) -> tuple[int, Any]:
        return (1, value)


class _Tag2:
    def __call__(self, value: Any) -> tuple[int, Any]:
        return (2, value)


class _UnionKey:
    """The key of a tagged element: the key selector of its side."""

    def __init__(self, key1: Any, key2: Any) -> None:
        self.key1 = key1
        self.key2 = key2

    def __call__(self, tagged: tuple[int, Any]) -> Any:
        return self.key1(tagged[1]) if tagged[0] == 1 else self.key2(tagged[1])


class _CoGroupWindowFunction(WindowFunctionAdapter, WindowFunction):
    """Splits a window's tagged elements by side and calls the user's co-group (or join)."""

    def __init__(self, function: Any, mode: str) -> None:
        super().__init__(function, single=False)
        self.mode = mode  # "co_group", "join" or "flat_join"
        if mode == "co_group":
            self._call = getattr(function, "co_group", function)
        else:
            self._call = getattr(function, "join", function)

    def apply(self, key: Any, window: Any, inputs: Iterable[Any]) -> Iterable[Any]:
        first = [v for tag, v in inputs if tag == 1]
        second = [v for tag, v in inputs if tag == 2]
        call = self._call
        if self.mode == "co_group":
            return call(first, second) or ()
        if self.mode == "join":
            return [call(a, b) for a in first for b in second]
        out: list[Any] = []
        for a in first:
            for b in second:
                result = call(a, b)
                if result is not None:
                    out.extend(result)
        return out


class _TwoStreams:
    """Shared builder state of JoinedStreams and CoGroupedStreams."""

    _mode = "co_group"

    def __init__(self, input1: DataStream, input2: DataStream) -> None:
        self.input1 = input1
        self.input2 = input2

    def where(self, key_selector1: Any, key_type: TypeInformation | None = None) -> _Where:
        """The key of the first input."""
        return _Where(self, _key_fn(key_selector1))


class _Where:
    def __init__(self, streams: _TwoStreams, key1: Any) -> None:
        self._streams = streams
        self._key1 = key1

    def equal_to(self, key_selector2: Any, key_type: TypeInformation | None = None) -> _EqualTo:
        """The key of the second input (elements with equal keys meet)."""
        return _EqualTo(self._streams, self._key1, _key_fn(key_selector2))


class _EqualTo:
    def __init__(self, streams: _TwoStreams, key1: Any, key2: Any) -> None:
        self._streams = streams
        self._key1 = key1
        self._key2 = key2

    def window(self, window_assigner: Any) -> WithWindow:
        """The windows in which elements of both inputs meet."""
        return WithWindow(self._streams, self._key1, self._key2, window_assigner)


class WithWindow:
    """A join / co-group with its keys and window assigner; ``apply`` ends it."""

    def __init__(self, streams: _TwoStreams, key1: Any, key2: Any, assigner: Any) -> None:
        self._streams = streams
        self._key1 = key1
        self._key2 = key2
        self._assigner = assigner
        self._trigger: Any = None
        self._evictor: Any = None
        self._allowed_lateness: Any = None

    def trigger(self, trigger: Any) -> WithWindow:
        """Replace the assigner's default trigger."""
        self._trigger = trigger
        return self

    def evictor(self, evictor: Any) -> WithWindow:
        """Evict elements before / after the function."""
        self._evictor = evictor
        return self

    def allowed_lateness(self, time_ms: Any) -> WithWindow:
        """Keep windows ``time_ms`` after their end for late elements."""
        self._allowed_lateness = time_ms
        return self

    def apply(self, function: Any, output_type: TypeInformation | None = None) -> DataStream:
        """Run the join / co-group function on every key and window."""
        mode = self._streams._mode
        if mode == "join" and isinstance(function, FlatJoinFunction):
            mode = "flat_join"
        elif mode == "join" and not (isinstance(function, JoinFunction) or callable(function)):
            raise TypeError("join().apply expects a JoinFunction, a FlatJoinFunction or a callable")
        elif mode == "co_group" and not (isinstance(function, CoGroupFunction) or callable(function)):
            raise TypeError("co_group().apply expects a CoGroupFunction or a callable")
        s1, s2 = self._streams.input1, self._streams.input2
        tagged1 = s1.map(_Tag1())
        tagged2 = s2.map(_Tag2())
        for tagged, source in ((tagged1, s1), (tagged2, s2)):
            parallelism = source._transformation.parallelism
            tagged._update(parallelism=parallelism)
        windowed = tagged1.union(tagged2).key_by(_UnionKey(self._key1, self._key2)).window(self._assigner)
        if self._trigger is not None:
            windowed.trigger(self._trigger)
        if self._evictor is not None:
            windowed.evictor(self._evictor)
        if self._allowed_lateness is not None:
            windowed.allowed_lateness(self._allowed_lateness)
        result = windowed.apply(_CoGroupWindowFunction(function, mode), output_type)
        return result.name("Join" if mode != "co_group" else "CoGroup")

    def with_(self, function: Any, output_type: TypeInformation | None = None) -> DataStream:
        """Alias of ``apply`` (Flink's deprecated ``with``)."""
        return self.apply(function, output_type)


class JoinedStreams(_TwoStreams):
    """``a.join(b)``: pairs of elements with equal keys in the same window."""

    _mode = "join"


class CoGroupedStreams(_TwoStreams):
    """``a.co_group(b)``: the groups of both inputs with equal keys in the same window."""

    _mode = "co_group"


class IntervalJoin:
    """``keyed_a.interval_join(keyed_b)``: ``between(lower, upper)`` comes next."""

    def __init__(self, left: KeyedStream, right: KeyedStream) -> None:
        self._left = left
        self._right = right

    def between(self, lower_bound: Any, upper_bound: Any) -> IntervalJoined:
        """Join pairs with ``left.ts + lower <= right.ts <= left.ts + upper`` (ms, Time or Duration)."""
        lower, upper = _millis(lower_bound), _millis(upper_bound)
        if lower > upper:
            raise ValueError("lowerBound <= upperBound must be fulfilled")
        return IntervalJoined(self._left, self._right, lower, upper)


class IntervalJoined:
    """An interval join with its bounds; ``process`` ends it."""

    def __init__(self, left: KeyedStream, right: KeyedStream, lower: int, upper: int) -> None:
        self._left = left
        self._right = right
        self._lower = lower
        self._upper = upper
        self._lower_exclusive = False
        self._upper_exclusive = False

    def lower_bound_exclusive(self) -> IntervalJoined:
        """Exclude the lower bound."""
        self._lower_exclusive = True
        return self

    def upper_bound_exclusive(self) -> IntervalJoined:
        """Exclude the upper bound."""
        self._upper_exclusive = True
        return self

    def process(self, process_join_function: Any, output_type: TypeInformation | None = None) -> DataStream:
        """``process_element(left, right, ctx)`` for every joined pair."""
        if not (isinstance(process_join_function, ProcessJoinFunction) or callable(process_join_function)):
            raise TypeError("process expects a ProcessJoinFunction")
        keys = (self._left.get_key_selector(), self._right.get_key_selector())
        spec = IntervalJoinSpec(
            process_join_function,
            keys,
            self._lower,
            self._upper,
            self._lower_exclusive,
            self._upper_exclusive,
        )
        return self._left._two_input(self._right._values_id(), "Interval Join", spec, output_type, keys)
