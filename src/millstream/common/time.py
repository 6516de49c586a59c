"""Duration, Time and Instant, as in ``pyflink.common``; plus Flink's timestamp bounds."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

__all__ = [
    "MAX_TIMESTAMP",
    "MIN_TIMESTAMP",
    "Duration",
    "Instant",
    "Time",
    "TimeDomain",
    "TimestampedValue",
    "java_pattern_to_strftime",
]

#: Long.MIN_VALUE / Long.MAX_VALUE in Flink: "no watermark yet" and "end of time".
MIN_TIMESTAMP = -(2**63)
MAX_TIMESTAMP = 2**63 - 1


@dataclass(frozen=True, slots=True)
class Duration:
    """A span of time, stored in milliseconds (``to_milliseconds``)."""

    millis: int

    @staticmethod
    def of_days(days: int) -> Duration:
        """A duration of ``days`` days."""
        return Duration(days * 86_400_000)

    @staticmethod
    def of_hours(hours: int) -> Duration:
        """A duration of ``hours`` hours."""
        return Duration(hours * 3_600_000)

    @staticmethod
    def of_minutes(minutes: int) -> Duration:
        """A duration of ``minutes`` minutes."""
        return Duration(minutes * 60_000)

    @staticmethod
    def of_seconds(seconds: int) -> Duration:
        """A duration of ``seconds`` seconds."""
        return Duration(seconds * 1000)

    @staticmethod
    def of_millis(millis: int) -> Duration:
        """A duration of ``millis`` milliseconds."""
        return Duration(millis)

    @staticmethod
    def of_nanos(nanos: int) -> Duration:
        """A duration of ``nanos`` nanoseconds (kept at millisecond precision)."""
        return Duration(nanos // 1_000_000)

    def to_milliseconds(self) -> int:
        """The duration in milliseconds."""
        return self.millis


@dataclass(frozen=True, slots=True, init=False)
class Time:
    """A time interval as window assigners and TTL take it (``pyflink.common.Time``)."""

    millis: int

    def __init__(self, milliseconds: int) -> None:
        object.__setattr__(self, "millis", milliseconds)

    @staticmethod
    def milliseconds(milliseconds: int) -> Time:
        """``milliseconds`` milliseconds."""
        return Time(milliseconds)

    @staticmethod
    def seconds(seconds: int) -> Time:
        """``seconds`` seconds."""
        return Time(seconds * 1000)

    @staticmethod
    def minutes(minutes: int) -> Time:
        """``minutes`` minutes."""
        return Time(minutes * 60_000)

    @staticmethod
    def hours(hours: int) -> Time:
        """``hours`` hours."""
        return Time(hours * 3_600_000)

    @staticmethod
    def days(days: int) -> Time:
        """``days`` days."""
        return Time(days * 86_400_000)

    def to_milliseconds(self) -> int:
        """The interval in milliseconds."""
        return self.millis

    def __str__(self) -> str:
        return f"{self.millis} ms"


@dataclass(frozen=True, slots=True)
class Instant:
    """A point on the time line: ``seconds`` since the epoch and ``nanos`` within that second."""

    seconds: int
    nanos: int

    @staticmethod
    def of_epoch_milli(epoch_milli: int) -> Instant:
        """The instant ``epoch_milli`` ms after the epoch."""
        return Instant(epoch_milli // 1000, epoch_milli % 1000 * 1_000_000)

    def to_epoch_milli(self) -> int:
        """Milliseconds since the epoch."""
        return self.seconds * 1000 + self.nanos // 1_000_000

    def __repr__(self) -> str:
        return f"Instant<{self.seconds}, {self.nanos}>"


class TimeDomain(Enum):
    """The time a timer is set in (``pyflink.datastream.TimeDomain``)."""

    EVENT_TIME = 0
    PROCESSING_TIME = 1


class TimestampedValue:
    """An element in an evicting window's buffer, with its timestamp."""

    __slots__ = ("timestamp", "value")

    def __init__(self, value: Any, timestamp: int | None) -> None:
        self.value = value
        self.timestamp = timestamp

    def get_value(self) -> Any:
        """The element."""
        return self.value

    def get_timestamp(self) -> int:
        """The element's timestamp (Long.MIN_VALUE if none)."""
        return MIN_TIMESTAMP if self.timestamp is None else self.timestamp

    def has_timestamp(self) -> bool:
        """Whether the element has a timestamp."""
        return self.timestamp is not None

    def __reduce__(self) -> tuple[Any, tuple[Any, int | None]]:
        return (TimestampedValue, (self.value, self.timestamp))

    def __repr__(self) -> str:
        return f"TimestampedValue({self.value!r}, {self.timestamp})"


# (letter, run length) of Java's DateTimeFormatter -> strftime; a run not listed stays as written
_JAVA_PATTERN_LETTERS = {
    ("y", 4): "%Y",
    ("y", 2): "%y",
    ("M", 2): "%m",
    ("M", 3): "%b",
    ("M", 4): "%B",
    ("d", 2): "%d",
    ("D", 3): "%j",
    ("H", 2): "%H",
    ("h", 2): "%I",
    ("m", 2): "%M",
    ("s", 2): "%S",
    ("S", 3): "%f",
    ("E", 3): "%a",
    ("E", 4): "%A",
    ("a", 1): "%p",
}


def java_pattern_to_strftime(pattern: str) -> str:
    """A Java ``DateTimeFormatter`` pattern as a ``strftime`` one (the common letters;
    ``SSS`` becomes ``%f``, microseconds, which the caller cuts to milliseconds; text in
    single quotes is literal, ``''`` a quote)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "'":
            if pattern.startswith("''", i):  # a quote outside quoted text
                out.append("'")
                i += 2
                continue
            literal, i = [], i + 1
            while i < len(pattern):
                if pattern.startswith("''", i):  # a quote inside quoted text
                    literal.append("'")
                    i += 2
                elif pattern[i] == "'":
                    i += 1
                    break
                else:
                    literal.append(pattern[i])
                    i += 1
            out.append("".join(literal).replace("%", "%%"))
            continue
        run = 1
        while i + run < len(pattern) and pattern[i + run] == char:
            run += 1
        text = pattern[i : i + run]
        out.append(_JAVA_PATTERN_LETTERS.get((char, run), text.replace("%", "%%")))
        i += run
    return "".join(out)
