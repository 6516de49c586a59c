"""MergingWindowSet: one key's windows of a merging assigner (sessions), Flink's algorithm.

Each window maps to the window whose state namespace holds its contents (the "state
window"). Adding a window asks the assigner which windows now merge; for every merge the
caller's merge function folds the merged windows' state into one state window (the first
merged window's namespace is kept, so merging moves no state it need not move). The
mapping is plain data, persisted by the window operator in keyed state between elements.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.runtime.operators.window_contracts import MergingWindowAssigner

__all__ = ["MergeFunction", "MergingWindowSet"]

# (merge result, windows merged into it, state window kept, state windows folded into it)
MergeFunction = Callable[[Any, list[Any], Any, list[Any]], None]


class MergingWindowSet:
    """The key's windows: window -> window holding its state."""

    def __init__(self, assigner: MergingWindowAssigner, mapping: dict[Any, Any]) -> None:
        self._assigner = assigner
        self.mapping = mapping
        self._by_intersection = getattr(assigner, "merges_intersecting_time_windows", False)

    def state_window(self, window: Any) -> Any:
        """The window whose namespace holds ``window``'s state (None if unknown)."""
        return self.mapping.get(window)

    def retire_window(self, window: Any) -> None:
        """``window`` was purged and cleaned up."""
        if self.mapping.pop(window, None) is None:
            raise RuntimeError(f"window {window} is not in the merging window set")

    def add_window(self, new_window: Any, merge: MergeFunction) -> Any:
        """Merge ``new_window`` in; returns the window it ended up in. ``merge`` runs once per
        merge that involves existing windows (not when ``new_window`` only grows into one)."""
        if self._by_intersection:
            return self._add_time_window(new_window, merge)
        windows = list(self.mapping) + [new_window]
        results: list[tuple[Any, set[Any]]] = []

        def collect(to_merge: Any, result: Any) -> None:
            results.append((result, set(to_merge)))

        self._assigner.merge_windows(windows, collect)
        result_window = new_window
        merged_new = False
        for merge_result, merged in results:
            if new_window in merged:
                merged.discard(new_window)
                merged_new = True
                result_window = merge_result
            if not merged:
                continue
            merged_state_window = self.mapping[next(iter(merged))]
            merged_state_windows = []
            for window in merged:
                state_window = self.mapping.pop(window, None)
                if state_window is not None:
                    merged_state_windows.append(state_window)
            self.mapping[merge_result] = merged_state_window
            merged_state_windows.remove(merged_state_window)
            if not (merge_result in merged and len(merged) == 1):
                merge(merge_result, list(merged), merged_state_window, merged_state_windows)
        if not results or (result_window == new_window and not merged_new):
            self.mapping[result_window] = result_window
        return result_window

    def _add_time_window(self, new_window: Any, merge: MergeFunction) -> Any:
        """``add_window`` for assigners whose windows merge when they intersect (sessions):
        the key's windows never intersect one another (each addition merged them), so the
        windows ``new_window`` merges with are exactly those it intersects, found in one pass
        instead of sorting every window; the outcome is Flink's (the same result window,
        state window kept and merge call)."""
        mapping = self.mapping
        start, end = new_window.start, new_window.end
        hits = [w for w in mapping if w.start <= end and w.end >= start]
        if not hits:
            mapping[new_window] = new_window
            return new_window
        low = min(start, min(w.start for w in hits))
        high = max(end, max(w.end for w in hits))
        if len(hits) == 1 and hits[0].start == low and hits[0].end == high:
            return hits[0]  # inside an existing window: nothing merges
        result = type(new_window)(low, high)
        state_windows = [mapping.pop(w) for w in hits]
        kept = state_windows[0]
        mapping[result] = kept
        merge(result, hits, kept, state_windows[1:])
        return result
