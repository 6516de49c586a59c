"""Two-input operators: connect (co-map, co-flat-map, co-process), broadcast state, interval join.

Input 1 is the stream ``connect`` was called on, input 2 the argument (for broadcast
connections input 2 is the broadcast stream). Each input's watermark comes from its
own valve; the operator's watermark is the minimum over its inputs that are not idle,
and it turns idle only when both inputs are (Flink's ``IndexedCombinedWatermarkStatus``
in ``AbstractStreamOperator.processWatermark1/2`` and ``processWatermarkStatus``).
"""

from __future__ import annotations

from typing import Any

from millstream.runtime.operators.base import Emit, OperatorContext, StreamOperator
from millstream.runtime.operators.elements import MIN_TIMESTAMP, Watermark, WatermarkStatus
from millstream.runtime.operators.process import (
    KeyedProcessOperator,
    ProcessContext,
    ProcessOperator,
    TimerServiceView,
    process_each,
)
from millstream.runtime.operators.udf import flat_map_batch, map_batch
from millstream.runtime.state.heap import VOID_NAMESPACE
from millstream.runtime.state.operator_state import BroadcastStateImpl, ReadOnlyBroadcastStateView

__all__ = [
    "BroadcastContext",
    "CoBroadcastWithKeyedOperator",
    "CoBroadcastWithNonKeyedOperator",
    "CoProcessOperator",
    "CoStreamFlatMap",
    "CoStreamMap",
    "KeyedCoProcessOperator",
    "TwoInputOperator",
]


class TwoInputOperator(StreamOperator):
    """Combines the watermarks and statuses of two inputs (mixed into two-input operators)."""

    def init_two_inputs(self) -> None:
        """Per-input watermark and idleness, both active at MIN_TIMESTAMP."""
        self._input_watermarks = [MIN_TIMESTAMP, MIN_TIMESTAMP]  # owner: task thread
        self._input_idle = [False, False]

    def _combine(self) -> None:
        active = [w for w, idle in zip(self._input_watermarks, self._input_idle, strict=True) if not idle]
        if active:
            combined = min(active)
            if combined > self.current_watermark:
                self.process_watermark(Watermark(combined))

    def _input_watermark(self, index: int, watermark: Watermark) -> None:
        self._input_watermarks[index] = watermark.timestamp
        self._combine()

    def _input_status(self, index: int, status: WatermarkStatus) -> None:
        was_idle = all(self._input_idle)
        self._input_idle[index] = status.idle
        self._combine()
        if was_idle != all(self._input_idle):
            self.emit_watermark_status(status)

    def operator_metrics(self) -> dict[str, float]:
        """Flink's two-input operator metrics: each input's watermark besides the combined one."""
        first, second = self._input_watermarks
        return {
            **super().operator_metrics(),
            "currentInput1Watermark": first,
            "currentInput2Watermark": second,
        }

    def process_watermark1(self, watermark: Watermark) -> None:
        """The first input's watermark advanced."""
        self._input_watermark(0, watermark)

    def process_watermark2(self, watermark: Watermark) -> None:
        """The second input's watermark advanced."""
        self._input_watermark(1, watermark)

    def process_watermark_status1(self, status: WatermarkStatus) -> None:
        """The first input turned idle or active."""
        self._input_status(0, status)

    def process_watermark_status2(self, status: WatermarkStatus) -> None:
        """The second input turned idle or active."""
        self._input_status(1, status)

    def process_batch1(self, values: list[Any], timestamps: list[int] | None) -> None:
        """A batch of the first input."""
        raise NotImplementedError

    def process_batch2(self, values: list[Any], timestamps: list[int] | None) -> None:
        """A batch of the second input."""
        raise NotImplementedError

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """A two-input operator has no single input (it is always a chain head)."""
        raise TypeError(f"operator '{self.name}' has two inputs: use process_batch1/2")


def _keyed_call(fn: Any, key_selector: Any, set_key: Any) -> Any:
    def call(value: Any) -> Any:
        set_key(key_selector(value))
        return fn(value)

    return call


