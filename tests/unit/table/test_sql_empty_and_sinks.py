"""SQL values checked against PyFlink 2.3.0 (batch mode, UTC unless a test says otherwise): a
global aggregation over no rows, a sink's NOT NULL columns (table.exec.sink.not-null-enforcer)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.runtime.change_batch import ChangeBatch
from millstream.table.runtime.sink_constraints import EnforcerError, NotNullBatchEnforcer


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


_NOT_NULL_MESSAGE = (
    "Column 'a' is NOT NULL, however, a null value is being written into it. You can set job "
    "configuration 'table.exec.sink.not-null-enforcer'='DROP' to suppress this exception and drop "
    "such records silently."
)


def _written(path: Path) -> list[str]:
    return sorted(line for f in sorted(path.rglob("*")) if f.is_file() for line in f.read_text().splitlines())


@pytest.mark.parametrize("columnar", [False, True])
def test_a_null_into_a_not_null_sink_column_fails_or_is_dropped(tmp_path: Path, columnar: bool) -> None:
    """PyFlink 2.3.0 fails ``INSERT INTO snk SELECT CAST(NULLIF(x, 1) AS INT), s FROM t`` (snk's
    a INT NOT NULL) with ``EnforcerException: Column 'a' is NOT NULL, however, a null value is
    being written into it. You can set job configuration 'table.exec.sink.not-null-enforcer'=
    'DROP' to suppress this exception and drop such records silently.``; with the option DROP it
    prints only ``+I[2, b]``. Before, millstream wrote ``+I[null, a]``. ``columnar``: the rows
    come from a filesystem table's scan (on Arrow) into a filesystem sink."""
    for enforcer in ("ERROR", "DROP"):
        t_env = _env()
        t_env.get_config().set("table.exec.sink.not-null-enforcer", enforcer)
        out = tmp_path / enforcer
        if columnar:
            (tmp_path / "in").mkdir(exist_ok=True)
            (tmp_path / "in" / "data.json").write_text('{"x": null, "s": "a"}\n{"x": 2, "s": "b"}\n')
            t_env.execute_sql(
                f"CREATE TABLE src (x INT, s STRING) WITH ('connector' = 'filesystem', "
                f"'path' = '{tmp_path / 'in'}', 'format' = 'json')"
            )
            query = "SELECT x, s FROM src"
        else:
            query = "SELECT CAST(NULLIF(x, 1) AS INT), s FROM t"
        t_env.execute_sql(
            f"CREATE TABLE snk (a INT NOT NULL, b STRING) WITH ('connector' = 'filesystem', "
            f"'path' = '{out}', 'format' = 'json')"
        )
        if enforcer == "ERROR":
            with pytest.raises(Exception, match=re.escape(_NOT_NULL_MESSAGE)):
                t_env.execute_sql(f"INSERT INTO snk {query}").wait()
        else:
            t_env.execute_sql(f"INSERT INTO snk {query}").wait()
            assert _written(out) == ['{"a":2,"b":"b"}']


def test_the_not_null_enforcer_over_arrow_batches(tmp_path: Path) -> None:
    """A blackhole sink takes a columnar scan's Arrow batches unconverted: the enforcer checks
    them too (ERROR: the job fails as above; DROP: the batch loses the rows, and their stamps)."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "data.json").write_text('{"x": null, "s": "a"}\n{"x": 2, "s": "b"}\n')
    t_env = _env()
    t_env.execute_sql(
        f"CREATE TABLE src (x INT, s STRING) WITH ('connector' = 'filesystem', "
        f"'path' = '{tmp_path / 'in'}', 'format' = 'json')"
    )
    t_env.execute_sql("CREATE TABLE snk (a INT NOT NULL, b STRING) WITH ('connector' = 'blackhole')")
    with pytest.raises(Exception, match=re.escape(_NOT_NULL_MESSAGE)):
        t_env.execute_sql("INSERT INTO snk SELECT x, s FROM src").wait()

    batch = pa.record_batch([pa.array([None, 2, 3]), pa.array(["a", None, "c"])], names=["f0", "f1"])
    kept = NotNullBatchEnforcer(["a", "b"], [0], drop=True)(ChangeBatch(batch, np.array([10, 20, 30])))
    assert kept.batch.to_pydict() == {"f0": [2, 3], "f1": [None, "c"]}
    assert kept.stamps.tolist() == [20, 30]
    with pytest.raises(EnforcerError, match="Column 'b' is NOT NULL"):
        NotNullBatchEnforcer(["a", "b"], [1], drop=False)(ChangeBatch(batch))
