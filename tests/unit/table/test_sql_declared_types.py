"""Types kept as declared in DDL and CAST, as Flink keeps them: VARCHAR(n), CHAR(n), BINARY(n),
VARBINARY(n) are not STRING / BYTES, a CAST to them cuts and pads as Flink's, TIME(p) is kept
to the millisecond (TIME(9) is TIME(3)), a DECIMAL's precision above 38 is 38, and DECIMAL(p, s)
values of more than 28 digits print and read. Every expectation is what PyFlink 2.3.0 printed
for the same statements (batch mode, table.local-time-zone UTC).

Before, a DDL's TIME(9) stayed TIME(9), CAST(1 AS DECIMAL(39, 2)) was a DECIMAL(39, 2), and a
CSV DECIMAL(38, 10) field of more than 28 digits failed the job with decimal.InvalidOperation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value, summary_string
from millstream.table.sql.parser import SqlError


def _t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    config = t_env.get_config()
    config.set("parallelism.default", "1")
    config.set("table.local-time-zone", "UTC")
    config.set("minicluster.mode", "threads")  # a unit test starts no processes
    return t_env


def _rows(sql: str, t_env: TableEnvironment | None = None) -> tuple[list[str], list[list[str]]]:
    """The result's column types and its rows as printed."""
    table = (t_env or _t_env()).sql_query(sql)
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        printed = [[format_value(t, v) for t, v in zip(types, row, strict=True)] for row in rows]
    return [summary_string(t) for t in types], printed


# PyFlink 2.3.0's print_schema() of this table (each line as it printed it)
DDL = (
    "CREATE TABLE t (a VARCHAR(5), b CHAR(3) NOT NULL, c BINARY(4), d VARBINARY(10), e DECIMAL(38, 10), "
    "g TIMESTAMP(3), h TIMESTAMP_LTZ(6), i TIME(3), j STRING, k BYTES, l CHAR, m BINARY, n VARCHAR, "
    "o DECIMAL, p TIMESTAMP, q TIME, r TIMESTAMP_LTZ, s DECIMAL(5), u TIMESTAMP(9) WITH LOCAL TIME ZONE, "
    "v TIMESTAMP WITHOUT TIME ZONE, w VARCHAR(2147483647), x VARBINARY(2147483647), y TIMESTAMP(0), "
    "z DEC(4,1), aa NUMERIC(3), bb INTEGER, dd DOUBLE PRECISION, ee CHARACTER VARYING(3), ff CHARACTER(2), "
    "gg FLOAT, hh VARBINARY, ii TIME(9), jj TIMESTAMP(9), kk TIMESTAMP_LTZ(9), ll DECIMAL(38,0)) "
    "WITH ('connector' = 'datagen', 'number-of-rows' = '1')"
)
PRINTED_SCHEMA = """(
  `a` VARCHAR(5),
  `b` CHAR(3) NOT NULL,
  `c` BINARY(4),
  `d` VARBINARY(10),
  `e` DECIMAL(38, 10),
  `g` TIMESTAMP(3),
  `h` TIMESTAMP_LTZ(6),
  `i` TIME(3),
  `j` STRING,
  `k` BYTES,
  `l` CHAR(1),
  `m` BINARY(1),
  `n` STRING,
  `o` DECIMAL(10, 0),
  `p` TIMESTAMP(6),
  `q` TIME(0),
  `r` TIMESTAMP_LTZ(6),
  `s` DECIMAL(5, 0),
  `u` TIMESTAMP_LTZ(9),
  `v` TIMESTAMP(6),
  `w` STRING,
  `x` BYTES,
  `y` TIMESTAMP(0),
  `z` DECIMAL(4, 1),
  `aa` DECIMAL(3, 0),
  `bb` INT,
  `dd` DOUBLE,
  `ee` VARCHAR(3),
  `ff` CHAR(2),
  `gg` FLOAT,
  `hh` BYTES,
  `ii` TIME(3),
  `jj` TIMESTAMP(9),
  `kk` TIMESTAMP_LTZ(9),
  `ll` DECIMAL(38, 0)
)
"""


def test_ddl_types_print_as_declared(capsys: pytest.CaptureFixture[str]) -> None:
    t_env = _t_env()
    t_env.execute_sql(DDL)
    t_env.from_path("t").print_schema()
    assert capsys.readouterr().out == PRINTED_SCHEMA
    # PyFlink 2.3.0: the schema of SELECT CAST(a AS CHAR), CAST(a AS VARCHAR), CAST(c AS BINARY),
    # CAST(c AS VARBINARY), CAST(e AS DECIMAL), CAST(a AS VARCHAR(2)) FROM t prints
    # CHAR(1), STRING, BINARY(1), BYTES, DECIMAL(10, 0), VARCHAR(2)
    table = t_env.sql_query(
        "SELECT CAST(a AS CHAR), CAST(a AS VARCHAR), CAST(c AS BINARY), CAST(c AS VARBINARY), "
        "CAST(e AS DECIMAL), CAST(a AS VARCHAR(2)) FROM t"
    )
    assert [summary_string(t) for t in table.get_resolved_schema().get_column_data_types()] == [
        "CHAR(1)",
        "STRING",
        "BINARY(1)",
        "BYTES",
        "DECIMAL(10, 0)",
        "VARCHAR(2)",
    ]


