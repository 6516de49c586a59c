"""LAG(x [, offset [, default]]) OVER (PARTITION BY k ORDER BY ts): the value ``offset`` rows
earlier in the partition, else the default. PyFlink 2.3.0 printed these tables for the same
program, streaming and batch (2026-11-27); it refuses LEAD in streaming mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

STREAMING = """\
+----+--------------------------------+-------------+-------------+
| op |                              k |           v |       prev2 |
+----+--------------------------------+-------------+-------------+
| +I |                             k0 |           0 |          -1 |
| +I |                             k1 |          10 |          -1 |
| +I |                             k0 |          20 |          -1 |
| +I |                             k1 |          30 |          -1 |
| +I |                             k0 |          40 |           0 |
| +I |                             k1 |          50 |          10 |
| +I |                             k0 |          60 |          20 |
| +I |                             k1 |          70 |          30 |
+----+--------------------------------+-------------+-------------+
8 rows in set
"""

BATCH = """\
+--------------------------------+-------------+-------------+
|                              k |           v |       prev2 |
+--------------------------------+-------------+-------------+
|                             k0 |           0 |          -1 |
|                             k0 |          20 |          -1 |
|                             k0 |          40 |           0 |
|                             k0 |          60 |          20 |
|                             k1 |          10 |          -1 |
|                             k1 |          30 |          -1 |
|                             k1 |          50 |          10 |
|                             k1 |          70 |          30 |
+--------------------------------+-------------+-------------+
8 rows in set
"""


def _environment(tmp_path: Path, batch: bool) -> TableEnvironment:
    (tmp_path / "e.csv").write_text("".join(f"k{i % 2},{i * 10},2024-01-01 00:00:0{i}\n" for i in range(8)))
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(
        "CREATE TABLE e (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
        f"WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/e.csv', 'format' = 'csv')"
    )
    return t_env


@pytest.mark.parametrize(
    ("batch", "expected"), [(False, STREAMING), (True, BATCH)], ids=["streaming", "batch"]
)
def test_lag_prints_what_pyflink_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], batch: bool, expected: str
) -> None:
    t_env = _environment(tmp_path, batch)
    t_env.execute_sql("SELECT k, v, LAG(v, 2, -1) OVER (PARTITION BY k ORDER BY ts) AS prev2 FROM e").print()
    assert capsys.readouterr().out == expected


def test_lead_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="LEAD Function is not supported in stream mode"):
        _environment(tmp_path, False).execute_sql("SELECT LEAD(v) OVER (PARTITION BY k ORDER BY ts) FROM e")
