"""SQL values checked against PyFlink 2.3.0 (batch mode, UTC unless a test says otherwise): a
global aggregation over no rows, a sink's NOT NULL columns."""

from __future__ import annotations

from pathlib import Path

from millstream.table import EnvironmentSettings, TableEnvironment


def _env(batch: bool = True) -> TableEnvironment:
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("table.local-time-zone", "UTC")
    t_env.execute_sql("CREATE TEMPORARY VIEW t AS SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(x, s)")
    return t_env


def _rows(t_env: TableEnvironment, sql: str) -> list[tuple[object, ...]]:
    with t_env.execute_sql(sql).collect() as rows:
        return [tuple(r) for r in rows]


def test_a_global_aggregate_over_no_rows_emits_one_row_in_batch() -> None:
    """PyFlink 2.3.0 prints, batch: ``<Row(0, None, '[]')> +I`` for the first query and
    ``<Row(0, None)> +I`` for the second; no row for the grouped one. Before, millstream
    emitted no row for any of them."""
    t_env = _env()
    assert _rows(t_env, "SELECT COUNT(*), MIN(x), JSON_ARRAYAGG(x) FROM t WHERE FALSE") == [(0, None, "[]")]
    assert _rows(t_env, "SELECT COUNT(*), SUM(x) FROM t WHERE x > 5") == [(0, None)]
    assert _rows(t_env, "SELECT COUNT(*) FROM t WHERE x > 5 GROUP BY s") == []
    assert _rows(t_env, "SELECT COUNT(*), SUM(x) FROM t") == [(2, 3)]


def test_a_global_aggregate_over_no_rows_of_a_columnar_scan(tmp_path: Path) -> None:
    """The same over a filesystem table (the scan runs columnar)."""
    (tmp_path / "data.csv").write_text("1,a\n2,b\n")
    t_env = _env()
    t_env.execute_sql(
        f"CREATE TABLE f (x INT, s STRING) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}', "
        "'format' = 'csv')"
    )
    assert _rows(t_env, "SELECT COUNT(*), MAX(s) FROM f WHERE x > 5") == [(0, None)]
    assert _rows(t_env, "SELECT COUNT(*), MAX(s) FROM f") == [(2, "b")]


def test_a_global_aggregate_over_no_rows_emits_nothing_in_streaming() -> None:
    """PyFlink 2.3.0, streaming mode, prints the columns of
    ``SELECT COUNT(*), MIN(x), JSON_ARRAYAGG(x) FROM t WHERE FALSE`` and no row."""
    t_env = _env(batch=False)
    assert _rows(t_env, "SELECT COUNT(*), MIN(x), JSON_ARRAYAGG(x) FROM t WHERE FALSE") == []
