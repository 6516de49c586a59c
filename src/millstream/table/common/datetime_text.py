"""Dates, times and timestamps as SQL's text, as Flink's ``DateTimeUtils`` reads and writes
them: a string CAST to DATE (``parseDate``: ``'2024-1-5'``, a time after a space ignored), TIME
(``parseTime``: ``'1:2:3'``) or TIMESTAMP (``parseTimestampData``: ``yyyy-M-d[ H:m:s[.f]]``,
nanoseconds kept in a ``NanoTimestamp``), and the text a CAST to STRING (and printing) writes:
a TIMESTAMP(p) with exactly p fraction digits, a TIME with its milliseconds up to the last
non-zero one (``10:20:30.5``, ``10:20:30.0``), intervals as ``+1 02:03:04.000`` / ``+1-02``.
"""

from __future__ import annotations

import datetime
import re

from millstream.table.common.timestamps import nano_of_second, with_nano_of_second

__all__ = [
    "DateTimeParseError",
    "iso_timestamp",
    "parse_date",
    "parse_time",
    "parse_timestamp",
    "time_text",
    "timestamp_text",
]


class DateTimeParseError(ValueError):
    """A string that is not a date, time or timestamp as Flink reads one."""


_DATE = re.compile(r"\s*(\d+)\s*(?:-\s*(\d+)\s*(?:-\s*(\d+)\s*)?)?")
_TIMESTAMP = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{0,9}))?)?")


def parse_date(text: str) -> datetime.date:
    """Flink's ``DateTimeUtils.parseDate``: ``y[-m[-d]]`` with numbers of any width, a time
    after a space ignored (``'2024-1-5'``, ``'2024-01-15 10:20:30'``)."""
    head = text.split(" ", 1)[0] if text.find(" ") > 0 else text
    match = _DATE.fullmatch(head)
    try:
        if match is None:
            raise ValueError
        year, month, day = int(match[1]), int(match[2] or 1), int(match[3] or 1)
        return datetime.date(year, month, day)
    except ValueError:
        raise DateTimeParseError(f"For input string: '{text}'.") from None


def parse_time(text: str) -> datetime.time:
    """Flink's ``DateTimeUtils.parseTime``: ``H[:m[:s[.fff]]]`` (fraction rounded to
    milliseconds), numbers of any width."""
    match = re.fullmatch(r"\s*(\d+)\s*(?::\s*(\d+)\s*(?::\s*(\d+)\s*(?:\.\s*(\d*)\s*)?)?)?", text)
    try:
        if match is None:
            raise ValueError
        hour, minute, second = int(match[1]), int(match[2] or 0), int(match[3] or 0)
        fraction = (match[4] or "") + "000"
        millis = int(fraction[:3]) + (1 if len(fraction) > 3 and fraction[3] >= "5" and match[4] else 0)
        return (
            datetime.datetime.combine(datetime.date(1970, 1, 1), datetime.time(hour, minute, second))
            + datetime.timedelta(milliseconds=millis)
        ).time()
    except ValueError:
        raise DateTimeParseError(f"For input string: '{text}'.") from None


def parse_timestamp(text: str, precision: int) -> datetime.datetime:
    """Flink's ``DateTimeUtils.parseTimestampData``: ``yyyy-M-d[ H:m:s[.fffffffff]]``, the
    fraction cut to ``precision`` digits."""
    match = _TIMESTAMP.fullmatch(text)
    try:
        if match is None:
            raise ValueError
        fraction = ((match[7] or "") + "000000000")[:9]
        nanos = (
            int(fraction) // 10 ** (9 - precision) * 10 ** (9 - precision) if precision < 9 else int(fraction)
        )
        year, month, day, hour, minute, second = (int(match[i] or 0) for i in range(1, 7))
        whole = datetime.datetime(year, month, day, hour, minute, second)
        return with_nano_of_second(whole, nanos)
    except ValueError:
        raise DateTimeParseError(f"Text '{text}' could not be parsed") from None


def iso_timestamp(text: str) -> datetime.datetime:
    """An ISO date-time (a CSV or JSON field of a TIMESTAMP column); a fraction of more than
    six digits keeps its nanoseconds (Python's ``fromisoformat`` cuts them), and a zone (the
    ``Z`` of a TIMESTAMP_LTZ) is kept."""
    nanos = _NANO_FRACTION.fullmatch(text)
    if nanos is None:
        return datetime.datetime.fromisoformat(text)
    whole = datetime.datetime.fromisoformat(nanos[1] + (nanos[3] or ""))
    return with_nano_of_second(whole, int((nanos[2] + "00")[:9]))


_NANO_FRACTION = re.compile(r"(.*?)\.(\d{7,})(Z|[+-]\d\d:?\d\d)?")


def timestamp_text(value: datetime.datetime, precision: int) -> str:
    date = f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
    text = f"{date} {value.hour:02d}:{value.minute:02d}:{value.second:02d}"
    return text + ("." + f"{nano_of_second(value):09d}"[:precision] if precision > 0 else "")


def time_text(value: datetime.time, precision: int) -> str:
    """Flink's ``formatTimestampMillis``: the milliseconds' digits up to ``precision``, ending
    at the last non-zero one (at least one: ``10:20:30.0``)."""
    text = f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}"
    if precision <= 0:
        return text
    millis = f"{nano_of_second(value) // 1_000_000:03d}"[: min(precision, 3)]
    return f"{text}.{millis.rstrip('0') or '0'}"
