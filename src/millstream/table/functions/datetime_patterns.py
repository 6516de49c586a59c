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
"""

from __future__ import annotations

import datetime
import functools
import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DateTimeFormatError",
    "DateTimePatternError",
    "DateTimeValueError",
    "JavaDateTimeFormatter",
    "LocalDateTime",
    "SimpleDateFormat",
    "date_time_formatter",
    "local_date_time",
    "simple_date_format",
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


# -- DateTimeFormatter ----------------------------------------------------------------------------

_NORMAL, _NOT_NEGATIVE, _EXCEEDS_PAD = "NORMAL", "NOT_NEGATIVE", "EXCEEDS_PAD"

# letter -> field of DateTimeFormatterBuilder's FIELD_MAP (Java 17: F is the aligned day of week)
_DTF_FIELDS = {
    "G": "ERA",
    "y": "YEAR_OF_ERA",
    "u": "YEAR",
    "Q": "QUARTER",
    "q": "QUARTER",
    "M": "MONTH",
    "L": "MONTH",
    "D": "DAY_OF_YEAR",
    "d": "DAY_OF_MONTH",
    "F": "ALIGNED_DAY_OF_WEEK_IN_MONTH",
    "E": "DAY_OF_WEEK",
    "c": "DAY_OF_WEEK",
    "e": "DAY_OF_WEEK",
    "a": "AMPM",
    "H": "HOUR_OF_DAY",
    "k": "CLOCK_HOUR_OF_DAY",
    "K": "HOUR_OF_AMPM",
    "h": "CLOCK_HOUR_OF_AMPM",
    "m": "MINUTE",
    "s": "SECOND",
    "S": "NANO_OF_SECOND",
    "A": "MILLI_OF_DAY",
    "n": "NANO_OF_SECOND",
    "N": "NANO_OF_DAY",
    "g": "MODIFIED_JULIAN_DAY",
}


class _Parse:
    """The state of one parse: the fields read so far (a field read twice must agree)."""

    def __init__(self) -> None:
        self.fields: dict[str, int] = {}
        self.conflict = False

    def set(self, field: str, value: int) -> None:
        old = self.fields.get(field)
        if old is not None and old != value:
            self.conflict = True
        self.fields[field] = value


class _Printer:
    """One element of a compiled DateTimeFormatter: prints a value, parses text."""

    def print(self, moment: LocalDateTime) -> str:
        raise NotImplementedError

    def parse(self, state: _Parse, text: str, pos: int) -> int:
        """The position after what this element read, or ``~pos`` (negative) where it failed."""
        raise NotImplementedError


class _Literal(_Printer):
    def __init__(self, text: str) -> None:
        self.text = text

    def print(self, moment: LocalDateTime) -> str:
        return self.text

    def parse(self, state: _Parse, text: str, pos: int) -> int:
        if text.startswith(self.text, pos):
            return pos + len(self.text)
        return ~pos


class _Number(_Printer):
    """``appendValue(field, minWidth, maxWidth, signStyle)`` (with adjacent value parsing: a
    variable-width number leaves the digits of the fixed-width ones after it)."""

    def __init__(self, field: str, min_width: int, max_width: int, sign: str, letter: str = "") -> None:
        self.field, self.min_width, self.max_width, self.sign = field, min_width, max_width, sign
        self.subsequent_width = 0
        self.fixed = False
        self.letter = letter

    def value(self, moment: LocalDateTime) -> int:
        return _field(moment, self.field)

    def print(self, moment: LocalDateTime) -> str:
        value = self.value(moment)
        digits = str(abs(value))
        if len(digits) > self.max_width:
            raise DateTimeFormatError(
                f"Field {_JAVA_FIELD_NAMES.get(self.field, self.field)} cannot be printed as the value "
                f"{value} exceeds the maximum print width of {self.max_width}"
            )
        digits = digits.rjust(self.min_width, "0")
        if value < 0:
            if self.sign == _NOT_NEGATIVE:
                raise DateTimeFormatError(
                    f"Field {_JAVA_FIELD_NAMES.get(self.field, self.field)} cannot be printed as the value "
                    f"{value} cannot be negative according to the SignStyle"
                )
            return "-" + digits
        if self.sign == _EXCEEDS_PAD and self.min_width < 19 and value >= 10**self.min_width:
            return "+" + digits
        return digits

    def is_fixed(self) -> bool:
        return self.fixed or (
            self.subsequent_width > 0 and self.min_width == self.max_width and self.sign == _NOT_NEGATIVE
        )

    def parse(self, state: _Parse, text: str, pos: int) -> int:  # noqa: C901 - Java's NumberPrinterParser
        length = len(text)
        if pos == length:
            return ~pos
        start = pos
        negative = positive = False
        if text[pos] == "+":  # strict: a plus sign only where the sign style prints one
            if self.sign != _EXCEEDS_PAD:
                return ~pos
            positive = True
            pos += 1
        elif text[pos] == "-":
            if self.sign not in (_NORMAL, _EXCEEDS_PAD):  # NOT_NEGATIVE: refused (strict)
                return ~pos
            negative = True
            pos += 1
        digits_start = pos
        min_width = self.min_width
        max_width = self.max_width + max(self.subsequent_width, 0)
        end = pos
        for pass_ in range(2):
            limit = min(digits_start + max_width, length)
            end = digits_start
            while end < limit and text[end].isdigit() and text[end].isascii():
                end += 1
            if end < digits_start + min_width:
                return ~start
            if self.subsequent_width > 0 and pass_ == 0:
                max_width = max(min_width, (end - digits_start) - self.subsequent_width)
                continue
            break
        count = end - digits_start
        total = int(text[digits_start:end])
        if negative:
            if total == 0:
                return ~start
            total = -total
        elif self.sign == _EXCEEDS_PAD:
            if positive:
                if count <= self.min_width:
                    return ~start
            elif count > self.min_width:
                return ~digits_start
        return self.set_value(state, total, end)

    def set_value(self, state: _Parse, value: int, end: int) -> int:
        state.set(self.field, value)
        return end


class _Reduced(_Number):
    """``appendValueReduced(field, 2, 2, 2000)``: two digits, read into 2000..2099."""

    def print(self, moment: LocalDateTime) -> str:
        return f"{abs(self.value(moment)) % 100:02d}"

    def parse(self, state: _Parse, text: str, pos: int) -> int:
        limit = min(pos + 2 + max(self.subsequent_width, 0), len(text))
        end = pos
        while end < limit and text[end].isdigit() and text[end].isascii():
            end += 1
        if self.subsequent_width > 0:
            end = max(pos + 2, end - self.subsequent_width)
        if end - pos != 2 or not text[pos:end].isdigit():
            return ~pos
        value = int(text[pos:end])
        return self.set_value(state, 2000 + value, end)


class _Fraction(_Number):
    """``appendFraction(NANO_OF_SECOND, n, n, false)``: the first ``n`` digits of the fraction."""

    def __init__(self, width: int) -> None:
        super().__init__("NANO_OF_SECOND", width, width, _NOT_NEGATIVE, "S")

    def print(self, moment: LocalDateTime) -> str:
        return f"{moment.nano:09d}"[: self.min_width]

    def parse(self, state: _Parse, text: str, pos: int) -> int:
        end = pos + self.min_width
        if end > len(text) or not (text[pos:end].isdigit() and text[pos:end].isascii()):
            return ~pos
        state.set("NANO_OF_SECOND", int(text[pos:end].ljust(9, "0")))
        return end


class _WeekBased(_Number):
    """The fields of ``WeekFields.of(locale)``: localized day of week (``e``, ``c``), week of
    month (``W``), week of week-based year (``w``), week-based year (``Y``)."""

    def print(self, moment: LocalDateTime) -> str:
        if self.letter == "Y" and self.min_width == 2 and self.max_width == 2:
            return f"{abs(self.value(moment)) % 100:02d}"
        return super().print(moment)

    def parse(self, state: _Parse, text: str, pos: int) -> int:
        if self.letter == "Y" and self.min_width == 2 and self.max_width == 2:
            return _Reduced.parse(self, state, text, pos)  # type: ignore[arg-type]
        return super().parse(state, text, pos)


class _Text(_Printer):
    def __init__(self, field: str, style: str) -> None:
        self.field, self.style = field, style

    def print(self, moment: LocalDateTime) -> str:
        return _text(self.field, self.style, _field(moment, self.field))

    def parse(self, state: _Parse, text: str, pos: int) -> int:
        for name, value in _texts(self.field, self.style):
            if text.startswith(name, pos):
                state.set(self.field, value)
                return pos + len(name)
        return ~pos


_DAY_PERIODS = [  # (from minute, to minute, SHORT/FULL text, NARROW text), CLDR 'en'
    (6 * 60, 12 * 60, "in the morning", "in the morning"),
    (12 * 60, 18 * 60, "in the afternoon", "in the afternoon"),
    (18 * 60, 21 * 60, "in the evening", "in the evening"),
]


class _DayPeriod(_Printer):
    """``B``: midnight, noon (at their minute), morning, afternoon, evening, night."""

    def __init__(self, style: str) -> None:
        self.style = style

    def print(self, moment: LocalDateTime) -> str:
        minute = moment.hour * 60 + moment.minute
        narrow = self.style == "NARROW"
        if minute == 0:
            return "mi" if narrow else "midnight"
        if minute == 12 * 60:
            return "n" if narrow else "noon"
        for start, end, text, narrow_text in _DAY_PERIODS:
            if start <= minute < end:
                return narrow_text if narrow else text
        return "at night"

    def parse(self, state: _Parse, text: str, pos: int) -> int:
        narrow = self.style == "NARROW"
        periods = [("midnight" if not narrow else "mi", 0), ("noon" if not narrow else "n", 12 * 60)]
        periods += [(t, (a + b) // 2) for a, b, t, _ in _DAY_PERIODS] + [
            ("at night", (21 * 60 + 30 * 60) // 2 % 1440)
        ]
        for name, middle in sorted(periods, key=lambda p: -len(p[0])):
            if text.startswith(name, pos):
                state.set("DAY_PERIOD", middle)
                return pos + len(name)
        return ~pos


class _Zone(_Printer):
    """Zone and offset letters: a LocalDateTime has neither, so printing fails as Java's."""

    def __init__(self, offset: bool) -> None:
        self.offset = offset

    def print(self, moment: LocalDateTime) -> str:
        if self.offset:
            raise DateTimeFormatError("Unsupported field: OffsetSeconds")
        raise DateTimeFormatError(f"Unable to extract ZoneId from temporal {moment.java_string()}")

    def parse(self, state: _Parse, text: str, pos: int) -> int:
        return ~pos


