"""Arrow kernels of the temporal functions and casts, with the row path's values.

A TIMESTAMP_LTZ column is an instant: on Arrow a ``timestamp(unit, tz="UTC")`` array (its
epoch values), in rows a date-time of the session time zone without a zone
(``common/timestamps.py``). A TIMESTAMP column is a wall-clock date-time on both: a
``timestamp(unit)`` array without a zone. Converting one into the other is a matter of the
session zone, which this process's local zone is (``session_zone``): the kernels here convert
only where Arrow gives the row path's values, and the planner keeps the row path otherwise
(``converts_between_zones``).
"""

from __future__ import annotations

import datetime
import functools
import os
import struct
import time
import zoneinfo
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "ToTimestampLtz",
    "converts_between_zones",
    "from_ltz",
    "ltz_input",
    "ltz_values",
    "session_zone",
    "to_ltz",
    "to_timestamp_ltz",
]

# the epoch milliseconds of 0000-01-01 and of the end of 9999-12-31 (functions/temporal.py's range)
_MIN_EPOCH_MILLIS, _MAX_EPOCH_MILLIS = -62167219200000, 253402300799999
_ZONEINFO_ROOTS = ("/usr/share/zoneinfo/", "/usr/lib/zoneinfo/", "/usr/share/lib/zoneinfo/")


@functools.cache
def session_zone() -> str | None:
    """The IANA name of this process's local time zone (the session zone TIMESTAMP_LTZ values
    are held in), or None when it has none Arrow could use."""
    name = os.environ.get("TZ", "").lstrip(":")
    if not name:
        link = os.path.realpath("/etc/localtime") if os.path.exists("/etc/localtime") else ""
        name = next((link[len(root) :] for root in _ZONEINFO_ROOTS if link.startswith(root)), "")
        if not name and not os.path.exists("/etc/localtime") and time.timezone == 0 and not time.daylight:
            name = "UTC"  # no zone configured: the C library's UTC
    if name in ("UTC", "Etc/UTC", "GMT", "Etc/GMT", "UCT", "Zulu", "Universal"):
        return "UTC"
    try:
        zoneinfo.ZoneInfo(name)
    except (ValueError, OSError, KeyError):  # not a zone name (a POSIX TZ rule, a bad path)
        return None
    return name or None


def converts_between_zones(to_instants: bool) -> bool:
    """Whether a cast between TIMESTAMP and TIMESTAMP_LTZ runs on Arrow here: from instants to
    wall-clock times in any zone Arrow knows; to instants only in UTC (a wall-clock time in a
    daylight-saving gap or overlap resolves as Python's ``astimezone`` does, which no Arrow
    option follows)."""
    zone = session_zone()
    return zone == "UTC" if to_instants else zone is not None


class ToTimestampLtz:
    """``TO_TIMESTAMP_LTZ(epoch[, precision])`` of an integral array: the instants of ``epoch``
    seconds (``precision`` 0) or milliseconds (3, the default), as TIMESTAMP_LTZ(3); NULL
    outside the years 0000 to 9999, as the row function (``temporal._ltz_of_number``)."""

    def __call__(self, value: Any, precision: Any = None) -> Any:
        scale = 1000 if precision is not None and precision.as_py() == 0 else 1
        epoch = value.cast(pa.int64())
        within = pc.and_(
            pc.greater_equal(epoch, _int64(-(-_MIN_EPOCH_MILLIS // scale))),
            pc.less_equal(epoch, _int64(_MAX_EPOCH_MILLIS // scale)),
        )
        epoch = pc.if_else(within, epoch, pa.nulls(1, pa.int64())[0])
        millis = pc.multiply(epoch, _int64(scale)) if scale != 1 else epoch
        return millis.cast(pa.timestamp("ms", tz="UTC"))

    @staticmethod
    def accepts(args: list[Any]) -> bool:
        """Whether it computes the call with these argument expressions as the row path does:
        a literal precision of 0 or 3, or none."""
        if len(args) < 2:
            return True
        return type(args[1]).__name__ == "_Literal" and getattr(args[1], "value", None) in (0, 3)


to_timestamp_ltz = ToTimestampLtz()


def _int64(value: int) -> Any:
    """An int64 Arrow scalar made from its bytes: a Python int handed to a compute function
    makes pyarrow import pandas (0.3 s of a TaskManager's first job)."""
    return pa.Array.from_buffers(pa.int64(), 1, [None, pa.py_buffer(struct.pack("<q", value))])[0]


def to_ltz(array: Any, unit: str) -> Any:
    """TIMESTAMP values (wall-clock, no zone) as the TIMESTAMP_LTZ instants they are in the
    session zone, UTC (``converts_between_zones(True)``)."""
    assert session_zone() == "UTC"
    return array.cast(pa.timestamp(unit)).cast(pa.timestamp(unit, tz="UTC"))


def from_ltz(array: Any, unit: str) -> Any:
    """TIMESTAMP_LTZ instants as the wall-clock date-times of the session zone (TIMESTAMP)."""
    zone = session_zone()
    assert zone is not None
    if zone == "UTC":
        return array.cast(pa.timestamp(unit, tz="UTC")).cast(pa.timestamp(unit))
    return pc.local_timestamp(array.cast(pa.timestamp(unit, tz=zone)))


def ltz_values(values: list[Any]) -> list[Any]:
    """Arrow's TIMESTAMP_LTZ values (aware ``datetime``s in UTC) as the row path holds them:
    the session zone's wall-clock date-time, without a zone (in UTC: the same date-time)."""
    if session_zone() == "UTC":
        return [None if v is None else v.replace(tzinfo=None) for v in values]
    utc = datetime.UTC
    return [None if v is None else v.replace(tzinfo=utc).astimezone().replace(tzinfo=None) for v in values]


def ltz_input(value: datetime.datetime) -> datetime.datetime:
    """A row's TIMESTAMP_LTZ value as the instant Arrow builds a ``timestamp(tz="UTC")`` from."""
    if value.tzinfo is not None:
        return value
    return value.replace(tzinfo=datetime.UTC) if session_zone() == "UTC" else value.astimezone(datetime.UTC)
