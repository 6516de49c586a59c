"""The pieces Java's date-time formatters share, as Flink's temporal functions use them
(``datetime_patterns``): the errors (``DateTimePatternError``: a pattern Java refuses, with
Java's message; ``DateTimeFormatError``: a value a pattern cannot print or read), the
``LocalDateTime`` value (a date and the time of day to the nanosecond), the English texts
(Java's CLDR data for the locale ``en``: weeks start on Sunday, a first week needs one day) and
the calendar fields of a ``LocalDateTime`` (java.time's ``ChronoField`` / ``IsoFields`` /
``WeekFields``)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DateTimeFormatError",
    "DateTimePatternError",
    "DateTimeValueError",
    "LocalDateTime",
    "local_date_time",
]


class DateTimePatternError(ValueError):
    """A pattern Java refuses (``IllegalArgumentException``), with Java's message."""


class DateTimeFormatError(ValueError):
    """A value a pattern cannot print or a text it cannot read (``DateTimeException``)."""


class DateTimeValueError(ValueError):
    """Fields a pattern read that make no date-time (``LocalDateTime.of`` throws; Flink lets
    it fail the job)."""


# -- values ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LocalDateTime:
    """A date and a time of day to the nanosecond, as ``java.time.LocalDateTime``."""

    date: datetime.date
    hour: int = 0
    minute: int = 0
    second: int = 0
    nano: int = 0

    def java_string(self) -> str:
        """``LocalDateTime.toString``: ``2024-03-05T07:08``, ``...T07:08:09.123456789``."""
        d = self.date
        text = f"{d.year:04d}-{d.month:02d}-{d.day:02d}T{self.hour:02d}:{self.minute:02d}"
        if self.second or self.nano:
            text += f":{self.second:02d}"
            if self.nano:
                if self.nano % 1_000_000 == 0:
                    text += f".{self.nano // 1_000_000:03d}"
                elif self.nano % 1000 == 0:
                    text += f".{self.nano // 1000:06d}"
                else:
                    text += f".{self.nano:09d}"
        return text

    def to_datetime(self) -> datetime.datetime:
        """The ``datetime`` (to the microsecond, the nanoseconds below it dropped)."""
        d = self.date
        return datetime.datetime(
            d.year, d.month, d.day, self.hour, self.minute, self.second, self.nano // 1000
        )


def local_date_time(value: Any) -> LocalDateTime:
    """The ``LocalDateTime`` of a ``datetime`` (its wall clock, a zone ignored), a ``date``
    (midnight) or a ``time`` (on 1970-01-01); nanoseconds from a ``nanosecond`` attribute."""
    if isinstance(value, datetime.datetime):
        nano = value.microsecond * 1000 + int(getattr(value, "nanosecond", 0) or 0)
        return LocalDateTime(value.date(), value.hour, value.minute, value.second, nano)
    if isinstance(value, datetime.date):
        return LocalDateTime(value)
    if isinstance(value, datetime.time):
        nano = value.microsecond * 1000 + int(getattr(value, "nanosecond", 0) or 0)
        return LocalDateTime(datetime.date(1970, 1, 1), value.hour, value.minute, value.second, nano)
    raise TypeError(f"not a date-time value: {value!r}")


# -- English texts (Java's CLDR data for locale 'en') -----------------------------------------------

_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_SHORT_MONTHS = [m[:3] for m in _MONTHS]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]  # ISO order
_SHORT_DAYS = [d[:3] for d in _DAYS]
_QUARTERS = ["1st quarter", "2nd quarter", "3rd quarter", "4th quarter"]
_AM_PM = ["AM", "PM"]
_ERAS = {"SHORT": ["BC", "AD"], "FULL": ["Before Christ", "Anno Domini"], "NARROW": ["B", "A"]}
_FIRST_DAY_OF_WEEK = 7  # Sunday (ISO numbering), locale 'en'
_MINIMAL_DAYS = 1


def _text(field: str, style: str, value: int) -> str:
    """The English text of ``value`` of a text field in a style (SHORT, FULL, NARROW)."""
    if field == "MONTH":
        name = _MONTHS[value - 1]
        return name if style == "FULL" else name[0] if style == "NARROW" else name[:3]
    if field == "DAY_OF_WEEK":
        name = _DAYS[value - 1]
        return name if style == "FULL" else name[0] if style == "NARROW" else name[:3]
    if field == "QUARTER":
        return _QUARTERS[value - 1] if style == "FULL" else str(value) if style == "NARROW" else f"Q{value}"
    if field == "AMPM":
        return _AM_PM[value]
    if field == "ERA":
        return _ERAS[style][value]
    raise AssertionError(field)


