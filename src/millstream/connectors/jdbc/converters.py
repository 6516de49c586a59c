"""Values between Flink's SQL types (as millstream's table runtime holds them: ``int``,
``float``, ``Decimal``, ``str``, ``bytes``, ``bool``, ``datetime.date`` / ``time`` /
``datetime``) and each database's Python driver, as Flink's ``JdbcDialectConverter`` s.

=================  ===============================  ===================  =========================
Flink type         PostgreSQL (psycopg)             MySQL (PyMySQL)      SQLite (sqlite3)
=================  ===============================  ===================  =========================
BOOLEAN            boolean                          TINYINT(1) as 0/1    INTEGER 0/1
DECIMAL(p, s)      numeric (read: rounded to s)     DECIMAL              text (NUMERIC affinity)
FLOAT              real (read: a 32-bit float)      FLOAT                REAL
DATE / TIME        date / time                      DATE / TIME          text ``2024-01-31``, ``12:30:00``
TIMESTAMP(p)       timestamp                        DATETIME(p)          text ``2024-01-31 12:30:00.123``
TIMESTAMP_LTZ(p)   timestamptz (session zone)       --                   --
BYTES              bytea                            VARBINARY / BLOB     BLOB
ARRAY<T>           T[]                              --                   --
=================  ===============================  ===================  =========================

Read, a DECIMAL is rounded half-up to its scale and is NULL when it needs more digits than its
precision, as Flink's ``DecimalData.fromBigDecimal``; an instant (``timestamptz``) becomes the
wall-clock time of the session zone, as millstream holds TIMESTAMP_LTZ values; SQLite's text
dates and times are parsed (an integer is taken as epoch milliseconds, as the xerial JDBC
driver writes them). Per-record path: one converter call per non-NULL field, chosen once per
column.
"""

from __future__ import annotations

import datetime
import decimal
import struct
from collections.abc import Callable
from typing import Any

from millstream.common.time import Instant
from millstream.common.typeinfo import (
    BasicArrayTypeInfo,
    BasicTypeInfo,
    PrimitiveArrayTypeInfo,
    TypeInformation,
)
from millstream.connectors.jdbc.dialects import JdbcDialect
from millstream.table.common.types import DataType, DataTypes

__all__ = [
    "external_row_converter",
    "internal_row_converter",
    "type_info_data_type",
]

Converter = Callable[[Any], Any]
RowConverter = Callable[[Any], tuple[Any, ...]]

_EPOCH = datetime.datetime(1970, 1, 1)
_STRINGS = ("CHAR", "VARCHAR", "STRING")
_INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT")


def _float32(value: Any) -> float:
    return float(struct.unpack("f", struct.pack("f", float(value)))[0])


def _decimal(precision: int, scale: int) -> Converter:
    exponent = decimal.Decimal(1).scaleb(-scale)

    def convert(value: Any) -> decimal.Decimal | None:
        number = value if isinstance(value, decimal.Decimal) else decimal.Decimal(str(value))
        rounded = number.quantize(exponent, rounding=decimal.ROUND_HALF_UP)
        # Java's BigDecimal.precision(): the digits of the unscaled value
        return rounded if len(rounded.as_tuple().digits) <= precision else None

    return convert


def _local(value: datetime.datetime) -> datetime.datetime:
    """An aware date-time as the wall-clock time of this process's zone (naive as it is)."""
    return value.astimezone().replace(tzinfo=None) if value.tzinfo is not None else value


def _from_millis(value: int) -> datetime.datetime:
    return _EPOCH + datetime.timedelta(milliseconds=value)


def _text_timestamp(value: Any) -> datetime.datetime:
    if isinstance(value, datetime.datetime):
        return _local(value)
    if isinstance(value, int | float):
        return _from_millis(int(value))
    return _local(datetime.datetime.fromisoformat(str(value)))


def _text_date(value: Any) -> datetime.date:
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, int | float):
        return _from_millis(int(value)).date()
    return datetime.date.fromisoformat(str(value)[:10])


def _time(value: Any) -> datetime.time:
    if isinstance(value, datetime.time):
        return value.replace(tzinfo=None)
    if isinstance(value, datetime.timedelta):  # PyMySQL reads a TIME as a duration
        seconds = value.total_seconds() % 86400
        return (datetime.datetime.min + datetime.timedelta(seconds=seconds)).time()
    if isinstance(value, int | float):
        return _from_millis(int(value)).time()
    return datetime.time.fromisoformat(str(value))


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8")
    return str(value)


def _boolean(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "t", "yes")
    return bool(value)


