"""The WindowOperator's fast path for event-time session windows with a static gap (the
default trigger, no evictor, incremental state on the heap, no allowed lateness): the
general path's steps inlined per element, and the trigger inlined when a window fires.

These are functions of the operator (``op``): the operator calls them in place of its
general path when ``session_gap(op)`` gives a gap.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING, Any

from millstream.common.hashable_keys import hashable_key
from millstream.common.time import MIN_TIMESTAMP
from millstream.runtime.operators.window_contracts import WatermarkTrigger, no_timestamp_error
from millstream.runtime.state.heap import VOID_NAMESPACE

if TYPE_CHECKING:
    from millstream.runtime.operators.window import WindowOperator

__all__ = ["on_session_timer", "process_sessions", "session_gap"]


def session_gap(op: WindowOperator) -> int | None:
    """The gap of event-time session windows (a static gap) the session fast path can
    merge and fold elements for (default trigger, no evictor, incremental state on the
    heap, no allowed lateness), or None: the general path."""
    assigner, trigger = op._assigner, op._trigger
    if not op._merging or op._evictor is not None or op._kind not in ("reduce", "aggregate"):
        return None
    if op._window_table is None or op._lateness or not op._event_time:
        return None
    if not getattr(assigner, "merges_intersecting_time_windows", False):
        return None
    if getattr(assigner, "_extract", None) is not None:  # a dynamic gap
        return None
    if not (isinstance(trigger, WatermarkTrigger) and trigger.fires_at_window_end()):
        return None
    gap = getattr(assigner, "gap", None)
    return int(gap) if gap else None


def process_sessions(op: WindowOperator, values: list[Any], timestamps: list[int]) -> int:
    """Session windows, the general path's steps inlined: the key's windows (its merging
    window set, kept in its state) never intersect one another, so a new session
    ``[t, t + gap)`` merges exactly with the windows it intersects, found by bisection in
    the key's windows sorted by start (``_session_index``, rebuilt from the state when the
    general path changed it); a window it falls inside takes the element as it is;
    otherwise the windows merge as Flink merges them (the trigger's timers move to the
    merged window, the state of the others is folded into the first one's). The element
    then folds into the state window's value. An element whose own session is already
    behind the watermark takes the general path (its late and merging rules)."""
    gap = op._session_gap
    assert gap is not None
    backend = op.keyed_backend
    assert backend is not None and op._window_table is not None
    set_key = backend.set_current_key
    contents = op._window_table.groups
    sets = backend.tables["merging-window-set"].groups  # type: ignore[attr-defined]
    indexes = op._session_index
    key_of = op._key_selector
    register = op._timers.register_event_time_timer
    window_class = op._window_class
    reduce = op._reduce
    aggregate = op._aggregate
    add = aggregate.add if aggregate is not None else None
    create = aggregate.create_accumulator if aggregate is not None else None
    merge = op._merge
    # key -> (its stored windows, their sorted index, its key group's window contents),
    # looked up once per key and batch; the objects are changed in place below, and
    # only the general path replaces them (then the cache is dropped)
    batch_keys: dict[Any, tuple[dict[Any, Any], tuple[list[int], list[Any]], dict[Any, Any]]] = {}
    index = 0
    for index, v in enumerate(values):
        ts = timestamps[index]
        if ts <= MIN_TIMESTAMP:
            raise no_timestamp_error()
        end = ts + gap
        if end - 1 <= op.current_watermark:
            op._process_element(v, ts)
            batch_keys.clear()
            continue
        key = key_of(v)
        try:
            cached = batch_keys.get(key)
        except TypeError:  # an unhashable key (a list ...): its hashable form
            key = hashable_key(key)
            cached = batch_keys.get(key)
        if cached is None:
            set_key(key)
            current_group = backend.current_group
            window_sets = sets[current_group]
            set_entry = (key, VOID_NAMESPACE)
            mapping = window_sets.get(set_entry)
            if mapping is None:
                window_sets[set_entry] = mapping = {}
            found = indexes.get(key)
            if found is None:
                ordered = sorted(mapping, key=_start_of)
                found = indexes[key] = ([w.start for w in ordered], ordered)
            cached = batch_keys[key] = (mapping, found, contents[current_group])
        mapping, found, group = cached
        starts, windows = found
        # the windows with start <= end, then back while they reach ts (ends ascend too)
        high_index = bisect_right(starts, end)
        low_index = high_index
        while low_index and windows[low_index - 1].end >= ts:
            low_index -= 1
        if low_index == high_index:
            window = state_window = window_class(ts, end)
            mapping[window] = window
            starts.insert(low_index, ts)
            windows.insert(low_index, window)
            set_key(key)  # the timer is the key's
            register(window, end - 1)
        else:
            hits = windows[low_index:high_index]
            first, last = hits[0], hits[-1]
            if len(hits) == 1 and first.start <= ts and first.end >= end:
                state_window = mapping[first]  # inside the window: nothing merges
            else:
                set_key(key)  # the merge moves the key's timers and state
                low = first.start if first.start < ts else ts
                high = last.end if last.end > end else end
                window = window_class(low, high)
                state_windows = [mapping.pop(w) for w in hits]
                state_window = state_windows[0]
                mapping[window] = state_window
                starts[low_index:high_index] = [low]
                windows[low_index:high_index] = [window]
                merge(window, hits, state_window, state_windows[1:])
        entry = (key, state_window)
        current = group.get(entry)
        if current is None:
            group[entry] = add(v, create()) if add is not None else v  # type: ignore[misc]
        else:
            group[entry] = add(v, current) if add is not None else reduce(current, v)
    return index


def on_session_timer(op: WindowOperator, timestamp: int, key: Any, window: Any) -> None:
    """``_on_timer`` of the session fast path, with the trigger inline: its contract
    (``fires_at_window_end``: Flink's EventTimeTrigger) fires a window at its
    ``max_timestamp``, which is also its cleanup time (no allowed lateness here), and the
    only timer its ``clear`` deletes is the one firing now. So the window's contents are
    taken out of the heap table, the function runs on them, and the window is retired
    from the key's stored windows and their sorted index in place."""
    backend = op.keyed_backend
    assert backend is not None and op._window_table is not None
    group = backend.current_group
    sets = backend.tables["merging-window-set"].groups  # type: ignore[attr-defined]
    mapping = sets[group].get((key, VOID_NAMESPACE))
    state_window = mapping.get(window) if mapping else None
    if state_window is None:
        return  # a timer of a window that was merged away
    if timestamp != window.max_timestamp():  # the trigger would CONTINUE (and not clean up)
        return
    contents = op._window_table.groups[group].pop((key, state_window), None)
    if contents is not None:
        if op._kind == "aggregate":
            contents = op._aggregate.get_result(contents)
        op._emit_window(key, window, contents)
    clear = getattr(op._function, "clear", None)
    if clear is not None:
        op._process_ctx._window = window
        clear(window, op._process_ctx)
    del mapping[window]
    found = op._session_index.get(key)
    if found is not None:
        starts, windows = found
        i = bisect_left(starts, window.start)
        if i < len(windows) and windows[i] == window:
            del starts[i], windows[i]
        else:  # not where it should be: rebuild from the state
            del op._session_index[key]
    if not mapping:
        op._merging_sets.update(None)
        op._session_index.pop(key, None)


def _start_of(window: Any) -> int:
    return window.start
