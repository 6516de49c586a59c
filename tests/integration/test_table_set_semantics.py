"""NULL keys in joins, and set operations, as Flink 2.3 gives them.

The expected rows are PyFlink 2.3.0's (batch mode) for the same queries over
``a(x) = {1, NULL}`` and ``b(y) = {1, NULL}``; streaming runs must fold to the same rows.
A NULL equi-join key matches nothing (``NULL = NULL`` is not TRUE): before, millstream
joined NULL with NULL in ``JOIN ... ON a.x = b.y`` and ``x IN (SELECT y ...)``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment

pytestmark = pytest.mark.timeout(300)

JOINS = [
    ("SELECT * FROM a JOIN b ON a.x = b.y", [(1, 1)]),
    ("SELECT * FROM a LEFT JOIN b ON a.x = b.y", [(1, 1), (None, None)]),
    ("SELECT * FROM a RIGHT JOIN b ON a.x = b.y", [(1, 1), (None, None)]),
    ("SELECT * FROM a FULL JOIN b ON a.x = b.y", [(1, 1), (None, None), (None, None)]),
    ("SELECT * FROM a WHERE x IN (SELECT y FROM b)", [(1,)]),
    ("SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.y = a.x)", [(1,)]),
    ("SELECT * FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.y = a.x)", [(None,)]),
]


def _environment(batch: bool) -> TableEnvironment:
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    for name, column in (("a", "x"), ("b", "y")):
        schema = DataTypes.ROW([DataTypes.FIELD(column, DataTypes.INT())])
        t_env.create_temporary_view(name, t_env.from_elements([(1,), (None,)], schema))
    return t_env


def folded(t_env: TableEnvironment, sql: str) -> Counter[tuple[Any, ...]]:
    """The query's final rows: its changelog folded (+I / +U add a row, -U / -D take it away)."""
    rows: Counter[tuple[Any, ...]] = Counter()
    with t_env.execute_sql(sql).collect() as result:
        for row in result:
            rows[tuple(row)] += 1 if str(row.get_row_kind()) in ("+I", "+U") else -1
    return +rows


@pytest.mark.parametrize("batch", [True, False], ids=["batch", "streaming"])
@pytest.mark.parametrize(("sql", "flink"), JOINS, ids=[q for q, _ in JOINS])
def test_a_null_join_key_matches_nothing_as_in_flink(
    batch: bool, sql: str, flink: list[tuple[Any, ...]]
) -> None:
    assert folded(_environment(batch), sql) == Counter(flink)


@pytest.mark.parametrize(("join", "expected"), [("JOIN", [(1, 1)]), ("LEFT JOIN", [(1, 1), (None, None)])])
def test_a_null_key_matches_nothing_in_a_window_join(tmp_path: Any, join: str, expected: list[Any]) -> None:
    rows = '{"k": 1, "ts": "2024-01-01 00:00:01"}\n{"k": null, "ts": "2024-01-01 00:00:02"}\n'
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    for name in ("l", "r"):
        (tmp_path / f"{name}.json").write_text(rows)
        t_env.execute_sql(
            f"CREATE TABLE {name} (k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ("
            f"'connector' = 'filesystem', 'path' = '{tmp_path / name}.json', 'format' = 'json')"
        )
    windowed = "(SELECT * FROM TABLE(TUMBLE(TABLE {}, DESCRIPTOR(ts), INTERVAL '10' SECOND)))"
    sql = (
        f"SELECT L.k, R.k FROM {windowed.format('l')} L {join} {windowed.format('r')} R "
        "ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end"
    )
    assert "WindowJoin" in t_env.explain_sql(sql)
    assert folded(t_env, sql) == Counter(expected)
