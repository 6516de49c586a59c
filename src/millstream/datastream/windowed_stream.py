"""WindowedStream and AllWindowedStream, as ``pyflink.datastream.data_stream``.

``key_by(...).window(assigner)`` (or ``count_window``) and ``window_all(assigner)``
collect settings (trigger, evictor, allowed lateness, late-data side output) until a
window function ends the chain: ``reduce`` / ``aggregate`` keep one value or
accumulator per key and window (incremental), ``process`` / ``apply`` keep the
elements. The window operator calls the adapters below, which present the contents
to the user's function the way its kind expects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from millstream.common.typeinfo import TypeInformation
from millstream.datastream.functions import (
    AggregateFunction,
    ProcessWindowFunction,
    ReduceFunction,
    WindowFunction,
)
from millstream.datastream.output_tag import OutputTag
from millstream.datastream.window.assigners import (
    CountSlidingWindowAssigner,
    CountTumblingWindowAssigner,
    WindowAssigner,
)
from millstream.datastream.window.evictors import Evictor
from millstream.datastream.window.triggers import CountTrigger, PurgingTrigger, Trigger
from millstream.graph.operator_specs import WindowSpec

if TYPE_CHECKING:
    from millstream.datastream.data_stream import DataStream, KeyedStream

__all__ = ["AllWindowedStream", "WindowedStream"]


class WindowFunctionAdapter:
    """Base: forwards ``open`` / ``close`` to the user's function."""

    def __init__(self, function: Any, single: bool) -> None:
        self.function = function
        self.single = single  # contents is one value (reduce / aggregate), not a list

    def open(self, runtime_context: Any) -> None:
        opener = getattr(self.function, "open", None)
        if opener is not None:
            opener(runtime_context)

    def close(self) -> None:
        closer = getattr(self.function, "close", None)
        if closer is not None:
            closer()

    def _elements(self, contents: Any) -> list[Any]:
        return [contents] if self.single else contents


class _PassThrough(WindowFunctionAdapter):
    """reduce / aggregate without a window function: the value itself."""

    def process(self, key: Any, window: Any, ctx: Any, contents: Any) -> Any:
        return (contents,)


class _ProcessWindow(WindowFunctionAdapter):
    """ProcessWindowFunction.process(key, context, elements)."""

    def process(self, key: Any, window: Any, ctx: Any, contents: Any) -> Any:
        return self.function.process(key, ctx, self._elements(contents))

    def clear(self, window: Any, ctx: Any) -> None:
        clear = getattr(self.function, "clear", None)
        if clear is not None:
            clear(ctx)


class _ApplyWindow(WindowFunctionAdapter):
    """WindowFunction.apply(key, window, inputs) (or a plain callable with those arguments)."""

    def process(self, key: Any, window: Any, ctx: Any, contents: Any) -> Any:
        apply = getattr(self.function, "apply", self.function)
        return apply(key, window, self._elements(contents))


class _ProcessAllWindow(WindowFunctionAdapter):
    """ProcessAllWindowFunction.process(context, elements)."""

    def process(self, key: Any, window: Any, ctx: Any, contents: Any) -> Any:
        return self.function.process(ctx, self._elements(contents))

    def clear(self, window: Any, ctx: Any) -> None:
        clear = getattr(self.function, "clear", None)
        if clear is not None:
            clear(ctx)


class _ApplyAllWindow(WindowFunctionAdapter):
    """AllWindowFunction.apply(window, inputs)."""

    def process(self, key: Any, window: Any, ctx: Any, contents: Any) -> Any:
        apply = getattr(self.function, "apply", self.function)
        return apply(window, self._elements(contents))


def _reduce_callable(function: Any) -> Any:
    if isinstance(function, ReduceFunction) or hasattr(function, "reduce"):
        return function.reduce
    if callable(function):
        return function
    raise TypeError("The input must be a ReduceFunction or a callable function")


def _check_aggregate(function: Any) -> Any:
    for method in ("create_accumulator", "add", "get_result"):
        if not hasattr(function, method):
            raise TypeError(f"aggregate expects an AggregateFunction (no {method}())")
    return function


