"""The contexts a window operator hands to user code: PyFlink's Trigger.TriggerContext and
OnMergeContext, ProcessWindowFunction.Context (with per-window and global keyed state) and
WindowAssigner.WindowAssignerContext, each bound to the operator's current key and window.
Used on the task thread only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from millstream.runtime.operators.window_contracts import OnMergeContext, WindowAssignerContext
from millstream.runtime.state.heap import VOID_NAMESPACE

if TYPE_CHECKING:
    from millstream.runtime.operators.window import WindowOperator

__all__ = ["AssignerContext", "ProcessWindowContext", "TriggerContext"]


class TriggerContext(OnMergeContext):
    """Trigger.TriggerContext / OnMergeContext for the current key and window."""

    def __init__(self, operator: WindowOperator) -> None:
        self._op = operator
        self.window: Any = None
        self.merged_windows: list[Any] = []

    def get_current_watermark(self) -> int:
        return self._op.current_watermark

    def get_current_processing_time(self) -> int:
        return self._op.context.processing_time_service.current_processing_time()

    def register_event_time_timer(self, time: int) -> None:
        self._op._timers.register_event_time_timer(self.window, time)

    def register_processing_time_timer(self, time: int) -> None:
        self._op._timers.register_processing_time_timer(self.window, time)

    def delete_event_time_timer(self, time: int) -> None:
        self._op._timers.delete_event_time_timer(self.window, time)

    def delete_processing_time_timer(self, time: int) -> None:
        self._op._timers.delete_processing_time_timer(self.window, time)

    def get_partitioned_state(self, state_descriptor: Any) -> Any:
        return self._op.keyed_backend.get_state(state_descriptor, self.window)  # type: ignore[union-attr]

    def merge_partitioned_state(self, state_descriptor: Any) -> None:
        if self.merged_windows:
            state = self._op.keyed_backend.get_state(state_descriptor, self.window)  # type: ignore[union-attr]
            state.merge_namespaces(self.window, self.merged_windows)

    def get_metric_group(self) -> Any:
        raise NotImplementedError("user metric groups are not supported yet")


class _KeyedStateStore:
    """``window_state()`` / ``global_state()`` of a ProcessWindowFunction context."""

    def __init__(self, operator: WindowOperator, per_window: bool) -> None:
        self._op = operator
        self._per_window = per_window

    def _state(self, descriptor: Any) -> Any:
        namespace = self._op._process_ctx._window if self._per_window else VOID_NAMESPACE
        return self._op.keyed_backend.get_state(descriptor, namespace)  # type: ignore[union-attr]

    get_state = get_list_state = get_map_state = _state
    get_reducing_state = get_aggregating_state = _state


class ProcessWindowContext:
    """ProcessWindowFunction.Context."""

    def __init__(self, operator: WindowOperator) -> None:
        self._op = operator
        self._window: Any = None
        self._window_state = _KeyedStateStore(operator, True)
        self._global_state = _KeyedStateStore(operator, False)

    def window(self) -> Any:
        return self._window

    def current_processing_time(self) -> int:
        return self._op.context.processing_time_service.current_processing_time()

    def current_watermark(self) -> int:
        return self._op.current_watermark

    def window_state(self) -> _KeyedStateStore:
        return self._window_state

    def global_state(self) -> _KeyedStateStore:
        return self._global_state


class AssignerContext(WindowAssignerContext):
    """WindowAssigner.WindowAssignerContext."""

    def __init__(self, operator: WindowOperator) -> None:
        self._op = operator

    def get_current_processing_time(self) -> int:
        return self._op.context.processing_time_service.current_processing_time()

    def get_runtime_context(self) -> Any:
        return self._op.context.runtime_context