class _Offset(_Zone):
    """``Z``, ``X``, ``x``, ``O``: an offset, read as ``+HHMM`` / ``+HH:MM`` / ``Z``."""

    def __init__(self, pattern: str, no_offset: str) -> None:
        super().__init__(True)
        self.pattern, self.no_offset = pattern, no_offset

    def parse(self, state: _Parse, text: str, pos: int) -> int:
        if self.no_offset and text.startswith(self.no_offset, pos):
            state.set("OFFSET_SECONDS", 0)
            return pos + len(self.no_offset)
        found = re.compile(r"([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?").match(text, pos)
        if found is None:
            return ~pos
        colon = ":" in self.pattern
        has_minutes = "MM" in self.pattern or "mm" in self.pattern
        body = found.group(0)
        if colon != (":" in body) and found.group(3) is not None:
            return ~pos
        if not has_minutes and found.group(3) is not None:
            end = pos + 3
            minutes = 0
        else:
            if "MM" in self.pattern and found.group(3) is None:
                return ~pos
            end = found.end(3) if found.group(3) is not None else pos + 3
            minutes = int(found.group(3) or 0)
        sign = -1 if found.group(1) == "-" else 1
        state.set("OFFSET_SECONDS", sign * (int(found.group(2)) * 3600 + minutes * 60))
        return end


class _Optional(_Printer):
    """``[...]``: printed when its fields can be printed, skipped in a parse that fails."""

    def __init__(self, parts: list[_Printer]) -> None:
        self.parts = parts

    def print(self, moment: LocalDateTime) -> str:
        try:
            return "".join(p.print(moment) for p in self.parts)
        except DateTimeFormatError:
            return ""

    def parse(self, state: _Parse, text: str, pos: int) -> int:
        trial = _Parse()
        trial.fields = dict(state.fields)
        at = pos
        for part in self.parts:
            at = part.parse(trial, text, at)
            if at < 0:
                return pos
        state.fields, state.conflict = trial.fields, state.conflict or trial.conflict
        return at


class _Padded(_Printer):
    """``p``: the next element padded with spaces on the left to a width."""

    def __init__(self, width: int, inner: _Printer) -> None:
        self.width, self.inner = width, inner

    def print(self, moment: LocalDateTime) -> str:
        text = self.inner.print(moment)
        if len(text) > self.width:
            raise DateTimeFormatError(
                f"Cannot print as output of {len(text)} characters exceeds pad width of {self.width}"
            )
        return text.rjust(self.width)

    def parse(self, state: _Parse, text: str, pos: int) -> int:
        end = min(pos + self.width, len(text))
        at = pos
        while at < end and text[at] == " ":
            at += 1
        result = self.inner.parse(state, text[:end], at)
        return result if result < 0 or result == end else ~pos


class _Builder:
    """DateTimeFormatterBuilder's ``parsePattern``: the elements of a pattern, with its errors."""

    def __init__(self) -> None:
        self.stack: list[list[_Printer]] = [[]]
        self.value_index: list[int] = [-1]
        self.pad: int = 0

    @property
    def active(self) -> list[_Printer]:
        return self.stack[-1]

    def _append(self, printer: _Printer) -> int:
        if self.pad:
            printer = _Padded(self.pad, printer)
            self.pad = 0
        self.active.append(printer)
        self.value_index[-1] = -1
        return len(self.active) - 1

    def literal(self, text: str) -> None:
        if self.active and isinstance(self.active[-1], _Literal) and not self.pad:
            self.active[-1] = _Literal(self.active[-1].text + text)
            self.value_index[-1] = -1
            return
        self._append(_Literal(text))

    def value(self, number: _Number) -> None:
        """``appendValue(NumberPrinterParser)`` with Java's adjacent value parsing."""
        base_index = self.value_index[-1]
        if base_index >= 0 and not self.pad:
            base = self.active[base_index]
            assert isinstance(base, _Number)
            if number.min_width == number.max_width and number.sign == _NOT_NEGATIVE:
                base.subsequent_width += number.max_width
                number.fixed = True
                self.active.append(number)
                return
            base.fixed = base.subsequent_width == 0 or base.fixed
            base.subsequent_width = 0 if base.fixed else base.subsequent_width
            self.active.append(number)
            self.value_index[-1] = len(self.active) - 1
            return
        index = self._append(number)
        self.value_index[-1] = index

    def other(self, printer: _Printer) -> None:
        self._append(printer)

    def optional_start(self) -> None:
        self.stack.append([])
        self.value_index.append(-1)

    def optional_end(self) -> None:
        parts = self.stack.pop()
        self.value_index.pop()
        self._append(_Optional(parts))

    def result(self) -> list[_Printer]:
        while len(self.stack) > 1:
            self.optional_end()
        return self.stack[0]


