# ruff: noqa: E501 - PyFlink's plans and printed tables are pasted as they ran
"""``explain_sql`` prints what PyFlink 2.3.0 prints for string literals and deduplications, and
a deduplication keeping the first row by event time emits what PyFlink's does.

* A string literal is ``'x'`` in the "Optimized Execution Plan" and Calcite's digest
  ``_UTF-16LE'it''s'`` (a quote doubled) in the plans before it; before, millstream printed
  the digest in both.
* ``ROW_NUMBER() OVER (PARTITION BY k ORDER BY <time attribute> [DESC]) ... = 1`` is Flink's
  ``Deduplicate(keep=[FirstRow|LastRow], key=[k], order=[ROWTIME|PROCTIME], ...)`` over an
  Exchange by the key, with or without the row number selected (Flink's ``Calc(..., 1 AS rn)``
  above it); before, millstream printed ``Rank(select=[...])`` over ``Exchange(distribution=[hash])``
  and ranked only when the row number was not selected.
* Keeping the first row by event time waits for the watermark and emits the key's earliest row
  once (``+I``, insert-only), as Flink's ``RowTimeDeduplicateKeepFirstRowFunction``; before,
  each earlier row updated the kept one (``-U``/``+U``).

The plan lines and rows are what PyFlink 2.3.0 printed in streaming mode at parallelism 1 for
the same statements over the same CSV file (millstream marks the operators that run on Arrow
batches with ``columnar=[arrow]``, which the test leaves out).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

ROWS = "a,1,2024-01-01 10:00:05\na,2,2024-01-01 10:00:03\nb,3,2024-01-01 10:00:04\na,4,2024-01-01 10:00:01\nb,5,2024-01-01 10:00:09\n"

_WATERMARK = """\
WatermarkAssigner(rowtime=[ts], watermark=[(ts - 10000:INTERVAL SECOND)])
      +- TableSourceScan(table=[[default_catalog, default_database, s]], fields=[k, v, ts])"""

PLANS = [
    pytest.param(
        "SELECT k, CONCAT(k, 'abc') AS c, v FROM s WHERE k <> 'it''s' AND v > 1",
        "Calc(select=[k, CONCAT(k, 'abc') AS c, v], where=[((k <> 'it's') AND (v > 1))])",
        id="literals-in-the-execution-plan",
    ),
    pytest.param(
        "SELECT k, v, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM s) WHERE rn = 1",
        f"""\
Deduplicate(keep=[FirstRow], key=[k], order=[ROWTIME], outputInsertOnly=[true])
+- Exchange(distribution=[hash[k]])
   +- {_WATERMARK}""",
        id="first-row",
    ),
    pytest.param(
        "SELECT k, v, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM s) WHERE rn = 1",
        f"""\
Deduplicate(keep=[LastRow], key=[k], order=[ROWTIME], outputInsertOnly=[false])
+- Exchange(distribution=[hash[k]])
   +- {_WATERMARK}""",
        id="last-row",
    ),
    pytest.param(
        "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM s) WHERE rn = 1",
        f"""\
Calc(select=[k, v, ts, 1 AS rn])
+- Deduplicate(keep=[FirstRow], key=[k], order=[ROWTIME], outputInsertOnly=[true])
   +- Exchange(distribution=[hash[k]])
      +- {_WATERMARK.replace(chr(10) + "      ", chr(10) + "         ")}""",
        id="first-row-with-the-row-number",
    ),
    pytest.param(
        "SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt DESC) AS rn FROM t) WHERE rn = 1",
        "Deduplicate(keep=[LastRow], key=[k], order=[PROCTIME], outputInsertOnly=[false])\n   +- Exchange(distribution=[hash[k]])",
        id="last-row-by-processing-time",
    ),
    pytest.param(
        "SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt) AS rn FROM t) WHERE rn = 1",
        "Deduplicate(keep=[FirstRow], key=[k], order=[PROCTIME], outputInsertOnly=[true])\n   +- Exchange(distribution=[hash[k]])",
        id="first-row-by-processing-time",
    ),
]


@pytest.fixture(scope="module")
def t_env(tmp_path_factory: pytest.TempPathFactory) -> TableEnvironment:
    path: Path = tmp_path_factory.mktemp("dedup") / "s.csv"
    path.write_text(ROWS)
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(
        "CREATE TABLE s (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND) "
        f"WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')"
    )
    t_env.execute_sql(
        f"CREATE TABLE t (k STRING, v INT, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')"
    )
    t_env.execute_sql(
        f"CREATE TABLE plain (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')"
    )
    return t_env


def _execution_plan(t_env: TableEnvironment, query: str) -> str:
    plan = t_env.explain_sql(query).split("== Optimized Execution Plan ==")[1].strip()
    return plan.replace(", columnar=[arrow]", "")


@pytest.mark.parametrize(("query", "expected"), PLANS)
def test_the_execution_plan_reads_as_pyflinks(t_env: TableEnvironment, query: str, expected: str) -> None:
    plan = _execution_plan(t_env, query)
    assert plan.startswith(expected) or expected in plan, plan


def test_the_physical_plan_keeps_calcites_digest_of_a_string(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0's "Optimized Physical Plan": Calc(select=[k, CONCAT(k, _UTF-16LE'abc') AS c, v], ...
    # +- TableSourceScan(table=[[..., plain, filter=[and(<>(k, _UTF-16LE'it''s':VARCHAR(2147483647) CHARACTER SET "UTF-16LE"), >(v, 1))], ...
    text = t_env.explain_sql("SELECT k, CONCAT(k, 'abc') AS c, v FROM plain WHERE k <> 'it''s' AND v > 1")
    physical = text.split("== Optimized Physical Plan ==")[1].split("== Optimized Execution Plan ==")[0]
    assert "Calc(select=[k, CONCAT(k, _UTF-16LE'abc') AS c, v]" in physical
    assert (
        "filter=[and(<>(k, _UTF-16LE'it''s':VARCHAR(2147483647) CHARACTER SET \"UTF-16LE\"), >(v, 1))]"
        in physical
    )


@pytest.mark.parametrize(
    ("order", "rows"),
    [
        # PyFlink 2.3.0: | +I | a | 4 | 2024-01-01 10:00:01.000 |, | +I | b | 3 | 2024-01-01 10:00:04.000 |
        ("ts", [("+I", "a", 4), ("+I", "b", 3)]),
        # PyFlink 2.3.0: +I a 1 10:00:05, +I b 3 10:00:04, -U b 3 10:00:04, +U b 5 10:00:09
        ("ts DESC", [("+I", "a", 1), ("+I", "b", 3), ("-U", "b", 3), ("+U", "b", 5)]),
    ],
)
def test_a_deduplication_by_event_time_emits_what_pyflink_emits(
    t_env: TableEnvironment, order: str, rows: list[tuple[str, str, int]]
) -> None:
    query = f"SELECT k, v, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY {order}) AS rn FROM s) WHERE rn = 1"
    with t_env.execute_sql(query).collect() as collected:
        got = [(r.get_row_kind().short_string(), r[0], r[1]) for r in collected]
    assert got == rows
