"""Timestamps in tables: how values of TIMESTAMP and TIMESTAMP_LTZ columns are held, turned
into epoch milliseconds (event time) and printed.

Values are ``datetime.datetime`` objects without a time zone, as PyFlink hands them to
Python functions: a ``TIMESTAMP(p)`` is a wall-clock date-time in no zone (its epoch value
is taken as if it were UTC, as Flink's ``TimestampData`` does, so a tumbling window of a day
starts at midnight of that date-time); a ``TIMESTAMP_LTZ(p)`` is an instant, held as the
wall-clock time of the session time zone (this process's local zone, as PyFlink converts
it). Casting between the two therefore keeps the value, as Flink's cast in the session zone
does. An ``Instant`` of the DataStream API becomes a TIMESTAMP_LTZ value.
"""

from __future__ import annotations

import datetime
from typing import Any

from millstream.common.time import Instant

__all__ = [
    "EPOCH",
    "from_epoch_millis",
    "java_instant_string",
    "java_local_date_time_string",
    "to_epoch_millis",
    "to_instant",
]

EPOCH = datetime.datetime(1970, 1, 1)
_MILLI = datetime.timedelta(milliseconds=1)


def to_epoch_millis(value: Any, root: str) -> int:
    """Epoch milliseconds of a TIMESTAMP (as UTC) or TIMESTAMP_LTZ (in the local zone) value."""
    if root == "TIMESTAMP_LTZ":
        if value.tzinfo is None:
            value = value.astimezone()  # the local zone's wall-clock time
        return (value - datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)) // _MILLI
    return (value - EPOCH) // _MILLI


def to_instant(value: datetime.datetime) -> Instant:
    """The ``Instant`` of a TIMESTAMP_LTZ value (what ``to_data_stream`` hands the DataStream
    API, as PyFlink's ``Instant<seconds, nanos>``), to the microsecond."""
    aware = value.astimezone() if value.tzinfo is None else value
    micros = (aware - datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)) // datetime.timedelta(
        microseconds=1
    )
    seconds, micro = divmod(micros, 1_000_000)
    return Instant(seconds, micro * 1000)


def from_epoch_millis(millis: int, root: str) -> datetime.datetime:
    """The TIMESTAMP (UTC wall clock) or TIMESTAMP_LTZ (local wall clock) value of an epoch."""
    utc = EPOCH + datetime.timedelta(milliseconds=millis)
    if root == "TIMESTAMP_LTZ":
        return utc.replace(tzinfo=datetime.UTC).astimezone().replace(tzinfo=None)
    return utc


def _fraction(microsecond: int) -> str:
    """Java's nano-of-second text: none, or groups of three digits as needed."""
    if microsecond == 0:
        return ""
    if microsecond % 1000 == 0:
        return f".{microsecond // 1000:03d}"
    return f".{microsecond:06d}"


def java_local_date_time_string(value: datetime.datetime) -> str:
    """``LocalDateTime.toString``: ``1970-01-01T00:00``, ``...T00:00:01``, ``...T00:00:04.500``."""
    text = f"{value.year:04d}-{value.month:02d}-{value.day:02d}T{value.hour:02d}:{value.minute:02d}"
    if value.second or value.microsecond:
        text += f":{value.second:02d}{_fraction(value.microsecond)}"
    return text


def java_instant_string(value: datetime.datetime) -> str:
    """``Instant.toString`` of a TIMESTAMP_LTZ value: ``1970-01-01T00:00:04.500Z`` (UTC)."""
    utc = value.astimezone(datetime.UTC) if value.tzinfo is None else value
    utc = utc.astimezone(datetime.UTC)
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"
        f"{_fraction(utc.microsecond)}Z"
    )
