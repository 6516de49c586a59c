"""Nexmark's queries on millstream against DuckDB, over the same generated events.

The events file has Nexmark's layout (one table of events, each kind a nested ROW column);
millstream reads it through the filesystem connector with Nexmark's DDL (a computed event
time and a watermark) and its three views, DuckDB through ``read_json``. Every query's batch
result, and the table folded from its streaming changelog, must equal DuckDB's. Events are
2 ms apart so that 6,000 of them span 12 s of event time: several tumbling windows, many
sliding ones, and sessions that end and start again.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.testing.nexmark import CONFIGURATION, QUERIES, ddl, duckdb_views, write_events
from millstream.testing.tables import fold_changelog
from tests.differential.test_sql_vs_duckdb import _normalize, _rows

duckdb = pytest.importorskip("duckdb")

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def events(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("nexmark") / "events.json"
    write_events(str(path), 6000, gap_us=2000)
    return path


@pytest.fixture(scope="module")
def expected(events: Path) -> dict[str, Counter[tuple[object, ...]]]:
    con = duckdb.connect()
    for statement in duckdb_views(str(events)):
        con.execute(statement)
    return {name: _rows(con.execute(q.duckdb).fetchall()) for name, q in QUERIES.items()}


def nexmark_environment(events: Path, batch: bool, nexmark_options: bool = False) -> TableEnvironment:
    """A table environment with Nexmark's events table and views over ``events``
    (``nexmark_options``: with the table options Nexmark runs its queries with, as the
    benchmark does)."""
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "2")
    for key, value in CONFIGURATION.items() if nexmark_options else ():
        t_env.get_config().set(key, value)
    for statement in ddl(str(events)):
        t_env.execute_sql(statement)
    return t_env


@pytest.mark.parametrize(
    ("batch", "nexmark_options"),
    [(True, False), (False, False), (False, True)],
    ids=["batch", "streaming", "streaming-nexmark-options"],
)
@pytest.mark.parametrize("name", list(QUERIES))
def test_nexmark_query_equals_duckdb(
    events: Path,
    expected: dict[str, Counter[tuple[object, ...]]],
    name: str,
    batch: bool,
    nexmark_options: bool,
) -> None:
    t_env = nexmark_environment(events, batch, nexmark_options)
    with t_env.execute_sql(QUERIES[name].sql).collect() as changes:
        result = fold_changelog((str(r.get_row_kind()), tuple(_normalize(v) for v in r)) for r in changes)
    assert sum(expected[name].values()) > 0, f"{name}: the data gives the query nothing to find"
    assert result == expected[name]


def test_nexmark_insert_into_blackhole_runs_as_written(events: Path) -> None:
    """The benchmark's shape: each query INSERTed into a blackhole table of its columns."""
    t_env = nexmark_environment(events, batch=False)
    t_env.execute_sql(f"CREATE TABLE nexmark_q5 ({QUERIES['q5'].columns}) WITH ('connector' = 'blackhole')")
    t_env.execute_sql(f"INSERT INTO nexmark_q5 {QUERIES['q5'].sql}").wait(300_000)


@pytest.mark.parametrize("name", ["q5", "q7"])
def test_window_columns_keep_the_window_insert_only(
    events: Path, expected: dict[str, Counter[tuple[object, ...]]], name: str
) -> None:
    """q5 groups a window aggregation's output again by its (renamed) window_start and
    window_end: Flink's planner keeps those columns the window, so the second aggregation is a
    window aggregation too and the query's changelog holds inserts only, each final. (It was
    an updating aggregation: thousands of -D/+I changes that folded to the same table.)"""
    t_env = nexmark_environment(events, batch=False)
    with t_env.execute_sql(QUERIES[name].sql).collect() as changes:
        rows = [(str(r.get_row_kind()), tuple(_normalize(v) for v in r)) for r in changes]
    assert {kind for kind, _ in rows} == {"+I"}
    assert Counter(row for _, row in rows) == expected[name]