class _CoUdf(TwoInputOperator):
    """Two user functions, one per input; on keyed connected streams each runs with its key."""

    def __init__(
        self,
        context: OperatorContext,
        fn1: Any,
        fn2: Any,
        lifecycle: Any,
        output: Emit,
        key_selectors: tuple[Any, Any] | None,
    ) -> None:
        super().__init__(context, lifecycle)
        self.init_two_inputs()
        self._output = output
        if key_selectors is not None:
            set_key = self.create_keyed_backend(key_selectors[0]).set_current_key
            fn1 = _keyed_call(fn1, key_selectors[0], set_key)
            fn2 = _keyed_call(fn2, key_selectors[1], set_key)
        self._fn1 = fn1
        self._fn2 = fn2

    def process_batch1(self, values: list[Any], timestamps: list[int] | None) -> None:
        """``fn1`` over a batch of the first input."""
        self._apply(self._fn1, values, timestamps)

    def process_batch2(self, values: list[Any], timestamps: list[int] | None) -> None:
        """``fn2`` over a batch of the second input."""
        self._apply(self._fn2, values, timestamps)

    def _apply(self, fn: Any, values: list[Any], timestamps: list[int] | None) -> None:
        raise NotImplementedError


class CoStreamMap(_CoUdf):
    """``map1`` / ``map2``: one output per element."""

    def _apply(self, fn: Any, values: list[Any], timestamps: list[int] | None) -> None:
        map_batch(self, fn, self._output, values, timestamps)


class CoStreamFlatMap(_CoUdf):
    """``flat_map1`` / ``flat_map2``: any number of outputs per element."""

    def _apply(self, fn: Any, values: list[Any], timestamps: list[int] | None) -> None:
        flat_map_batch(self, fn, self._output, values, timestamps)


class CoProcessOperator(TwoInputOperator, ProcessOperator):
    """A CoProcessFunction: ``process_element1`` / ``process_element2`` with a context."""

    def __init__(
        self,
        context: OperatorContext,
        fn1: Any,
        fn2: Any,
        lifecycle: Any,
        output: Emit,
        side_outputs: dict[str, Emit],
    ) -> None:
        ProcessOperator.__init__(self, context, fn1, lifecycle, output, side_outputs)
        self.init_two_inputs()
        self._fn2 = fn2
        self._ctx2 = self._ctx

    def process_batch1(self, values: list[Any], timestamps: list[int] | None) -> None:
        """The first function per element of the first input."""
        self._run(values, timestamps, self._fn, self._ctx)

    def process_batch2(self, values: list[Any], timestamps: list[int] | None) -> None:
        """The second function per element of the second input."""
        self._run(values, timestamps, self._fn2, self._ctx2)


class KeyedCoProcessOperator(TwoInputOperator, KeyedProcessOperator):
    """A KeyedCoProcessFunction: both inputs share keyed state and timers per key."""

    def __init__(
        self,
        context: OperatorContext,
        fn1: Any,
        fn2: Any,
        lifecycle: Any,
        output: Emit,
        side_outputs: dict[str, Emit],
        key_selectors: tuple[Any, Any],
    ) -> None:
        KeyedProcessOperator.__init__(self, context, fn1, lifecycle, output, side_outputs, key_selectors[0])
        self.init_two_inputs()
        self._fn2 = fn2
        self._key_selector2 = key_selectors[1]

    def process_batch1(self, values: list[Any], timestamps: list[int] | None) -> None:
        """``process_element1`` per element of the first input, with its key current."""
        self._run(values, timestamps, self._fn, self._key_selector, self._ctx)

    def process_batch2(self, values: list[Any], timestamps: list[int] | None) -> None:
        """``process_element2`` per element of the second input, with its key current."""
        self._run(values, timestamps, self._fn2, self._key_selector2, self._ctx)


# -- broadcast state ----------------------------------------------------------------------


class BroadcastContext(ProcessContext):
    """Contexts of (Keyed)BroadcastProcessFunction: broadcast state, time, key, timers."""

    __slots__ = ("_broadcast", "_operator", "_read_only")

    def __init__(self, operator: Any, timer_service: TimerServiceView, read_only: bool) -> None:
        super().__init__(timer_service)
        self._operator = operator
        self._read_only = read_only

    def get_broadcast_state(self, state_descriptor: Any) -> Any:
        """The broadcast state of ``state_descriptor`` (read-only on the non-broadcast side)."""
        state = self._operator.broadcast_state(state_descriptor)
        return ReadOnlyBroadcastStateView(state) if self._read_only else state

    def current_processing_time(self) -> int:
        """Now, epoch ms."""
        return self._timer_service.current_processing_time()

    def current_watermark(self) -> int:
        """The operator's current watermark."""
        return self._timer_service.current_watermark()

    def apply_to_keyed_state(self, state_descriptor: Any, function: Any) -> None:
        """``function(key, state)`` for every key with ``state_descriptor`` state (keyed only)."""
        self._operator.apply_to_keyed_state(state_descriptor, function)


