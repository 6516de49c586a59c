"""EvictingWindowOperator: a window operator that keeps every element and lets an evictor drop
some before and after the window function runs (Flink's EvictingWindowOperator).

Elements are kept with their timestamps (``TimestampedValue``), whatever the function:
an evicting window with ``reduce`` or ``aggregate`` folds the elements that survived
``evict_before`` when it fires, not incrementally. What survives ``evict_after`` stays
the window's contents.
"""

from __future__ import annotations

from typing import Any

from millstream.common.time import TimestampedValue
from millstream.runtime.operators.window import EMPTY, WindowOperator

__all__ = ["EvictingWindowOperator"]


class EvictingWindowOperator(WindowOperator):
    """Keyed windows with an evictor."""

    def _add(self, state_window: Any, value: Any, timestamp: int | None) -> None:
        state = self._window_state
        state.namespace = state_window
        state.add(TimestampedValue(value, timestamp))

    def _function_input(self, contents: Any, window: Any, state_window: Any) -> Any:
        """Evict before, run the function's reduce or aggregate over what is left, evict after,
        and keep what remains as the window's contents."""
        evictor: Any = self._evictor
        buffer = list(contents)
        evictor.evict_before(buffer, len(buffer), window, self._process_ctx)
        values = [e.value for e in buffer]
        if self._kind_of_function() == "reduce":
            result: Any = EMPTY
            for v in values:
                result = v if result is EMPTY else self._reduce(result, v)
        elif self._kind_of_function() == "aggregate":
            aggregate: Any = self._aggregate
            acc = aggregate.create_accumulator()
            for v in values:
                acc = aggregate.add(v, acc)
            result = aggregate.get_result(acc) if values else EMPTY
        else:
            result = values
        evictor.evict_after(buffer, len(buffer), window, self._process_ctx)
        state = self._window_state
        state.namespace = state_window
        state.update(buffer)
        if result is EMPTY or (isinstance(result, list) and not result):
            # Flink calls the function even on an empty evicted buffer for list windows.
            return result if isinstance(result, list) else EMPTY
        return result

    def _kind_of_function(self) -> str:
        if self._reduce is not None:
            return "reduce"
        if self._aggregate is not None:
            return "aggregate"
        return "list"
