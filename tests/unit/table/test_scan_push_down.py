# ruff: noqa: E501 - plans read best on one line each, as explain prints them
"""Projection and filter push-down into a filesystem scan print and read as Flink's.

Each expected scan line is what PyFlink 2.3.0 printed (``explain_sql``, the optimized
execution plan's last line) for the same table and statement, and each query's rows are the
ones PyFlink collected, on the columnar and the row path alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

pytestmark = pytest.mark.timeout(300)

_PLAIN = "CREATE TABLE plain (a BIGINT, b VARCHAR, c BIGINT, d DOUBLE, e INT, f DECIMAL(10, 2)) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')"
_ROWS = [
    '{"a": 1, "b": "x", "c": 11, "d": 0.5, "e": 2, "f": 1.25}',
    '{"a": 2, "b": "y", "c": 5, "d": 2.5, "e": 1, "f": 3.50}',
    '{"a": 3, "c": 30, "d": 1.0, "e": 3}',
]

_CASES = [
    # (statement, PyFlink 2.3.0's plan: every line but the scan's, then the scan's; its rows)
    (
        "SELECT c, a FROM plain",
        [],
        "TableSourceScan(table=[[default_catalog, default_database, plain, project=[c, a], metadata=[]]], fields=[c, a])",
        [(5, 2), (11, 1), (30, 3)],
    ),
    (
        "SELECT * FROM plain",
        [],
        "TableSourceScan(table=[[default_catalog, default_database, plain]], fields=[a, b, c, d, e, f])",
        None,
    ),
    (
        "SELECT c, a FROM plain WHERE d > 1",
        ["Calc(select=[c, a], where=[(d > 1)])"],
        "+- TableSourceScan(table=[[default_catalog, default_database, plain, filter=[>(d, 1)], project=[a, c, d], metadata=[]]], fields=[a, c, d])",
        [(5, 2)],
    ),
    (
        "SELECT c + a, b FROM plain",
        ["Calc(select=[(c + a) AS EXPR$0, b])"],
        "+- TableSourceScan(table=[[default_catalog, default_database, plain, project=[c, a, b], metadata=[]]], fields=[c, a, b])",
        [(7, "y"), (12, "x"), (33, None)],
    ),
    (
        "SELECT a FROM plain WHERE c > 10 AND e < 3 AND d >= 1.5",
        None,
        "+- TableSourceScan(table=[[default_catalog, default_database, plain, filter=[and(and(>(c, 10), <(e, 3)), >=(d, 1.5:DECIMAL(2, 1)))], project=[a, c, d, e], metadata=[]]], fields=[a, c, d, e])",
        [],
    ),
    (
        "SELECT a FROM plain WHERE b = 'x'",
        None,
        "+- TableSourceScan(table=[[default_catalog, default_database, plain, filter=[=(b, _UTF-16LE'x':VARCHAR(2147483647) CHARACTER SET \"UTF-16LE\")], project=[a, b], metadata=[]]], fields=[a, b])",
        [(1,)],
    ),
    (
        "SELECT a FROM plain WHERE f > 1.5",
        None,
        "+- TableSourceScan(table=[[default_catalog, default_database, plain, filter=[>(f, 1.5:DECIMAL(2, 1))], project=[a, f], metadata=[]]], fields=[a, f])",
        [(2,)],
    ),
    (
        "SELECT a FROM plain WHERE b IS NOT NULL",
        None,
        "+- TableSourceScan(table=[[default_catalog, default_database, plain, filter=[IS NOT NULL(b)], project=[a, b], metadata=[]]], fields=[a, b])",
        [(1,), (2,)],
    ),
    (
        "SELECT a FROM plain WHERE c > 10 OR e < 3",
        None,
        "+- TableSourceScan(table=[[default_catalog, default_database, plain, filter=[OR(>(c, 10), <(e, 3))], project=[a, c, e], metadata=[]]], fields=[a, c, e])",
        [(1,), (2,), (3,)],
    ),
]


def _environment(columnar: bool) -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("table.exec.columnar.enabled", str(columnar).lower())
    return t_env


def _plan(t_env: TableEnvironment, sql: str) -> list[str]:
    text = t_env.explain_sql(sql)
    lines = text[text.index("== Optimized Execution Plan ==") :].splitlines()[1:]
    return [line.replace(", columnar=[arrow]", "") for line in lines if line.strip()]


def _rows(t_env: TableEnvironment, sql: str) -> list[tuple[Any, ...]]:
    with t_env.execute_sql(sql).collect() as rows:
        return sorted((tuple(r) for r in rows), key=repr)


@pytest.mark.parametrize(("sql", "above", "scan", "rows"), _CASES, ids=[c[0] for c in _CASES])
def test_a_scan_reads_the_columns_and_keeps_the_filters_flink_pushes_into_it(
    tmp_path: Path, sql: str, above: list[str] | None, scan: str, rows: list[Any] | None
) -> None:
    path = tmp_path / "plain.json"
    path.write_text("\n".join(_ROWS) + "\n")
    for columnar in (True, False):
        t_env = _environment(columnar)
        t_env.execute_sql(_PLAIN.format(path=path))
        plan = _plan(t_env, sql)
        assert plan[-1].strip() == scan
        if above is not None:
            assert plan[:-1] == above
        if rows is not None:
            assert _rows(t_env, sql) == sorted(rows, key=repr)


def test_a_view_filter_and_a_query_filter_are_one_calc_and_one_pushed_filter(tmp_path: Path) -> None:
    """PyFlink 2.3.0 printed, for a view ``WHERE kind = 2`` and a query ``WHERE MOD(id, 3) = 0``
    over a table without a watermark:

        Calc(select=[id, price], where=[((kind = 2) AND (MOD(id, 3) = 0))])
        +- TableSourceScan(table=[[default_catalog, default_database, ev, filter=[and(=(kind, 2), =(MOD(id, 3), 0))], project=[kind, id, price], metadata=[]]], fields=[kind, id, price])
    """
    path = tmp_path / "ev.json"
    path.write_text(
        "".join(f'{{"kind": {i % 3}, "id": {i}, "price": {i * 10}, "ms": {i}}}\n' for i in range(30))
    )
    t_env = _environment(True)
    t_env.execute_sql(
        "CREATE TABLE ev (kind INT, id BIGINT, price BIGINT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3)) "
        f"WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')"
    )
    t_env.execute_sql("CREATE VIEW bids AS SELECT id, price, ts AS t FROM ev WHERE kind = 2")
    sql = "SELECT id, price FROM bids WHERE MOD(id, 3) = 0"
    assert _plan(t_env, sql) == [
        "Calc(select=[id, price], where=[((kind = 2) AND (MOD(id, 3) = 0))])",
        "+- TableSourceScan(table=[[default_catalog, default_database, ev, filter=[and(=(kind, 2), =(MOD(id, 3), 0))], project=[kind, id, price], metadata=[]]], fields=[kind, id, price])",
    ]
    assert _rows(t_env, sql) == []  # kind 2 is id 2 mod 3: none is also 0 mod 3
    assert _rows(t_env, "SELECT id FROM bids WHERE MOD(id, 2) = 0") == sorted(
        [(i,) for i in (2, 8, 14, 20, 26)], key=repr
    )


def test_a_partitioned_table_reads_the_partition_columns_asked_for(tmp_path: Path) -> None:
    """PyFlink 2.3.0 over ``p (k INT, v STRING, dt STRING) PARTITIONED BY (dt)`` (CSV files
    under ``dt=...`` directories) printed ``project=[v], metadata=[]]], fields=[v]`` for
    ``SELECT v FROM p`` and ``project=[dt, k]`` for ``SELECT dt, k FROM p``, with the rows
    below."""
    for day, lines in (("2024-01-01", "1,a\n2,b\n"), ("2024-01-02", "3,c\n")):
        (tmp_path / f"dt={day}").mkdir()
        (tmp_path / f"dt={day}" / "f.csv").write_text(lines)
    t_env = _environment(False)
    t_env.execute_sql(
        "CREATE TABLE p (k INT, v STRING, dt STRING) PARTITIONED BY (dt) "
        f"WITH ('connector' = 'filesystem', 'path' = '{tmp_path}', 'format' = 'csv')"
    )
    assert _plan(t_env, "SELECT v FROM p")[-1].endswith("p, project=[v], metadata=[]]], fields=[v])")
    assert _rows(t_env, "SELECT v FROM p") == [("a",), ("b",), ("c",)]
    assert _plan(t_env, "SELECT dt, k FROM p")[-1].endswith(
        "p, project=[dt, k], metadata=[]]], fields=[dt, k])"
    )
    assert _rows(t_env, "SELECT dt, k FROM p") == [("2024-01-01", 1), ("2024-01-01", 2), ("2024-01-02", 3)]