def _parse_field(b: _Builder, letter: str, count: int, field: str) -> None:  # noqa: C901 - Java's switch
    def too_many() -> DateTimePatternError:
        return DateTimePatternError(f"Too many pattern letters: {letter}")

    if letter in "uy":
        if count == 2:
            b.value(_Reduced(field, 2, 2, _NOT_NEGATIVE, letter))
        elif count < 4:
            b.value(_Number(field, count, 19, _NORMAL, letter))
        else:
            b.value(_Number(field, count, 19, _EXCEEDS_PAD, letter))
        return
    if letter == "c" and count == 1:
        b.value(_WeekBased("LOCALIZED_DAY_OF_WEEK", 1, 1, _NOT_NEGATIVE, letter))
        return
    if letter == "c" and count == 2:
        raise DateTimePatternError('Invalid pattern "cc"')
    if letter in "cLqMQEe":
        if count in (1, 2):
            if letter == "e":
                b.value(_WeekBased("LOCALIZED_DAY_OF_WEEK", count, count, _NOT_NEGATIVE, letter))
            elif letter == "E":
                b.other(_Text(field, "SHORT"))
            elif count == 1:
                b.value(_Number(field, 1, 19, _NORMAL, letter))
            else:
                b.value(_Number(field, 2, 2, _NOT_NEGATIVE, letter))
        elif count in (3, 4, 5):
            b.other(_Text(field, {3: "SHORT", 4: "FULL", 5: "NARROW"}[count]))
        else:
            raise too_many()
        return
    if letter == "a":
        if count != 1:
            raise too_many()
        b.other(_Text(field, "SHORT"))
        return
    if letter == "G":
        if count > 5:
            raise too_many()
        b.other(_Text(field, "SHORT" if count <= 3 else "FULL" if count == 4 else "NARROW"))
        return
    if letter == "S":
        if count > 9:
            raise DateTimePatternError(f"Minimum width must be from 0 to 9 inclusive but was {count}")
        b.value(_Fraction(count))
        return
    if letter == "F":
        if count != 1:
            raise too_many()
        b.value(_Number(field, 1, 19, _NORMAL, letter))
        return
    if letter in "dhHkKms":
        if count == 1:
            b.value(_Number(field, 1, 19, _NORMAL, letter))
        elif count == 2:
            b.value(_Number(field, 2, 2, _NOT_NEGATIVE, letter))
        else:
            raise too_many()
        return
    if letter == "D":
        if count == 1:
            b.value(_Number(field, 1, 19, _NORMAL, letter))
        elif count in (2, 3):
            b.value(_Number(field, count, 3, _NOT_NEGATIVE, letter))
        else:
            raise too_many()
        return
    if letter == "g":
        b.value(_Number(field, count, 19, _NORMAL, letter))
        return
    if letter in "AnN":
        b.value(_Number(field, count, 19, _NOT_NEGATIVE, letter))
        return
    b.value(_Number(field, count, 19 if count == 1 else count, _NORMAL if count == 1 else _NOT_NEGATIVE))


_OFFSET_PATTERNS = [
    "+HH",
    "+HHmm",
    "+HH:mm",
    "+HHMM",
    "+HH:MM",
    "+HHMMss",
    "+HH:MM:ss",
    "+HHMMSS",
    "+HH:MM:SS",
]


def _zone_letter(b: _Builder, letter: str, count: int) -> bool:  # noqa: C901 - Java's branches
    """The zone and offset letters (and W, w, Y, B); False for an unknown letter."""
    if letter == "z":
        if count > 4:
            raise DateTimePatternError(f"Too many pattern letters: {letter}")
        b.other(_Zone(False))
    elif letter == "V":
        if count != 2:
            raise DateTimePatternError(f"Pattern letter count must be 2: {letter}")
        b.other(_Zone(False))
    elif letter == "v":
        if count not in (1, 4):
            raise DateTimePatternError(f"Wrong number of  pattern letters: {letter}")
        b.other(_Zone(False))
    elif letter == "Z":
        if count > 5:
            raise DateTimePatternError(f"Too many pattern letters: {letter}")
        b.other(_Offset("+HHMM" if count < 4 else "+HH:MM:ss", "+0000" if count < 4 else "Z"))
    elif letter == "O":
        if count not in (1, 4):
            raise DateTimePatternError(f"Pattern letter count must be 1 or 4: {letter}")
        b.other(_Offset("+HH:MM", "GMT"))
    elif letter in "Xx":
        if count > 5:
            raise DateTimePatternError(f"Too many pattern letters: {letter}")
        pattern = _OFFSET_PATTERNS[count + (0 if count == 1 else 1)]
        zero = "Z" if letter == "X" else ("+00" if count == 1 else "+0000" if count % 2 == 0 else "+00:00")
        b.other(_Offset(pattern, zero))
    elif letter == "W":
        if count > 1:
            raise DateTimePatternError(f"Too many pattern letters: {letter}")
        b.value(_WeekBased("WEEK_OF_MONTH", count, count, _NOT_NEGATIVE, letter))
    elif letter == "w":
        if count > 2:
            raise DateTimePatternError(f"Too many pattern letters: {letter}")
        b.value(_WeekBased("WEEK_OF_WEEK_BASED_YEAR", count, 2, _NOT_NEGATIVE, letter))
    elif letter == "Y":
        if count == 2:
            b.value(_WeekBased("WEEK_BASED_YEAR", 2, 2, _NOT_NEGATIVE, letter))
        else:
            b.value(_WeekBased("WEEK_BASED_YEAR", count, 19, _NORMAL if count < 4 else _EXCEEDS_PAD, letter))
    elif letter == "B":
        if count not in (1, 4, 5):
            raise DateTimePatternError(f"Wrong number of pattern letters: {letter}")
        b.other(_DayPeriod({1: "SHORT", 4: "FULL", 5: "NARROW"}[count]))
    else:
        return False
    return True


