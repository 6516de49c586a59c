"""PROCTIME(): a processing-time attribute (a computed column or a select item), and window
aggregation over it (Nexmark q12's shape). Checked against PyFlink 2.3 on a datagen table of
60 rows at 40 rows a second: both print the attribute as ``TIMESTAMP_LTZ(3) NOT NULL
*PROCTIME*``; a window fires when the clock reaches its end while the job runs, and the windows
still open when the bounded input ends are not emitted (issue 48: PyFlink 2.3.0 collected no
row of 10-second windows, 40 of the 60 rows in half-second windows)."""

from __future__ import annotations

from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.testing.nexmark import ddl, write_events

pytestmark = pytest.mark.timeout(300)


def test_processing_time_windows_fire_on_the_clock(capsys: pytest.CaptureFixture[str]) -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "2")
    t_env.execute_sql(
        "CREATE TABLE src (k INT, v INT, p AS PROCTIME()) WITH ('connector' = 'datagen', "
        "'rows-per-second' = '40', 'number-of-rows' = '60', 'fields.k.min' = '1', 'fields.k.max' = '2')"
    )
    t_env.from_path("src").print_schema()
    assert "  `p` TIMESTAMP_LTZ(3) NOT NULL *PROCTIME* AS PROCTIME()" in capsys.readouterr().out.splitlines()
    sql = (
        "SELECT k, COUNT(*) AS n, window_start, window_end FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(p), "
        "INTERVAL '0.5' SECOND)) GROUP BY k, window_start, window_end"
    )
    with t_env.execute_sql(sql).collect() as rows:
        windows = [tuple(r) for r in rows]
    assert sum(n for _, n, _, _ in windows) <= 60  # the windows the clock passed while the job ran
    assert all((end - start).total_seconds() == 0.5 for _, _, start, end in windows)
    assert all(start.microsecond % 500_000 == 0 for _, _, start, _ in windows)
    day = sql.replace("INTERVAL '0.5' SECOND", "INTERVAL '1' DAY")
    with t_env.execute_sql(day).collect() as rows:
        assert list(rows) == []  # its window is open when the input ends: not emitted, as PyFlink's


def test_nexmark_q12_shape_a_view_with_proctime(tmp_path: Path) -> None:
    """``CREATE VIEW B AS SELECT *, PROCTIME() AS p_time FROM bid`` and a TUMBLE window over
    ``p_time``: the bids are counted per bidder in the windows that end while the job runs
    (official q12 on PyFlink 2.3.0 counted 26,379 of 92,000 bids)."""
    path = tmp_path / "events.json"
    write_events(str(path), 3000)
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    for statement in ddl(str(path)):
        t_env.execute_sql(statement)
    t_env.execute_sql("CREATE VIEW B AS SELECT *, PROCTIME() AS p_time FROM bid")
    assert t_env.from_path("B")._plan.proctime == len(t_env.from_path("B")._plan.names) - 1
    sql = (
        "SELECT bidder, COUNT(*) AS bid_count, window_start AS starttime, window_end AS endtime FROM "
        "TABLE(TUMBLE(TABLE B, DESCRIPTOR(p_time), INTERVAL '10' SECOND)) "
        "GROUP BY bidder, window_start, window_end"
    )
    with t_env.execute_sql(sql).collect() as rows:
        windows = [tuple(r) for r in rows]
    assert sum(r[1] for r in windows) <= 3000 - 3000 // 50 * 4  # of the bids (46 of each 50 events)
    assert all((end - start).total_seconds() == 10 for _, _, start, end in windows)


def test_a_catalog_tables_schema_prints_as_pyflinks(capsys: pytest.CaptureFixture[str]) -> None:
    """What PyFlink 2.3 printed for the same DDL: computed columns with their expressions,
    the time attributes marked, the watermark; a projection of it without expressions."""
    from millstream.table.expressions import col

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql(
        "CREATE TABLE s (a INT, b AS a + 1, ts TIMESTAMP(3), p AS PROCTIME(), "
        "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen')"
    )
    table = t_env.from_path("s")
    table.print_schema()
    print(table.get_schema())
    table.select(col("a"), col("ts"), col("p")).print_schema()
    assert capsys.readouterr().out.splitlines() == [
        "(",
        "  `a` INT,",
        "  `b` INT AS `a` + 1,",
        "  `ts` TIMESTAMP(3) *ROWTIME*,",
        "  `p` TIMESTAMP_LTZ(3) NOT NULL *PROCTIME* AS PROCTIME(),",
        "  WATERMARK FOR `ts`: TIMESTAMP(3) AS `ts` - INTERVAL '1' SECOND",
        ")",
        "root",
        " |-- a: INT",
        " |-- b: INT AS `a` + 1",
        " |-- ts: TIMESTAMP(3) *ROWTIME*",
        " |-- p: TIMESTAMP_LTZ(3) NOT NULL *PROCTIME* AS PROCTIME()",
        " |-- WATERMARK FOR ts: TIMESTAMP(3) AS `ts` - INTERVAL '1' SECOND",
        "",
        "(",
        "  `a` INT,",
        "  `ts` TIMESTAMP(3) *ROWTIME*,",
        "  `p` TIMESTAMP_LTZ(3) NOT NULL *PROCTIME*",
        ")",
    ]
    schema = table.get_schema()
    assert (
        schema.get_field_data_type("b") == schema.get_field_data_type(1)
        and schema.get_field_data_type("x") is None
    )