class WindowedStream:
    """A keyed stream cut into windows."""

    _all = False

    def __init__(self, keyed_stream: KeyedStream, window_assigner: WindowAssigner) -> None:
        if not isinstance(window_assigner, WindowAssigner) and not hasattr(window_assigner, "assign_windows"):
            raise TypeError("window() expects a WindowAssigner")
        self._keyed_stream = keyed_stream
        self._assigner = window_assigner
        self._trigger: Any = None
        self._evictor: Any = None
        self._allowed_lateness = 0
        self._late_data_tag: OutputTag | None = None

    def get_execution_environment(self) -> Any:
        """The environment."""
        return self._keyed_stream.get_execution_environment()

    def get_input_type(self) -> TypeInformation:
        """The element type."""
        return self._keyed_stream.get_type()

    def trigger(self, trigger: Trigger) -> WindowedStream:
        """Replace the assigner's default trigger."""
        if not hasattr(trigger, "on_element"):
            raise TypeError("trigger() expects a Trigger")
        if hasattr(self._assigner, "merge_windows") and not trigger.can_merge():
            raise ValueError(
                "A merging window assigner cannot be used with a trigger that does not support "
                f"merging: {trigger!r}"
            )
        self._trigger = trigger
        return self

    def evictor(self, evictor: Evictor) -> WindowedStream:
        """Evict elements before/after the window function (keeps all elements in state)."""
        if not (hasattr(evictor, "evict_before") and hasattr(evictor, "evict_after")):
            raise TypeError("evictor() expects an Evictor")
        self._evictor = evictor
        return self

    def allowed_lateness(self, time_ms: Any) -> WindowedStream:
        """Keep windows (and fire again for late elements) ``time_ms`` after their end."""
        millis = time_ms if isinstance(time_ms, int) else int(time_ms.to_milliseconds())
        if millis < 0:
            raise ValueError("The allowed lateness cannot be negative.")
        self._allowed_lateness = millis
        return self

    def side_output_late_data(self, output_tag: OutputTag) -> WindowedStream:
        """Send elements that arrive after their windows' lateness to ``output_tag``."""
        if not isinstance(output_tag, OutputTag):
            raise TypeError("side_output_late_data expects an OutputTag")
        self._late_data_tag = output_tag
        return self

    # -- window functions ------------------------------------------------------------------

    def reduce(
        self, reduce_function: Any, window_function: Any = None, output_type: TypeInformation | None = None
    ) -> DataStream:
        """Reduce the window's elements incrementally; optionally a window function gets the result."""
        reduce = _reduce_callable(reduce_function)
        adapter = self._adapter(window_function, single=True)
        out_type = output_type if window_function is not None else self._keyed_stream.get_type()
        return self._window_op("reduce", adapter, out_type, reduce_function=reduce, name_fn=reduce_function)

    def aggregate(
        self,
        aggregate_function: AggregateFunction,
        window_function: Any = None,
        accumulator_type: TypeInformation | None = None,
        output_type: TypeInformation | None = None,
    ) -> DataStream:
        """One accumulator per key and window; optionally a window function gets the result."""
        agg = _check_aggregate(aggregate_function)
        adapter = self._adapter(window_function, single=True)
        return self._window_op("aggregate", adapter, output_type, aggregate_function=agg, name_fn=agg)

    def process(self, process_window_function: Any, output_type: TypeInformation | None = None) -> DataStream:
        """Call ``process(key, context, elements)`` with all of a window's elements."""
        adapter = self._adapter(process_window_function, single=False)
        return self._window_op("list", adapter, output_type, name_fn=process_window_function)

    def apply(self, window_function: Any, output_type: TypeInformation | None = None) -> DataStream:
        """Call ``apply(key, window, inputs)`` with all of a window's elements."""
        adapter = self._adapter(window_function, single=False, apply=True)
        return self._window_op("list", adapter, output_type, name_fn=window_function)

    def _adapter(self, function: Any, single: bool, apply: bool = False) -> Any:
        if function is None:
            return _PassThrough(None, single)
        if isinstance(function, ProcessWindowFunction) or (not apply and hasattr(function, "process")):
            return _ProcessWindow(function, single)
        if isinstance(function, WindowFunction) or hasattr(function, "apply") or callable(function):
            return _ApplyWindow(function, single)
        raise TypeError("expected a ProcessWindowFunction or a WindowFunction")

    def _window_op(
        self,
        state_kind: Literal["reduce", "aggregate", "list"],
        adapter: Any,
        output_type: Any,
        reduce_function: Any = None,
        aggregate_function: Any = None,
        name_fn: Any = None,
    ) -> DataStream:
        trigger = self._trigger or self._assigner.get_default_trigger(self.get_execution_environment())
        spec = WindowSpec(
            self._assigner,
            trigger,
            adapter,
            state_kind,
            evictor=self._evictor,
            allowed_lateness=self._allowed_lateness,
            late_data_tag=self._late_data_tag.tag_id if self._late_data_tag is not None else None,
            reduce_function=reduce_function,
            aggregate_function=aggregate_function,
        )
        kind = "EvictingWindowOperator" if self._evictor is not None else "Window"
        name = f"{kind}({self._assigner!r}, {trigger!r}, {type(name_fn).__name__})"
        stream = self._keyed_stream._one_input(name, spec, output_type, self._keyed_stream._key_selector)
        if self._all:
            stream._update(parallelism=1, max_parallelism=1, non_parallel=True)
        return stream


def _all_key(value: Any) -> int:
    """The one key of ``window_all`` (Flink's NullByteKeySelector)."""
    return 0


class AllWindowedStream(WindowedStream):
    """A non-keyed stream cut into windows; runs with parallelism 1."""

    _all = True

    def __init__(self, data_stream: DataStream, window_assigner: WindowAssigner) -> None:
        super().__init__(data_stream.key_by(_all_key), window_assigner)

    def _adapter(self, function: Any, single: bool, apply: bool = False) -> Any:
        if function is None:
            return _PassThrough(None, single)
        if not apply and hasattr(function, "process"):
            return _ProcessAllWindow(function, single)
        if hasattr(function, "apply") or callable(function):
            return _ApplyAllWindow(function, single)
        raise TypeError("expected a ProcessAllWindowFunction or an AllWindowFunction")


def count_window_assigner(size: int, slide: int = 0) -> Any:
    """PyFlink's ``count_window``: tumbling (slide 0) or sliding count windows."""
    if slide < 0:
        raise ValueError("slide must not be negative")
    return CountTumblingWindowAssigner.of(size) if slide == 0 else CountSlidingWindowAssigner.of(size, slide)


def count_window_trigger(size: int) -> Any:
    """The count window's trigger; purging after it fired is unobservable (the window never
    receives another element) and keeps state bounded."""
    return PurgingTrigger.of(CountTrigger.of(size))