def _compile_dtf(pattern: str) -> list[_Printer]:  # noqa: C901 - Java's parsePattern
    b = _Builder()
    pos, length = 0, len(pattern)
    while pos < length:
        cur = pattern[pos]
        if cur.isascii() and cur.isalpha():
            start = pos
            while pos < length and pattern[pos] == cur:
                pos += 1
            count = pos - start
            if cur == "p":
                pad = 0
                if pos < length and pattern[pos].isascii() and pattern[pos].isalpha():
                    pad = count
                    cur = pattern[pos]
                    start = pos
                    while pos < length and pattern[pos] == cur:
                        pos += 1
                    count = pos - start
                if pad == 0:
                    raise DateTimePatternError(
                        f"Pad letter 'p' must be followed by valid pad pattern: {pattern}"
                    )
                b.pad = pad
            field = _DTF_FIELDS.get(cur)
            if field is not None:
                _parse_field(b, cur, count, field)
            elif not _zone_letter(b, cur, count):
                raise DateTimePatternError(f"Unknown pattern letter: {cur}")
            continue
        if cur == "'":
            start = pos
            pos += 1
            while pos < length:
                if pattern[pos] == "'":
                    if pos + 1 < length and pattern[pos + 1] == "'":
                        pos += 1
                    else:
                        break
                pos += 1
            if pos >= length:
                raise DateTimePatternError(f"Pattern ends with an incomplete string literal: {pattern}")
            literal = pattern[start + 1 : pos]
            b.literal("'" if literal == "" else literal.replace("''", "'"))
        elif cur == "[":
            b.optional_start()
        elif cur == "]":
            if len(b.stack) == 1:
                raise DateTimePatternError("Pattern invalid as it contains ] without previous [")
            b.optional_end()
        elif cur in "{}#":
            raise DateTimePatternError(f"Pattern includes reserved character: '{cur}'")
        else:
            b.literal(cur)
        pos += 1
    return b.result()


class JavaDateTimeFormatter:
    """``DateTimeFormatter.ofPattern(pattern)`` (locale 'en', the SMART resolver)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._printers = _compile_dtf(pattern)

    def format(self, value: Any) -> str:
        """The text of a date-time (``LocalDateTime.format``); raises DateTimeFormatError."""
        moment = value if isinstance(value, LocalDateTime) else local_date_time(value)
        return "".join(p.print(moment) for p in self._printers)

    def parse_fields(self, text: str) -> dict[str, int]:
        """The resolved fields of the whole text; raises DateTimeFormatError (Java's
        DateTimeParseException) when the text does not match or its fields conflict."""
        state = _Parse()
        pos = 0
        for printer in self._printers:
            pos = printer.parse(state, text, pos)
            if pos < 0:
                raise DateTimeFormatError(f"Text '{text}' could not be parsed at index {~pos}")
        if pos != len(text):
            raise DateTimeFormatError(
                f"Text '{text}' could not be parsed, unparsed text found at index {pos}"
            )
        if state.conflict:
            raise DateTimeFormatError(f"Text '{text}' could not be parsed: Conflict found")
        return _resolve(state.fields, text)

    def parse_local(self, text: str, precision: int = 3) -> LocalDateTime:
        """Flink's ``fromTemporalAccessor``: the parsed date-time with what the text does not
        give from 1970-01-01 00:00:00, the fraction cut to ``precision`` digits."""
        fields = self.parse_fields(text)
        values = {
            name: fields.get(name, default)
            for name, default in (
                ("YEAR", 1970),
                ("MONTH", 1),
                ("DAY_OF_MONTH", 1),
                ("HOUR_OF_DAY", 0),
                ("MINUTE", 0),
                ("SECOND", 0),
                ("NANO_OF_SECOND", 0),
            )
        }
        for name in ("MONTH", "DAY_OF_MONTH", "HOUR_OF_DAY", "MINUTE", "SECOND", "NANO_OF_SECOND"):
            low, high = _RANGES[name]
            if not low <= values[name] <= high:
                raise DateTimeValueError(_invalid_value(name, values[name]))
        try:
            date = datetime.date(values["YEAR"], values["MONTH"], values["DAY_OF_MONTH"])
        except ValueError as err:
            raise DateTimeValueError(f"Invalid date in '{text}': {err}") from err
        if fields.get("EXCESS_DAYS") and {"YEAR", "MONTH", "DAY_OF_MONTH"} <= fields.keys():
            date += datetime.timedelta(days=fields["EXCESS_DAYS"])
        nano = values["NANO_OF_SECOND"]
        nano -= nano % 10 ** (9 - precision)
        return LocalDateTime(date, values["HOUR_OF_DAY"], values["MINUTE"], values["SECOND"], nano)


_RANGES = {
    "MONTH": (1, 12),
    "DAY_OF_MONTH": (1, 31),
    "DAY_OF_YEAR": (1, 366),
    "DAY_OF_WEEK": (1, 7),
    "LOCALIZED_DAY_OF_WEEK": (1, 7),
    "WEEK_OF_WEEK_BASED_YEAR": (1, 53),
    "AMPM": (0, 1),
    "HOUR_OF_DAY": (0, 23),
    "HOUR_OF_AMPM": (0, 11),
    "MINUTE": (0, 59),
    "SECOND": (0, 59),
    "NANO_OF_SECOND": (0, 999_999_999),
}
_TIME_FIELDS = ("AMPM", "HOUR_OF_DAY", "HOUR_OF_AMPM", "MINUTE", "SECOND", "NANO_OF_SECOND")


def _parse_error(text: str, reason: str) -> DateTimeFormatError:
    return DateTimeFormatError(f"Text '{text}' could not be parsed: {reason}")


def _check(field: str, value: int, text: str) -> None:
    """A field's value in its range, or Java's DateTimeParseException."""
    low, high = _RANGES[field]
    if not low <= value <= high:
        raise _parse_error(text, _invalid_value(field, value))


def _invalid_value(field: str, value: int) -> str:
    """Java's ``ValueRange.checkValidValue`` message."""
    low, high = _RANGES[field]
    shown = {"DAY_OF_MONTH": "1 - 28/31", "DAY_OF_YEAR": "1 - 365/366"}.get(field, f"{low} - {high}")
    return f"Invalid value for {_JAVA_FIELD_NAMES.get(field, field)} (valid values {shown}): {value}"


