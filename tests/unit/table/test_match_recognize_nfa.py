"""The automaton of MATCH_RECOGNIZE (``table/runtime/nfa.py``) against what PyFlink 2.3.0 prints
for the same pattern, conditions and rows.

The rows are ``(id, v)`` with v = 1, 2, 5, 6, 7, 3, 8, 9, 70, 4, 5, 90, 2, 6, 6, 6, 1 at
second 0, 1, 2 ...; on PyFlink the query was::

    SELECT * FROM Q MATCH_RECOGNIZE(ORDER BY ts
      MEASURES A.id AS a, FIRST(B.id) AS b1, LAST(B.id) AS bn, COUNT(B.id) AS nb, C.id AS c
      ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (<pattern>)
      DEFINE A AS A.v < 5, B AS B.v < 10, C AS C.v > 4)

and each expected list below is PyFlink's output, row for row.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from millstream.table.runtime.nfa import (
    NFA,
    JavaQueue,
    MalformedPatternError,
    PatternElement,
    Run,
    SkipStrategy,
    matched_events,
    pattern_element,
)

VALUES = [1, 2, 5, 6, 7, 3, 8, 9, 70, 4, 5, 90, 2, 6, 6, 6, 1]
ROWS = [(i + 1, v) for i, v in enumerate(VALUES)]
CONDITIONS = {
    "A": lambda events, row, time: row[1] < 5,
    "B": lambda events, row, time: row[1] < 10,
    "C": lambda events, row, time: row[1] > 4,
}


def _elements(pattern: str) -> list[PatternElement]:
    elements: list[PatternElement] = []
    for variable, quantifier in re.findall(r"([A-Z])(\{[0-9,]*\}\??|[*+?]\??|)", pattern):
        reluctant = len(quantifier) > 1 and quantifier.endswith("?")
        base = quantifier[:-1] if reluctant else quantifier
        bounds = {"": (1, 1), "*": (0, -1), "+": (1, -1), "?": (0, 1)}.get(base)
        if bounds is None:
            low, _, high = base[1:-1].partition(",")
            bounds = (int(low), int(low)) if "," not in base else (int(low or -1), int(high or -1))
        elements.append(pattern_element(variable, *bounds, reluctant, elements[-1] if elements else None))
    return elements


def _matches(pattern: str, skip: SkipStrategy) -> list[tuple[Any, ...]]:
    nfa = NFA(_elements(pattern), CONDITIONS, 0, skip)
    state = nfa.initial_state()
    found = []
    for second, row in enumerate(ROWS):
        nfa.advance_time(state, second * 1000)
        for match in nfa.process(state, row, second * 1000)[0]:
            events = matched_events(match)
            a, b, c = (events.get(v, []) for v in "ABC")
            found.append(
                (
                    a[-1][0] if a else None,
                    b[0][0] if b else None,
                    b[-1][0] if b else None,
                    len(b),
                    c[-1][0] if c else None,
                )
            )
    return found


NEXT = SkipStrategy("TO NEXT ROW")
# PyFlink 2.3.0 prints these rows (a, b1, bn, nb, c) for each pattern, SKIP TO NEXT ROW
FIVE = [(1, 2, 2, 1, 3), (2, 3, 3, 1, 4), (6, 7, 7, 1, 8), (10, 11, 11, 1, 12), (13, 14, 14, 1, 15)]
PYFLINK = {
    "A B C": [(1, 2, 2, 1, 3), (2, 3, 3, 1, 4), (6, 7, 7, 1, 8), (10, 11, 11, 1, 12), (13, 14, 14, 1, 15)],
    "A B? C": [
        (1, 2, 2, 1, 3),
        (2, None, None, 0, 3),
        (6, None, None, 0, 7),
        (10, None, None, 0, 11),
        (13, None, None, 0, 14),
    ],
    "A B* C": [(1, 2, 8, 7, 9), (2, 3, 8, 6, 9), (6, 7, 8, 2, 9), (10, 11, 11, 1, 12)],
    "A B*? C": [
        (1, 2, 2, 1, 3),
        (2, None, None, 0, 3),
        (6, None, None, 0, 7),
        (10, None, None, 0, 11),
        (13, None, None, 0, 14),
    ],
    "A B+ C": [(1, 2, 8, 7, 9), (2, 3, 8, 6, 9), (6, 7, 8, 2, 9), (10, 11, 11, 1, 12)],
    "A B+? C": [(1, 2, 2, 1, 3), (2, 3, 3, 1, 4), (6, 7, 7, 1, 8), (10, 11, 11, 1, 12), (13, 14, 14, 1, 15)],
    "A B{2} C": [(1, 2, 3, 2, 4), (2, 3, 4, 2, 5), (6, 7, 8, 2, 9), (13, 14, 15, 2, 16)],
    "A B{2}? C": [(1, 2, 3, 2, 4), (2, 3, 4, 2, 5), (6, 7, 8, 2, 9), (13, 14, 15, 2, 16)],
    "A B{2,} C": [(1, 2, 8, 7, 9), (2, 3, 8, 6, 9), (6, 7, 8, 2, 9)],
    "A B{2,}? C": [(1, 2, 3, 2, 4), (2, 3, 4, 2, 5), (6, 7, 8, 2, 9), (13, 14, 15, 2, 16)],
    # greedy {1,3}: C may not take a row B could (7 < 10): the matches from 1 and 2 never end
    "A B{1,3} C": [(6, 7, 8, 2, 9), (10, 11, 11, 1, 12)],
    "A B{1,3}? C": FIVE,
    "A B{0,} C": [(1, 2, 8, 7, 9), (2, 3, 8, 6, 9), (6, 7, 8, 2, 9), (10, 11, 11, 1, 12)],
    "A B{0,1} C": [
        (1, 2, 2, 1, 3),
        (2, None, None, 0, 3),
        (6, None, None, 0, 7),
        (10, None, None, 0, 11),
        (13, None, None, 0, 14),
    ],
    "A B{0,2}? C": [
        (1, 2, 2, 1, 3),
        (2, None, None, 0, 3),
        (6, None, None, 0, 7),
        (10, None, None, 0, 11),
        (13, None, None, 0, 14),
    ],
    "A B{2} C{2}": [(1, 2, 3, 2, 5)],
    "A B+ C{1,2}?": [(1, 2, 8, 7, 9), (2, 3, 8, 6, 9), (6, 7, 8, 2, 9), (10, 11, 11, 1, 12)],
    "A B+? C+?": FIVE,
    "A{2,} B C": [(2, 3, 3, 1, 4)],
    # two matches from rows 1 and 2 that print alike (A = 1, 2 and A = 2)
    "A+ B+ C": [(2, 3, 8, 6, 9), (2, 3, 8, 6, 9), (6, 7, 8, 2, 9), (10, 11, 11, 1, 12)],
}


@pytest.mark.parametrize("pattern", list(PYFLINK))
def test_each_quantifier_matches_as_pyflink(pattern: str) -> None:
    assert _matches(pattern, NEXT) == PYFLINK[pattern]


@pytest.mark.parametrize(
    ("pattern", "skip", "expected"),
    [
        # PyFlink 2.3.0, AFTER MATCH SKIP PAST LAST ROW / TO LAST B / TO FIRST B
        ("A B+ C", SkipStrategy("PAST LAST ROW"), [(1, 2, 8, 7, 9), (10, 11, 11, 1, 12)]),
        (
            "A B+? C",
            SkipStrategy("PAST LAST ROW"),
            [(1, 2, 2, 1, 3), (6, 7, 7, 1, 8), (10, 11, 11, 1, 12), (13, 14, 14, 1, 15)],
        ),
        ("A B+ C", SkipStrategy("TO LAST", "B"), [(1, 2, 8, 7, 9), (10, 11, 11, 1, 12)]),
        (
            "A B+ C",
            SkipStrategy("TO FIRST", "B"),
            [(1, 2, 8, 7, 9), (2, 3, 8, 6, 9), (6, 7, 8, 2, 9), (10, 11, 11, 1, 12)],
        ),
        ("A B* C", SkipStrategy("TO LAST", "B"), [(1, 2, 8, 7, 9), (10, 11, 11, 1, 12)]),
    ],
)
def test_each_skip_strategy_matches_as_pyflink(pattern: str, skip: SkipStrategy, expected: list[Any]) -> None:
    assert _matches(pattern, skip) == expected


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        # PyFlink 2.3.0's messages for the same quantifiers in SQL
        ("A B{,2} C", "The from should be a positive number greater than 0."),
        ("A B{3,2} C", "The to should be a number greater than or equal to from: 3."),
        ("A B{0} C", "The to should be a number greater than or equal to from: 1."),
        ("A B?? C", "Reluctant optional variables are not supported yet."),
        ("A* B? C", "Optional pattern cannot be preceded by greedy pattern"),
    ],
)
def test_quantifiers_flink_refuses_are_refused_with_its_message(pattern: str, message: str) -> None:
    with pytest.raises(MalformedPatternError, match=re.escape(message)):
        _elements(pattern)


def test_skip_to_the_first_row_of_a_match_fails_as_flink() -> None:
    """PyFlink 2.3.0 fails the job with 'Could not skip to first element of a match.' for
    AFTER MATCH SKIP TO FIRST A over PATTERN (A+ C): the next match would start where this one did."""
    nfa = NFA(_elements("A B"), {}, 0, SkipStrategy("TO FIRST", "A"))
    state = nfa.initial_state()
    nfa.process(state, ROWS[0], 0)
    with pytest.raises(MalformedPatternError, match=r"Could not skip to first element of a match\."):
        nfa.process(state, ROWS[1], 1000)


def test_within_drops_a_run_once_it_lasts_the_interval() -> None:
    """Flink's ``isStateTimedOut``: a run started at t is dropped when time reaches t + WITHIN."""
    never = {"B": lambda events, row, time: False}
    nfa = NFA(_elements("A B"), never, 1000, SkipStrategy())
    state = nfa.initial_state()
    nfa.process(state, ROWS[0], 0)
    nfa.advance_time(state, 999)
    assert [r.start_id for r in state.partial.items] == [(0, 0), None]
    nfa.advance_time(state, 1000)
    assert [r.start_id for r in state.partial.items] == [None]


