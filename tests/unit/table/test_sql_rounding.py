"""ROUND of a non-finite double and the nullability of ROUND, TRUNCATE, RAND and
RAND_INTEGER, as Flink's. Every expectation is what PyFlink 2.3.0 printed for the same
statement (batch mode). Before, ROUND of NaN was NaN, and a NULL number of places, seed or bound
gave NULL in a column typed NOT NULL."""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value, summary_string


@pytest.fixture
def t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    config = t_env.get_config()
    config.set("parallelism.default", "1")
    config.set("minicluster.mode", "threads")  # a unit test starts no processes
    return t_env


@pytest.mark.parametrize(("value", "first"), [("NaN", "N"), ("Infinity", "I"), ("-Infinity", "I")])
def test_round_of_a_double_without_digits_fails_as_bigdecimal_does(
    t_env: TableEnvironment, value: str, first: str
) -> None:
    # PyFlink 2.3.0 fails the job: java.lang.NumberFormatException: Character I is neither a
    # decimal digit number, decimal point, nor "e" notation exponential mark.
    sql = f"SELECT ROUND(v) FROM (VALUES (CAST('{value}' AS DOUBLE))) AS t(v)"
    table = t_env.sql_query(sql)
    with pytest.raises(Exception, match=f"Character {first} is neither a decimal digit number"):
        table.execute().wait()


def test_null_places_seeds_and_bounds_make_the_result_nullable(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: DOUBLE <NULL> | DOUBLE NOT NULL 1.3 | INT NOT NULL 7 | DECIMAL(2, 1) <NULL> |
    # DOUBLE <NULL> | INT <NULL> | INT <NULL>
    table = t_env.sql_query(
        "SELECT ROUND(CAST(1.25 AS DOUBLE), CAST(NULL AS INT)), ROUND(CAST(1.25 AS DOUBLE), 1), ROUND(7, 1), "
        "TRUNCATE(2.5, CAST(NULL AS INT)), RAND(CAST(NULL AS INT)), RAND_INTEGER(42, CAST(NULL AS INT)), "
        "RAND_INTEGER(CAST(NULL AS INT))"
    )
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        (row,) = list(rows)
    assert [(summary_string(t), format_value(t, v)) for t, v in zip(types, row, strict=True)] == [
        ("DOUBLE", "<NULL>"),
        ("DOUBLE NOT NULL", "1.3"),
        ("INT NOT NULL", "7"),
        ("DECIMAL(2, 1)", "<NULL>"),
        ("DOUBLE", "<NULL>"),
        ("INT", "<NULL>"),
        ("INT", "<NULL>"),
    ]