def _resolve(fields: dict[str, int], text: str) -> dict[str, int]:  # noqa: C901 - Parsed.resolve
    """``Parsed.resolve`` in SMART style: YEAR, MONTH, DAY_OF_MONTH of a resolved date (or the
    date fields as read, unchecked, when they make no date), and the time fields. A value out
    of range or a field that contradicts the resolved date or time raises DateTimeFormatError
    (Java's DateTimeParseException)."""
    f = dict(fields)
    if "YEAR_OF_ERA" in f:
        yoe = f.pop("YEAR_OF_ERA")
        year = yoe if f.pop("ERA", 1) == 1 else 1 - yoe
        if f.setdefault("YEAR", year) != year:
            raise _parse_error(text, "Conflict found")
    if "LOCALIZED_DAY_OF_WEEK" in f:
        local = f.pop("LOCALIZED_DAY_OF_WEEK")
        _check("LOCALIZED_DAY_OF_WEEK", local, text)
        iso = (_FIRST_DAY_OF_WEEK - 1 + local - 1) % 7 + 1
        if f.setdefault("DAY_OF_WEEK", iso) != iso:
            raise _parse_error(text, "Conflict found")
    date: datetime.date | None = None
    if {"WEEK_BASED_YEAR", "WEEK_OF_WEEK_BASED_YEAR", "DAY_OF_WEEK"} <= f.keys():
        _check("WEEK_OF_WEEK_BASED_YEAR", f["WEEK_OF_WEEK_BASED_YEAR"], text)
        _check("DAY_OF_WEEK", f["DAY_OF_WEEK"], text)
        local = _localized_day_of_week(
            datetime.date(2024, 1, 1) + datetime.timedelta(days=f["DAY_OF_WEEK"] - 1)
        )
        date = _of_week_based_year(f.pop("WEEK_BASED_YEAR"), f.pop("WEEK_OF_WEEK_BASED_YEAR"), local)
    elif "YEAR" in f and "MONTH" in f and "DAY_OF_MONTH" in f:
        year, month, day = f.pop("YEAR"), f.pop("MONTH"), f.pop("DAY_OF_MONTH")
        _check("MONTH", month, text)
        _check("DAY_OF_MONTH", day, text)
        if month in (4, 6, 9, 11):
            day = min(day, 30)
        elif month == 2:
            day = min(day, 29 if _year_length(year) == 366 else 28)
        date = datetime.date(year, month, day)
    elif "YEAR" in f and "DAY_OF_YEAR" in f:
        year, doy = f.pop("YEAR"), f.pop("DAY_OF_YEAR")
        _check("DAY_OF_YEAR", doy, text)
        if doy > _year_length(year):
            raise _parse_error(text, "Invalid date 'DayOfYear 366' as '{year}' is not a leap year")
        date = datetime.date(year, 1, 1) + datetime.timedelta(days=doy - 1)
    out: dict[str, int] = {}
    if date is not None:
        moment = LocalDateTime(date)
        for field in (
            "YEAR",
            "MONTH",
            "DAY_OF_MONTH",
            "DAY_OF_YEAR",
            "DAY_OF_WEEK",
            "QUARTER",
            "ALIGNED_DAY_OF_WEEK_IN_MONTH",
            "WEEK_BASED_YEAR",
            "WEEK_OF_WEEK_BASED_YEAR",
        ):
            if field in f and f.pop(field) != _field(moment, field):  # Parsed.crossCheck
                raise _parse_error(text, "Conflict found")
        out.update(YEAR=date.year, MONTH=date.month, DAY_OF_MONTH=date.day)
    else:
        out.update({name: f[name] for name in ("YEAR", "MONTH", "DAY_OF_MONTH") if name in f})
    _resolve_time(f, out, text)
    return out


def _of_week_based_year(year: int, week: int, dow: int) -> datetime.date:
    first = datetime.date(year, 1, 1)
    offset = _start_of_week_offset(1, _localized_day_of_week(first))
    new_year_week = _compute_week(offset, _year_length(year) + _MINIMAL_DAYS)
    week = min(week, new_year_week - 1)
    return first + datetime.timedelta(days=-offset + (dow - 1) + (week - 1) * 7)


def _in_period(middle: int, minute_of_day: int) -> bool:
    """Whether a minute of the day falls in the day period whose middle is ``middle``."""
    for start, end, _, _ in _DAY_PERIODS:
        if (start + end) // 2 == middle:
            return start <= minute_of_day < end
    if middle in (0, 12 * 60):
        return minute_of_day == middle
    return minute_of_day >= 21 * 60 or minute_of_day < 6 * 60  # night


