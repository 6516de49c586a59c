"""Flink SQL conformance: every case of ``sql_conformance.jsonl`` (an expression over its input
row, or a query, with what PyFlink 2.3.0 printed for it) run on millstream and compared
exactly: the cell ``TableResult.print()`` shows and the column's type as the result's schema
prints it, or an error where Flink raises one (refused while planning where Flink refuses it
while planning).

Each case runs as a query of its own, as a user would write it, through millstream's SQL
parser, planner and runtime (the embedded runtime's threads in this process; the planner
picks the Arrow kernels or the generated row code as it would for that query alone); cells
and types are read from ``print()`` and ``str(get_resolved_schema())`` (``millstream_sql.py``).
Where millstream differs today, the case is listed with millstream's output in
``sql_conformance_known_differences.jsonl``: the test fails when a case not on that list
differs (a regression) and when a listed case gives Flink's value (remove it from the list:
the list only shrinks). After a deliberate change, rewrite the list with

    .venv/bin/python -m tests.differential.test_sql_conformance --write-known-differences

and say in the commit why an id was added. ``--summary`` prints the share of cases giving
Flink's value per category (the list's header records it as of its last rewrite).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from typing import Any

import pytest

from tests.differential.millstream_sql import MillstreamEngine, run_cases
from tests.differential.sql_conformance import (
    DATA,
    KNOWN_DIFFERENCES,
    Case,
    Outcome,
    load_cases,
    read_jsonl,
    uncovered,
)

pytestmark = pytest.mark.timeout(900)

# The categories the issue measured before the rewrite, as groups of the corpus's categories.
GROUPS = {
    "temporal": ("temporal", "units", "pattern", "interval"),
    "JSON": ("json",),
    "operators": ("comparison", "logical", "arithmetic", "integer", "decimal"),
    "string": ("string", "binary", "hash"),
    "casts": ("cast",),
}


def flink_outcome(case: Case) -> Outcome:
    assert case.expected is not None, f"{case.id} has no Flink outcome"
    return Outcome.from_json(case.expected)


def run_corpus() -> tuple[list[Case], dict[str, Outcome]]:
    """Every case, and millstream's outcome for each."""
    cases = load_cases()
    return cases, run_cases(MillstreamEngine(), cases)


def known_differences() -> dict[str, dict[str, Any]]:
    """The listed cases, by id."""
    return {line["id"]: line for line in read_jsonl(KNOWN_DIFFERENCES)[1]}


def summary(cases: list[Case], outcomes: dict[str, Outcome]) -> list[str]:
    """Per category: how many cases give Flink's value and type (and the value alone)."""
    total: Counter[str] = Counter()
    same: Counter[str] = Counter()
    value: Counter[str] = Counter()
    for case in cases:
        flink, mine = flink_outcome(case), outcomes[case.id]
        total[case.category] += 1
        same[case.category] += mine.agrees_with(flink)
        value[case.category] += mine.value_agrees_with(flink)

    def line(name: str, categories: tuple[str, ...]) -> str:
        n = sum(total[c] for c in categories)
        ok = sum(same[c] for c in categories)
        ok_value = sum(value[c] for c in categories)
        rate, value_rate = 100 * ok / max(n, 1), 100 * ok_value / max(n, 1)
        return f"  {name:<18} {ok:>5} of {n:>5}  {rate:5.1f}%   (value only {value_rate:5.1f}%)"

    lines = ["SQL conformance with PyFlink 2.3.0: cases giving Flink's printed value and type, per category"]
    lines += [line(c, (c,)) for c in sorted(total)]
    lines.append("  by the issue's groups:")
    lines += [line(name, group) for name, group in GROUPS.items()]
    lines.append(line("all", tuple(total)))
    return lines


def differing(cases: list[Case], outcomes: dict[str, Outcome]) -> list[Case]:
    return [c for c in cases if not outcomes[c.id].agrees_with(flink_outcome(c))]


def _general(sql_type: str | None) -> str:
    """A type with its lengths and precisions left out: ``CHAR(n) NOT NULL``."""
    return re.sub(r"\(\d+(, \d+)?\)", lambda m: "(n, m)" if m.group(1) else "(n)", sql_type or "")


def difference_kind(case: Case, mine: Outcome) -> str:
    """What kind of difference ``mine`` is from Flink's outcome of ``case``."""
    flink = flink_outcome(case)
    if flink.error is not None and mine.error is None:
        return f"a value where Flink raises ({flink.error['class'].rsplit('.', 1)[-1]})"
    if flink.error is not None and mine.error is not None:
        return "an error at run time where Flink refuses the query while planning"
    if mine.error is not None:
        return f"an error where Flink gives a value ({mine.error['class']}, {mine.error['stage']})"
    if mine.printed == flink.printed:
        return f"type {_general(mine.type)} where Flink's is {_general(flink.type)}"
    if mine.type == flink.type:
        return f"another value ({case.category})"
    return f"another value and type ({case.category})"


def kinds(cases: list[Case], outcomes: dict[str, Outcome], count: int = 10) -> list[str]:
    """The ``count`` most common kinds of difference, with how many cases each."""
    tally = Counter(difference_kind(c, outcomes[c.id]) for c in differing(cases, outcomes))
    return [f"  {n:>5}  {kind}" for kind, n in tally.most_common(count)]


