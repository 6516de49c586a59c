"""WindowOperator: keyed windows driven by an assigner, a trigger and (optionally) an evictor.

Flink's WindowOperator (its EvictingWindowOperator is ``evicting_window.py``), per element:

1. the key becomes the current key; the assigner gives the element's windows;
2. merging assigners (sessions) merge the new window into the key's existing windows
   (``merging_window_set.py``: window -> the window whose namespace holds its state; merging
   folds state namespaces, merges trigger state, and moves cleanup timers);
3. a window that is late (its cleanup time ``max_timestamp + allowed_lateness`` is not
   after the watermark) is skipped; otherwise the element is added to the window's
   state: a reduced value or an accumulator (incremental: one per key and window, not
   the elements), or a list of elements (``process`` / ``apply`` / evictors);
4. the trigger's ``on_element`` decides: FIRE runs the window function on the contents
   (results carry the window's ``max_timestamp``), PURGE clears them;
5. a cleanup timer at the window's cleanup time drops the window's state, trigger state
   and the function's per-window state;
6. an element that fell into no window because all were late goes to the late-data side
   output if one is set (``side_output_late_data``), else it is dropped.

Timers (the trigger's and the cleanup ones) are keyed by (key, window) and fire through
``on_event_time`` / ``on_processing_time``.

Per-record path: for event-time tumbling/sliding windows with the default trigger, no
evictor and incremental state, elements are folded straight into the state table (one
key-group lookup, one dict read and write per window, timers registered only when a
window's state is created); event-time session windows with a static gap have a fast
path of their own (``session_fast_path.py``); everything else takes the general path above.
"""

from __future__ import annotations

from typing import Any

from millstream.common.time import MAX_TIMESTAMP, MIN_TIMESTAMP
from millstream.graph.operator_specs import WindowSpec
from millstream.runtime.location import UserFunctionError
from millstream.runtime.operators.base import Emit, OperatorContext, StreamOperator
from millstream.runtime.operators.elements import Watermark
from millstream.runtime.operators.merging_window_set import MergingWindowSet
from millstream.runtime.operators.process import OutputCollector
from millstream.runtime.operators.session_fast_path import on_session_timer, process_sessions, session_gap
from millstream.runtime.operators.window_contexts import AssignerContext, ProcessWindowContext, TriggerContext
from millstream.runtime.operators.window_contracts import (
    AlignedWindowAssigner,
    MergingWindowAssigner,
    Trigger,
    WatermarkTrigger,
    WindowAssigner,
    no_timestamp_error,
)
from millstream.runtime.state.heap import HeapKeyedStateBackend, InternalStateDescriptor

__all__ = ["EMPTY", "WindowOperator"]


