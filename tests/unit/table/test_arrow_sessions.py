# ruff: noqa: E501 - the DDL and queries read best as written
"""A SESSION window aggregation over a columnar scan takes a key's rows of each Arrow batch at
a time (``runtime/arrow_sessions.py``) and gives the row path's windows: the same sessions,
merged as rows arrive, the same late rows dropped (the watermark after every row that raises
it, rows up to 1.5 s out of order against a delay of 1 s)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

pytestmark = pytest.mark.timeout(300)

_TABLE = (
    "CREATE TABLE ev (kind INT, k BIGINT, price BIGINT, name STRING, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), "
    "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '{path}', "
    "'format' = 'json')"
)
_QUERIES = [
    "SELECT k, COUNT(*) AS n, SESSION_START(ts, INTERVAL '0.3' SECOND) AS s, "
    "SESSION_END(ts, INTERVAL '0.3' SECOND) AS e FROM ev WHERE kind = 2 GROUP BY k, SESSION(ts, INTERVAL '0.3' SECOND)",
    "SELECT k, MOD(price, 2) AS odd, COUNT(name) AS n, SUM(price) AS total, MIN(price) AS lo, MAX(name) AS hi, "
    "SESSION_END(ts, INTERVAL '0.5' SECOND) AS e FROM ev GROUP BY k, MOD(price, 2), SESSION(ts, INTERVAL '0.5' SECOND)",
]


def _events(path: Path) -> None:
    rng = random.Random(11)
    with open(path, "w") as out:
        for i in range(3000):
            record = {
                "kind": [0, 1, 2, 2, 2][i % 5],
                "k": rng.randint(0, 12),
                "price": rng.randint(1, 500),
                "name": rng.choice(["ann", "bob", None, "cy"]),
                "ms": 1704067200000 + i * 37 - rng.randint(0, 1500),
            }
            out.write(json.dumps({k: v for k, v in record.items() if v is not None}) + "\n")


def _rows(path: Path, sql: str, columnar: bool) -> tuple[str, list[Any]]:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    config = t_env.get_config()
    config.set("minicluster.mode", "threads")  # a unit test starts no processes
    config.set("parallelism.default", "1")
    config.set("pipeline.auto-watermark-interval", "0")
    config.set("table.exec.columnar.enabled", str(columnar).lower())
    t_env.execute_sql(_TABLE.format(path=path))
    with t_env.execute_sql(sql).collect() as rows:
        return t_env.explain_sql(sql), sorted((tuple(r) for r in rows), key=repr)


@pytest.mark.parametrize("sql", _QUERIES)
def test_grouped_session_windows_are_the_row_paths(tmp_path: Path, sql: str) -> None:
    _events(tmp_path / "ev.json")
    plan, grouped = _rows(tmp_path / "ev.json", sql, columnar=True)
    assert "columnar=[arrow]" in plan
    _, rows = _rows(tmp_path / "ev.json", sql, columnar=False)
    assert grouped == rows
    assert 50 < len(rows) < 3000  # sessions do merge, and not into one
