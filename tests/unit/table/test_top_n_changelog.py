# ruff: noqa: E501 - the queries and PyFlink's tables read best on one line
"""The changelog of a regular Top-N over an insert-only input (issue 48, point 6), as Flink's
``AppendOnlyTopNFunction`` and ``FastTop1Function`` emit it: without the row number, the row
pushed out of the top N is deleted before the new one is inserted (``-D`` then ``+I``), and a
top-1, whose partition key is a unique key of its result, updates its row (``-U``, ``+U``).
Before, millstream emitted ``+I`` then ``-D`` for every Top-N without the row number, so a
top-1 was a delete and an insert where Flink has an update.

Each expected table is what PyFlink 2.3.0 printed for the same query (``execute_sql(...).print()``,
streaming mode, parallelism 1) over the same ``from_elements`` rows.
"""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

ROWS = [("a", 1), ("a", 5), ("b", 3), ("a", 3), ("a", 7), ("b", 1), ("b", 9), ("a", 2)]
MORE_ROWS = [*ROWS, ("a", 0), ("b", 1)]


@pytest.fixture(scope="module")
def t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "1")
    t_env.create_temporary_view("t", t_env.from_elements(ROWS, ["k", "v"]))
    t_env.create_temporary_view("u", t_env.from_elements(MORE_ROWS, ["k", "v"]))
    return t_env


def _printed(t_env: TableEnvironment, sql: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    t_env.execute_sql(sql).print()
    return capsys.readouterr().out


@pytest.mark.parametrize(
    ("sql", "pyflink"),
    [
        pytest.param(
            "SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE rn <= 2",
            """\
+----+--------------------------------+----------------------+
| op |                              k |                    v |
+----+--------------------------------+----------------------+
| +I |                              a |                    1 |
| +I |                              a |                    5 |
| +I |                              b |                    3 |
| -D |                              a |                    1 |
| +I |                              a |                    3 |
| -D |                              a |                    3 |
| +I |                              a |                    7 |
| +I |                              b |                    1 |
| -D |                              b |                    1 |
| +I |                              b |                    9 |
+----+--------------------------------+----------------------+
10 rows in set
""",
        ),
        pytest.param(
            "SELECT k, v, rn FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE rn <= 2",
            """\
+----+--------------------------------+----------------------+----------------------+
| op |                              k |                    v |                   rn |
+----+--------------------------------+----------------------+----------------------+
| +I |                              a |                    1 |                    1 |
| -U |                              a |                    1 |                    1 |
| +U |                              a |                    5 |                    1 |
| +I |                              a |                    1 |                    2 |
| +I |                              b |                    3 |                    1 |
| -U |                              a |                    1 |                    2 |
| +U |                              a |                    3 |                    2 |
| -U |                              a |                    5 |                    1 |
| +U |                              a |                    7 |                    1 |
| -U |                              a |                    3 |                    2 |
| +U |                              a |                    5 |                    2 |
| +I |                              b |                    1 |                    2 |
| -U |                              b |                    3 |                    1 |
| +U |                              b |                    9 |                    1 |
| -U |                              b |                    1 |                    2 |
| +U |                              b |                    3 |                    2 |
+----+--------------------------------+----------------------+----------------------+
16 rows in set
""",
        ),
        pytest.param(
            "SELECT v FROM (SELECT k, v, ROW_NUMBER() OVER (ORDER BY v DESC) AS rn FROM t) WHERE rn <= 3",
            """\
+----+----------------------+
| op |                    v |
+----+----------------------+
| +I |                    1 |
| +I |                    5 |
| +I |                    3 |
| -D |                    1 |
| +I |                    3 |
| -D |                    3 |
| +I |                    7 |
| -D |                    3 |
| +I |                    9 |
+----+----------------------+
9 rows in set
""",
        ),
        pytest.param(
            "SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM u) WHERE rn = 1",
            """\
+----+--------------------------------+----------------------+
| op |                              k |                    v |
+----+--------------------------------+----------------------+
| +I |                              a |                    1 |
| -U |                              a |                    1 |
| +U |                              a |                    5 |
| +I |                              b |                    3 |
| -U |                              a |                    5 |
| +U |                              a |                    7 |
| -U |                              b |                    3 |
| +U |                              b |                    9 |
+----+--------------------------------+----------------------+
8 rows in set
""",
        ),
        pytest.param(
            "SELECT v FROM (SELECT k, v, ROW_NUMBER() OVER (ORDER BY v DESC) AS rn FROM u) WHERE rn <= 1",
            """\
+----+----------------------+
| op |                    v |
+----+----------------------+
| +I |                    1 |
| -U |                    1 |
| +U |                    5 |
| -U |                    5 |
| +U |                    7 |
| -U |                    7 |
| +U |                    9 |
+----+----------------------+
7 rows in set
""",
        ),
        pytest.param(
            "SELECT k FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM u) WHERE rn = 1",
            """\
+----+--------------------------------+
| op |                              k |
+----+--------------------------------+
| +I |                              a |
| -U |                              a |
| +U |                              a |
| +I |                              b |
| -U |                              a |
| +U |                              a |
| -U |                              b |
| +U |                              b |
+----+--------------------------------+
8 rows in set
""",
        ),
    ],
)
def test_a_top_n_prints_the_changelog_pyflink_prints(
    t_env: TableEnvironment, sql: str, pyflink: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _printed(t_env, sql, capsys) == pyflink


def test_an_ascending_top_1_retracts_the_row_it_replaces(
    t_env: TableEnvironment, capsys: pytest.CaptureFixture[str]
) -> None:
    """Deliberately not PyFlink 2.3.0's: its planner takes a top-1 by one ascending column
    (or by several) for a first-row deduplication, which is insert-only, and drops the
    update-before (Flink 2.1 and later; 1.20 retracts), so a COUNT(*) over the top-1 counts the
    replaced row too. For this query PyFlink 2.3.0 printed ``+I[a, 1]``, ``+I[b, 3]``,
    ``+U[b, 1]``, ``+U[a, 0]``: the updates without their ``-U``."""
    printed = _printed(
        t_env,
        "SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v ASC) AS rn FROM u) WHERE rn <= 1",
        capsys,
    )
    assert [line for line in printed.splitlines() if line.startswith("| ")][1:] == [
        "| +I |                              a |                    1 |",
        "| +I |                              b |                    3 |",
        "| -U |                              b |                    3 |",
        "| +U |                              b |                    1 |",
        "| -U |                              a |                    1 |",
        "| +U |                              a |                    0 |",
    ]
