"""Flink's temporal functions: EXTRACT and its shorthands (YEAR ... SECOND), FLOOR / CEIL of a
date-time TO a unit, TIMESTAMPADD, TIMESTAMPDIFF, DATE_FORMAT, TO_TIMESTAMP, TO_DATE,
UNIX_TIMESTAMP, FROM_UNIXTIME, TO_TIMESTAMP_LTZ and CONVERT_TZ, computed as Flink 2.3 computes
them (``DateTimeUtils`` and the planner's code for them), quirks included:

- the values are Flink's: a DATE its epoch day, a TIME its milliseconds of the day, a TIMESTAMP
  its epoch milliseconds (the wall clock taken as UTC) and the nanoseconds below them; Java's
  integer division truncates toward zero, so ``EXTRACT(YEAR FROM TIMESTAMP '1969-12-31
  23:59:59.999')`` is 1970 and its ``MILLISECOND`` -1, as in Flink;
- EXTRACT of a time unit from a DATE reads the day number as milliseconds (``SECOND(DATE
  '2024-02-29')`` is 19); TIMESTAMPDIFF of months between two TIMEs reads their milliseconds as
  day numbers; ``CEIL(DATE d TO DAY)`` is the next day; TIMESTAMPADD of a unit of a day or more
  to a TIME leaves it unchanged;
- a TIMESTAMP_LTZ is its wall clock in the session time zone (``common/timestamps.py``), which
  is what Flink extracts from, floors and formats.

Units (EXTRACT, FLOOR / CEIL, TIMESTAMPADD / TIMESTAMPDIFF): ``temporal_units``. Patterns:
``datetime_patterns`` (Java's DateTimeFormatter and SimpleDateFormat). Types and the
errors Flink raises while planning are the definitions' result rules; a rule that needs a
literal argument's value (a unit, a precision) is a ``literal_result``.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from millstream.table.common.printing import summary_string
from millstream.table.common.timestamps import from_epoch_nanos, with_nano_of_second
from millstream.table.common.types import DataType, DataTypes
from millstream.table.functions import datetime_patterns as patterns
from millstream.table.functions.arrow_temporal import to_timestamp_ltz as to_timestamp_ltz_arrow
from millstream.table.functions.definition import INTEGRAL, NOT_LITERAL, FunctionDefinition
from millstream.table.functions.temporal_units import (
    EXTRACT_UNITS,
    _bigint,
    _datetime_minus_type,
    _div,
    _extract_literal_type,
    _floor_ceil,
    _floor_type,
    _shorthand,
    _timestamp_add_type,
    _timestamp_diff_type,
    datetime_minus,
    extract,
    timestamp_add,
    timestamp_diff,
)

__all__ = ["EXTRACT_UNITS", "TEMPORAL", "extract", "java_time_zone"]


# -- patterns, epochs and zones ---------------------------------------------------------------------

# Java's three-letter zone ids (ZoneId.SHORT_IDS, and TimeZone's fixed EST / MST / HST)
_SHORT_IDS = {
    "ACT": "Australia/Darwin",
    "AET": "Australia/Sydney",
    "AGT": "America/Argentina/Buenos_Aires",
    "ART": "Africa/Cairo",
    "AST": "America/Anchorage",
    "BET": "America/Sao_Paulo",
    "BST": "Asia/Dhaka",
    "CAT": "Africa/Harare",
    "CNT": "America/St_Johns",
    "CST": "America/Chicago",
    "CTT": "Asia/Shanghai",
    "EAT": "Africa/Addis_Ababa",
    "ECT": "Europe/Paris",
    "IET": "America/Indiana/Indianapolis",
    "IST": "Asia/Kolkata",
    "JST": "Asia/Tokyo",
    "MIT": "Pacific/Apia",
    "NET": "Asia/Yerevan",
    "NST": "Pacific/Auckland",
    "PLT": "Asia/Karachi",
    "PNT": "America/Phoenix",
    "PRT": "America/Puerto_Rico",
    "PST": "America/Los_Angeles",
    "SST": "Pacific/Guadalcanal",
    "VST": "Asia/Ho_Chi_Minh",
    "EST": "Etc/GMT+5",
    "MST": "Etc/GMT+7",
    "HST": "Etc/GMT+10",
}


def java_time_zone(zone_id: str) -> datetime.tzinfo:
    """``TimeZone.getTimeZone(id)``: an IANA zone, a ``GMT+hh[:mm]`` offset, one of Java's
    three-letter ids, or GMT for anything else (as Java does)."""
    text = zone_id.strip()
    custom = text.upper()
    if custom.startswith("GMT") and len(custom) > 3 and custom[3] in "+-":
        sign = -1 if custom[3] == "-" else 1
        hours, _, minutes = custom[4:].partition(":")
        if hours.isdigit() and (not minutes or minutes.isdigit()) and len(hours) <= 2:
            offset = datetime.timedelta(hours=int(hours), minutes=int(minutes or 0))
            return datetime.timezone(sign * offset)
    try:
        return ZoneInfo(_SHORT_IDS.get(text, text))
    except (ZoneInfoNotFoundError, ValueError):
        return datetime.UTC


def _date_format(value: Any, pattern: str) -> str | None:
    """DATE_FORMAT: a timestamp by java.time's pattern; a string read and written by
    SimpleDateFormat (NULL when it is not ``yyyy-MM-dd HH:mm:ss``)."""
    if isinstance(value, str):
        return patterns.format_timestamp_string(value, pattern, patterns.session_zone())
    return patterns.format_timestamp(value, pattern)


def _date_format_type(args: list[DataType]) -> DataType:
    if args[0].root not in ("TIMESTAMP", "TIMESTAMP_LTZ", "CHAR", "VARCHAR", "STRING", "NULL"):
        raise ValueError(
            "Cannot apply 'DATE_FORMAT' to arguments of type "
            f"'DATE_FORMAT(<{summary_string(args[0])}>, <{summary_string(args[1])}>)'. Supported form(s): "
            "'DATE_FORMAT(<TIMESTAMP_WITHOUT_TIME_ZONE>, <STRING>)' 'DATE_FORMAT(<STRING>, <STRING>)'"
        )
    return DataTypes.STRING()


def _to_timestamp(text: str, pattern: str | None = None) -> datetime.datetime | None:
    """TO_TIMESTAMP: NULL where the text does not read (never a failed job)."""
    parsed = (
        patterns.parse_timestamp(text)
        if pattern is None
        else patterns.parse_timestamp_with_format(text, pattern)
    )
    if parsed is None:
        return None
    return with_nano_of_second(
        datetime.datetime.combine(parsed.date, datetime.time(parsed.hour, parsed.minute, parsed.second)),
        parsed.nano,
    )


def _to_date(text: str, pattern: str | None = None) -> datetime.date | None:
    if pattern is not None:
        return patterns.parse_date_with_format(text, pattern)
    return patterns.parse_date(text)


_TEXT = ("CHAR", "VARCHAR", "STRING", "NULL")


def _text_arguments(name: str, result: DataType, forms: str) -> Callable[[list[DataType]], DataType]:
    """``result`` of a function of character strings, nullable when an argument is; Flink's
    planning error for another argument type."""

    def rule(args: list[DataType]) -> DataType:
        if any(a.root not in _TEXT for a in args):
            shown = ", ".join(f"<{_calcite_name(a)}>" for a in args)
            raise ValueError(
                f"Cannot apply '{name}' to arguments of type '{name}({shown})'. Supported form(s): {forms}"
            )
        return result.nullable() if any(a.is_nullable() for a in args) else result

    return rule


def _calcite_name(data_type: DataType) -> str:
    """Calcite's name of a type in a validation message: ``INTEGER``, ``CHAR(4)``."""
    return {"INT": "INTEGER"}.get(data_type.root, summary_string(data_type.nullable()))