def test_a_cast_to_a_length_cuts_and_pads_as_flink() -> None:
    # PyFlink 2.3.0 prints: abc | abc | 'ab  ' | ab | x'0102' | x'010000' | x'0102' | 'ab  |' | 4 |
    # 1 | '12   ' | x'6162630000' | x'6162' | TR | 1. | 2024 | FALSE | 3
    types, rows = _rows(
        "SELECT CAST('abcdef' AS VARCHAR(3)), CAST('abcdef' AS CHAR(3)), CAST('ab' AS CHAR(4)), "
        "CAST('ab' AS VARCHAR(4)), CAST(X'010203' AS BINARY(2)), CAST(X'01' AS BINARY(3)), "
        "CAST(X'010203' AS VARBINARY(2)), CONCAT(CAST('ab' AS CHAR(4)), '|'), "
        "CHAR_LENGTH(CAST('ab' AS CHAR(4))), "
        "CAST(12 AS VARCHAR(1)), CAST(12 AS CHAR(5)), CAST('abc' AS BINARY(5)), CAST('abc' AS VARBINARY(2)), "
        "CAST(TRUE AS CHAR(2)), CAST(1.25 AS VARCHAR(2)), CAST(DATE '2024-01-01' AS CHAR(4)), "
        "'ab' = CAST('ab' AS CHAR(3)), CHAR_LENGTH(CAST('ab' AS CHAR(3)))"
    )
    assert rows == [
        [
            "abc",
            "abc",
            "ab  ",
            "ab",
            "x'0102'",
            "x'010000'",
            "x'0102'",
            "ab  |",
            "4",
            "1",
            "12   ",
            "x'6162630000'",
            "x'6162'",
            "TR",
            "1.",
            "2024",
            "FALSE",
            "3",
        ]
    ]
    assert types[:7] == [
        "VARCHAR(3) NOT NULL",
        "CHAR(3) NOT NULL",
        "CHAR(4) NOT NULL",
        "VARCHAR(4) NOT NULL",
        "BINARY(2) NOT NULL",
        "BINARY(3) NOT NULL",
        "VARBINARY(2) NOT NULL",
    ]


def test_decimals_of_more_than_28_digits_print(tmp_path: Path) -> None:
    # PyFlink 2.3.0 prints: 123456789012345678901234567890.12 | 12345678901234567890123456789012345678 |
    # 1234567890123456789012345678.9012345678
    types, rows = _rows(
        "SELECT CAST('123456789012345678901234567890.12' AS DECIMAL(32, 2)), "
        "CAST('12345678901234567890123456789012345678' AS DECIMAL(38, 0)), "
        "CAST('1234567890123456789012345678.9012345678' AS DECIMAL(38, 10))"
    )
    assert rows == [
        [
            "123456789012345678901234567890.12",
            "12345678901234567890123456789012345678",
            "1234567890123456789012345678.9012345678",
        ]
    ]
    assert types == ["DECIMAL(32, 2) NOT NULL", "DECIMAL(38, 0) NOT NULL", "DECIMAL(38, 10) NOT NULL"]
    data = tmp_path / "decs"
    data.mkdir()
    (data / "part-0.csv").write_text(
        "12345678901234567890123456789.0123456789\n-0.5\n1234567890123456789012345678.5\n"
    )
    t_env = _t_env()
    t_env.execute_sql(
        f"CREATE TABLE decs (d DECIMAL(38, 10)) WITH ('connector' = 'filesystem', 'path' = '{data}', "
        "'format' = 'csv')"
    )
    # PyFlink 2.3.0 prints <NULL> for the first line (39 digits overflow DECIMAL(38, 10)), then
    # -0.5000000000 and 1234567890123456789012345678.5000000000, and CAST(d AS STRING) the same
    # (cut to the tableau's width: 123456789012345678901234567...)
    _, rows = _rows("SELECT d, CAST(d AS STRING) FROM decs", t_env)
    assert rows == [
        ["<NULL>", "<NULL>"],
        ["-0.5000000000", "-0.5000000000"],
        ["1234567890123456789012345678.5000000000", "1234567890123456789012345678.5000000000"],
    ]


def test_a_decimal_precision_above_38_is_38_and_a_scale_above_it_refused() -> None:
    # PyFlink 2.3.0: CAST(1 AS DECIMAL(39, 2)) is 1.00 typed DECIMAL(38, 2) NOT NULL
    assert _rows("SELECT CAST(1 AS DECIMAL(39, 2))") == (["DECIMAL(38, 2) NOT NULL"], [["1.00"]])
    # PyFlink 2.3.0: Decimal scale must be between 0 and the precision 5 (both inclusive).
    with pytest.raises(SqlError, match="Decimal scale must be between 0 and the precision 5"):
        _t_env().sql_query("SELECT CAST(1 AS DECIMAL(5, 6))")
    # PyFlink 2.3.0: Decimal scale must be between 0 and the precision 38 (both inclusive).
    with pytest.raises(SqlError, match="Decimal scale must be between 0 and the precision 38"):
        _t_env().execute_sql(
            "CREATE TABLE dd (b DECIMAL(40, 39)) WITH ('connector' = 'datagen', 'number-of-rows' = '1')"
        )
    # PyFlink 2.3.0: Decimal precision must be between 1 and 38 (both inclusive).
    with pytest.raises(SqlError, match="Decimal precision must be between 1 and 38"):
        _t_env().sql_query("SELECT CAST(1 AS DECIMAL(0, 0))")
