"""SQL that must mean what Flink means: what millstream cannot run yet fails at once, naming
it, instead of running as something else (a temporal join ran as a regular join); DATE_FORMAT
takes Java's pattern letters as written."""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.sql.statements import SqlError


def test_a_temporal_join_is_refused_not_run_as_a_regular_join() -> None:
    """``FOR SYSTEM_TIME AS OF`` a column that is no time attribute is refused with Flink's
    message (PyFlink 2.3.0 raises it too), never run as a join of every version."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.execute_sql(
        "CREATE TABLE orders (id INT, cur STRING, ts TIMESTAMP(3)) "
        "WITH ('connector' = 'datagen', 'number-of-rows' = '3')"
    )
    t_env.execute_sql(
        "CREATE TABLE rates (cur STRING, rate INT, ts TIMESTAMP(3)) "
        "WITH ('connector' = 'datagen', 'number-of-rows' = '3')"
    )
    with pytest.raises(
        SqlError,
        match=r"^Temporal table join currently only supports 'FOR SYSTEM_TIME AS OF' left table's time "
        r"attribute field$",
    ):
        t_env.sql_query(
            "SELECT o.id, r.rate FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur"
        )
    # the same join without the clause is a regular join, and runs as one
    plan = t_env.sql_query("SELECT o.id, r.rate FROM orders AS o JOIN rates AS r ON o.cur = r.cur").explain()
    assert "Join" in plan


def test_date_format_takes_flinks_java_pattern_as_written() -> None:
    """DATE_FORMAT(ts, 'yyyy-MM-dd') gave '2015-07strict-15strict': sqlglot's Spark dialect
    rewrote the pattern (sqlglot 30). Flink formats with Java's DateTimeFormatter letters."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.execute_sql("CREATE TABLE one_row (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1')")
    patterns = {
        "yyyy-MM-dd": "2015-07-15",
        "yyyy-MM-dd HH:mm:ss": "2015-07-15 13:45:06",
        "yyyyMMdd": "20150715",
        "dd/MM/yyyy HH:mm": "15/07/2015 13:45",
        "MM-dd HH:mm:ss.SSS": "07-15 13:45:06.123",
        "EEE, dd MMM yyyy": "Wed, 15 Jul 2015",
    }
    columns = ", ".join(
        f"DATE_FORMAT(TIMESTAMP '2015-07-15 13:45:06.123', '{p}') AS c{i}" for i, p in enumerate(patterns)
    )
    (row,) = list(t_env.sql_query(f"SELECT {columns} FROM one_row").execute().collect())
    assert list(row) == list(patterns.values())


def test_java_patterns_become_strftime_with_quoted_literals() -> None:
    from millstream.common.time import java_pattern_to_strftime

    assert java_pattern_to_strftime("yyyy-MM-dd'T'HH:mm:ss.SSS") == "%Y-%m-%dT%H:%M:%S.%f"
    assert java_pattern_to_strftime("h 'o''clock' a") == "h o'clock %p"
    assert java_pattern_to_strftime("100%") == "100%%"


def test_a_cast_to_decimal_rounds_to_its_scale_as_flink_does() -> None:
    """PyFlink 2.3.0 (batch) gives Decimal('1.0'), Decimal('2.6'), Decimal('-2.6'),
    Decimal('1.50'), Decimal('3.142') for these casts, fails the job for CAST(12345 AS
    DECIMAL(3, 1)) and gives NULL for the TRY_CAST."""
    from millstream.table.common.casts import converter
    from millstream.table.expression.expression import lit
    from millstream.table.types import DataTypes

    assert str(converter(DataTypes.INT(), DataTypes.DECIMAL(11, 1))(1)) == "1.0"
    to_5_1 = converter(DataTypes.STRING(), DataTypes.DECIMAL(5, 1))
    assert [str(to_5_1(v)) for v in ("2.55", "-2.55")] == ["2.6", "-2.6"]
    assert str(converter(DataTypes.DOUBLE(), DataTypes.DECIMAL(4, 2))(1.5)) == "1.50"
    assert str(converter(DataTypes.STRING(), DataTypes.DECIMAL(5, 3))(" 3.14159 ")) == "3.142"
    too_wide = lit(12345).cast(DataTypes.DECIMAL(3, 1)).resolve([], [])  # NULL cannot be NOT NULL
    with pytest.raises(ArithmeticError, match=r"overflows DECIMAL\(3, 1\)"):
        too_wide.fn(())
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    sql = "SELECT CAST(1 AS DECIMAL(11,1)), CAST(2.55 AS DECIMAL(5,1)), TRY_CAST(12345 AS DECIMAL(3,1))"
    with t_env.execute_sql(sql).collect() as rows:
        assert [tuple(str(v) for v in r) for r in rows] == [("1.0", "2.6", "None")]