def _unix_timestamp(text: str | None = None, pattern: str = "yyyy-MM-dd HH:mm:ss") -> int:
    if text is None:
        return int(datetime.datetime.now().timestamp())
    return patterns.unix_timestamp(text, pattern, patterns.session_zone())


def _from_unixtime(seconds: int, pattern: str = "yyyy-MM-dd HH:mm:ss") -> str:
    return patterns.from_unixtime(seconds, pattern, patterns.session_zone())


def _integral_type(name: str, form: str) -> Callable[[list[DataType]], DataType]:
    def rule(args: list[DataType]) -> DataType:
        if args[0].root not in ("TINYINT", "SMALLINT", "INT", "BIGINT", "NULL"):
            shown = ", ".join(f"<{summary_string(a.nullable())}>" for a in args)
            raise ValueError(
                f"Cannot apply '{name}' to arguments of type '{name}({shown})'. Supported form(s): {form}"
            )
        return DataTypes.STRING()

    return rule


_MIN_EPOCH_MILLIS, _MAX_EPOCH_MILLIS = -62167219200000, 253402300799999


def _to_local(utc: datetime.datetime) -> datetime.datetime:
    """A TIMESTAMP_LTZ value (the session zone's wall clock) of a UTC wall clock."""
    return utc.replace(tzinfo=datetime.UTC).astimezone().replace(tzinfo=None)