def _cases(count: int) -> str:
    return f"{count} case" if count == 1 else f"{count} cases"


def _show(case: Case, outcome: Outcome | dict[str, Any]) -> str:
    mine = outcome.to_json() if isinstance(outcome, Outcome) else outcome
    source = case.query or case.expr
    if case.rows:
        source += f"  <- {json.dumps([list(case.columns), [list(r) for r in case.rows]], ensure_ascii=False)}"
    return (
        f"  {case.id}: {source}\n"
        f"      Flink:      {json.dumps(case.expected, ensure_ascii=False)}\n"
        f"      millstream: {json.dumps(mine, ensure_ascii=False)}"
    )


def test_the_data_file_was_generated_by_pyflink_2_3() -> None:
    header, _ = read_jsonl(DATA)
    assert header is not None and "PyFlink 2.3.0" in header["generated_from"], header
    cases = load_cases()
    assert len(cases) > 1000
    assert len({c.id for c in cases}) == len(cases)
    assert all(c.expected is not None for c in cases)
    assert set(known_differences()) <= {c.id for c in cases}, (
        "the known differences name cases that do not exist"
    )


def test_every_function_of_the_docs_table_has_cases() -> None:
    """Each function of docs/sql_functions.jsonl (the docs' table of built-in functions) has
    its sample in the corpus, with what PyFlink printed for it."""
    docs = DATA.parents[2] / "docs" / "sql_functions.jsonl"
    names = {
        json.loads(line)["name"] for line in docs.read_text(encoding="utf-8").splitlines() if line.strip()
    }
    assert names - {c.function for c in load_cases()} == set()


def test_every_flink_builtin_function_has_cases() -> None:
    """Each of Flink 2.3's built-in SQL functions and operators (``FLINK_FUNCTIONS``) occurs in
    some case."""
    assert uncovered(load_cases()) == []


def test_millstream_gives_flinks_values_except_the_known_differences(request: pytest.FixtureRequest) -> None:
    """Every case gives Flink's printed value and type unless it is on the list of known
    differences; and every listed case still differs (the list only shrinks). One test, so that
    the corpus runs once whatever the test workers."""
    cases, outcomes = run_corpus()
    reporter = request.config.pluginmanager.getplugin("terminalreporter")
    for text in summary(cases, outcomes):
        if reporter is not None:
            reporter.write_line(text)
        else:
            print(text)
    known = known_differences()
    now = differing(cases, outcomes)
    new = [c for c in now if c.id not in known]
    still = {c.id for c in now}
    fixed = [c for c in cases if c.id in known and c.id not in still]
    problems = []
    if new:
        problems.append(
            f"{_cases(len(new))} differ from PyFlink 2.3 and are not in {KNOWN_DIFFERENCES.name}:\n"
            + "\n".join(_show(c, outcomes[c.id]) for c in new[:60])
        )
    if fixed:
        problems.append(
            f"{_cases(len(fixed))} now give Flink's value: remove these ids from {KNOWN_DIFFERENCES.name} "
            "(or rewrite it with --write-known-differences):\n" + "\n".join(f"  {c.id}" for c in fixed)
        )
    assert not problems, "\n".join(problems)


def write_known_differences(cases: list[Case], outcomes: dict[str, Outcome]) -> int:
    """Rewrite the list with every case that differs today; returns their count."""
    rows = differing(cases, outcomes)
    header = {
        "header": "Cases of sql_conformance.jsonl where millstream does not give PyFlink 2.3's value today, "
        "with what Flink and millstream gave. test_sql_conformance.py fails when a case not listed here "
        "differs, and when a listed case gives Flink's value (remove its line: this list only shrinks).",
        "regenerate": ".venv/bin/python -m tests.differential.test_sql_conformance --write-known-differences",
        "cases": len(rows),
        "summary": summary(cases, outcomes)[1:],
    }
    with open(KNOWN_DIFFERENCES, "w", encoding="utf-8") as out:
        out.write(json.dumps(header, ensure_ascii=False) + "\n")
        for case in rows:
            line: dict[str, Any] = {
                "id": case.id,
                "category": case.category,
                "function": case.function,
                "case": case.query or case.expr,
            }
            if case.rows:
                line["input"] = [list(case.columns), [list(r) for r in case.rows]]
            line["flink"] = case.expected
            line["millstream"] = outcomes[case.id].to_json()
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return len(rows)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Run the Flink SQL conformance cases on millstream.")
    parser.add_argument(
        "--summary", action="store_true", help="print the pass rate per category (the default)"
    )
    parser.add_argument(
        "--kinds", type=int, default=0, metavar="N", help="print the N commonest kinds of difference"
    )
    parser.add_argument(
        "--write-known-differences", action="store_true", help=f"rewrite {KNOWN_DIFFERENCES.name}"
    )
    args = parser.parse_args(argv)
    started = time.monotonic()
    cases, outcomes = run_corpus()
    print("\n".join(summary(cases, outcomes)))
    print(f"  ({len(cases)} cases in {time.monotonic() - started:.1f} s)")
    if args.kinds:
        print(f"the {args.kinds} commonest kinds of difference:")
        print("\n".join(kinds(cases, outcomes, args.kinds)))
    if args.write_known_differences:
        count = write_known_differences(cases, outcomes)
        print(f"wrote {count} known differences to {KNOWN_DIFFERENCES}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