def _broadcast_states(operator: StreamOperator, descriptors: list[Any]) -> dict[str, BroadcastStateImpl]:
    backend = operator.operator_state_backend
    return {d.get_name(): backend.get_broadcast_state(d) for d in descriptors}


def _lookup_broadcast_state(states: dict[str, BroadcastStateImpl], descriptor: Any) -> BroadcastStateImpl:
    state = states.get(descriptor.get_name())
    if state is None:
        raise KeyError(
            f"The requested state {descriptor.get_name()!r} does not exist. Check for typos in your "
            "state descriptor, or specify the state descriptor in the datastream.broadcast(...) "
            "call if you forgot to register it."
        )
    return state


class CoBroadcastWithNonKeyedOperator(CoProcessOperator):
    """BroadcastProcessFunction: input 1 reads broadcast state, input 2 (broadcast) writes it."""

    def __init__(
        self,
        context: OperatorContext,
        function: Any,
        output: Emit,
        side_outputs: dict[str, Emit],
        descriptors: list[Any],
    ) -> None:
        super().__init__(
            context,
            function.process_element,
            function.process_broadcast_element,
            function,
            output,
            side_outputs,
        )
        self._states = _broadcast_states(self, descriptors)
        timers = TimerServiceView(self, None)
        self._ctx = BroadcastContext(self, timers, read_only=True)
        self._ctx2 = BroadcastContext(self, timers, read_only=False)

    def broadcast_state(self, descriptor: Any) -> BroadcastStateImpl:
        """The registered broadcast state of ``descriptor``."""
        return _lookup_broadcast_state(self._states, descriptor)

    def apply_to_keyed_state(self, state_descriptor: Any, function: Any) -> None:
        """Only on keyed broadcast connections."""
        raise TypeError("apply_to_keyed_state is only available in a KeyedBroadcastProcessFunction")


class CoBroadcastWithKeyedOperator(TwoInputOperator, KeyedProcessOperator):
    """KeyedBroadcastProcessFunction: keyed state and timers on input 1, broadcast state from input 2."""

    def __init__(
        self,
        context: OperatorContext,
        function: Any,
        output: Emit,
        side_outputs: dict[str, Emit],
        key_selector: Any,
        descriptors: list[Any],
    ) -> None:
        KeyedProcessOperator.__init__(
            self, context, function.process_element, function, output, side_outputs, key_selector
        )
        self.init_two_inputs()
        self._fn2 = function.process_broadcast_element
        self._states = _broadcast_states(self, descriptors)
        timers = self._ctx.timer_service()
        self._ctx = BroadcastContext(self, timers, read_only=True)
        self._timer_ctx = self._ctx
        self._broadcast_ctx = BroadcastContext(self, TimerServiceView(self, None), read_only=False)

    def broadcast_state(self, descriptor: Any) -> BroadcastStateImpl:
        """The registered broadcast state of ``descriptor``."""
        return _lookup_broadcast_state(self._states, descriptor)

    def apply_to_keyed_state(self, state_descriptor: Any, function: Any) -> None:
        """``function(key, state)`` for every key that has this state (Flink's applyToKeyedState)."""
        backend = self.keyed_backend
        assert backend is not None
        state = backend.get_state(state_descriptor)
        previous = backend.current_key
        try:
            for key in backend.keys(state_descriptor.get_name(), VOID_NAMESPACE):
                backend.set_current_key(key)
                function(key, state)
        finally:
            if previous is not None:
                backend.set_current_key(previous)

    def process_batch1(self, values: list[Any], timestamps: list[int] | None) -> None:
        """``process_element`` per element of the keyed input, with its key current."""
        self._run(values, timestamps, self._fn, self._key_selector, self._ctx)

    def process_batch2(self, values: list[Any], timestamps: list[int] | None) -> None:
        """``process_broadcast_element`` per element of the broadcast input (no current key)."""
        process_each(self, self._collector, values, timestamps, self._fn2, self._broadcast_ctx)
