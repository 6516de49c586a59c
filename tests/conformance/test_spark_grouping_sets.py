"""GROUPING SETS, ROLLUP and CUBE with ``execution.target: spark``: a batch job runs on Spark SQL,
the aggregation over the Expand as Spark's own ``groupingSets()`` with ``grouping_id()`` as
Flink's expand id (a window aggregation's Expand as an ``inline`` of the projections); a
streaming job over bounded input runs millstream's Expand and updating aggregation through the
DataStream translation on Spark. Both give the rows PyFlink 2.3.0 printed for the same
statements (``tests/unit/table/test_sql_grouping_sets.py`` cites them).
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from millstream.common.types import RowKind
from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value
from millstream.testing.tables import fold_changelog
from tests.conformance.streaming_support import publish
from tests.conformance.test_spark_streaming_sql import _batch_result, _click_files, _drain, _environment
from tests.unit.table.test_sql_grouping_sets import (
    _CASES,
    _FILE_CUBE,
    _FILE_CUBE_ROWS,
    _FILE_ROLLUP,
    _FILE_ROLLUP_ROWS,
    _VALUES,
    _WINDOW_ROLLUP,
    _WINDOW_ROLLUP_ROWS,
    _bids,
    _rows_of_file,
)

pytestmark = pytest.mark.timeout(600)

# one case of each thing the Spark SQL translation does differently (GROUPING / GROUPING_ID from
# grouping_id(), a key an aggregate reads copied, a repeated set's UNION branch, HAVING on
# GROUPING, expression keys, the DataStream translation's aggregates); the other cases run the
# same translation, and every case runs on millstream in tests/unit (a Spark job each costs
# seconds of the suite's 20 minutes)
_ON_SPARK = [
    "rollup",
    "cube_aggregating_its_keys",
    "group_id_of_a_repeated_set",
    "having_on_grouping",
    "expression_keys",
    "other_aggregates",
]
# LISTAGG and BATCH's DISTINCT aggregates (folded in ascending order) have no Spark SQL
# translation, with grouping sets or without: these run through the DataStream translation
_DATASTREAM_ON_SPARK = {"other_aggregates", "distinct_aggregates"}


def _t_env(mode: str) -> TableEnvironment:
    settings = (
        EnvironmentSettings.in_batch_mode() if mode == "batch" else EnvironmentSettings.in_streaming_mode()
    )
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("execution.target", "spark")
    t_env.execute_sql(_VALUES)
    return t_env


def _rows(t_env: TableEnvironment, sql: str) -> list[tuple[str, ...]]:
    """The final table's rows as printed cells, sorted."""
    table = t_env.sql_query(sql)
    types = table.get_resolved_schema().get_column_data_types()
    rows: Counter[tuple[str, ...]] = Counter()
    with table.execute().collect() as collected:
        for row in collected:
            cells = tuple(format_value(t, v) for t, v in zip(types, row, strict=True))
            rows[cells] += 1 if row.get_row_kind() in (RowKind.INSERT, RowKind.UPDATE_AFTER) else -1
    return sorted((+rows).elements())


def test_grouping_sets_run_on_spark_sql(spark: Any, tmp_path: Path) -> None:
    t_env = _t_env("batch")
    for case in _ON_SPARK:
        sql, _, expected = _CASES[case]
        assert _rows(t_env, sql) == expected, case
        runtime = "datastream" if case in _DATASTREAM_ON_SPARK else "spark"
        assert t_env.last_runtime == runtime, f"{case} ran through the {t_env.last_runtime} translation"
    path = tmp_path / "ev.json"
    path.write_text(
        "".join(json.dumps({k: v for k, v in r.items() if v is not None}) + "\n" for r in _rows_of_file())
    )
    t_env.execute_sql(
        "CREATE TABLE ev (k STRING, x INT, v INT, c STRING) "
        f"WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')"
    )
    assert _rows(t_env, _FILE_CUBE) == _FILE_CUBE_ROWS and t_env.last_runtime == "spark"
    assert _rows(t_env, _FILE_ROLLUP) == _FILE_ROLLUP_ROWS and t_env.last_runtime == "spark"


def test_grouping_sets_stream_on_spark(spark: Any) -> None:
    t_env = _t_env("streaming")
    for case in ("rollup", "cube_aggregating_its_keys", "group_id_of_a_repeated_set"):
        sql, _, expected = _CASES[case]
        assert _rows(t_env, sql) == expected, case


def test_a_window_aggregation_of_grouping_sets_runs_on_spark_sql(spark: Any, tmp_path: Path) -> None:
    t_env = _t_env("batch")
    t_env.get_config().set("table.local-time-zone", "UTC")
    t_env.execute_sql(
        "CREATE TABLE bid (k STRING, x INT, v INT, ts TIMESTAMP(3), "
        "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
        f"WITH ('connector' = 'filesystem', 'path' = '{_bids(tmp_path)}', 'format' = 'csv', "
        "'csv.null-literal' = '')"
    )
    assert _rows(t_env, _WINDOW_ROLLUP) == _WINDOW_ROLLUP_ROWS
    assert t_env.last_runtime == "spark"


def test_a_rollup_on_structured_streaming_folds_to_the_batch_result(spark: Any, tmp_path: Path) -> None:
    """Over watched files (an unbounded source), the Expand and the updating aggregation run in
    the Structured Streaming query; the changelog Spark emits folds to the batch result (the
    embedded runtime's, which gives PyFlink's rows for these statements)."""
    sql = (
        "SELECT u, GROUPING(u) AS g, COUNT(*) AS n, SUM(amount) AS total "
        "FROM clicks WHERE u <> 'flush' GROUP BY ROLLUP(u)"
    )
    files = _click_files()
    for root in (tmp_path / "batch", tmp_path):
        for directory in ("clicks", "regions"):
            os.makedirs(root / directory, exist_ok=True)
    for i, lines in enumerate(files):
        publish(tmp_path / "batch" / "clicks", f"part-{i}.csv", lines)
    expected = _batch_result(tmp_path / "batch", sql)
    assert len(expected) == 6, "five users and the grand total"
    publish(tmp_path / "clicks", "part-0.csv", files[0])
    t_env = _environment(tmp_path, "spark", streaming=True)
    changes: list[tuple[str, tuple[Any, ...]]] = []
    deadline = time.monotonic() + 120
    with t_env.execute_sql(sql).collect() as rows:
        arrived: queue.Queue[Any] = queue.Queue()
        reader = threading.Thread(target=_drain, args=(rows, arrived), daemon=True)
        reader.start()
        published = 1
        while fold_changelog(changes) != expected or published < len(files):
            try:
                row = arrived.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"the changelog folds to {fold_changelog(changes)}, not {expected}")
            if isinstance(row, BaseException):
                raise row
            assert spark.streams.active, "the query runs on Structured Streaming"
            changes.append((str(row.get_row_kind()), tuple(row)))
            if published < len(files):  # more files once the query has produced results
                publish(tmp_path / "clicks", f"part-{published}.csv", files[published])
                published += 1
    reader.join(timeout=30)
    assert {kind for kind, _ in changes} >= {"+I", "-U", "+U"}, "an updating changelog"
