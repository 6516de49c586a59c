"""Streaming SQL on Spark Structured Streaming (``execution.target: spark``, streaming mode):
the table plan's operators run in the Structured Streaming query the DataStream translation
builds (keyed SQL operators in ``transformWithStateInPandas``, the table's ``WATERMARK FOR ts AS
ts - INTERVAL ...`` as ``withWatermark``), reading filesystem tables watched with
``source.monitor-interval``. As the differential suite asks of streaming queries: the table
folded from the changelog Spark emits equals the batch result of the same query over the same
files (run on the embedded runtime).

The files are published while the query runs: the first before it starts, the others once
results arrive. The last one holds a row of the user ``flush`` far in the future that every
query filters out: it advances the watermark past every window, so windows fire on an
unbounded source."""

from __future__ import annotations

import os
import queue
import random
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.testing.tables import fold_changelog
from tests.conformance.streaming_support import publish

pytestmark = pytest.mark.timeout(600)

_USERS = ["ann", "bob", "cid", "dee", "eve"]


def _click_files() -> list[list[str]]:
    """Three files of clicks ``user,amount,time`` (a minute of events, out of order by up to
    two seconds within a file), then the flush row."""
    rng = random.Random(17)
    files = []
    for part in range(3):
        lines = []
        for i in range(40):
            second = part * 20 + i // 2 + rng.randint(-2, 0) + 2
            ts = f"2024-05-01 10:{second // 60:02d}:{second % 60:02d}.{i % 10}00"
            lines.append(f"{rng.choice(_USERS)},{rng.randint(1, 100)},{ts}")
        files.append(lines)
    files[-1].append("flush,0,2024-05-01 11:00:00")
    return files


_REGIONS = ["ann,north", "bob,south", "cid,north", "dee,east"]  # eve has none

QUERIES = {
    "tumble_window_aggregate": """
        SELECT u, window_start, window_end, COUNT(*) AS n, SUM(amount) AS total
        FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
        WHERE u <> 'flush' GROUP BY u, window_start, window_end""",
    "group_aggregate_updates": """
        SELECT u, COUNT(*) AS n, MAX(amount) AS top, SUM(amount) AS total
        FROM clicks WHERE u <> 'flush' GROUP BY u""",
    "join_then_aggregate": """
        SELECT r.region, COUNT(*) AS n, SUM(c.amount) AS total
        FROM clicks c LEFT JOIN regions r ON c.u = r.u
        WHERE c.u <> 'flush' AND c.amount > 20 GROUP BY r.region""",
}


def _environment(root: Path, target: str, streaming: bool) -> TableEnvironment:
    settings = EnvironmentSettings.in_streaming_mode() if streaming else EnvironmentSettings.in_batch_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("execution.target", target)
    t_env.get_config().set("parallelism.default", "1")
    watch = ", 'source.monitor-interval' = '50 ms'" if streaming else ""
    t_env.execute_sql(
        f"""CREATE TABLE clicks (u STRING, amount BIGINT, ts TIMESTAMP(3),
            WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
            WITH ('connector' = 'filesystem', 'path' = '{root / "clicks"}', 'format' = 'csv'{watch})"""
    )
    t_env.execute_sql(
        f"""CREATE TABLE regions (u STRING, region STRING)
            WITH ('connector' = 'filesystem', 'path' = '{root / "regions"}', 'format' = 'csv'{watch})"""
    )
    return t_env


def _drain(rows: Any, arrived: queue.Queue[Any]) -> None:
    """Every collected row into ``arrived`` (a failure too), until the collection closes."""
    try:
        for row in rows:
            arrived.put(row)
    except Exception as err:  # the job failed or was cancelled: the test reports or ignores it
        arrived.put(err)


def _batch_result(root: Path, sql: str) -> Counter[Any]:
    t_env = _environment(root, "embedded", streaming=False)
    with t_env.execute_sql(sql).collect() as rows:
        return Counter(tuple(r) for r in rows)


@pytest.mark.parametrize("name", list(QUERIES))
def test_streaming_sql_on_structured_streaming_folds_to_the_batch_result(
    spark: Any, tmp_path: Path, name: str
) -> None:
    sql = QUERIES[name]
    files = _click_files()
    batch_root = tmp_path / "batch"
    for directory in ("clicks", "regions"):
        os.makedirs(batch_root / directory)
        os.makedirs(tmp_path / directory)
    for i, lines in enumerate(files):
        publish(batch_root / "clicks", f"part-{i}.csv", lines)
    publish(batch_root / "regions", "regions.csv", _REGIONS)
    expected = _batch_result(batch_root, sql)
    assert expected, "the query has a result"

    publish(tmp_path / "regions", "regions.csv", _REGIONS)
    publish(tmp_path / "clicks", "part-0.csv", files[0])
    t_env = _environment(tmp_path, "spark", streaming=True)
    result = t_env.execute_sql(sql)
    changes: list[tuple[str, tuple[Any, ...]]] = []
    deadline = time.monotonic() + 120
    with result.collect() as rows:
        arrived: queue.Queue[Any] = queue.Queue()
        reader = threading.Thread(target=_drain, args=(rows, arrived), daemon=True)
        reader.start()
        published = 1
        while fold_changelog(changes) != expected or published < len(files):
            try:
                row = arrived.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"{name}: the changelog folds to {fold_changelog(changes)}, not {expected}")
            if isinstance(row, BaseException):
                raise row
            assert spark.streams.active, "the query runs on Structured Streaming"
            changes.append((str(row.get_row_kind()), tuple(row)))
            if published < len(files):  # more files once the query has produced results
                publish(tmp_path / "clicks", f"part-{published}.csv", files[published])
                published += 1
    reader.join(timeout=30)
    if name == "group_aggregate_updates":
        assert {kind for kind, _ in changes} >= {"+I", "-U", "+U"}, "an updating changelog"
