"""Timestamps in tables: how values of TIMESTAMP and TIMESTAMP_LTZ columns are held, turned
into epoch milliseconds (event time) and printed.

Values are ``datetime.datetime`` objects without a time zone, as PyFlink hands them to
Python functions: a ``TIMESTAMP(p)`` is a wall-clock date-time in no zone (its epoch value
is taken as if it were UTC, as Flink's ``TimestampData`` does, so a tumbling window of a day
starts at midnight of that date-time); a ``TIMESTAMP_LTZ(p)`` is an instant, held as the
wall-clock time of the session time zone (this process's local zone, as PyFlink converts
it). Casting between the two therefore keeps the value, as Flink's cast in the session zone
does. An ``Instant`` of the DataStream API becomes a TIMESTAMP_LTZ value.

A value of a precision above 6 (``TIMESTAMP(9)``) that has nanoseconds below its microseconds
is a ``NanoTimestamp``: a ``datetime`` that keeps them (``nanosecond``, 0..999, as
``pandas.Timestamp`` holds Arrow's ``timestamp[ns]``), compares, hashes and prints with them.
"""

from __future__ import annotations

import datetime
import time
from typing import Any

from millstream.common.time import Instant

__all__ = [
    "EPOCH",
    "NanoTimestamp",
    "arrow_nano_timestamps",
    "from_epoch_millis",
    "from_epoch_nanos",
    "instant_epoch_nanos",
    "java_instant_string",
    "java_local_date_time_string",
    "java_local_time_string",
    "nano_of_second",
    "to_epoch_millis",
    "to_epoch_nanos",
    "to_instant",
    "with_nano_of_second",
]

EPOCH = datetime.datetime(1970, 1, 1)
_MILLI = datetime.timedelta(milliseconds=1)


class NanoTimestamp(datetime.datetime):
    """A date-time with nanoseconds: a ``datetime`` and the ``nanosecond`` (0..999) below its
    microseconds. Equality, order and hash take them into account (a value with none equals
    the plain ``datetime``); adding or subtracting a ``timedelta``, ``replace`` and
    ``astimezone`` keep them. Made by ``with_nano_of_second``."""

    _nanosecond: int = 0  # what a copy made by one of datetime's own methods holds

    @property
    def nanosecond(self) -> int:
        """The nanoseconds below the microseconds (as ``pandas.Timestamp.nanosecond``)."""
        return self._nanosecond

    def _key(self) -> tuple[datetime.datetime, int]:
        return _plain(self), self._nanosecond

    def __eq__(self, other: object) -> bool:
        if isinstance(other, datetime.datetime):
            return self._key() == _key_of(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        if isinstance(other, datetime.datetime):
            return self._key() != _key_of(other)
        return NotImplemented

    def __lt__(self, other: datetime.datetime) -> bool:  # type: ignore[override]
        return self._key() < _key_of(other)

    def __le__(self, other: datetime.datetime) -> bool:  # type: ignore[override]
        return self._key() <= _key_of(other)

    def __gt__(self, other: datetime.datetime) -> bool:  # type: ignore[override]
        return self._key() > _key_of(other)

    def __ge__(self, other: datetime.datetime) -> bool:  # type: ignore[override]
        return self._key() >= _key_of(other)

    def __hash__(self) -> int:
        return hash(_plain(self)) if not self._nanosecond else hash(self._key())

    def __add__(self, other: datetime.timedelta) -> datetime.datetime:  # type: ignore[override]
        return _with_nanos(_plain(self) + other, self._nanosecond)

    __radd__ = __add__  # type: ignore[assignment]

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, datetime.timedelta):
            return _with_nanos(_plain(self) - other, self._nanosecond)
        return _plain(self) - (_plain(other) if isinstance(other, datetime.datetime) else other)

    def replace(self, *args: Any, nanosecond: int | None = None, **kwargs: Any) -> datetime.datetime:  # type: ignore[override]
        """``datetime.replace``, keeping (or setting) the nanoseconds."""
        nanos = self._nanosecond if nanosecond is None else nanosecond
        return _with_nanos(_plain(self).replace(*args, **kwargs), nanos)

    def astimezone(self, tz: datetime.tzinfo | None = None) -> datetime.datetime:  # type: ignore[override]
        return _with_nanos(_plain(self).astimezone(tz), self._nanosecond)

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return with_nano_of_second, (_plain(self), nano_of_second(self))

    def __repr__(self) -> str:
        return f"NanoTimestamp({_plain(self)!r}, nanosecond={self._nanosecond})"

    def __str__(self) -> str:
        text = _plain(self).isoformat(sep=" ", timespec="microseconds")
        end = text.index(".") + 7
        return f"{text[:end]}{self._nanosecond:03d}{text[end:]}"


def _plain(value: datetime.datetime) -> datetime.datetime:
    """The ``datetime`` of a value, to the microsecond."""
    return datetime.datetime(
        value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond,
        value.tzinfo, fold=value.fold,
    )  # fmt: skip


def _key_of(value: datetime.datetime) -> tuple[datetime.datetime, int]:
    return _plain(value), int(getattr(value, "nanosecond", 0) or 0)


