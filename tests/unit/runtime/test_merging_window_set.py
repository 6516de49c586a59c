"""MergingWindowSet: session windows merged as Flink's MergingWindowSet merges them: state stays
in the namespace of a window that already held it, the merge function runs once per merge
that involves existing windows, and the mapping always covers every live window."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from millstream.datastream.window import EventTimeSessionWindows, TimeWindow
from millstream.runtime.operators.merging_window_set import MergingWindowSet

GAP = 10


def session(ts: int) -> TimeWindow:
    return TimeWindow(ts, ts + GAP)


class Merges:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, list[Any], Any, list[Any]]] = []

    def __call__(self, result: Any, merged: list[Any], state_result: Any, state_merged: list[Any]) -> None:
        self.calls.append((result, sorted(merged), state_result, sorted(state_merged)))


def new_set() -> MergingWindowSet:
    return MergingWindowSet(EventTimeSessionWindows(GAP), {})


@pytest.fixture
def windows() -> MergingWindowSet:
    return new_set()


def test_disjoint_sessions_stay_apart_each_its_own_state(windows):  # type: ignore[no-untyped-def]
    merges = Merges()
    assert windows.add_window(session(0), merges) == session(0)
    assert windows.add_window(session(100), merges) == session(100)
    assert windows.mapping == {session(0): session(0), session(100): session(100)}
    assert merges.calls == []


def test_a_window_inside_a_session_joins_it_without_a_merge(windows):  # type: ignore[no-untyped-def]
    merges = Merges()
    windows.add_window(TimeWindow(0, 20), merges)
    assert windows.add_window(TimeWindow(5, 15), merges) == TimeWindow(0, 20)
    assert merges.calls == []
    assert windows.mapping == {TimeWindow(0, 20): TimeWindow(0, 20)}


def test_a_window_extending_a_session_grows_it_and_keeps_its_state_namespace(windows):  # type: ignore[no-untyped-def]
    merges = Merges()
    windows.add_window(session(0), merges)
    assert windows.add_window(session(5), merges) == TimeWindow(0, 15)
    # the trigger must learn of the new end: one merge, nothing to fold
    assert merges.calls == [(TimeWindow(0, 15), [session(0)], session(0), [])]
    assert windows.mapping == {TimeWindow(0, 15): session(0)}
    assert windows.state_window(TimeWindow(0, 15)) == session(0)


def test_a_window_covering_a_session_takes_over_its_state_namespace(windows):  # type: ignore[no-untyped-def]
    merges = Merges()
    windows.add_window(TimeWindow(5, 15), merges)
    assert windows.add_window(TimeWindow(0, 20), merges) == TimeWindow(0, 20)
    assert merges.calls == [(TimeWindow(0, 20), [TimeWindow(5, 15)], TimeWindow(5, 15), [])]
    assert windows.mapping == {TimeWindow(0, 20): TimeWindow(5, 15)}


def test_a_window_bridging_two_sessions_folds_one_state_into_the_other(windows):  # type: ignore[no-untyped-def]
    merges = Merges()
    windows.add_window(session(0), merges)
    windows.add_window(session(15), merges)
    assert windows.add_window(session(8), merges) == TimeWindow(0, 25)
    assert len(merges.calls) == 1
    result, merged, kept, folded = merges.calls[0]
    assert result == TimeWindow(0, 25) and merged == sorted([session(0), session(15)])
    assert {kept, *folded} == {session(0), session(15)} and len(folded) == 1
    assert windows.mapping == {TimeWindow(0, 25): kept}


def test_retiring_a_window_it_does_not_hold_is_an_error(windows):  # type: ignore[no-untyped-def]
    windows.add_window(session(0), Merges())
    windows.retire_window(session(0))
    assert windows.mapping == {}
    with pytest.raises(RuntimeError, match="not in the merging window set"):
        windows.retire_window(session(0))


@given(st.lists(st.integers(0, 200), max_size=40))
def test_sessions_cover_the_elements_and_never_overlap(times):  # type: ignore[no-untyped-def]
    windows = new_set()
    states_in_use: set[Any] = set()

    def merge(result, merged, kept, folded):  # type: ignore[no-untyped-def]
        assert kept in states_in_use
        for state in folded:
            states_in_use.remove(state)  # folded state namespaces are gone for good

    for ts in times:
        before = set(windows.mapping.values())
        landed = windows.add_window(session(ts), merge)
        states_in_use |= set(windows.mapping.values()) - before
        assert landed.start <= ts < landed.end
    sessions = sorted(windows.mapping, key=lambda w: w.start)
    for earlier, later in itertools.pairwise(sessions):
        assert earlier.end < later.start  # Flink merges touching sessions too
    assert set(windows.mapping.values()) == states_in_use
    for ts in times:
        assert any(w.start <= ts < w.end for w in sessions)
