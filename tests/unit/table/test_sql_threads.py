"""SQL is translated into plans on any thread: two threads translating queries at once each
get their own query's plan (the translation's column scopes and over windows are per thread)."""

from __future__ import annotations

import sys
import threading

from millstream.table import EnvironmentSettings, TableEnvironment

_QUERIES = [
    "SELECT a.x, b.y FROM a JOIN b ON a.k = b.k WHERE a.x > 1",
    "SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM c",
    "SELECT w, COUNT(*) AS n FROM (SELECT v AS w FROM c) AS t GROUP BY w",
]


def _environment() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql("CREATE TABLE a (k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1')")
    t_env.execute_sql("CREATE TABLE b (k INT, y INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1')")
    t_env.execute_sql(
        "CREATE TABLE c (k INT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) "
        "WITH ('connector' = 'datagen', 'number-of-rows' = '1')"
    )
    return t_env


def test_threads_translating_sql_at_once_each_get_their_own_plan() -> None:
    """Before, the scopes were one module-level stack: a thread resolved its columns in the
    other thread's scope ("Column 'a.x' not found", or a plan over the wrong columns)."""
    t_env = _environment()
    expected = [t_env.explain_sql(query) for query in _QUERIES]
    failures: list[str] = []
    start = threading.Barrier(len(_QUERIES))

    def translate(index: int) -> None:
        start.wait(timeout=60)
        for _ in range(40):
            try:
                plan = t_env.explain_sql(_QUERIES[index])
            except Exception as error:  # reported by the assertion below
                failures.append(f"{_QUERIES[index]}: {error}")
                return
            if plan != expected[index]:
                failures.append(f"{_QUERIES[index]}: another plan")
                return

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    try:
        threads = [threading.Thread(target=translate, args=(i,)) for i in range(len(_QUERIES))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
    finally:
        sys.setswitchinterval(interval)
    assert not any(thread.is_alive() for thread in threads)
    assert failures == []