def _with_nanos(value: datetime.datetime, nanosecond: int) -> datetime.datetime:
    if not nanosecond:
        return value
    moved = NanoTimestamp(
        value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond,
        value.tzinfo, fold=value.fold,
    )  # fmt: skip
    moved._nanosecond = nanosecond
    return moved


def nano_of_second(value: Any) -> int:
    """The nanoseconds within the second of a ``datetime`` / ``time`` (with those a
    ``NanoTimestamp`` or ``pandas.Timestamp`` keeps below the microseconds)."""
    return value.microsecond * 1000 + int(getattr(value, "nanosecond", 0) or 0)


def with_nano_of_second(value: datetime.datetime, nanos: int) -> datetime.datetime:
    """``value`` with its fraction of a second set to ``nanos`` (0..999,999,999): a plain
    ``datetime`` when they are whole microseconds, else a ``NanoTimestamp``."""
    plain = datetime.datetime(
        value.year, value.month, value.day, value.hour, value.minute, value.second, nanos // 1000,
        value.tzinfo, fold=value.fold,
    )  # fmt: skip
    return _with_nanos(plain, nanos % 1000)


def to_epoch_nanos(value: datetime.datetime) -> int:
    """Nanoseconds since the epoch of a TIMESTAMP value (its wall clock taken as UTC; a value
    with a zone: its instant)."""
    start = EPOCH if value.tzinfo is None else EPOCH.replace(tzinfo=datetime.UTC)
    whole = _plain(value).replace(microsecond=0)
    return (whole - start) // datetime.timedelta(seconds=1) * 1_000_000_000 + nano_of_second(value)


def from_epoch_nanos(nanos: int) -> datetime.datetime:
    """The TIMESTAMP value (UTC wall clock) of nanoseconds since the epoch."""
    seconds, fraction = divmod(nanos, 1_000_000_000)
    return with_nano_of_second(EPOCH + datetime.timedelta(seconds=seconds), fraction)


def _utc_zone() -> bool:
    return time.timezone == 0 and time.altzone == 0


def instant_epoch_nanos(value: datetime.datetime) -> int:
    """Nanoseconds since the epoch of a TIMESTAMP_LTZ value's instant (a value without a zone
    is the local wall clock, as the row path holds them)."""
    if value.tzinfo is None and not _utc_zone():
        value = value.astimezone(datetime.UTC)  # (a NanoTimestamp keeps its nanoseconds)
    return to_epoch_nanos(value)


def arrow_nano_timestamps(array: Any) -> list[datetime.datetime | None] | None:
    """The values of an Arrow ``timestamp[ns]`` array (a TIMESTAMP(7..9) or TIMESTAMP_LTZ(7..9)
    column) as the row path holds them, their nanoseconds kept: an array with a zone holds
    instants, given as the local wall clock (TIMESTAMP_LTZ). None for any other array, whose
    ``to_pylist`` gives its values (of a ``timestamp[ns]`` array pandas' or, without pandas,
    an error past the microseconds)."""
    kind = array.type
    if not str(kind).startswith("timestamp[ns"):
        return None
    values: list[datetime.datetime | None] = [
        None if n is None else from_epoch_nanos(n) for n in array.cast("int64").to_pylist()
    ]
    if kind.tz is None or _utc_zone():
        return values
    utc = datetime.UTC
    return [None if v is None else v.replace(tzinfo=utc).astimezone().replace(tzinfo=None) for v in values]


def to_epoch_millis(value: Any, root: str) -> int:
    """Epoch milliseconds of a TIMESTAMP (as UTC) or TIMESTAMP_LTZ (in the local zone) value."""
    if root == "TIMESTAMP_LTZ":
        if value.tzinfo is None:
            if _utc_zone():  # a UTC local zone: no zone lookup (slow)
                return (value - EPOCH) // _MILLI
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


def _fraction(nanos: int) -> str:
    """Java's nano-of-second text: none, or groups of three digits as needed."""
    if nanos == 0:
        return ""
    if nanos % 1_000_000 == 0:
        return f".{nanos // 1_000_000:03d}"
    if nanos % 1000 == 0:
        return f".{nanos // 1000:06d}"
    return f".{nanos:09d}"


def java_local_time_string(value: datetime.time | datetime.datetime) -> str:
    """``LocalTime.toString``: ``03:04``, ``03:04:05``, ``03:04:05.500``."""
    text = f"{value.hour:02d}:{value.minute:02d}"
    nanos = nano_of_second(value)
    if value.second or nanos:
        text += f":{value.second:02d}{_fraction(nanos)}"
    return text


def java_local_date_time_string(value: datetime.datetime) -> str:
    """``LocalDateTime.toString``: ``1970-01-01T00:00``, ``...T00:00:01``, ``...T00:00:04.500``,
    ``...T03:04:05.123456789``."""
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d}T{java_local_time_string(value)}"


def java_instant_string(value: datetime.datetime) -> str:
    """``Instant.toString`` of a TIMESTAMP_LTZ value: ``1970-01-01T00:00:04.500Z`` (UTC)."""
    utc = value.astimezone(datetime.UTC) if value.tzinfo is None else value
    utc = utc.astimezone(datetime.UTC)
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"
        f"{_fraction(nano_of_second(utc))}Z"
    )
