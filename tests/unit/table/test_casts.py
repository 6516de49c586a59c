"""CAST and TRY_CAST as Flink's cast rules (``common/casts.py``), and values printed as Flink
prints them. Every expected cell and type below is what PyFlink 2.3.0 printed for the same
expression (batch mode, ``TableResult.print()``'s cell text, the result schema's type)."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.casts import (
    CastError,
    check_cast,
    converter,
    format_java_double,
    format_java_float,
    to_string,
)
from millstream.table.common.printing import format_value, summary_string
from millstream.table.types import DataTypes


@pytest.fixture(scope="module")
def t_env() -> TableEnvironment:
    env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    env.get_config().set("parallelism.default", "1")
    env.get_config().set("table.local-time-zone", "UTC")
    env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    return env


def printed(t_env: TableEnvironment, *expressions: str) -> list[tuple[str, str]]:
    """Each expression's cell as ``TableResult.print()`` writes it, and its column's type."""
    columns = ", ".join(f"{e} AS c{i}" for i, e in enumerate(expressions))
    table = t_env.sql_query(f"SELECT {columns} FROM (VALUES (1)) AS t(x)")
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        (row,) = list(rows)
    return [(format_value(t, v), summary_string(t)) for t, v in zip(types, row, strict=True)]


# (expression, what PyFlink 2.3.0 printed, the column's type PyFlink 2.3.0 gave)
FLINK_CASTS = [
    # integers narrow as Java does; doubles saturate at the range
    ("CAST(300 AS TINYINT)", "44", "TINYINT NOT NULL"),
    ("CAST(70000 AS SMALLINT)", "4464", "SMALLINT NOT NULL"),
    ("CAST(-1e10 AS INT)", "-2147483648", "INT NOT NULL"),
    ("CAST(CAST('Infinity' AS DOUBLE) AS BIGINT)", "9223372036854775807", "BIGINT NOT NULL"),
    ("CAST(123456789 AS FLOAT)", "1.23456792E8", "FLOAT NOT NULL"),
    # strings to numbers: a fraction is dropped, a wider number is NULL for TRY_CAST
    ("TRY_CAST('4.7' AS INT)", "4", "INT"),
    ("TRY_CAST('2147483648' AS INT)", "<NULL>", "INT"),
    ("TRY_CAST('1.5f' AS FLOAT)", "1.5", "FLOAT"),
    ("TRY_CAST('-inf' AS DOUBLE)", "<NULL>", "DOUBLE"),
    ("CAST('12.355' AS DECIMAL(5, 2))", "12.36", "DECIMAL(5, 2) NOT NULL"),
    ("TRY_CAST('1234.5' AS DECIMAL(5, 2))", "<NULL>", "DECIMAL(5, 2)"),
    ("CAST(-0.0 AS DECIMAL(3, 1))", "0.0", "DECIMAL(3, 1) NOT NULL"),
    # booleans: t/true/y/yes/1 and f/false/n/no/0; a number is TRUE unless 0
    ("CAST('yes' AS BOOLEAN)", "TRUE", "BOOLEAN NOT NULL"),
    ("TRY_CAST('on' AS BOOLEAN)", "<NULL>", "BOOLEAN"),
    ("CAST(2 AS BOOLEAN)", "TRUE", "BOOLEAN NOT NULL"),
    # CHAR(n) pads and cuts, VARCHAR(n) cuts, BINARY(n) pads with zero bytes
    ("TRY_CAST('ab' AS CHAR(3))", "ab ", "CHAR(3)"),
    ("TRY_CAST('abcd' AS VARCHAR(3))", "abc", "VARCHAR(3)"),
    ("CAST(TRUE AS CHAR(3))", "TRU", "CHAR(3) NOT NULL"),
    ("CAST(1 AS CHAR(0))", "", "CHAR(0) NOT NULL"),
    ("CAST('abc' AS BINARY(5))", "x'6162630000'", "BINARY(5) NOT NULL"),
    ("CAST('abc' AS VARBINARY(2))", "x'6162'", "VARBINARY(2) NOT NULL"),
    # constructed types element by element
    ("CAST(ARRAY[1, 2] AS ARRAY<STRING>)", "[1, 2]", "ARRAY<STRING> NOT NULL"),
    ("CAST(ARRAY[1.5, 2.5] AS ARRAY<INT>)", "[1, 2]", "ARRAY<INT> NOT NULL"),
    # date-times: as precise as their type, parsed as Flink's DateTimeUtils
    ("CAST(TIMESTAMP '2024-01-15 10:20:30' AS STRING)", "2024-01-15 10:20:30", "STRING NOT NULL"),
    ("CAST('10:20:30' AS TIME(3))", "10:20:30.0", "TIME(3) NOT NULL"),
    ("TRY_CAST('2024-1-5' AS DATE)", "2024-01-05", "DATE"),
    ("TRY_CAST('20240115' AS DATE)", "<NULL>", "DATE"),
    ("TRY_CAST('1:2:3' AS TIME)", "01:02:03", "TIME(0)"),
    ("TRY_CAST('2024-1-5 1:2:3' AS TIMESTAMP(3))", "2024-01-05 01:02:03.000", "TIMESTAMP(3)"),
]


def test_casts_give_flinks_values_and_types(t_env: TableEnvironment) -> None:
    expressions = [e for e, _, _ in FLINK_CASTS]
    assert printed(t_env, *expressions) == [(cell, kind) for _, cell, kind in FLINK_CASTS]


@pytest.mark.parametrize(
    "expression",
    [
        # PyFlink 2.3.0: "java.lang.NumberFormatException: For input string: 'abc'. Invalid character found."
        "CAST('abc' AS INT)",
        # PyFlink 2.3.0: "For input string: '9999999999'. Overflow."
        "CAST('9999999999' AS INT)",
        # PyFlink 2.3.0: "org.apache.flink.table.api.TableException: Cannot parse 'ab   ' as BOOLEAN."
        "CAST(CAST('ab' AS CHAR(5)) AS BOOLEAN)",
        # PyFlink 2.3.0: "CodeGenException: Unsupported cast from 'CHAR(6) NOT NULL' to 'ARRAY<STRING>'."
        "TRY_CAST('[a, b]' AS ARRAY<STRING>)",
    ],
)
def test_a_value_flink_cannot_convert_fails_the_job(t_env: TableEnvironment, expression: str) -> None:
    with pytest.raises(Exception, match="Could not evaluate"):
        printed(t_env, expression)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        # PyFlink 2.3.0: "Cast function cannot convert value of type TINYINT to type BINARY(1)"
        (
            "CAST(CAST(65 AS TINYINT) AS BINARY(1))",
            "Cast function cannot convert value of type TINYINT to type BINARY(1)",
        ),
        # PyFlink 2.3.0: "Cast function cannot convert value of type DATE to type TIME(3)"
        (
            "CAST(DATE '2024-02-29' AS TIME(3))",
            "Cast function cannot convert value of type DATE to type TIME(3)",
        ),
    ],
)
def test_a_cast_sql_does_not_allow_fails_while_planning(
    t_env: TableEnvironment, expression: str, message: str
) -> None:
    with pytest.raises(CastError, match=message.replace("(", r"\(").replace(")", r"\)")):
        t_env.sql_query(f"SELECT {expression}")


def test_a_cast_holds_numbers_in_their_types_width() -> None:
    """Java's narrowing: a long's low bits (``(byte) 300`` is 44), a double saturating at the
    int or long range and NaN 0 (PyFlink 2.3.0 prints 127 -> -1 for ``CAST(1e20 AS TINYINT)``:
    ``(byte) Integer.MAX_VALUE``), a decimal's integral part's low bits."""
    double, decimal_type = DataTypes.DOUBLE(), DataTypes.DECIMAL(10, 2)
    assert [
        converter(double, DataTypes.TINYINT())(v) for v in (1e20, 128.7, float("-inf"), float("nan"))
    ] == [
        -1,
        -128,
        0,
        0,
    ]
    assert [converter(double, DataTypes.INT())(v) for v in (1e20, -0.5, 2.5)] == [2147483647, 0, 2]
    assert converter(decimal_type, DataTypes.TINYINT())(decimal.Decimal("99999999.99")) == -1
    # PyFlink 2.3.0: CAST(v0 AS SMALLINT) of DECIMAL(38, 10) 1234567890123.1234567890 is 1227
    assert (
        converter(DataTypes.DECIMAL(38, 10), DataTypes.SMALLINT())(
            decimal.Decimal("1234567890123.1234567890")
        )
        == 1227
    )


def test_a_number_too_wide_for_its_decimal_is_null() -> None:
    """Flink's DecimalData.fromBigDecimal: NULL (PyFlink 2.3.0 prints <NULL> for
    ``CAST(NULLIF(2147483647, 0) AS DECIMAL(5, 2))``), rounded half up otherwise."""
    to_decimal = converter(DataTypes.INT(), DataTypes.DECIMAL(5, 2))
    assert to_decimal(2147483647) is None
    assert converter(DataTypes.DOUBLE(), DataTypes.DECIMAL(3, 2))(1.005) == decimal.Decimal("1.01")


def test_doubles_and_floats_print_as_java_17_writes_them() -> None:
    """Java 17's FloatingDecimal, which is not always the shortest form: PyFlink 2.3.0 prints
    4.9E-324 for ``CAST('4.9e-324' AS DOUBLE)``, 2.14748365E9 for ``CAST(i AS FLOAT)`` of the INT
    2147483647, 1.23456792E8 for 123456789 and 0.42857143 for ``CAST(3 AS FLOAT) / CAST(7 AS
    FLOAT)``; ``Double.toString(2e23)`` is 1.9999999999999998E23 on Java 17."""
    assert [format_java_double(v) for v in (4.9e-324, 1e10, 1e-5, 0.001, 9999999.0, 1e7, -0.0, 2e23)] == [
        "4.9E-324",
        "1.0E10",
        "1.0E-5",
        "0.001",
        "9999999.0",
        "1.0E7",
        "-0.0",
        "1.9999999999999998E23",
    ]
    assert [format_java_float(v) for v in (2147483647.0, 123456789.0, 3 / 7, 0.1, float("nan"))] == [
        "2.14748365E9",
        "1.23456792E8",
        "0.42857143",
        "0.1",
        "NaN",
    ]


def test_values_print_as_flink_casts_them_to_string() -> None:
    """PyFlink 2.3.0 prints TIMESTAMP(0) 2024-01-01 10:00:00, TIMESTAMP(3) ...00.123, TIME(3)
    10:00:00.0 and 13:17:38.09 (the milliseconds' digits up to the last non-zero one), TIME(0)
    10:00:00, a DECIMAL with its scale, and bytes as x'0102' (a CAST to STRING decodes them)."""
    ts = datetime.datetime(2024, 1, 1, 10, 0, 0, 123000)
    assert format_value(DataTypes.TIMESTAMP(0), ts.replace(microsecond=0)) == "2024-01-01 10:00:00"
    assert format_value(DataTypes.TIMESTAMP(3), ts) == "2024-01-01 10:00:00.123"
    assert format_value(DataTypes.TIMESTAMP(9), ts) == "2024-01-01 10:00:00.123000000"
    assert format_value(DataTypes.TIME(3), datetime.time(10, 0)) == "10:00:00.0"
    assert format_value(DataTypes.TIME(3), datetime.time(13, 17, 38, 90000)) == "13:17:38.09"
    assert format_value(DataTypes.TIME(0), datetime.time(10, 0)) == "10:00:00"
    assert format_value(DataTypes.DECIMAL(38, 0), decimal.Decimal("9" * 38)) == "9" * 38
    assert format_value(DataTypes.BYTES(), b"\x01\x02") == "x'0102'"
    assert to_string(DataTypes.BYTES(), b"ab") == "ab"


def test_check_cast_follows_flinks_cast_table() -> None:
    allowed: list[tuple[Any, Any]] = [
        (DataTypes.BOOLEAN(), DataTypes.DECIMAL(5, 2)),
        (DataTypes.STRING(), DataTypes.BINARY(2)),
        (DataTypes.TIMESTAMP(3), DataTypes.TIME(0)),
        (DataTypes.ARRAY(DataTypes.INT()), DataTypes.ARRAY(DataTypes.STRING())),
    ]
    for source, target in allowed:
        check_cast(source, target)
    refused = [
        (DataTypes.INT(), DataTypes.BYTES()),
        (DataTypes.TIMESTAMP(3), DataTypes.INT()),
        (DataTypes.DATE(), DataTypes.TIME(0)),
        (DataTypes.ARRAY(DataTypes.INT()), DataTypes.MAP(DataTypes.STRING(), DataTypes.STRING())),
    ]
    for source, target in refused:
        with pytest.raises(CastError, match="Cast function cannot convert value of type"):
            check_cast(source, target)
