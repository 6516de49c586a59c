"""Java's date-time patterns, as Flink's temporal functions use them: one compiled pattern per
text, cached, for every evaluator.

Flink formats and parses with two Java formatters, and which one a function uses decides what
its pattern letters mean (``DateTimeUtils`` of Flink 2.3):

- ``java.time.format.DateTimeFormatter`` (``date_time_formatter``): ``DATE_FORMAT`` of a
  TIMESTAMP / TIMESTAMP_LTZ / DATE (a ``LocalDateTime`` printed: a zone or offset letter has
  nothing to print and fails, as Java's does), and ``TO_TIMESTAMP(s, fmt)`` (parsed strictly
  with the ``SMART`` resolver; a field the text does not give is taken from
  ``1970-01-01 00:00:00``; the fraction ``S`` reaches nanoseconds).
- ``java.text.SimpleDateFormat`` (``simple_date_format``): ``DATE_FORMAT`` of a STRING (read
  with ``yyyy-MM-dd HH:mm:ss`` and written with the pattern), ``TO_DATE(s, fmt)``,
  ``UNIX_TIMESTAMP(s, fmt)``, ``FROM_UNIXTIME(n, fmt)``: its letters are another set (``S`` is a
  count of milliseconds, ``u`` the ISO day of the week, no ``e`` or ``Q``), and it reads
  leniently (numbers of any width, ``2024-13-01`` is January 2025, text after the pattern is
  ignored).

Both use the English texts Java's default locale gives on the machine PyFlink runs (``en``:
weeks start on Sunday, a first week needs one day). A pattern Java refuses raises
``DateTimePatternError`` with Java's message (``Too many pattern letters: d``, ``Illegal
pattern character 'e'``); a value a pattern cannot print raises ``DateTimeFormatError``
(``Unsupported field: OffsetSeconds``).

Values: a ``LocalDateTime`` here is ``(date, hour, minute, second, nano)``; ``local_date_time``
makes one of a ``datetime``, a ``date`` or a timestamp value with nanoseconds (any object with
``nanosecond``, the extra nanoseconds beyond its microseconds, as ``pandas.Timestamp`` has).
Known limits: SimpleDateFormat's Julian calendar before 1582-10-15 is not modelled (dates are
proleptic Gregorian, as java.time's); zone names are the short ones Python's zone gives (``UTC``
is Java's ``UTC`` / ``Coordinated Universal Time``).

This module holds Flink's ``DateTimeUtils`` over the two formatters (``parse_timestamp``,
``unix_timestamp`` ...); the formatters are ``java_date_time_formatter`` (its elements
``java_dtf_printers``) and ``java_simple_date_format``, over ``java_time_fields``.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from millstream.table.functions.java_date_time_formatter import JavaDateTimeFormatter, date_time_formatter
from millstream.table.functions.java_simple_date_format import (
    SimpleDateFormat,
    session_zone,
    simple_date_format,
)
from millstream.table.functions.java_time_fields import (
    DateTimeFormatError,
    DateTimePatternError,
    DateTimeValueError,
    LocalDateTime,
    _year_length,
    local_date_time,
)

__all__ = [
    "LONG_MIN",
    "UNPARSED_DATE",
    "DateTimeFormatError",
    "DateTimePatternError",
    "DateTimeValueError",
    "JavaDateTimeFormatter",
    "LocalDateTime",
    "SimpleDateFormat",
    "date_time_formatter",
    "format_timestamp",
    "format_timestamp_string",
    "from_unixtime",
    "local_date_time",
    "parse_date",
    "parse_date_with_format",
    "parse_timestamp",
    "parse_timestamp_with_format",
    "session_zone",
    "simple_date_format",
    "unix_timestamp",
]


# -- Flink's DateTimeUtils ------------------------------------------------------------------------

_DEFAULT_TIMESTAMP = re.compile(r"(\d{4})-(\d\d?)-(\d\d?)(?: (\d\d?):(\d\d?):(\d\d?)(?:\.(\d{0,9}))?)?")


def parse_timestamp(text: str, precision: int = 3) -> LocalDateTime | None:
    """``TO_TIMESTAMP(s)`` (Flink's ``DEFAULT_TIMESTAMP_FORMATTER``: ``yyyy-[M]M-[d]d``, then
    optionally `` [H]H:[m]m:[s]s`` and a fraction of up to nine digits, the whole text; a day
    past the month's end is its last day, as the SMART resolver reads it); None otherwise."""
    found = _DEFAULT_TIMESTAMP.fullmatch(text)
    if found is None:
        return None
    year, month, day = int(found.group(1)), int(found.group(2)), int(found.group(3))
    if not (1 <= month <= 12 and 1 <= day <= 31) or year == 0:
        return None
    if month in (4, 6, 9, 11):
        day = min(day, 30)
    elif month == 2:
        day = min(day, 29 if _year_length(year) == 366 else 28)
    hour = minute = second = nano = 0
    if found.group(4) is not None:
        hour, minute, second = int(found.group(4)), int(found.group(5)), int(found.group(6))
        if hour > 23 or minute > 59 or second > 59:
            return None
        nano = int((found.group(7) or "").ljust(9, "0"))
        nano -= nano % 10 ** (9 - precision)
    return LocalDateTime(datetime.date(year, month, day), hour, minute, second, nano)


def parse_timestamp_with_format(text: str, pattern: str, precision: int = 3) -> LocalDateTime | None:
    """``TO_TIMESTAMP(s, fmt)`` (``DateTimeUtils.parseTimestampData(s, fmt, precision)``): the
    text read by the DateTimeFormatter of ``pattern``; where that fails, ``s`` read as
    ``java.sql.Timestamp.valueOf`` (when it has a space) or ``java.sql.Date.valueOf``, whatever
    the pattern; None when neither reads it, or the pattern is not one (Flink catches that too)."""
    try:
        return date_time_formatter(pattern).parse_local(text, precision)
    except DateTimePatternError:
        return None  # Flink catches the pattern's IllegalArgumentException: NULL
    except DateTimeFormatError:
        pass
    trimmed = text.strip()
    if " " in trimmed:
        return _sql_timestamp_value_of(trimmed)
    date = _sql_date_value_of(trimmed)
    return None if date is None else LocalDateTime(date)


def _java_int(text: str) -> int | None:
    """``Integer.parseInt``: an optional sign and ASCII digits."""
    if re.fullmatch(r"[+-]?\d+", text) is None or not text.isascii():
        return None
    return int(text)


def _lenient_date(year: int, month: int, day: int) -> datetime.date | None:
    """``new Date(year - 1900, month - 1, day)``: a day past the month's end runs into the
    next month."""
    try:
        return datetime.date(year, month, 1) + datetime.timedelta(days=day - 1)
    except (ValueError, OverflowError):
        return None


def _sql_date_value_of(text: str) -> datetime.date | None:
    """``java.sql.Date.valueOf``: ``yyyy-[m]m-[d]d`` (a lenient day up to 31)."""
    first = text.find("-")
    second = text.find("-", first + 1)
    if not (first == 4 and 1 < second - first <= 3 and 1 < len(text) - second <= 3):
        return None
    year, month, day = (
        _java_int(text[:first]),
        _java_int(text[first + 1 : second]),
        _java_int(text[second + 1 :]),
    )
    if year is None or month is None or day is None or not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return _lenient_date(year, month, day)


def _sql_timestamp_value_of(text: str) -> LocalDateTime | None:
    """``java.sql.Timestamp.valueOf``: ``yyyy-[m]m-[d]d hh:mm:ss[.f...]``, the time lenient
    (``25:61:61`` runs into the next day)."""
    date_part, _, time_part = text.partition(" ")
    first = date_part.find("-")
    second = date_part.find("-", first + 1)
    if not (first > 0 and second > 0 and second < len(date_part) - 1):
        return None
    if not (first == 4 and 1 <= second - first - 1 <= 2 and 1 <= len(date_part) - second - 1 <= 2):
        return None
    year, month, day = (
        _java_int(date_part[:first]),
        _java_int(date_part[first + 1 : second]),
        _java_int(date_part[second + 1 :]),
    )
    if year is None or month is None or day is None or not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    colon1 = time_part.find(":")
    colon2 = time_part.find(":", colon1 + 1)
    period = time_part.find(".", colon2 + 1)
    if not (colon1 > 0 and colon2 > 0 and colon2 < len(time_part) - 1):
        return None
    hour, minute = _java_int(time_part[:colon1]), _java_int(time_part[colon1 + 1 : colon2])
    nano = 0
    if 0 < period < len(time_part) - 1:
        second_value = _java_int(time_part[colon2 + 1 : period])
        fraction = time_part[period + 1 :]
        if len(fraction) > 9 or not fraction[0].isdigit() or _java_int(fraction) is None:
            return None
        nano = int(fraction) * 10 ** (9 - len(fraction))
    elif period > 0:
        return None
    else:
        second_value = _java_int(time_part[colon2 + 1 :])
    if hour is None or minute is None or second_value is None:
        return None
    date = _lenient_date(year, month, day)
    if date is None:
        return None
    moment = datetime.datetime.combine(date, datetime.time()) + datetime.timedelta(
        hours=hour, minutes=minute, seconds=second_value
    )
    return LocalDateTime(moment.date(), moment.hour, moment.minute, moment.second, nano)


def parse_date(text: str) -> datetime.date | None:
    """``TO_DATE(s)`` (``DateTimeUtils.parseDate(String)``): ``y[-m[-d]]`` before the first
    space, each part an integer (spaces around it allowed), a real date; None otherwise."""
    space = text.find(" ")
    if space > 0:
        text = text[:space]
    parts = text.split("-", 2) if not text.startswith("-") else None
    if parts is None:
        return None
    numbers = [_java_int(part.strip()) for part in parts]
    if any(n is None for n in numbers):
        return None
    year, month, day = (numbers + [1, 1])[:3]
    assert year is not None and month is not None and day is not None
    try:
        return datetime.date(year, month, day)
    except ValueError:
        return None


# What TO_DATE(s, fmt) gives where the pattern does not read ``s``: Flink takes the date of
# Long.MIN_VALUE milliseconds, whose day number overflows Java's int to 622191233, the date
# +1705471-09-27, printed (DateTimeUtils.formatDate writes four year digits) as 5471-09-27.
# Python's dates end at 9999: the date Flink prints stands for it.
UNPARSED_DATE = datetime.date(5471, 9, 27)

LONG_MIN = -(2**63)  # what Flink's UNIX_TIMESTAMP gives for a text its pattern does not read


def format_timestamp(value: Any, pattern: str) -> str:
    """``DATE_FORMAT(timestamp, fmt)``: the wall clock of ``value`` written by the
    DateTimeFormatter of ``pattern``; an invalid pattern or a letter with nothing to print
    (a zone) raises, failing the job as Flink's does."""
    return date_time_formatter(pattern).format(value)


def format_timestamp_string(text: str, pattern: str, zone: datetime.tzinfo) -> str | None:
    """``DATE_FORMAT(string, fmt)`` (``DateTimeUtils.formatTimestampString``): ``text`` read by
    SimpleDateFormat ``yyyy-MM-dd HH:mm:ss`` and written by SimpleDateFormat ``pattern``, both
    in ``zone``; None when the text does not read. The pattern is checked first."""
    write = simple_date_format(pattern)
    millis = simple_date_format("yyyy-MM-dd HH:mm:ss").parse_millis(text, zone)
    return None if millis is None else write.format_millis(millis, zone)


def unix_timestamp(text: str, pattern: str, zone: datetime.tzinfo) -> int:
    """``UNIX_TIMESTAMP(s, fmt)``: the seconds (Java's division, toward zero) of ``text`` read
    by SimpleDateFormat ``pattern`` in ``zone``; ``LONG_MIN`` when it does not read."""
    millis = simple_date_format(pattern).parse_millis(text, zone)
    if millis is None:
        return LONG_MIN
    return -(-millis // 1000) if millis < 0 else millis // 1000


def parse_date_with_format(text: str, pattern: str) -> datetime.date:
    """``TO_DATE(s, fmt)`` (``DateTimeUtils.parseDate(s, fmt)``): the UTC date of ``text``
    read by SimpleDateFormat ``pattern``; ``UNPARSED_DATE`` when it does not read."""
    millis = simple_date_format(pattern).parse_millis(text, datetime.UTC)
    if millis is None:
        return UNPARSED_DATE
    return datetime.date(1970, 1, 1) + datetime.timedelta(days=millis // 86_400_000)


def from_unixtime(seconds: int, pattern: str, zone: datetime.tzinfo) -> str:
    """``FROM_UNIXTIME(n, fmt)``: the epoch second ``n`` written by SimpleDateFormat
    ``pattern`` in ``zone``."""
    return simple_date_format(pattern).format_millis(seconds * 1000, zone)