def _bytes(value: Any) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def _internal(dialect: JdbcDialect, data_type: DataType) -> Converter:
    """A database value (not None) -> the Flink type's value."""
    root = data_type.root
    if root in _STRINGS:
        return _text
    if root in _INTEGERS:
        return int
    if root == "FLOAT":
        return _float32
    if root == "DOUBLE":
        return float
    if root == "BOOLEAN":
        return _boolean
    if root == "DECIMAL":
        return _decimal(*data_type.params)
    if root in ("BYTES", "BINARY", "VARBINARY"):
        return _bytes
    if root == "DATE":
        return _text_date
    if root == "TIME":
        return _time
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return _text_timestamp
    if root == "ARRAY":
        element = _internal(dialect, data_type.element_type)  # type: ignore[attr-defined]
        return lambda value: [None if v is None else element(v) for v in value]
    raise ValueError(f"The {dialect.name} dialect doesn't support type: {data_type!r}.")


def _sqlite_external(root: str) -> Converter | None:
    """A value -> what SQLite stores: booleans 0/1, decimals, dates and times as text."""
    if root == "BOOLEAN":
        return lambda value: 1 if value else 0
    if root == "DECIMAL":
        return str
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return lambda value: _as_datetime(value).isoformat(sep=" ")
    if root in ("DATE", "TIME"):
        return lambda value: value.isoformat()
    return None


def _as_datetime(value: Any) -> datetime.datetime:
    if isinstance(value, Instant):
        return datetime.datetime.fromtimestamp(value.to_epoch_milli() / 1000)
    return value


def _external(dialect: JdbcDialect, data_type: DataType) -> Converter | None:
    """The Flink type's value (not None) -> the driver's parameter (None: as it is)."""
    root = data_type.root
    if dialect.database == "sqlite":
        return _sqlite_external(root)
    if root == "TIMESTAMP_LTZ":  # the session zone's wall-clock time, as an instant
        return lambda value: _as_datetime(value).astimezone()
    if root == "TIMESTAMP":
        return lambda value: _as_datetime(value)
    if root in ("BYTES", "BINARY", "VARBINARY"):
        return bytes
    return None


def internal_row_converter(dialect: JdbcDialect, types: list[DataType]) -> RowConverter:
    """A row the driver read -> the tuple of the columns' values."""
    converters = list(enumerate(_internal(dialect, t) for t in types))

    def convert(row: Any) -> tuple[Any, ...]:
        return tuple([None if (v := row[i]) is None else c(v) for i, c in converters])

    return convert


def external_row_converter(dialect: JdbcDialect, types: list[DataType]) -> RowConverter:
    """A row's values (any sequence) -> the statement's parameters."""
    converters = [_external(dialect, t) for t in types]
    if all(c is None for c in converters):
        return tuple
    pairs = list(enumerate(converters))

    def convert(row: Any) -> tuple[Any, ...]:
        return tuple([v if (v := row[i]) is None or c is None else c(v) for i, c in pairs])

    return convert


# JdbcTypeUtil.typeInformationToSqlType, the mapping PyFlink's JdbcSink.sink gives the Java
# JdbcSink: a field's declared type decides how its value is set on the statement
_TYPE_INFO_TYPES: dict[str, DataType] = {
    "STRING": DataTypes.STRING(),
    "BOOLEAN": DataTypes.BOOLEAN(),
    "BYTE": DataTypes.TINYINT(),
    "SHORT": DataTypes.SMALLINT(),
    "INT": DataTypes.INT(),
    "LONG": DataTypes.BIGINT(),
    "FLOAT": DataTypes.FLOAT(),
    "DOUBLE": DataTypes.DOUBLE(),
    "SQL_DATE": DataTypes.DATE(),
    "SQL_TIME": DataTypes.TIME(),
    "SQL_TIMESTAMP": DataTypes.TIMESTAMP(6),
    "BIG_DEC": DataTypes.DECIMAL(38, 18),
}
_JAVA_NAMES = {"BIG_INT": "BigInteger", "CHAR": "Character", "INSTANT": "Instant"}


def type_info_data_type(type_info: TypeInformation) -> DataType:
    """The SQL type a DataStream ``JdbcSink`` field of ``type_info`` is written as.

    Raises:
        ValueError: a type Flink's ``JdbcTypeUtil`` has no SQL type for (its message).
    """
    if isinstance(type_info, BasicTypeInfo) and type_info.name in _TYPE_INFO_TYPES:
        return _TYPE_INFO_TYPES[type_info.name]
    if isinstance(type_info, PrimitiveArrayTypeInfo) and repr(type_info.element_type) == "BYTE":
        return DataTypes.BYTES()
    if isinstance(type_info, BasicArrayTypeInfo | PrimitiveArrayTypeInfo):  # java.sql.Types.ARRAY
        return DataTypes.ARRAY(type_info_data_type(type_info.element_type))
    name = type_info.name if isinstance(type_info, BasicTypeInfo) else type(type_info).__name__
    raise ValueError(f"Unsupported type: {_JAVA_NAMES.get(name, name)}")
