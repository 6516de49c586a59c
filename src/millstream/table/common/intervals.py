"""Interval values as Flink holds them: a year-month interval (``INTERVAL MONTH``) is its
number of months, an ``int``; a day-time interval (``INTERVAL SECOND(3)``) is a
``datetime.timedelta`` kept to the millisecond. Their text (what ``CAST(... AS STRING)`` and
``TableResult.print()`` show: ``+2-03``, ``-1 02:03:04.500``) and date-time arithmetic with
them follow Flink's ``DateTimeUtils`` (adding months clamps the day to the month's last;
a DATE plus a day-time interval moves by its whole days, truncated toward zero).
"""

from __future__ import annotations

import calendar
import datetime
from typing import Any

__all__ = [
    "DAY_TIME",
    "YEAR_MONTH",
    "add_interval",
    "day_time_millis",
    "format_day_time",
    "format_year_month",
    "is_interval",
]

YEAR_MONTH = "INTERVAL_YEAR_MONTH"
DAY_TIME = "INTERVAL_DAY_TIME"
_DAY_MILLIS = 86_400_000


def is_interval(root: str) -> bool:
    """Whether a type root is one of the interval types."""
    return root in (YEAR_MONTH, DAY_TIME)


def day_time_millis(value: datetime.timedelta) -> int:
    """A day-time interval's milliseconds (toward zero)."""
    micros = (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds
    return int(micros / 1000)


def format_year_month(months: int) -> str:
    """``+2-03``: Flink's text of a year-month interval (``DateTimeUtils.intervalYearMonthToString``
    as ``CAST(... AS STRING)`` and ``print()`` show it)."""
    sign = "-" if months < 0 else "+"
    years, rest = divmod(abs(months), 12)
    return f"{sign}{years}-{rest:02d}"


def format_day_time(value: datetime.timedelta) -> str:
    """``+1 02:03:04.500``: Flink's text of a day-time interval, to the millisecond."""
    millis = day_time_millis(value)
    sign = "-" if millis < 0 else "+"
    days, rest = divmod(abs(millis), _DAY_MILLIS)
    hours, rest = divmod(rest, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    return f"{sign}{days} {hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}"


def _add_months(value: Any, months: int) -> Any:
    """``value`` (a date or a date-time) ``months`` later, the day clamped to the month's last
    (Flink's ``DateTimeUtils.addMonths``)."""
    total = value.year * 12 + value.month - 1 + months
    year, month = divmod(total, 12)
    day = min(value.day, calendar.monthrange(year, month + 1)[1])
    return value.replace(year=year, month=month + 1, day=day)


def add_interval(value: Any, interval: Any, root: str) -> Any:
    """A DATE, TIME or TIMESTAMP value plus an interval of type ``root``: months move a date or
    timestamp by calendar months (a TIME not at all); a day-time interval moves a DATE by its
    whole days (truncated toward zero), a TIME around the clock, a timestamp exactly."""
    if root == YEAR_MONTH:
        return value if isinstance(value, datetime.time) else _add_months(value, interval)
    millis = day_time_millis(interval)
    if isinstance(value, datetime.time):
        seconds = value.hour * 3600 + value.minute * 60 + value.second
        of_day = (seconds * 1000 + value.microsecond // 1000 + millis) % _DAY_MILLIS
        return datetime.time(
            of_day // 3_600_000, of_day // 60_000 % 60, of_day // 1000 % 60, of_day % 1000 * 1000
        )
    if isinstance(value, datetime.datetime):
        return value + datetime.timedelta(milliseconds=millis)
    days = abs(millis) // _DAY_MILLIS  # toward zero, as Java's long division
    return value + datetime.timedelta(days=-days if millis < 0 else days)
