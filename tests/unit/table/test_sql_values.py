"""A multi-row VALUES as Flink types it, checked against PyFlink 2.3.0 (batch mode): a column
takes the common type of its values, and a bare NULL among them is refused."""

from __future__ import annotations

from decimal import Decimal

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.sql.parser import SqlError


def _env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    return t_env


def _typed_rows(sql: str) -> tuple[list[str], list[tuple[object, ...]]]:
    table = _env().sql_query(sql)
    types = [str(t) for t in table.get_schema().get_field_data_types()]
    return types, [tuple(r) for r in table.execute().collect()]


def test_a_column_takes_the_common_type_of_its_values() -> None:
    """PyFlink 2.3.0 prints the schema `c` VARCHAR(5) NOT NULL and rows 'ab ', 'abcd' for the
    first; `c` DECIMAL(11, 1) NOT NULL and Decimal('1.0'), Decimal('2.5') for the second;
    `c` BIGINT NOT NULL for the third. Before, the column took its first non-NULL value's type
    (CHAR(3) for the first), and the values were not cast to the column's type."""
    sql = "SELECT * FROM (VALUES (CAST('ab' AS CHAR(3))), (CAST('abcd' AS VARCHAR(5)))) AS v(c)"
    assert _typed_rows(sql) == (["VARCHAR(5) NOT NULL"], [("ab ",), ("abcd",)])
    sql = "SELECT * FROM (VALUES (1), (2.5)) AS v(c)"
    assert _typed_rows(sql) == (["DECIMAL(11, 1) NOT NULL"], [(Decimal("1.0"),), (Decimal("2.5"),)])
    sql = "SELECT * FROM (VALUES (1), (CAST(2 AS BIGINT))) AS v(c)"
    assert _typed_rows(sql) == (["BIGINT NOT NULL"], [(1,), (2,)])


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM (VALUES (1, NULL), (2, 3))",
        "SELECT * FROM (VALUES (1, 'a'), (3, NULL)) AS v(a, b)",
        "SELECT * FROM (VALUES (NULL, 1), (NULL, 2)) AS v(a, b)",
    ],
)
def test_a_bare_null_in_values_is_refused(sql: str) -> None:
    """PyFlink 2.3.0: ``ValidationException: SQL validation failed. From line 1, column 27 to
    line 1, column 30: Illegal use of 'NULL'`` (and so for each of these); before, millstream
    typed the column from the other rows."""
    with pytest.raises(SqlError, match="Illegal use of 'NULL'"):
        _env().sql_query(sql)


def test_a_bare_null_in_the_values_of_an_insert_is_refused() -> None:
    """PyFlink 2.3.0 refuses INSERT INTO snk VALUES (NULL, 'x', 'y') and INSERT INTO snk VALUES
    (1, 'x', 'y'), (NULL, 'z', 'w') with ``Illegal use of 'NULL'``; a typed NULL is written."""
    t_env = _env()
    t_env.execute_sql("CREATE TABLE snk (a INT, b VARCHAR(3), c CHAR(5)) WITH ('connector' = 'blackhole')")
    for sql in (
        "INSERT INTO snk VALUES (NULL, 'x', 'y')",
        "INSERT INTO snk VALUES (1, 'x', 'y'), (NULL, 'z', 'w')",
    ):
        with pytest.raises(SqlError, match="Illegal use of 'NULL'"):
            t_env.execute_sql(sql)
    t_env.execute_sql("INSERT INTO snk VALUES (CAST(NULL AS INT), 'x', 'y')").wait()