def _resolve_time(f: dict[str, int], out: dict[str, int], text: str) -> None:  # noqa: C901 - Java's steps
    """``resolveTimeFields``, ``resolveTimeLenient`` and the time part of ``crossCheck``."""

    def hour_of_day(value: int) -> None:
        if f.setdefault("HOUR_OF_DAY", value) != value:
            raise _parse_error(text, "Conflict found")

    if "CLOCK_HOUR_OF_DAY" in f:
        clock = f.pop("CLOCK_HOUR_OF_DAY")
        if clock != 0 and not 1 <= clock <= 24:
            raise _parse_error(text, f"Invalid value for ClockHourOfDay (valid values 1 - 24): {clock}")
        hour_of_day(0 if clock == 24 else clock)
    if "CLOCK_HOUR_OF_AMPM" in f:
        clock = f.pop("CLOCK_HOUR_OF_AMPM")
        if clock != 0 and not 1 <= clock <= 12:
            raise _parse_error(text, f"Invalid value for ClockHourOfAmPm (valid values 1 - 12): {clock}")
        if f.setdefault("HOUR_OF_AMPM", 0 if clock == 12 else clock) != (0 if clock == 12 else clock):
            raise _parse_error(text, "Conflict found")
    if "AMPM" in f and "HOUR_OF_AMPM" in f:
        _check("AMPM", f["AMPM"], text)
        _check("HOUR_OF_AMPM", f["HOUR_OF_AMPM"], text)
        hour_of_day(f.pop("AMPM") * 12 + f.pop("HOUR_OF_AMPM"))
    if "DAY_PERIOD" in f and "HOUR_OF_AMPM" in f:
        hap = f.pop("HOUR_OF_AMPM")
        _check("HOUR_OF_AMPM", hap, text)
        minute = f.get("MINUTE", 0) % 60
        hour_of_day(hap + (12 if _in_period(f["DAY_PERIOD"], (hap % 12 + 12) * 60 + minute) else 0))
        f.pop("DAY_PERIOD")
    if "NANO_OF_DAY" in f:
        nod = f.pop("NANO_OF_DAY")
        hour_of_day(nod // 3_600_000_000_000)
        f["MINUTE"], f["SECOND"] = nod // 60_000_000_000 % 60, nod // 1_000_000_000 % 60
        f["NANO_OF_SECOND"] = nod % 1_000_000_000
    if "MILLI_OF_DAY" in f:
        mod = f.pop("MILLI_OF_DAY")
        hour_of_day(mod // 3_600_000)
        f["MINUTE"], f["SECOND"] = mod // 60_000 % 60, mod // 1000 % 60
        f.setdefault("NANO_OF_SECOND", mod % 1000 * 1_000_000)
    time: tuple[int, int, int, int] | None = None
    read_hour = f.pop("HOUR_OF_DAY", None)
    if read_hour is not None:
        hour = read_hour
        read: dict[str, int] = {
            name: f.pop(name) for name in ("MINUTE", "SECOND", "NANO_OF_SECOND") if name in f
        }
        if ("MINUTE" not in read and read) or (
            "MINUTE" in read and "SECOND" not in read and "NANO_OF_SECOND" in read
        ):
            # Java leaves these unresolved and unchecked; Flink's LocalDateTime.of checks them
            out["HOUR_OF_DAY"] = hour
            out.update(read)
            return
        minute, second, nano = read.get("MINUTE", 0), read.get("SECOND", 0), read.get("NANO_OF_SECOND", 0)
        if hour == 24 and not (minute or second or nano):  # SMART: 24:00 is the next midnight
            hour = 0
            out["EXCESS_DAYS"] = 1
        _check("MINUTE", minute, text)
        _check("NANO_OF_SECOND", nano, text)
        _check("SECOND", second, text)
        _check("HOUR_OF_DAY", hour, text)
        time = (hour, minute, second, nano)
    elif not ({"HOUR_OF_AMPM", "MINUTE", "SECOND", "NANO_OF_SECOND"} & f.keys()):
        if "DAY_PERIOD" in f:  # a day period alone: its middle
            f.pop("AMPM", None)
            hour, minute = divmod(f.pop("DAY_PERIOD"), 60)
            time = (hour, minute, 0, 0)
        elif "AMPM" in f:  # AM or PM alone: six o'clock in it
            _check("AMPM", f["AMPM"], text)
            time = (f.pop("AMPM") * 12 + 6, 0, 0, 0)
    for name in _TIME_FIELDS:
        if name in f:
            _check(name, f[name], text)
    if time is None:
        out.update({name: f[name] for name in ("MINUTE", "SECOND", "NANO_OF_SECOND") if name in f})
        return
    hour, minute, second, nano = time
    if ("AMPM" in f and f["AMPM"] != hour // 12) or ("HOUR_OF_AMPM" in f and f["HOUR_OF_AMPM"] != hour % 12):
        raise _parse_error(text, "Conflict found")
    if "DAY_PERIOD" in f and not _in_period(f["DAY_PERIOD"], hour * 60 + minute):
        raise _parse_error(text, "Conflict found")
    out.update(HOUR_OF_DAY=hour, MINUTE=minute, SECOND=second, NANO_OF_SECOND=nano)


@functools.lru_cache(maxsize=256)
def date_time_formatter(pattern: str) -> JavaDateTimeFormatter:
    """The compiled ``DateTimeFormatter.ofPattern(pattern)`` (cached per pattern); raises
    DateTimePatternError as Java's ``ofPattern`` throws."""
    return JavaDateTimeFormatter(pattern)


# -- SimpleDateFormat -----------------------------------------------------------------------------

_SDF_LETTERS = "GyMdkHmsSEDFwWahKzZYuXL"


@dataclass(frozen=True)
class _SdfField:
    letter: str
    count: int
    follows_field: bool = False  # the next element is a numeric field (obeyCount: read ``count`` digits)


_SdfElement = _SdfField | str


def _compile_sdf(pattern: str) -> list[_SdfElement]:  # noqa: C901 - SimpleDateFormat.compile
    out: list[_SdfElement] = []
    pos, length = 0, len(pattern)
    in_quote = False
    literal = ""
    while pos < length:
        c = pattern[pos]
        if c == "'":
            if pos + 1 < length and pattern[pos + 1] == "'":
                literal += "'"
                pos += 2
                continue
            in_quote = not in_quote
            pos += 1
            continue
        if in_quote or not (c.isascii() and c.isalpha()):
            literal += c
            pos += 1
            continue
        if c not in _SDF_LETTERS:
            raise DateTimePatternError(f"Illegal pattern character '{c}'")
        start = pos
        while pos < length and pattern[pos] == c:
            pos += 1
        count = pos - start
        if c == "X" and count > 3:
            raise DateTimePatternError(f"invalid ISO 8601 format: length={count}")
        if literal:
            out.append(literal)
            literal = ""
        out.append(_SdfField(c, count))
    if in_quote:
        raise DateTimePatternError("Unterminated quote")
    if literal:
        out.append(literal)
    for i, element in enumerate(out[:-1]):
        following = out[i + 1]
        if isinstance(element, _SdfField) and isinstance(following, _SdfField):
            # shouldObeyCount: the next field is a number (M and L only as MM or M)
            numeric = following.letter in "ydkHmsSDFwWhKYu" or (
                following.letter in "ML" and following.count <= 2
            )
            out[i] = _SdfField(element.letter, element.count, numeric)
    return out


def _zone_offset_seconds(zone: datetime.tzinfo, moment: datetime.datetime) -> int:
    offset = zone.utcoffset(moment.replace(tzinfo=None) if zone is datetime.UTC else moment)
    return int(offset.total_seconds()) if offset is not None else 0


def _zone_names(zone: datetime.tzinfo, moment: datetime.datetime) -> tuple[str, str]:
    """(short, long) names of the zone at ``moment``, as Java's ``TimeZone`` gives them."""
    key = getattr(zone, "key", None) or str(zone)
    if key in ("UTC", "Etc/UTC", "Z", "UTC+00:00") or zone is datetime.UTC:
        return "UTC", "Coordinated Universal Time"
    name = moment.tzname() or key
    return name, name


def _sdf_number(value: int, count: int) -> str:
    text = str(abs(value)).rjust(count, "0")
    return "-" + text if value < 0 else text


def _week_of_year_sdf(date: datetime.date) -> tuple[int, int]:
    """(week year, week of year) of ``GregorianCalendar`` with Sunday first and one day."""
    return _week_based(date)


def _sdf_format_field(  # noqa: C901 - one per letter
    field: _SdfField, moment: datetime.datetime, year_shift: int = 0
) -> str:
    letter, count = field.letter, field.count
    date = moment.date()
    if letter == "G":
        return "AD"
    if letter in "yY":
        year = (date.year if letter == "y" else _week_of_year_sdf(date)[0]) + year_shift
        if count == 2:
            return f"{year % 100:02d}"
        return _sdf_number(year, count)
    if letter in "ML":
        if count >= 4:
            return _MONTHS[date.month - 1]
        if count == 3:
            return _SHORT_MONTHS[date.month - 1]
        return _sdf_number(date.month, count)
    if letter == "d":
        return _sdf_number(date.day, count)
    if letter == "k":
        return _sdf_number(moment.hour or 24, count)
    if letter == "H":
        return _sdf_number(moment.hour, count)
    if letter == "m":
        return _sdf_number(moment.minute, count)
    if letter == "s":
        return _sdf_number(moment.second, count)
    if letter == "S":
        return _sdf_number(moment.microsecond // 1000, count)
    if letter == "E":
        return _DAYS[date.weekday()] if count >= 4 else _SHORT_DAYS[date.weekday()]
    if letter == "D":
        return _sdf_number(date.timetuple().tm_yday, count)
    if letter == "F":
        return _sdf_number((date.day - 1) // 7 + 1, count)
    if letter == "w":
        return _sdf_number(_week_of_year_sdf(date)[1], count)
    if letter == "W":
        return _sdf_number(_week_of_month(date), count)
    if letter == "a":
        return _AM_PM[moment.hour // 12]
    if letter == "h":
        return _sdf_number(moment.hour % 12 or 12, count)
    if letter == "K":
        return _sdf_number(moment.hour % 12, count)
    if letter == "u":
        return _sdf_number(date.isoweekday(), count)
    assert moment.tzinfo is not None
    offset = _zone_offset_seconds(moment.tzinfo, moment)
    if letter == "z":
        short, long = _zone_names(moment.tzinfo, moment)
        return long if count >= 4 else short
    sign = "-" if offset < 0 else "+"
    hours, minutes = divmod(abs(offset) // 60, 60)
    if letter == "Z":
        return f"{sign}{hours:02d}{minutes:02d}"
    # X: ISO 8601
    if offset == 0:
        return "Z"
    if count == 1:
        return f"{sign}{hours:02d}"
    if count == 2:
        return f"{sign}{hours:02d}{minutes:02d}"
    return f"{sign}{hours:02d}:{minutes:02d}"


class SimpleDateFormat:
    """``new SimpleDateFormat(pattern)`` (locale 'en', lenient) in a time zone."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._elements = _compile_sdf(pattern)

    def format_millis(self, millis: int, zone: datetime.tzinfo) -> str:
        """The text of the epoch ``millis`` in ``zone`` (``SimpleDateFormat.format``). A year
        past Python's 1..9999 is written from the same day 400 years (a whole Gregorian cycle,
        weekdays included) nearer."""
        shift = 0
        while millis >= _CYCLE_START_OF_9600:
            millis -= _CYCLE_MILLIS
            shift += 400
        while millis < _CYCLE_END_OF_400:
            millis += _CYCLE_MILLIS
            shift -= 400
        moment = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC) + datetime.timedelta(milliseconds=millis)
        moment = moment.astimezone(zone)
        return "".join(
            e if isinstance(e, str) else _sdf_format_field(e, moment, shift) for e in self._elements
        )

    def parse_millis(
        self, text: str, zone: datetime.tzinfo, now: datetime.datetime | None = None
    ) -> int | None:
        """The epoch milliseconds ``SimpleDateFormat.parse(text)`` gives in ``zone``, None
        where it throws ``ParseException`` (text after the pattern is ignored; a two-digit year
        falls in the 100 years from 80 years before ``now``)."""
        calendar = _SdfCalendar()
        century_start = _years_before(now or datetime.datetime.now(), 80)
        pos = 0
        for element in self._elements:
            if isinstance(element, str):
                if not text.startswith(element, pos):
                    return None
                pos += len(element)
                continue
            pos = _sdf_parse_field(element, text, pos, calendar, century_start.year)
            if pos < 0:
                return None
        if pos == 0:
            return None
        millis = calendar.millis(zone)
        if calendar.ambiguous_year:
            start = int((century_start.replace(tzinfo=zone) - _EPOCH_UTC).total_seconds() * 1000)
            if millis < start:
                calendar.values["YEAR"] += 100
                millis = calendar.millis(zone)
        return millis


_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def _years_before(moment: datetime.datetime, years: int) -> datetime.datetime:
    try:
        return moment.replace(year=moment.year - years)
    except ValueError:  # February 29
        return moment.replace(year=moment.year - years, day=28)


_CYCLE_MILLIS = 146_097 * 86_400_000  # 400 Gregorian years


class _SdfCalendar:
    """The fields a SimpleDateFormat parse set, in order (``CalendarBuilder``), and the lenient
    ``GregorianCalendar`` computation of an instant from them."""

    def __init__(self) -> None:
        self.values: dict[str, int] = {}
        self.stamp: dict[str, int] = {}
        self._next = 1
        self.ambiguous_year = False

    def set(self, field: str, value: int) -> None:
        self.values[field] = value
        self.stamp[field] = self._next
        self._next += 1

    def _aggregate(self, *fields: str) -> int:
        stamps = [self.stamp.get(f, 0) for f in fields]
        return 0 if 0 in stamps else max(stamps)

    def millis(self, zone: datetime.tzinfo) -> int:
        """The instant of the fields (``GregorianCalendar.computeTime``, lenient)."""
        v = self.values
        year = v.get("YEAR", 1970)
        if v.get("ERA", 1) == 0:
            year = 1 - year
        if self.stamp.get("WEEK_YEAR", 0) > self.stamp.get("YEAR", 0):  # CalendarBuilder's week date
            day = self._week_date(v["WEEK_YEAR"])
        else:
            day = self._fixed_date(year)
        hour_of_day_stamp = self.stamp.get("HOUR_OF_DAY", 0)
        best_hour = max(self._aggregate("HOUR", "AM_PM"), hour_of_day_stamp) or max(
            self.stamp.get("HOUR", 0), self.stamp.get("AM_PM", 0)
        )
        if best_hour and best_hour == hour_of_day_stamp:
            hours = v["HOUR_OF_DAY"]
        else:
            hours = v.get("HOUR", 0) + 12 * v.get("AM_PM", 0)
        millis_of_day = ((hours * 60 + v.get("MINUTE", 0)) * 60 + v.get("SECOND", 0)) * 1000 + v.get(
            "MILLISECOND", 0
        )
        local = (day - _EPOCH_ORDINAL) * 86_400_000 + millis_of_day
        if "ZONE_OFFSET" in v:
            return local - v["ZONE_OFFSET"] * 1000
        if zone is datetime.UTC:
            return local
        wall = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=local)
        return local - _zone_offset_seconds(zone, wall.replace(tzinfo=zone)) * 1000

    def _week_date(self, week_year: int) -> int:
        """``setWeekDate(weekYear, WEEK_OF_YEAR or 1, DAY_OF_WEEK or Sunday)``, lenient."""
        week = self.values.get("WEEK_OF_YEAR", 1)
        day_of_week = self.values.get("DAY_OF_WEEK", 1)
        first = _epoch_day(week_year, 1, 1)
        week_start = _on_or_before(first + 6, 1)
        if week_start - first >= _MINIMAL_DAYS:
            week_start -= 7
        return week_start + (day_of_week - 1) + 7 * (week - 1)

    def _fixed_date(self, year: int) -> int:
        """The day (a proleptic ordinal) the date fields give, by the group set last."""
        v, stamp = self.values, self.stamp
        dom, doy, dow = stamp.get("DAY_OF_MONTH", 0), stamp.get("DAY_OF_YEAR", 0), stamp.get("DAY_OF_WEEK", 0)
        wom = self._aggregate("WEEK_OF_MONTH", "DAY_OF_WEEK")
        dowim = self._aggregate("DAY_OF_WEEK_IN_MONTH", "DAY_OF_WEEK")
        woy = self._aggregate("WEEK_OF_YEAR", "DAY_OF_WEEK")
        best = max(dom, wom, dowim, doy, woy)
        if best == 0:  # no whole group: a week field alone, else the month
            wom = stamp.get("WEEK_OF_MONTH", 0)
            dowim = max(stamp.get("DAY_OF_WEEK_IN_MONTH", 0), dow)
            woy = stamp.get("WEEK_OF_YEAR", 0)
            best = max(wom, dowim, woy)
            if best == 0:
                best = dom = stamp.get("MONTH", 0)
        day_of_week = v.get("DAY_OF_WEEK", 1)  # Calendar's: Sunday 1
        if best in (dom, wom, dowim):
            month = v.get("MONTH", 0)
            year += month // 12
            first = _epoch_day(year, month % 12 + 1, 1)
            if best == dom:
                return first + v.get("DAY_OF_MONTH", 1) - 1
            if best == wom:
                week_start = _on_or_before(first + 6, 1)
                if week_start - first >= _MINIMAL_DAYS:
                    week_start -= 7
                if "DAY_OF_WEEK" in v:
                    week_start = _on_or_before(week_start + 6, day_of_week)
                return week_start + 7 * (v.get("WEEK_OF_MONTH", 1) - 1)
            nth = v.get("DAY_OF_WEEK_IN_MONTH", 1)
            if nth >= 0:
                return _on_or_before(first + 7 * nth - 1, day_of_week)
            last = _epoch_day(year + (month % 12 + 1) // 12, (month % 12 + 1) % 12 + 1, 1) - 1
            return _on_or_before(last + 7 * (nth + 1), day_of_week)
        first = _epoch_day(year, 1, 1)
        if best == doy:
            return first + v["DAY_OF_YEAR"] - 1
        week_start = _on_or_before(first + 6, 1)
        if week_start - first >= _MINIMAL_DAYS:
            week_start -= 7
        if "DAY_OF_WEEK" in v and day_of_week != 1:
            week_start = _on_or_before(week_start + 6, day_of_week)
        return week_start + 7 * (v.get("WEEK_OF_YEAR", 1) - 1)


_EPOCH_ORDINAL = 0  # the fixed dates below count days from 1970-01-01


def _epoch_day(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a proleptic Gregorian date, any year (``month`` 1..12)."""
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


_CYCLE_START_OF_9600 = _epoch_day(9600, 1, 1) * 86_400_000
_CYCLE_END_OF_400 = _epoch_day(400, 1, 1) * 86_400_000


def _on_or_before(fixed: int, day_of_week: int) -> int:
    """The day on or before ``fixed`` that is ``day_of_week`` (Calendar's: Sunday 1)."""
    weekday = (fixed + 4) % 7 + 1  # 1970-01-01 was a Thursday (Calendar's 5)
    return fixed - (weekday - day_of_week) % 7


_SDF_NUMBER = re.compile(r"-?\d+")


def _sdf_parse_field(  # noqa: C901 - SimpleDateFormat.subParse
    field: _SdfField, text: str, start: int, calendar: _SdfCalendar, century_start_year: int
) -> int:
    letter, count = field.letter, field.count
    pos = start
    while True:
        if pos >= len(text):
            return -1
        if text[pos] not in " \t":
            break
        pos += 1
    actual_start = pos

    def number() -> tuple[int, int] | None:
        limit = start + count if field.follows_field else len(text)
        if field.follows_field and start + count > len(text):
            return None
        found = _SDF_NUMBER.match(text[:limit], pos)
        if found is None:
            return None
        return int(found.group(0)), found.end()

    def match(names: list[str], target: str, offset: int = 0) -> int:
        best_end, best_value = -1, -1
        for index, name in enumerate(names):
            if (
                name
                and text[start : start + len(name)].lower() == name.lower()
                and len(name) > best_end - start
            ):
                best_end, best_value = start + len(name), index
        if best_end < 0:
            return -1
        calendar.set(target, best_value + offset)
        return best_end

    if letter == "G":
        return match(["BC", "AD"], "ERA")
    if letter in "yY":
        found = number()
        if found is None:
            return -1
        value, end = found
        if count <= 2 and end - actual_start == 2 and text[actual_start:end].isdigit():
            ambiguous = century_start_year % 100
            calendar.ambiguous_year = value == ambiguous
            value += century_start_year // 100 * 100 + (100 if value < ambiguous else 0)
        calendar.set("YEAR" if letter == "y" else "WEEK_YEAR", value)
        return end
    if letter in "ML":
        if count <= 2:
            found = number()
            if found is None:
                return -1
            calendar.set("MONTH", found[0] - 1)
            return found[1]
        end = match(_MONTHS, "MONTH")
        return end if end > 0 else match(_SHORT_MONTHS, "MONTH")
    if letter == "E":
        sunday_first = _DAYS[6:] + _DAYS[:6]
        end = match(sunday_first, "DAY_OF_WEEK", 1)
        return end if end > 0 else match([d[:3] for d in sunday_first], "DAY_OF_WEEK", 1)
    if letter == "a":
        return match(_AM_PM, "AM_PM")
    if letter in "zZ":
        return _sdf_parse_zone(text, pos, calendar)
    if letter == "X":
        return _sdf_parse_iso_zone(text, pos, count, calendar)
    found = number()
    if found is None:
        return -1
    value, end = found
    target = {
        "d": "DAY_OF_MONTH",
        "k": "HOUR_OF_DAY",
        "H": "HOUR_OF_DAY",
        "m": "MINUTE",
        "s": "SECOND",
        "S": "MILLISECOND",
        "D": "DAY_OF_YEAR",
        "F": "DAY_OF_WEEK_IN_MONTH",
        "w": "WEEK_OF_YEAR",
        "W": "WEEK_OF_MONTH",
        "h": "HOUR",
        "K": "HOUR",
        "u": "DAY_OF_WEEK",
    }[letter]
    if letter == "k" and value == 24:
        value = 0
    if letter == "h" and value == 12:
        value = 0
    if letter == "u":
        value = value % 7 + 1  # ISO 1 (Monday) .. 7 -> Calendar 2 .. 1
    calendar.set(target, value)
    return end


# zone names SimpleDateFormat reads (English): their standard or daylight offsets in minutes
_ZONE_NAMES = {
    "Coordinated Universal Time": 0,
    "Greenwich Mean Time": 0,
    "UTC": 0,
    "GMT": 0,
    "PST": -480,
    "PDT": -420,
    "MST": -420,
    "MDT": -360,
    "CST": -360,
    "CDT": -300,
    "EST": -300,
    "EDT": -240,
    "CET": 60,
    "CEST": 120,
    "EET": 120,
    "EEST": 180,
    "JST": 540,
}


def _sdf_numeric_zone(text: str, pos: int, sign: int, count: int, colon: bool, calendar: _SdfCalendar) -> int:
    """``subParseNumericZone``: ``hh[[:]mm]`` as the letter asks; -1 when it does not read."""
    digits = re.compile(r"\d").match
    if not digits(text, pos):
        return -1
    hours, at = int(text[pos]), pos + 1
    if digits(text, at):
        hours, at = hours * 10 + int(text[at]), at + 1
    elif count > 0 or not colon:
        return -1
    if hours > 23:
        return -1
    minutes = 0
    if count != 1:
        if colon:
            if not text.startswith(":", at):
                return -1
            at += 1
        if not (digits(text, at) and digits(text, at + 1)):
            return -1
        minutes, at = int(text[at : at + 2]), at + 2
        if minutes > 59:
            return -1
    calendar.set("ZONE_OFFSET", sign * (hours * 60 + minutes) * 60)
    return at


def _sdf_parse_zone(text: str, pos: int, calendar: _SdfCalendar) -> int:
    """``z`` / ``Z``: ``+hhmm``, ``GMT+h:mm``, or a zone name."""
    if pos >= len(text):
        return -1
    if text[pos] in "+-":
        return _sdf_numeric_zone(text, pos + 1, -1 if text[pos] == "-" else 1, 0, False, calendar)
    if text[pos : pos + 3].upper() == "GMT":
        at = pos + 3
        if at < len(text) and text[at] in "+-":
            return _sdf_numeric_zone(text, at + 1, -1 if text[at] == "-" else 1, 0, True, calendar)
        calendar.set("ZONE_OFFSET", 0)
        return at
    for name, minutes in sorted(_ZONE_NAMES.items(), key=lambda item: -len(item[0])):
        if text[pos : pos + len(name)].upper() == name.upper():
            calendar.set("ZONE_OFFSET", minutes * 60)
            return pos + len(name)
    return -1


def _sdf_parse_iso_zone(text: str, pos: int, count: int, calendar: _SdfCalendar) -> int:
    """``X``: ``Z``, or ``+hh`` / ``+hhmm`` / ``+hh:mm`` by the letter count."""
    if pos >= len(text):
        return -1
    if text[pos] == "Z":
        calendar.set("ZONE_OFFSET", 0)
        return pos + 1
    if text[pos] not in "+-":
        return -1
    return _sdf_numeric_zone(text, pos + 1, -1 if text[pos] == "-" else 1, count, count == 3, calendar)


@functools.lru_cache(maxsize=256)
def simple_date_format(pattern: str) -> SimpleDateFormat:
    """The compiled ``new SimpleDateFormat(pattern)`` (cached per pattern); raises
    DateTimePatternError as Java's constructor throws."""
    return SimpleDateFormat(pattern)


def session_zone() -> datetime.tzinfo:
    """The session time zone: this process's local zone (the zone TIMESTAMP_LTZ values are
    held in, ``common/timestamps.py``)."""
    zone = datetime.datetime.now().astimezone().tzinfo
    return zone if zone is not None else datetime.UTC


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