def _texts(field: str, style: str) -> list[tuple[str, int]]:
    """The texts a strict parse of ``field`` in ``style`` accepts, longest first."""
    values = {"MONTH": range(1, 13), "DAY_OF_WEEK": range(1, 8), "QUARTER": range(1, 5)}.get(
        field, range(0, 2)
    )
    reverse = {_text(field, style, v): v for v in values}  # a repeated narrow text: the last one
    return sorted(reverse.items(), key=lambda p: -len(p[0]))


# -- calendar fields of a LocalDateTime -----------------------------------------------------------


def _localized_day_of_week(date: datetime.date) -> int:
    return (date.isoweekday() - _FIRST_DAY_OF_WEEK) % 7 + 1


def _start_of_week_offset(day: int, dow: int) -> int:
    week_start = (day - dow) % 7
    offset = -week_start
    if week_start + 1 > _MINIMAL_DAYS:
        offset = 7 - week_start
    return offset


def _compute_week(offset: int, day: int) -> int:
    return (7 + offset + (day - 1)) // 7


def _year_length(year: int) -> int:
    return 366 if (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)) else 365


def _week_of_month(date: datetime.date) -> int:
    offset = _start_of_week_offset(date.day, _localized_day_of_week(date))
    return _compute_week(offset, date.day)


def _week_based(date: datetime.date) -> tuple[int, int]:
    """(week-based year, week of week-based year) of ``WeekFields.of(Locale 'en')``."""
    dow = _localized_day_of_week(date)
    doy = date.timetuple().tm_yday
    offset = _start_of_week_offset(doy, dow)
    week = _compute_week(offset, doy)
    if week == 0:
        return _week_based(date - datetime.timedelta(days=doy))
    new_year_week = _compute_week(offset, _year_length(date.year) + _MINIMAL_DAYS)
    if week >= new_year_week:
        return date.year + 1, week - new_year_week + 1
    return date.year, week


def _field(moment: LocalDateTime, field: str) -> int:  # noqa: C901 - one branch per Java field
    date = moment.date
    if field in ("YEAR", "YEAR_OF_ERA"):
        return date.year  # years 1..9999: era AD, year of era = year
    if field == "ERA":
        return 1
    if field == "MONTH":
        return date.month
    if field == "QUARTER":
        return (date.month - 1) // 3 + 1
    if field == "DAY_OF_MONTH":
        return date.day
    if field == "DAY_OF_YEAR":
        return date.timetuple().tm_yday
    if field == "DAY_OF_WEEK":
        return date.isoweekday()
    if field == "ALIGNED_DAY_OF_WEEK_IN_MONTH":
        return (date.day - 1) % 7 + 1
    if field == "LOCALIZED_DAY_OF_WEEK":
        return _localized_day_of_week(date)
    if field == "WEEK_OF_MONTH":
        return _week_of_month(date)
    if field == "WEEK_BASED_YEAR":
        return _week_based(date)[0]
    if field == "WEEK_OF_WEEK_BASED_YEAR":
        return _week_based(date)[1]
    if field == "MODIFIED_JULIAN_DAY":
        return date.toordinal() - datetime.date(1858, 11, 17).toordinal()
    if field == "AMPM":
        return moment.hour // 12
    if field == "HOUR_OF_DAY":
        return moment.hour
    if field == "CLOCK_HOUR_OF_DAY":
        return moment.hour or 24
    if field == "HOUR_OF_AMPM":
        return moment.hour % 12
    if field == "CLOCK_HOUR_OF_AMPM":
        return moment.hour % 12 or 12
    if field == "MINUTE":
        return moment.minute
    if field == "SECOND":
        return moment.second
    if field == "NANO_OF_SECOND":
        return moment.nano
    if field == "MILLI_OF_DAY":
        return ((moment.hour * 60 + moment.minute) * 60 + moment.second) * 1000 + moment.nano // 1_000_000
    if field == "NANO_OF_DAY":
        return ((moment.hour * 60 + moment.minute) * 60 + moment.second) * 1_000_000_000 + moment.nano
    raise AssertionError(field)


_JAVA_FIELD_NAMES = {
    "YEAR": "Year",
    "YEAR_OF_ERA": "YearOfEra",
    "MONTH": "MonthOfYear",
    "DAY_OF_MONTH": "DayOfMonth",
    "DAY_OF_YEAR": "DayOfYear",
    "HOUR_OF_DAY": "HourOfDay",
    "MINUTE": "MinuteOfHour",
    "SECOND": "SecondOfMinute",
    "NANO_OF_SECOND": "NanoOfSecond",
}
