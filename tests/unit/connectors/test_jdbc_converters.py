"""Values between Flink's SQL types and each database's driver (issue 49, JDBC): DECIMAL
rounded half-up to its scale and NULL past its precision (Flink's
``DecimalData.fromBigDecimal``), FLOAT as a 32-bit float, SQLite's booleans as 0/1 and its
dates and times as text, PyMySQL's TIME durations, instants in the session zone; and the SQL
type each DataStream field type maps to (Flink's ``JdbcTypeUtil.typeInformationToSqlType``,
whose message for any other type is "Unsupported type: ...")."""

from __future__ import annotations

import datetime
import decimal

import pytest

from millstream.common.typeinfo import Types
from millstream.connectors.jdbc.converters import (
    external_row_converter,
    internal_row_converter,
    type_info_data_type,
)
from millstream.connectors.jdbc.dialects import MYSQL, POSTGRES, SQLITE
from millstream.table.common.types import DataTypes

D = decimal.Decimal


def test_decimals_are_rounded_to_their_scale_and_null_past_their_precision() -> None:
    read = internal_row_converter(POSTGRES, [DataTypes.DECIMAL(5, 2)] * 4)
    assert read((D("1.005"), D("123.456"), D("1234.5"), D("-0.004"))) == (
        D("1.01"),
        D("123.46"),
        None,
        D("0.00"),
    )
    sqlite = internal_row_converter(SQLITE, [DataTypes.DECIMAL(10, 2)] * 3)
    assert sqlite((4.5, 3, "2.25")) == (D("4.50"), D("3.00"), D("2.25"))


def test_sqlite_values_written_and_read() -> None:
    types = [
        DataTypes.BOOLEAN(),
        DataTypes.DECIMAL(10, 2),
        DataTypes.DATE(),
        DataTypes.TIME(0),
        DataTypes.TIMESTAMP(3),
        DataTypes.BYTES(),
        DataTypes.FLOAT(),
        DataTypes.STRING(),
    ]
    row = (
        True,
        D("12.50"),
        datetime.date(2024, 1, 31),
        datetime.time(12, 30),
        datetime.datetime(2024, 1, 31, 12, 30, 0, 123000),
        b"\x00\x01",
        0.1,
        None,
    )
    written = external_row_converter(SQLITE, types)(row)
    assert written == (
        1,
        "12.50",
        "2024-01-31",
        "12:30:00",
        "2024-01-31 12:30:00.123000",
        b"\x00\x01",
        0.1,
        None,
    )
    read = internal_row_converter(SQLITE, types)(written)
    assert read[:6] == row[:6] and read[7] is None
    assert read[6] == pytest.approx(0.1) and read[6] != 0.1  # a 32-bit float, as Flink's FLOAT
    assert internal_row_converter(SQLITE, [DataTypes.TIMESTAMP(3), DataTypes.DATE()])((86_400_000, 0)) == (
        datetime.datetime(1970, 1, 2),
        datetime.date(1970, 1, 1),
    )


def test_instants_are_the_session_zone_s_wall_clock() -> None:
    instant = datetime.datetime(2024, 6, 1, 8, 0, tzinfo=datetime.UTC)
    (local,) = internal_row_converter(POSTGRES, [DataTypes.TIMESTAMP_LTZ(3)])((instant,))
    assert local.tzinfo is None and local == instant.astimezone().replace(tzinfo=None)
    (written,) = external_row_converter(POSTGRES, [DataTypes.TIMESTAMP_LTZ(3)])((local,))
    assert written == instant


def test_mysql_time_durations_and_binary_text() -> None:
    read = internal_row_converter(MYSQL, [DataTypes.TIME(0), DataTypes.STRING(), DataTypes.BOOLEAN()])
    assert read((datetime.timedelta(hours=13, minutes=5), b"caf\xc3\xa9", 1)) == (
        datetime.time(13, 5),
        "café",
        True,
    )


def test_datastream_field_types_map_as_jdbc_type_util() -> None:
    assert type_info_data_type(Types.BIG_DEC()).root == "DECIMAL"
    assert type_info_data_type(Types.SQL_TIMESTAMP()).root == "TIMESTAMP"
    assert type_info_data_type(Types.PRIMITIVE_ARRAY(Types.BYTE())).root == "BYTES"
    assert type_info_data_type(Types.BASIC_ARRAY(Types.INT())).root == "ARRAY"
    for info, java in (
        (Types.INSTANT(), "Instant"),
        (Types.BIG_INT(), "BigInteger"),
        (Types.CHAR(), "Character"),
    ):
        with pytest.raises(ValueError, match=rf"^Unsupported type: {java}$"):
            type_info_data_type(info)
