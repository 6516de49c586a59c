"""The conformance harness reads ``TableResult.print()`` as Flink lays it out: cells right-aligned
in their column, a cell with a line break or East Asian wide characters, a character string's
own leading spaces, and the types of a printed schema."""

from __future__ import annotations

import threading

from tests.differential.millstream_sql import (
    MillstreamEngine,
    captured_stdout,
    restored_stdout,
    run_cases,
    schema_types,
    tableau_cells,
)
from tests.differential.sql_conformance import Case, case_id


def test_a_tableau_is_read_by_its_column_widths() -> None:
    widths, rows = tableau_cells(
        "+----+--------+\n|  k |      n |\n+----+--------+\n|  a |      1 |\n| bb | <NULL> |\n"
        "+----+--------+\n2 rows in set\n"
    )
    assert widths == [2, 6]
    assert rows == [[" a", "     1"], ["bb", "<NULL>"]]


def test_a_cell_may_hold_a_line_break_or_wide_characters() -> None:
    """PyFlink 2.3.0 prints a line break in a cell as it is, and gives an East Asian wide
    character two columns of the tableau."""
    assert tableau_cells("+-----+\n|  c0 |\n+-----+\n|   a\nb |\n+-----+\n1 row in set\n") == (
        [3],
        [["  a\nb"]],
    )
    widths, rows = tableau_cells(
        "+----+------------+\n|  k |          n |\n+----+------------+\n|  a |     日本語 |\n"
        "+----+------------+\n1 row in set\n"
    )
    assert (widths, rows) == ([2, 10], [[" a", "    日本語"]])


def test_no_rows_print_empty_set() -> None:
    assert tableau_cells("Empty set\n") == ([], [])


def test_the_types_are_read_from_the_printed_schema() -> None:
    printed = "(\n  `c0` ROW<`a` INT, `b` STRING> NOT NULL,\n  `x``y` DECIMAL(5, 2)\n)"
    assert schema_types(printed) == ["ROW<`a` INT, `b` STRING> NOT NULL", "DECIMAL(5, 2)"]


def test_each_thread_captures_what_it_prints() -> None:
    seen: dict[str, str] = {}

    def work(name: str) -> None:
        with captured_stdout() as out:
            for _ in range(200):
                print(name)
        seen[name] = out.getvalue()

    with restored_stdout():
        threads = [threading.Thread(target=work, args=(n,)) for n in ("a", "b", "c")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert seen == {n: f"{n}\n" * 200 for n in ("a", "b", "c")}


def test_a_string_keeps_its_leading_spaces_and_a_long_cell_is_not_cut() -> None:
    """millstream's print() pads '  hi' to its column like any cell; the harness takes the
    collected string's leading spaces, and names the column long enough for a 200-letter cell."""
    exprs = ["'  hi'", "REPEAT('ab', 100)", "CAST(NULL AS STRING)", "1 + 1"]
    cases = [Case(case_id("t", "t", e), "t", "t", expr=e) for e in exprs]
    outcomes = run_cases(MillstreamEngine(), cases)
    assert [outcomes[c.id].printed for c in cases] == ["  hi", "ab" * 100, "<NULL>", "2"]
    assert outcomes[cases[3].id].type == "INT NOT NULL"