def test_matches_completed_by_one_row_come_out_in_the_order_they_started() -> None:
    """Runs from rows 6 (v 3) and 7 (v 8) both end at row 9 (v 70): the one that started first
    is emitted first, and SKIP TO NEXT ROW does not drop the other (it started after row 6)."""
    conditions = {
        "B": lambda events, row, time: row[1] > 5,
        "C": lambda events, row, time: row[1] == 70,
    }
    nfa = NFA(_elements("A B+? C"), conditions, 0, SkipStrategy("TO NEXT ROW"))
    state = nfa.initial_state()
    emitted = [
        [matched_events(m)["A"][0][0] for m in nfa.process(state, row, second)[0]]
        for second, row in enumerate(ROWS[:9])  # v: 1 2 5 6 7 3 8 9 70
    ]
    assert emitted == [[]] * 8 + [[6, 7]]


def _start(run: Run | None) -> int:
    assert run is not None and run.start_id is not None
    return run.start_id[0]


def test_the_queue_orders_as_javas_priority_queue() -> None:
    """The array keeps the order of java.util.PriorityQueue's sift steps (so runs that started
    together are taken in Flink's order); a removal keeps the survivors in array order and
    heapifies (Java's ``removeAll``)."""
    runs = [Run("s", (), 0, (t, 0)) for t in (5, 3, 8, 1, 9, 2)]
    queue = JavaQueue()
    for run in runs:
        queue.offer(run)
    assert [_start(r) for r in queue.items] == [1, 3, 2, 5, 9, 8]  # as Java's array holds them
    queue.remove_where(lambda r: _start(r) in (1, 9))
    assert [_start(r) for r in queue.items] == [2, 3, 5, 8]
    assert [_start(queue.poll()) for _ in range(4)] == [2, 3, 5, 8]