# PyFlink 2.3.0's explain of the same INSERTs over the same DDL, 2026-11-27 (its optimized
# execution plan): q5 and q8 join their windows, whose bounds the queries rename (Flink's
# planner follows them through projections); q7 pairs rows with a window's end only, a regular
# join. Each: the join line (less the terms millstream does not print: the windows, the input
# specs) and its inputs' exchanges.
PYFLINK_JOINS = {
    "q5": (
        "WindowJoin(joinType=[InnerJoin], where=[(num >= maxn)], ",
        ["Exchange(distribution=[single])", "Exchange(distribution=[single])"],
    ),
    "q8": (
        "WindowJoin(joinType=[InnerJoin], where=[(id = seller)], ",
        ["Exchange(distribution=[hash[id]])", "Exchange(distribution=[hash[seller]])"],
    ),
    "q7": (
        # (Flink's select drops channel and url; here the bids' Calc is shared with the window
        # aggregation, and narrowing it would cost a projection of every bid to read the file once)
        "Join(joinType=[InnerJoin], where=[((price = maxprice) AND (dateTime >= (dateTime0 - "
        "10000:INTERVAL SECOND)) AND (dateTime <= dateTime0))], select=[auction, bidder, price, ",
        ["Exchange(distribution=[hash[price]]", "Exchange(distribution=[hash[maxprice]])"],
    ),
    # the WHERE's conjuncts pushed into each input, the inputs narrowed to the columns read
    # (Flink's right input names its key id, ours id0 as the join does)
    "q3": (
        "Join(joinType=[InnerJoin], where=[(seller = id0)], select=[id, seller, id0, name, city, state]",
        ["Exchange(distribution=[hash[seller]]", "Exchange(distribution=[hash[id"],
    ),
}


@pytest.mark.parametrize("name", ["q5", "q8", "q7", "q3"])
def test_joins_are_planned_as_pyflink_plans_them(events: Path, name: str) -> None:
    t_env = nexmark_environment(events, batch=False)
    t_env.execute_sql(f"CREATE TABLE sink_{name} ({QUERIES[name].columns}) WITH ('connector' = 'blackhole')")
    explained = t_env.explain_sql(f"INSERT INTO sink_{name} {QUERIES[name].sql}")
    lines = explained.split("== Optimized Execution Plan ==")[1].splitlines()
    at = next(i for i, line in enumerate(lines) if "Join(" in line)
    join, depth = lines[at].lstrip(" :+-|"), len(lines[at]) - len(lines[at].lstrip(" :+-|"))
    inputs = [
        line.lstrip(" :+-|") for line in lines[at + 1 :] if len(line) - len(line.lstrip(" :+-|")) == depth + 3
    ]
    want_join, want_inputs = PYFLINK_JOINS[name]
    assert join.startswith(want_join), join
    assert [i[: len(w)] for i, w in zip(inputs, want_inputs, strict=True)] == want_inputs
    if name == "q3":  # each input filtered before it is shuffled: WHERE A.category = 10 AND P.state ...
        # PyFlink 2.3.0 prints the view's event_type filter and the WHERE merged into one Calc
        below = [line.lstrip(" :+-|") for line in lines[at + 1 :] if "Calc(" in line]
        want = (
            "Calc(select=[auction.id AS id, auction.seller AS seller], "
            "where=[((event_type = 1) AND (auction.category = 10))]"
        )
        assert below[0].startswith(want), below[0]
        assert any("where=[((event_type = 0) AND (((person.state = " in line for line in below), below


def test_an_aggregation_over_a_join_narrows_the_join_to_the_columns_it_reads(events: Path) -> None:
    """Nexmark q4: the MAX(price) GROUP BY id, category over the auction-bid join reads a
    projection of the join, so the join and its inputs keep only the columns read. PyFlink
    2.3.0 prints, for the nested DDL: ``Calc(select=[id, category, price])`` over
    ``Join(joinType=[InnerJoin], ..., select=[id, dateTime, expires, category, auction, price,
    dateTime0], ...)``."""
    t_env = nexmark_environment(events, batch=False)
    t_env.execute_sql(f"CREATE TABLE sink_q4 ({QUERIES['q4'].columns}) WITH ('connector' = 'blackhole')")
    lines = t_env.explain_sql(f"INSERT INTO sink_q4 {QUERIES['q4'].sql}").split(
        "== Optimized Execution Plan =="
    )[1]
    plan = [line.lstrip(" :+-|") for line in lines.splitlines()]
    at = next(i for i, line in enumerate(plan) if line.startswith("Join("))
    assert "select=[id, dateTime, expires, category, auction, price, dateTime0]" in plan[at], plan[at]
    assert plan[at - 1] == "Calc(select=[id, category, price])", plan[at - 1]
