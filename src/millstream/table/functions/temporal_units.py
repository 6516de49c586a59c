"""Flink's temporal functions of units, as Flink 2.3 computes them (``DateTimeUtils`` and the
planner's code for them; ``functions/temporal.py`` defines them): EXTRACT of every unit and its
shorthands (YEAR ... SECOND), FLOOR / CEIL of a date-time TO a unit, TIMESTAMPADD and
TIMESTAMPDIFF, over Flink's values (a DATE its epoch day, a TIME its milliseconds of the day, a
TIMESTAMP its epoch milliseconds and the nanoseconds below them) and Java's integer arithmetic
(division truncates toward zero: ``EXTRACT(MILLISECOND FROM TIMESTAMP '1969-12-31
23:59:59.999')`` is -1, as in Flink)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from millstream.table.common.printing import summary_string
from millstream.table.common.timestamps import nano_of_second, with_nano_of_second
from millstream.table.common.types import DataType, DataTypes
from millstream.table.functions.definition import NOT_LITERAL, FunctionDefinition

__all__ = ["EXTRACT_UNITS", "MILLIS_PER_DAY", "extract", "timestamp_add", "timestamp_diff"]


MILLIS_PER_DAY = 86_400_000
_EPOCH = datetime.date(1970, 1, 1)
_EPOCH_ORDINAL = _EPOCH.toordinal()
_INT_MIN, _INT_RANGE = -(2**31), 2**32
_LONG_MIN, _LONG_RANGE = -(2**63), 2**64

# Calcite's TimeUnit multipliers (months for the year-month units, milliseconds for the others)
_MONTHS = {
    "YEAR": 12,
    "ISOYEAR": 12,
    "QUARTER": 3,
    "MONTH": 1,
    "DECADE": 120,
    "CENTURY": 1200,
    "MILLENNIUM": 12000,
}
_MILLIS = {
    "WEEK": 7 * MILLIS_PER_DAY,
    "DAY": MILLIS_PER_DAY,
    "HOUR": 3_600_000,
    "MINUTE": 60_000,
    "SECOND": 1000,
}
_MILLIS["MILLISECOND"] = 1
# the unit above a time unit: EXTRACT(u) is (value % factor) / multiplier (``getFactor``)
_FACTOR = {"HOUR": MILLIS_PER_DAY, "MINUTE": 3_600_000, "SECOND": 60_000, "MILLISECOND": 1000}
_DATE_UNITS: tuple[str, ...] = (
    "MILLENNIUM",
    "CENTURY",
    "DECADE",
    "YEAR",
    "ISOYEAR",
    "QUARTER",
    "MONTH",
    "WEEK",
    "DAY",
)
_DATE_UNITS += ("DOW", "ISODOW", "DOY")
_TIME_UNITS = ("HOUR", "MINUTE", "SECOND", "MILLISECOND")
EXTRACT_UNITS = (*_DATE_UNITS, *_TIME_UNITS, "MICROSECOND", "NANOSECOND", "EPOCH")


# -- Java's arithmetic and Flink's values ---------------------------------------------------------


def _div(a: int, b: int) -> int:
    """Java's ``/`` of integers: toward zero."""
    quotient = abs(a) // abs(b)
    return -quotient if (a < 0) != (b < 0) else quotient


def _rem(a: int, b: int) -> int:
    """Java's ``%``: the sign of the dividend."""
    return a - b * _div(a, b)


def _int(value: int) -> int:
    """Java's ``(int)`` of a long: the low 32 bits, signed."""
    return (value - _INT_MIN) % _INT_RANGE + _INT_MIN


