"""A query that reads no column of a filesystem table (``SELECT RAND() FROM t``,
``SELECT COUNT(UUID()) FROM t``) gets one row per row of the files, in every format, as Flink's
(its scan pushes an empty projection down). Before, a parquet table's row-at-a-time scan gave
no row at all (the rows of no column were the ``zip`` of nothing), so such a query returned an
empty result where a columnar one (``SELECT 1 FROM t``) returned every row.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

ROWS = 5


def _t_env(tmp_path: Path, fmt: str) -> TableEnvironment:
    import pyarrow as pa
    import pyarrow.parquet as pq

    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    if fmt == "parquet":
        pq.write_table(pa.table({"x": pa.array(range(ROWS), pa.int64())}), str(tmp_path / "t.parquet"))
    else:
        lines = [f'{{"x": {i}}}' if fmt == "json" else str(i) for i in range(ROWS)]
        (tmp_path / f"t.{fmt}").write_text("\n".join(lines) + "\n")
    t_env.execute_sql(
        f"CREATE TABLE t (x BIGINT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}', "
        f"'format' = '{fmt}')"
    )
    return t_env


@pytest.mark.parametrize("fmt", ["parquet", "csv", "json"])
def test_a_query_reading_no_column_gets_every_row(tmp_path: Path, fmt: str) -> None:
    t_env = _t_env(tmp_path, fmt)
    for sql in ("SELECT UUID() FROM t", "SELECT 1 FROM t WHERE RAND() < 2"):
        with t_env.execute_sql(sql).collect() as rows:
            assert len(list(rows)) == ROWS, sql
    with t_env.execute_sql("SELECT COUNT(UUID()) FROM t").collect() as rows:
        assert [r[0] for r in rows] == [ROWS]