def _to_timestamp_ltz(value: Any, second: Any = None, zone: str | None = None) -> datetime.datetime | None:
    """TO_TIMESTAMP_LTZ(n[, precision]) and TO_TIMESTAMP_LTZ(text[, pattern[, zone]])."""
    if isinstance(value, str):
        return _ltz_of_text(value, second, zone)
    return _ltz_of_number(value, 3 if second is None else int(second))


def _ltz_of_number(value: Any, digits: int) -> datetime.datetime | None:
    """Epoch seconds (``digits`` 0), milliseconds (3), microseconds (6), nanoseconds (9), any
    count of decimal digits of a second; NULL outside 0000-01-01 .. 9999-12-31. A DOUBLE is
    taken to the millisecond, a DECIMAL truncated to the unit."""
    if isinstance(value, float):
        millis = int(value * 10 ** (3 - digits)) if digits <= 3 else int(value / 10 ** (digits - 3))
        nanos = millis * 1_000_000
    elif isinstance(value, decimal.Decimal):
        nanos = (
            int(value.to_integral_value(rounding=decimal.ROUND_DOWN)) * 10 ** (9 - digits)
            if digits <= 9
            else 0
        )
    else:
        nanos = int(value) * 10 ** (9 - digits) if digits <= 9 else _div(int(value), 10 ** (digits - 9))
    if not _MIN_EPOCH_MILLIS <= nanos // 1_000_000 <= _MAX_EPOCH_MILLIS:
        return None
    return _to_local(from_epoch_nanos(nanos))


def _ltz_of_text(text: str, pattern: str | None, zone: str | None) -> datetime.datetime:
    """The text read by the DateTimeFormatter of ``pattern`` (default ``yyyy-MM-dd
    HH:mm:ss[.fraction]``) as a wall clock of ``zone`` (default the session zone); a text that
    does not read fails the job, as Flink's does."""
    parsed = (
        patterns.parse_timestamp(text)
        if pattern is None
        else patterns.parse_timestamp_with_format(text, pattern)
    )
    if parsed is None:
        raise ValueError(f"Text '{text}' could not be parsed at index 0")
    wall = with_nano_of_second(
        datetime.datetime.combine(parsed.date, datetime.time(parsed.hour, parsed.minute, parsed.second)),
        parsed.nano,
    )
    if zone is None:
        return wall
    instant = wall.replace(tzinfo=java_time_zone(zone))
    return _to_local(instant.astimezone(datetime.UTC).replace(tzinfo=None))


def _to_timestamp_ltz_type(args: list[DataType], literals: list[Any]) -> DataType:
    first = args[0].root
    if first in ("CHAR", "VARCHAR", "STRING", "NULL") or (
        len(args) > 1 and args[1].root in ("CHAR", "VARCHAR", "STRING")
    ):
        if first not in ("CHAR", "VARCHAR", "STRING", "NULL"):
            raise ValueError("Invalid input arguments.")
        return DataTypes.TIMESTAMP_LTZ(3)
    if first not in ("TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL", "FLOAT", "DOUBLE"):
        raise ValueError("Invalid input arguments.")
    precision = literals[1] if len(literals) > 1 else 3
    digits = precision if isinstance(precision, int) and precision is not NOT_LITERAL else 3
    return DataTypes.TIMESTAMP_LTZ(max(3, min(digits, 9)))