def _days_from_civil(year: int, month: int, day: int) -> int:
    """The epoch day of a proleptic Gregorian date, any year."""
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """The proleptic Gregorian (year, month, day) of an epoch day, any year."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def _epoch_day(value: datetime.date) -> int:
    return value.toordinal() - _EPOCH_ORDINAL


def _date(days: int) -> datetime.date:
    try:
        return datetime.date.fromordinal(days + _EPOCH_ORDINAL)
    except (ValueError, OverflowError) as err:
        raise ValueError(
            f"the date of epoch day {days} is out of the range 0001-01-01 .. 9999-12-31"
        ) from err


def _time_millis(value: datetime.time) -> int:
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000


def _time(millis: int) -> datetime.time:
    millis %= MILLIS_PER_DAY
    return datetime.time(
        millis // 3_600_000, millis // 60_000 % 60, millis // 1000 % 60, millis % 1000 * 1000
    )


def _timestamp_millis(value: datetime.datetime) -> tuple[int, int]:
    """(epoch milliseconds, nanoseconds within the millisecond) of a wall clock taken as UTC
    (Flink's ``TimestampData``)."""
    nano = nano_of_second(value)
    seconds = (_epoch_day(value.date()) * 86400) + (value.hour * 60 + value.minute) * 60 + value.second
    return seconds * 1000 + nano // 1_000_000, nano % 1_000_000


def _timestamp(millis: int, nano_of_milli: int = 0) -> datetime.datetime:
    days, millis_of_day = divmod(millis, MILLIS_PER_DAY)
    day = _date(days)
    second, milli = divmod(millis_of_day, 1000)
    base = datetime.datetime(day.year, day.month, day.day) + datetime.timedelta(seconds=second)
    return with_nano_of_second(base, milli * 1_000_000 + nano_of_milli)


def _millis(value: Any) -> int:
    """The epoch milliseconds of a DATE or TIMESTAMP value (a TIME: its milliseconds)."""
    if isinstance(value, datetime.datetime):
        return _timestamp_millis(value)[0]
    if isinstance(value, datetime.date):
        return _epoch_day(value) * MILLIS_PER_DAY
    return _time_millis(value)


# -- EXTRACT ----------------------------------------------------------------------------------------


def _iso_week(days: int) -> tuple[int, int]:
    """(ISO year, ISO week) of an epoch day (``getIso8601WeekNumber``)."""
    thursday = days - (days + 3) % 7 + 3  # the Thursday of its week (Monday first)
    iso_year = _civil_from_days(thursday)[0]
    return iso_year, (thursday - _days_from_civil(iso_year, 1, 1)) // 7 + 1


def _extract_from_date(unit: str, days: int) -> int:
    """``DateTimeUtils.extractFromDate``: a date unit of an epoch day."""
    if unit == "EPOCH":
        return days * 86400
    year, month, day = _civil_from_days(days)
    return _DATE_PARTS[unit](days, year, month, day)


def _century(year: int, size: int) -> int:
    return _div(year + size - 1, size) if year > 0 else _div(year - size + 1, size)


_DATE_PARTS: dict[str, Callable[[int, int, int, int], int]] = {
    "YEAR": lambda days, year, month, day: year,
    "MONTH": lambda days, year, month, day: month,
    "DAY": lambda days, year, month, day: day,
    "QUARTER": lambda days, year, month, day: (month + 2) // 3,
    "DOW": lambda days, year, month, day: (days + 4) % 7 + 1,  # Sunday 1
    "ISODOW": lambda days, year, month, day: (days + 3) % 7 + 1,  # Monday 1
    "WEEK": lambda days, year, month, day: _iso_week(days)[1],
    "ISOYEAR": lambda days, year, month, day: _iso_week(days)[0],
    "DOY": lambda days, year, month, day: days - _days_from_civil(year, 1, 1) + 1,
    "DECADE": lambda days, year, month, day: _div(year, 10),
    "CENTURY": lambda days, year, month, day: _century(year, 100),
    "MILLENNIUM": lambda days, year, month, day: _century(year, 1000),
}


def extract(unit: str, value: Any) -> int:
    """``EXTRACT(unit FROM value)`` of a DATE, TIME, TIMESTAMP (or TIMESTAMP_LTZ: its wall
    clock) or interval value, as Flink computes it."""
    if isinstance(value, datetime.datetime):
        return _extract_from_timestamp(unit, value)
    if isinstance(value, datetime.date):
        days = _epoch_day(value)
        if unit in _DATE_UNITS or unit == "EPOCH":
            return _extract_from_date(unit, days)
        return _div(_rem(days, _FACTOR[unit]), _MILLIS[unit])  # the day number read as milliseconds
    if isinstance(value, datetime.time):
        return _div(_rem(_time_millis(value), _FACTOR[unit]), _MILLIS[unit])
    if isinstance(value, datetime.timedelta):  # a day-time interval: its milliseconds
        millis = value // datetime.timedelta(milliseconds=1)
        if unit == "DAY":
            return _div(millis, MILLIS_PER_DAY)
        return _div(_rem(millis, _FACTOR[unit]), _MILLIS[unit])
    months = int(value)  # a year-month interval: its months
    if unit == "MONTH":
        return _rem(months, 12)
    if unit == "QUARTER":
        return _div(_rem(months, 12) - 1, 3) + 1
    return _div(months, _MONTHS[unit])


def _extract_from_timestamp(unit: str, value: datetime.datetime) -> int:
    millis, nano = _timestamp_millis(value)
    if unit in _DATE_UNITS:
        return _extract_from_date(unit, _div(millis, MILLIS_PER_DAY))
    if unit == "EPOCH":
        return _div(millis, 1000)
    if unit == "MICROSECOND":
        return _rem(millis, 1000) * 1000 + nano // 1000
    if unit == "NANOSECOND":
        return _rem(millis, 1000) * 1_000_000 + nano
    return _div(_rem(millis, _FACTOR[unit]), _MILLIS[unit])


# the units EXTRACT takes from an interval, and those Flink's planner names unsupported
_INTERVAL_UNITS = {
    "INTERVAL_YEAR_MONTH": ({"MILLENNIUM", "CENTURY", "YEAR", "QUARTER", "MONTH"}, {"DECADE", "ISOYEAR"}),
    "INTERVAL_DAY_TIME": ({"DAY", *_TIME_UNITS}, {"DOW", "DOY", "ISODOW", "EPOCH", "WEEK"}),
}


def _extract_type(unit: str, name: str = "EXTRACT") -> Callable[[list[DataType]], DataType]:
    """BIGINT, or the error Flink's planner raises for ``unit`` of the operand's type."""

    def rule(args: list[DataType]) -> DataType:
        operand = args[-1]
        root = operand.root
        if root == "TIME" and unit in (*_DATE_UNITS, "EPOCH"):
            raise ValueError(f"unit {unit} can not be applied to time variable")
        if root in ("DATE", "TIME", "INTERVAL_DAY_TIME") and unit in _NANOS:
            raise ValueError(f"unit {unit} can not be applied to {summary_string(operand)} variable")
        if root in _INTERVAL_UNITS:
            allowed, unsupported = _INTERVAL_UNITS[root]
            if unit in unsupported:
                raise ValueError(f"Unit '{unit}' is not supported.")
            if unit not in allowed:
                raise ValueError(_cannot_apply(name, unit, operand))
        elif root not in ("DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ"):
            raise ValueError(_cannot_apply(name, unit, operand))
        return _bigint(args)

    return rule


def _cannot_apply(name: str, unit: str, operand: DataType) -> str:
    return (
        f"Cannot apply '{name}' to arguments of type '{name}(<INTERVAL {unit}> FROM "
        f"<{summary_string(operand.nullable())}>)'. Supported form(s): '{name}(<DATETIME_INTERVAL> FROM "
        f"<DATETIME_INTERVAL>)' '{name}(<DATETIME_INTERVAL> FROM <DATETIME>)'"
    )


_NANOS = ("MICROSECOND", "NANOSECOND")


def _bigint(args: list[DataType]) -> DataType:
    return DataTypes.BIGINT().nullable() if any(a.is_nullable() for a in args) else DataTypes.BIGINT(False)


def _extract_literal_type(args: list[DataType], literals: list[Any]) -> DataType:
    unit = literals[0]
    if unit is NOT_LITERAL or str(unit).upper() not in EXTRACT_UNITS:
        raise ValueError(f"EXTRACT needs a time unit: one of {', '.join(EXTRACT_UNITS)}")
    return _extract_type(str(unit).upper())(args)


def _shorthand(name: str, unit: str) -> FunctionDefinition:
    """``YEAR(t)`` ... ``SECOND(t)``: ``EXTRACT(unit FROM t)``."""
    return FunctionDefinition(name, lambda value: extract(unit, value), _extract_type(unit))


# -- FLOOR / CEIL TO a unit -------------------------------------------------------------------------


def _date_floor(unit: str, days: int, floor: bool) -> int:
    """``julianDateFloor``: the epoch day of ``days`` floored (or ceiled) to a unit of a day
    or more."""
    year, month, day = _civil_from_days(days)
    if unit == "MILLENNIUM":
        base = 1000 * _div(year + 999, 1000)
        return _days_from_civil(base - 999 if floor else base + 1, 1, 1)
    if unit == "CENTURY":
        base = 100 * _div(year + 99, 100)
        return _days_from_civil(base - 99 if floor else base + 1, 1, 1)
    if unit == "DECADE":
        return _days_from_civil(10 * _div(year, 10) if floor else 10 * (1 + _div(year, 10)), 1, 1)
    if unit == "YEAR":
        return _days_from_civil(year + (0 if floor or (month == 1 and day == 1) else 1), 1, 1)
    if unit == "MONTH":
        month += 0 if floor or day == 1 else 1
        return _days_from_civil(year + (month - 1) // 12, (month - 1) % 12 + 1, 1)
    if unit == "QUARTER":
        quarter = (month + 2) // 3 + (0 if floor or (month == 1 and day == 1) else 1)
        return _days_from_civil(year + (quarter - 1) // 4, ((quarter - 1) % 4) * 3 + 1, 1)
    if unit == "WEEK":
        offset = (days + 4) % 7  # Sunday 0
        if not floor and offset > 0:
            offset -= 7
        return days - offset
    if unit == "DAY":
        return days if floor else days + 1
    raise AssertionError(unit)


def _floor_ceil(floor: bool) -> Callable[[Any, str], Any]:
    """FLOOR / CEIL (``floor`` False) of a DATE, TIME or TIMESTAMP to a unit, as Flink: a
    TIMESTAMP to a unit below a day by arithmetic on its milliseconds (the nanoseconds below
    them count for MILLISECOND only), to a day or more by the date of its milliseconds
    (truncated toward zero: 1969-12-31 23:00 floors to 1970-01-01 by MONTH); a DATE to a unit
    below a day is itself; a TIME to a day or more reads its milliseconds as a day number."""
    name = "FLOOR" if floor else "CEIL"

    def round_to(value: Any, unit: str) -> Any:
        unit = unit.upper()
        if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
            if unit in _TIME_UNITS or unit in _NANOS:
                return value
            return _date(_date_floor(unit, _epoch_day(value), floor))
        if unit in _NANOS:
            raise ValueError(f"{name}(... TO {unit}) is not supported for {type(value).__name__} values")
        if isinstance(value, datetime.datetime):
            millis, nano = _timestamp_millis(value)
            if unit in _MILLIS and unit != "WEEK":
                return _timestamp(_round(millis, _MILLIS[unit], floor, nano if unit == "MILLISECOND" else 0))
            return _timestamp(_date_floor(unit, _int(_div(millis, MILLIS_PER_DAY)), floor) * MILLIS_PER_DAY)
        millis = _time_millis(value)
        if unit in _TIME_UNITS:
            return _time(_round(millis, _MILLIS[unit], floor, 0))
        return _time(_date_floor(unit, millis, floor))  # the milliseconds read as a day number

    return round_to


def _round(millis: int, step: int, floor: bool, below: int) -> int:
    """``millis`` floored (or ceiled) to a multiple of ``step``; ``below``: what lies below a
    millisecond, which makes a ceiling move."""
    rest = millis % step
    if floor:
        return millis - rest
    return millis - rest + step if rest or below else millis


_FLOOR_UNITS = (
    "MILLENNIUM",
    "CENTURY",
    "DECADE",
    "YEAR",
    "QUARTER",
    "MONTH",
    "WEEK",
    "DAY",
    *_TIME_UNITS,
    *_NANOS,
)


def _floor_type(name: str) -> Callable[[list[DataType], list[Any]], DataType]:
    def rule(args: list[DataType], literals: list[Any]) -> DataType:
        unit = literals[1]
        if unit is NOT_LITERAL or str(unit).upper() not in _FLOOR_UNITS:
            raise ValueError(f"{name}(... TO unit) needs a time unit: one of {', '.join(_FLOOR_UNITS)}")
        if args[0].root not in ("DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ"):
            raise ValueError(
                f"Cannot apply '{name}' to arguments of type '{name}(<{summary_string(args[0])}>)'"
            )
        return args[0]

    return rule


# -- TIMESTAMPADD / TIMESTAMPDIFF -------------------------------------------------------------------


def _add_months(days: int, months: int) -> int:
    """``DateTimeUtils.addMonths`` of an epoch day: the day clamped to the month's last."""
    year, month, day = _civil_from_days(days)
    month += months
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    last = _days_from_civil(year + month // 12, month % 12 + 1, 1) - _days_from_civil(year, month, 1)
    return _days_from_civil(year, month, min(day, last))


def _subtract_months_days(date0: int, date1: int) -> int:
    """``DateTimeUtils.subtractMonths(int, int)``: whole months from ``date1`` to ``date0``."""
    if date0 < date1:
        return -_subtract_months_days(date1, date0)
    months = (date0 - date1) // 31
    while True:
        if _add_months(date1, months) >= date0 or _add_months(date1, months + 1) > date0:
            return months
        months += 1


def _subtract_months(t0: int, t1: int) -> int:
    """``DateTimeUtils.subtractMonths(long, long)`` of two epoch milliseconds."""
    days0, millis0 = divmod(t0, MILLIS_PER_DAY)
    days1, millis1 = divmod(t1, MILLIS_PER_DAY)
    months = _subtract_months_days(days0, days1)
    if _add_months(days1, months) == days0 and millis0 < millis1:
        months -= 1
    return months


def timestamp_add(unit: str, amount: int, value: Any) -> Any:
    """``TIMESTAMPADD(unit, amount, value)``: months clamp the day (a TIME is unchanged by a
    unit of a day or more); a DATE plus a unit below a day is a TIMESTAMP."""
    unit = unit.upper()
    if isinstance(value, datetime.time):
        if unit in _MONTHS or unit in ("WEEK", "DAY"):
            return value
        return _time(_time_millis(value) + amount * _MILLIS[unit])
    if isinstance(value, datetime.datetime):
        millis, nano = _timestamp_millis(value)
        if unit in _MONTHS:
            days, rest = divmod(millis, MILLIS_PER_DAY)
            return _timestamp(_add_months(days, amount * _MONTHS[unit]) * MILLIS_PER_DAY + rest, nano)
        return _timestamp(millis + amount * _MILLIS[unit], nano)
    if unit in _MONTHS:
        return _date(_add_months(_epoch_day(value), amount * _MONTHS[unit]))
    if unit in ("WEEK", "DAY"):
        return _date(_epoch_day(value) + amount * _MILLIS[unit] // MILLIS_PER_DAY)
    return _timestamp(_epoch_day(value) * MILLIS_PER_DAY + amount * _MILLIS[unit])


def _timestamp_add_type(args: list[DataType], literals: list[Any]) -> DataType:
    unit = str(literals[0]).upper() if literals[0] is not NOT_LITERAL else ""
    operand = args[2]
    nullable = any(a.is_nullable() for a in args)
    if unit in _NANOS:
        raise ValueError(
            f"Unsupported call: /INT(INTERVAL SECOND(3) NOT NULL, INT{'' if nullable else ' NOT NULL'})"
        )
    if unit not in (*_MONTHS, *_MILLIS):
        raise ValueError(f"TIMESTAMPADD needs a time unit: one of {', '.join((*_MONTHS, *_MILLIS))}")
    if unit == "MILLISECOND" and operand.root in ("DATE", "TIME"):
        raise ValueError(f"typeName.allowsPrecScale(true, false): {operand.root}")
    if operand.root == "DATE" and unit in _TIME_UNITS:
        result = DataTypes.TIMESTAMP(6)
    elif unit == "MILLISECOND" and operand.params and int(operand.params[0]) < 3:  # TIMESTAMP(0) + 1 ms
        result = DataType(operand.root, True, 3)
    elif operand.root in ("DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ"):
        result = operand
    else:
        raise ValueError(f"Cannot apply 'TIMESTAMPADD' to arguments of type '<{summary_string(operand)}>'")
    return result.nullable() if nullable else result.not_null()


def timestamp_diff(unit: str, start: Any, end: Any) -> int:
    """``TIMESTAMPDIFF(unit, start, end)``: whole units from ``start`` to ``end``, toward zero,
    as Java's ``int`` (a difference in milliseconds or microseconds wraps as Flink's, and
    counts whole seconds only: from 00:00:00.100 to 00:00:01.500 is 1000 milliseconds)."""
    unit = unit.upper()
    if unit in _MONTHS:
        if isinstance(start, datetime.time) and isinstance(end, datetime.time):
            months = _subtract_months_days(_time_millis(end), _time_millis(start))  # read as day numbers
        else:
            months = _subtract_months(_millis(end), _millis(start))
        return _int(_div(months, _MONTHS[unit]))
    millis = _millis(end) - _millis(start)
    if unit in ("MILLISECOND", *_NANOS):  # Flink counts whole seconds, then scales them
        seconds = _div(millis, 1000)
        if unit == "NANOSECOND":
            return (seconds * 1_000_000_000 - _LONG_MIN) % _LONG_RANGE + _LONG_MIN
        return _int(seconds * (1000 if unit == "MILLISECOND" else 1_000_000))
    return _int(_div(millis, _MILLIS[unit]))


def datetime_minus(unit: str, left: Any, right: Any) -> Any:
    """``(left - right) unit`` of two DATEs or TIMESTAMPs (Calcite's datetime minus): a day-time
    unit gives the whole difference as a day-time interval (``(TIMESTAMP '2024-01-02 00:00:00'
    - TIMESTAMP '2024-01-01 12:00:00') DAY`` is 12 hours), MONTH the months between (Flink's
    ``subtractMonths``)."""
    if unit.upper() == "MONTH":
        return _subtract_months(_millis(left), _millis(right))
    return datetime.timedelta(milliseconds=_millis(left) - _millis(right))


def _datetime_minus_type(args: list[DataType], literals: list[Any]) -> DataType:
    unit = str(literals[0]).upper() if literals[0] is not NOT_LITERAL else ""
    left, right = args[1], args[2]
    if left.root not in ("DATE", "TIMESTAMP") or right.root not in ("DATE", "TIMESTAMP"):
        raise ValueError(
            f"Cannot apply '-' to arguments of type '<{summary_string(left)}> - <{summary_string(right)}>' "
            f"as an interval {unit}: (datetime - datetime) {unit} takes two DATEs or TIMESTAMPs"
        )
    if unit not in ("MONTH", *_DAY_TIME_UNITS):
        raise ValueError(
            f"(datetime - datetime) {unit} is not supported: a unit of MONTH, DAY, HOUR, MINUTE, SECOND"
        )
    result = DataType(
        "INTERVAL_YEAR_MONTH" if unit == "MONTH" else "INTERVAL_DAY_TIME",
        True,
        *(() if unit == "MONTH" else (3,)),
    )
    return result.nullable() if left.is_nullable() or right.is_nullable() else result.not_null()


_DAY_TIME_UNITS = ("DAY", "HOUR", "MINUTE", "SECOND")


def _timestamp_diff_type(args: list[DataType], literals: list[Any]) -> DataType:
    unit = str(literals[0]).upper() if literals[0] is not NOT_LITERAL else ""
    if unit not in (*_MONTHS, *_MILLIS, *_NANOS):
        raise ValueError(
            f"TIMESTAMPDIFF needs a time unit: one of {', '.join((*_MONTHS, *_MILLIS, *_NANOS))}"
        )
    result = DataTypes.BIGINT() if unit == "NANOSECOND" else DataTypes.INT()
    return result.nullable() if any(a.is_nullable() for a in args) else result.not_null()
