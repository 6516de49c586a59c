"""ORDER BY may read a column the select list leaves out (``SELECT name FROM t ORDER BY age``),
a column under its own name when the list renames it, or a position (``ORDER BY 1``), as in
Flink: the key is computed beside the select list, the rows sorted, the key dropped, in one
subtask so the order holds. With DISTINCT such a key is refused with Calcite's message. Before,
each failed with "ORDER BY age: Cannot resolve field [age], input field list:[name]." and
``ORDER BY 1`` sorted by the constant.

The rows and the message are what PyFlink 2.3.0 printed in batch mode for the same queries over
the same CSV file (a,3 / b,1 / c,2).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.sql.errors import SqlError


@pytest.fixture(scope="module")
def t_env(tmp_path_factory: pytest.TempPathFactory) -> TableEnvironment:
    path: Path = tmp_path_factory.mktemp("order") / "t.csv"
    path.write_text("a,3\nb,1\nc,2\n")
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "2")  # the order must hold past the sort
    t_env.execute_sql(
        "CREATE TABLE t (name STRING, age INT) "
        f"WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')"
    )
    return t_env


@pytest.mark.parametrize(
    ("query", "rows"),
    [
        ("SELECT name FROM t ORDER BY age", [("b",), ("c",), ("a",)]),
        ("SELECT name FROM t ORDER BY age DESC LIMIT 2", [("a",), ("c",)]),
        ("SELECT UPPER(name) AS u FROM t ORDER BY age + 1", [("B",), ("C",), ("A",)]),
        ("SELECT name AS n FROM t ORDER BY name DESC", [("c",), ("b",), ("a",)]),
        ("SELECT name, COUNT(*) AS c FROM t GROUP BY name, age ORDER BY age", [("b", 1), ("c", 1), ("a", 1)]),
        ("SELECT name FROM t ORDER BY 1 DESC", [("c",), ("b",), ("a",)]),
    ],
)
def test_order_by_reads_what_flink_lets_it_read(
    t_env: TableEnvironment, query: str, rows: list[tuple[object, ...]]
) -> None:
    with t_env.execute_sql(query).collect() as collected:
        assert [tuple(r) for r in collected] == rows


def test_a_distinct_query_orders_by_its_columns_only(t_env: TableEnvironment) -> None:
    with pytest.raises(SqlError) as failure:
        t_env.sql_query("SELECT DISTINCT name FROM t ORDER BY age")
    assert str(failure.value) == (
        "SQL validation failed. From line 1, column 38 to line 1, column 40: "
        "Expression 'age' is not in the select clause"
    )