def _convert_tz(text: str, source: str, target: str) -> str | None:
    """CONVERT_TZ: ``text`` read by SimpleDateFormat ``yyyy-MM-dd HH:mm:ss`` in zone ``source``
    and written in zone ``target`` (Java's ``TimeZone`` ids); NULL when it does not read."""
    layout = patterns.simple_date_format("yyyy-MM-dd HH:mm:ss")
    millis = layout.parse_millis(text, java_time_zone(source))
    return None if millis is None else layout.format_millis(millis, java_time_zone(target))


def _always(result: DataType) -> Callable[[list[DataType]], DataType]:
    return lambda args: result


def _nullable_if_any(result: DataType) -> Callable[[list[DataType]], DataType]:
    return lambda args: result.nullable() if any(a.is_nullable() for a in args) else result.not_null()


TEMPORAL: list[FunctionDefinition] = [
    FunctionDefinition(
        "EXTRACT",
        lambda unit, value: extract(unit.upper(), value),
        _bigint,
        literal_result=_extract_literal_type,
    ),
    _shorthand("YEAR", "YEAR"),
    _shorthand("QUARTER", "QUARTER"),
    _shorthand("MONTH", "MONTH"),
    _shorthand("WEEK", "WEEK"),
    _shorthand("DAYOFYEAR", "DOY"),
    _shorthand("DAYOFMONTH", "DAY"),
    _shorthand("DAYOFWEEK", "DOW"),
    _shorthand("HOUR", "HOUR"),
    _shorthand("MINUTE", "MINUTE"),
    _shorthand("SECOND", "SECOND"),
    FunctionDefinition(
        "FLOOR_TO", _floor_ceil(True), lambda args: args[0], literal_result=_floor_type("FLOOR")
    ),
    FunctionDefinition(
        "CEIL_TO", _floor_ceil(False), lambda args: args[0], literal_result=_floor_type("CEIL")
    ),
    FunctionDefinition(
        "TIMESTAMPADD", timestamp_add, lambda args: args[2], literal_result=_timestamp_add_type
    ),
    FunctionDefinition(
        "DATETIME_MINUS",
        datetime_minus,
        lambda args: DataType("INTERVAL_DAY_TIME", True, 3),
        literal_result=_datetime_minus_type,
    ),
    FunctionDefinition(
        "TIMESTAMPDIFF",
        timestamp_diff,
        _nullable_if_any(DataTypes.INT()),
        literal_result=_timestamp_diff_type,
    ),
    FunctionDefinition("DATE_FORMAT", _date_format, _date_format_type),
    FunctionDefinition("TO_TIMESTAMP", _to_timestamp, _always(DataTypes.TIMESTAMP(3))),
    FunctionDefinition(
        "TO_DATE", _to_date, _text_arguments("TO_DATE", DataTypes.DATE(), "'TO_DATE(<CHARACTER>)'")
    ),
    FunctionDefinition(
        "UNIX_TIMESTAMP",
        _unix_timestamp,
        _text_arguments(
            "UNIX_TIMESTAMP",
            DataTypes.BIGINT(False),
            "'UNIX_TIMESTAMP()' 'UNIX_TIMESTAMP(<CHARACTER>)' 'UNIX_TIMESTAMP(<CHARACTER>, <CHARACTER>)'",
        ),
    ),
    FunctionDefinition(
        "FROM_UNIXTIME", _from_unixtime, _integral_type("FROM_UNIXTIME", "'FROM_UNIXTIME(<INTEGER>)'")
    ),
    FunctionDefinition(
        "TO_TIMESTAMP_LTZ",
        _to_timestamp_ltz,
        _always(DataTypes.TIMESTAMP_LTZ(3)),
        literal_result=_to_timestamp_ltz_type,
        arrow=to_timestamp_ltz_arrow,  # epoch seconds or milliseconds (arrow_temporal.py)
        arrow_args=INTEGRAL,
    ),
    FunctionDefinition("CONVERT_TZ", _convert_tz, _always(DataTypes.STRING())),
]
