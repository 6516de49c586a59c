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


_LEFT = "(VALUES (1), (1), (2), (CAST(NULL AS INT)), (CAST(NULL AS INT))) AS l(x)"
SET_OPERATIONS = [  # rows PyFlink 2.3.0 gave (batch mode)
    ("SELECT x FROM a UNION ALL SELECT y FROM b", [(1,), (1,), (None,), (None,)]),
    ("SELECT x FROM a UNION SELECT y FROM b", [(1,), (None,)]),
    ("SELECT x FROM a INTERSECT SELECT y FROM b", [(1,), (None,)]),
    ("SELECT x FROM a EXCEPT SELECT y FROM b", []),
    (
        f"SELECT x FROM {_LEFT} INTERSECT ALL "
        "SELECT x FROM (VALUES (1), (1), (1), (3), (CAST(NULL AS INT))) AS r(x)",
        [(1,), (1,), (None,)],
    ),
    (
        f"SELECT x FROM {_LEFT} EXCEPT ALL SELECT x FROM (VALUES (1), (3), (CAST(NULL AS INT))) AS r(x)",
        [(1,), (2,), (None,)],
    ),
]


@pytest.mark.parametrize("batch", [True, False], ids=["batch", "streaming"])
@pytest.mark.parametrize(("sql", "flink"), SET_OPERATIONS, ids=[q[:40] for q, _ in SET_OPERATIONS])
def test_set_operations_give_flinks_rows(batch: bool, sql: str, flink: list[tuple[Any, ...]]) -> None:
    assert folded(_environment(batch), sql) == Counter(flink)


def test_the_table_api_set_operations_are_the_sql_ones() -> None:
    t_env = _environment(True)
    a, b = t_env.from_path("a"), t_env.from_path("b")
    for method, operation in [
        ("union_all", "UNION ALL"),
        ("union", "UNION"),
        ("intersect", "INTERSECT"),
        ("intersect_all", "INTERSECT ALL"),
        ("minus", "EXCEPT"),
        ("minus_all", "EXCEPT ALL"),
    ]:
        with getattr(a, method)(b).execute().collect() as rows:
            table_api = Counter(tuple(r) for r in rows)
        assert table_api == folded(t_env, f"SELECT x FROM a {operation} SELECT y FROM b"), method


def test_union_all_takes_the_common_type_and_the_left_names_as_flink_does() -> None:
    """PyFlink 2.3.0: ``SELECT x FROM (VALUES (1), (2)) AS l(x) UNION ALL SELECT x FROM
    (VALUES (2.5)) AS r(x)`` gives Decimal('1.0'), Decimal('2.0'), Decimal('2.5')."""
    t_env = _environment(True)
    table = t_env.sql_query(
        "SELECT x FROM (VALUES (1), (2)) AS l(x) UNION ALL SELECT y FROM (VALUES (2.5)) AS r(y)"
    )
    assert table.get_schema().get_field_names() == ["x"]
    assert repr(table.get_schema().get_field_data_types()[0]) == "DECIMAL(11, 1) NOT NULL"
    with table.execute().collect() as rows:
        assert sorted(str(r[0]) for r in rows) == ["1.0", "2.0", "2.5"]
    with pytest.raises(ValueError, match="UNION ALL: the inputs have 1 and 2 columns"):
        t_env.sql_query("SELECT x FROM a UNION ALL SELECT y, y FROM b")
    with pytest.raises(ValueError, match="no common type"):
        t_env.sql_query("SELECT x FROM a UNION ALL SELECT 'text' FROM b")


def test_explain_prints_a_union_and_a_null_safe_semi_join_as_flink_does() -> None:
    t_env = _environment(False)
    union = t_env.explain_sql("SELECT x FROM a UNION ALL SELECT y FROM b")
    assert "Union(all=[true], union=[x])" in union
    intersect = t_env.explain_sql("SELECT x FROM a INTERSECT SELECT y FROM b")
    assert "Join(joinType=[LeftSemiJoin], where=[IS NOT DISTINCT FROM(x, y)], select=[x])" in intersect
    assert "GroupAggregate(groupBy=[x], select=[x])" in intersect


def test_a_union_feeds_an_insert_a_view_and_an_order_by() -> None:
    t_env = _environment(True)
    t_env.execute_sql("CREATE TEMPORARY VIEW u AS SELECT x FROM a UNION ALL SELECT y + 10 FROM b")
    with t_env.execute_sql("SELECT x FROM u UNION SELECT 7 ORDER BY x DESC LIMIT 3").collect() as rows:
        assert [tuple(r) for r in rows] == [(11,), (7,), (1,)]