class WindowOperator(StreamOperator):
    """Keyed windows (window, window_all, count_window; joins and co-groups run on it too)."""

    def __init__(
        self,
        context: OperatorContext,
        spec: WindowSpec,
        output: Emit,
        side_outputs: dict[str, Emit],
        key_selector: Any,
    ) -> None:
        super().__init__(context, spec.window_function)
        self._key_selector = key_selector
        self._assigner: WindowAssigner = spec.assigner
        self._trigger: Trigger = spec.trigger
        self._evictor = spec.evictor
        self._lateness = int(spec.allowed_lateness)
        late_tag = spec.late_data_tag
        self._late_output = side_outputs.get(late_tag) if late_tag is not None else None
        self._function = spec.window_function
        self._kind = "list" if self._evictor is not None else spec.state_kind
        self._reduce: Any = spec.reduce_function
        self._aggregate: Any = spec.aggregate_function
        self._collector = OutputCollector(output, side_outputs)
        self._event_time = self._assigner.is_event_time()
        self._merging = isinstance(self._assigner, MergingWindowAssigner)
        if self._merging and not self._trigger.can_merge():
            raise ValueError(
                f"operator '{self.name}': the trigger {self._trigger!r} cannot be used with a "
                "merging window assigner"
            )
        backend = self.create_keyed_backend(self._key_selector)
        self._timers = self.create_timer_service(self)
        state_kind = {"reduce": "reducing", "aggregate": "aggregating", "list": "list"}[self._kind]
        function = self._reduce if self._kind == "reduce" else self._aggregate
        contents = InternalStateDescriptor("window-contents", state_kind, function)
        self._window_state = backend.get_state(contents)
        # the fast path folds elements into the heap backend's table directly
        self._window_table = (
            backend.tables["window-contents"] if isinstance(backend, HeapKeyedStateBackend) else None
        )
        self._merging_sets = backend.get_state(InternalStateDescriptor("merging-window-set", "value"))
        self._trigger_ctx = TriggerContext(self)
        self._process_ctx = ProcessWindowContext(self)
        self._assigner_ctx = AssignerContext(self)
        self.late_records_dropped = 0  # owner: task thread (Flink's numLateRecordsDropped)
        self._fast = self._fast_path()
        self._session_gap = session_gap(self)
        # session fast path: key -> (starts, windows) of its windows sorted by start (a cache
        # of the merging window set in its state, dropped whenever the general path persists it)
        self._session_index: dict[Any, tuple[list[int], list[Any]]] = {}

    def operator_metrics(self) -> dict[str, float]:
        """Flink's window operator metrics: also the late elements it dropped (those without a
        late-data side output)."""
        return {**super().operator_metrics(), "numLateRecordsDropped": self.late_records_dropped}

    def _fast_path(self) -> tuple[int, int, int] | None:
        """(size, slide, offset) of aligned event-time windows the fast path can fold elements
        into (see the module docstring), or None: the general path."""
        assigner, trigger = self._assigner, self._trigger
        if self._merging or self._evictor is not None or self._kind not in ("reduce", "aggregate"):
            return None
        if self._window_table is None:  # state not on the heap
            return None
        if not (isinstance(trigger, WatermarkTrigger) and trigger.fires_at_window_end()):
            return None
        return assigner.aligned_windows() if isinstance(assigner, AlignedWindowAssigner) else None

    # -- elements --------------------------------------------------------------------------

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Assign, add, trigger (see the module docstring)."""
        index = 0
        try:
            if self._fast is not None and timestamps is not None:
                index = self._process_fast(values, timestamps)
            elif self._session_gap is not None and timestamps is not None:
                index = process_sessions(self, values, timestamps)
            else:
                process = self._process_element
                if timestamps is None:
                    for index, v in enumerate(values):  # noqa: B007 - index names the failing record
                        process(v, None)
                else:
                    for index, v in enumerate(values):
                        process(v, timestamps[index])
        except UserFunctionError:
            self._collector.flush()
            raise
        except Exception as err:
            self._collector.flush()
            raise self.error(index, values) from err
        self.records_in += len(values)
        self._collector.flush()

    def _process_fast(self, values: list[Any], timestamps: list[int]) -> int:  # noqa: C901 - the inlined hot path
        assert self._fast is not None
        size, slide, offset = self._fast
        lateness = self._lateness
        watermark = self.current_watermark
        backend = self.keyed_backend
        assert backend is not None
        set_key = backend.set_current_key
        assert self._window_table is not None
        groups = self._window_table.groups
        key_of = self._key_selector
        register = self._timers.register_event_time_timer
        window_class = self._window_class
        windows_by_start = self._windows_by_start
        reduce = self._reduce
        aggregate = self._aggregate
        add = aggregate.add if aggregate is not None else None
        create = aggregate.create_accumulator if aggregate is not None else None
        late: list[int] = []
        index = 0
        for index, v in enumerate(values):
            ts = timestamps[index]
            if ts <= MIN_TIMESTAMP:
                raise no_timestamp_error()
            last_start = ts - (ts - offset + slide) % slide
            key = set_key(key_of(v))  # an unhashable key comes back in its hashable form
            group = groups[backend.current_group]
            skipped = True
            start = last_start
            while start > ts - size:
                max_ts = start + size - 1
                if max_ts + lateness > watermark:
                    skipped = False
                    window = windows_by_start.get(start)
                    if window is None:
                        window = windows_by_start[start] = window_class(start, start + size)
                    entry = (key, window)
                    current = group.get(entry)
                    if current is None:
                        group[entry] = add(v, create()) if add is not None else v  # type: ignore[misc]
                        if max_ts > watermark:
                            register(window, max_ts)
                            if lateness:
                                register(window, max_ts + lateness)
                    else:
                        group[entry] = add(v, current) if add is not None else reduce(current, v)
                    if max_ts <= watermark:
                        # late but within the allowed lateness: EventTimeTrigger fires at once
                        self._fire(key, window, window)
                        if lateness:
                            register(window, max_ts + lateness)
                start -= slide
            if skipped:
                late.append(index)
        if late:
            for i in late:
                self._late(values[i], timestamps[i])
        return index

    def _late(self, value: Any, timestamp: int | None) -> None:
        if self._late_output is not None:
            self._late_output([value], None if timestamp is None else [timestamp])
        else:
            self.late_records_dropped += 1

    def open(self) -> None:
        """Open the window function."""
        window_class = getattr(self._assigner, "window_class", None)
        if window_class is None and self._session_gap is not None:
            window_class = type(self._assigner.assign_windows(None, 0, self._assigner_ctx)[0])
        if window_class is None and self._fast is not None:
            window_class = type(self._assigner.assign_windows(None, 0, self._assigner_ctx)[0])
        self._window_class: Any = window_class
        self._windows_by_start: dict[int, Any] = {}
        super().open()

    def _process_element(self, value: Any, timestamp: int | None) -> None:
        backend = self.keyed_backend
        assert backend is not None
        key = backend.set_current_key(self._key_selector(value))
        ts = MIN_TIMESTAMP if timestamp is None else timestamp
        windows = self._assigner.assign_windows(value, ts, self._assigner_ctx)
        skipped = True
        trigger = self._trigger
        ctx = self._trigger_ctx
        if self._merging:
            merging = self._merging_set()
            for window in windows:
                actual = merging.add_window(window, self._merge)
                if self._is_window_late(actual):
                    merging.retire_window(actual)
                    continue
                skipped = False
                state_window = merging.state_window(actual)
                if state_window is None:
                    raise RuntimeError(f"window {actual} has no state window")
                self._add(state_window, value, timestamp)
                ctx.window = actual
                result = trigger.on_element(value, ts, actual, ctx)
                self._on_trigger_result(result, key, actual, state_window)
                self._register_cleanup_timer(actual)
            self._persist(merging)
        else:
            for window in windows:
                if self._is_window_late(window):
                    continue
                skipped = False
                self._add(window, value, timestamp)
                ctx.window = window
                result = trigger.on_element(value, ts, window, ctx)
                self._on_trigger_result(result, key, window, window)
                self._register_cleanup_timer(window)
        if skipped and self._is_element_late(ts):
            self._late(value, timestamp)

    def _add(self, state_window: Any, value: Any, timestamp: int | None) -> None:
        state = self._window_state
        state.namespace = state_window
        state.add(value)

    def _on_trigger_result(self, result: Any, key: Any, window: Any, state_window: Any) -> None:
        if result.is_fire():
            self._fire(key, window, state_window)
        if result.is_purge():
            self._window_state.namespace = state_window
            self._window_state.clear()

    # -- firing ----------------------------------------------------------------------------

    def _contents(self, state_window: Any) -> Any:
        state = self._window_state
        state.namespace = state_window
        if self._kind == "list":
            elements = state.get()
            return elements if elements else None
        return state.get()

    def _fire(self, key: Any, window: Any, state_window: Any) -> None:
        """Run the window function on the window's contents (nothing if empty)."""
        contents = self._contents(state_window)
        if contents is None:
            return
        contents = self._function_input(contents, window, state_window)
        if contents is EMPTY:
            return
        self._emit_window(key, window, contents)

    def _emit_window(self, key: Any, window: Any, contents: Any) -> None:
        ctx = self._process_ctx
        ctx._window = window
        try:
            result = self._function.process(key, window, ctx, contents)
            self._collector.collect(result, window.max_timestamp())
        except Exception as err:
            raise UserFunctionError(
                self.name,
                self.context.location,
                None,
                message=f"window function raised for key {key!r}, window {window}",
            ) from err

    def _function_input(self, contents: Any, window: Any, state_window: Any) -> Any:
        """What the window function gets for the window's contents (EMPTY: nothing to run)."""
        return contents

    # -- timers ----------------------------------------------------------------------------

    def _cleanup_time(self, window: Any) -> int:
        max_ts = window.max_timestamp()
        if self._event_time:
            cleanup = max_ts + self._lateness
            return cleanup if cleanup >= max_ts and cleanup < MAX_TIMESTAMP else MAX_TIMESTAMP
        return max_ts

    def _is_window_late(self, window: Any) -> bool:
        return self._event_time and self._cleanup_time(window) <= self.current_watermark

    def _is_element_late(self, timestamp: int) -> bool:
        return self._event_time and timestamp + self._lateness <= self.current_watermark

    def _register_cleanup_timer(self, window: Any) -> None:
        cleanup = self._cleanup_time(window)
        if cleanup == MAX_TIMESTAMP:
            return  # no cleanup timer for "end of time" windows (global, count)
        if self._event_time:
            self._timers.register_event_time_timer(window, cleanup)
        else:
            self._timers.register_processing_time_timer(window, cleanup)

    def _delete_cleanup_timer(self, window: Any) -> None:
        cleanup = self._cleanup_time(window)
        if cleanup == MAX_TIMESTAMP:
            return
        if self._event_time:
            self._timers.delete_event_time_timer(window, cleanup)
        else:
            self._timers.delete_processing_time_timer(window, cleanup)

    def process_watermark(self, watermark: Watermark) -> None:
        """Fire due event-time timers, emit their results, then forward the watermark."""
        self.current_watermark = watermark.timestamp
        self._timers.advance_watermark(watermark.timestamp)
        self._collector.flush()
        self.emit_watermark(watermark)

    def on_event_time(self, timestamp: int, key: Any, window: Any) -> None:
        """A trigger or cleanup timer in event time."""
        self._on_timer(timestamp, key, window, True)

    def on_processing_time(self, timestamp: int, key: Any, window: Any) -> None:
        """A trigger or cleanup timer in processing time."""
        self._on_timer(timestamp, key, window, False)
        self._collector.flush()

    def _on_timer(self, timestamp: int, key: Any, window: Any, event_time: bool) -> None:
        if self._session_gap is not None and event_time:
            on_session_timer(self, timestamp, key, window)
            return
        merging = None
        state_window = window
        if self._merging:
            merging = self._merging_set()
            state_window = merging.state_window(window)
            if state_window is None:
                return  # a timer of a window that was merged away
        ctx = self._trigger_ctx
        ctx.window = window
        trigger = self._trigger
        if event_time:
            result = trigger.on_event_time(timestamp, window, ctx)
        else:
            result = trigger.on_processing_time(timestamp, window, ctx)
        self._on_trigger_result(result, key, window, state_window)
        if self._event_time == event_time and timestamp == self._cleanup_time(window):
            self._clear_all_state(window, state_window, merging)
        if merging is not None:
            self._persist(merging)

    def _clear_all_state(self, window: Any, state_window: Any, merging: MergingWindowSet | None) -> None:
        state = self._window_state
        state.namespace = state_window
        state.clear()
        ctx = self._trigger_ctx
        ctx.window = window
        self._trigger.clear(window, ctx)
        clear = getattr(self._function, "clear", None)
        if clear is not None:
            self._process_ctx._window = window
            clear(window, self._process_ctx)
        if merging is not None:
            merging.retire_window(window)
        start = getattr(window, "start", None)
        if start is not None:
            self._windows_by_start.pop(start, None)

    # -- merging -----------------------------------------------------------------------------

    def _merging_set(self) -> MergingWindowSet:
        mapping = self._merging_sets.value()
        return MergingWindowSet(self._assigner, dict(mapping) if mapping else {})  # type: ignore[arg-type]

    def _persist(self, merging: MergingWindowSet) -> None:
        self._merging_sets.update(merging.mapping if merging.mapping else None)
        if self._session_index:  # the general path changed the key's windows: re-sort them
            backend = self.keyed_backend
            assert backend is not None
            self._session_index.pop(backend.current_key, None)

    def restore_keyed_state(self, snapshot: Any) -> None:
        """Restore the keyed state; the session fast path's sorted windows are rebuilt from it."""
        self._session_index.clear()
        super().restore_keyed_state(snapshot)

    def _merge(self, result: Any, merged: list[Any], state_result: Any, state_merged: list[Any]) -> None:
        if self._event_time and result.max_timestamp() + self._lateness <= self.current_watermark:
            raise UserFunctionError(
                self.name,
                self.context.location,
                None,
                message=(
                    f"The end timestamp of an event-time window cannot become earlier than the "
                    f"current watermark by merging. Current watermark: {self.current_watermark} "
                    f"window: {result}"
                ),
            )
        if not self._event_time:
            now = self.context.processing_time_service.current_processing_time()
            if result.max_timestamp() <= now:
                raise UserFunctionError(
                    self.name,
                    self.context.location,
                    None,
                    message=(
                        "The end timestamp of a processing-time window cannot become earlier than "
                        f"the current processing time by merging. Current processing time: {now} "
                        f"window: {result}"
                    ),
                )
        ctx = self._trigger_ctx
        ctx.window = result
        ctx.merged_windows = merged
        try:
            self._trigger.on_merge(result, ctx)
        finally:
            ctx.merged_windows = []
        for window in merged:
            ctx.window = window
            self._trigger.clear(window, ctx)
            self._delete_cleanup_timer(window)
        self._window_state.namespace = state_result
        self._window_state.merge_namespaces(state_result, state_merged)


EMPTY = object()  # no contents for the window function
