"""``java.time.format.DateTimeFormatter`` as Flink's temporal functions use it
(``DATE_FORMAT`` of a TIMESTAMP / DATE, ``TO_TIMESTAMP(s, fmt)``): a pattern compiled as
``DateTimeFormatterBuilder.appendPattern`` compiles it (every letter, Java's errors), printing a
``LocalDateTime``, and parsing strictly with the ``SMART`` resolver (``Parsed.resolve``: a field
the text does not give is taken from ``1970-01-01 00:00:00``, conflicting fields fail)."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from millstream.table.functions.java_dtf_printers import (
    _DAY_PERIODS,
    _DTF_FIELDS,
    _EXCEEDS_PAD,
    _NORMAL,
    _NOT_NEGATIVE,
    _DayPeriod,
    _Fraction,
    _Literal,
    _Number,
    _Offset,
    _Optional,
    _Padded,
    _Parse,
    _Printer,
    _Reduced,
    _Text,
    _WeekBased,
    _Zone,
)
from millstream.table.functions.java_time_fields import (
    _FIRST_DAY_OF_WEEK,
    _JAVA_FIELD_NAMES,
    _MINIMAL_DAYS,
    DateTimeFormatError,
    DateTimePatternError,
    DateTimeValueError,
    LocalDateTime,
    _compute_week,
    _field,
    _localized_day_of_week,
    _start_of_week_offset,
    _year_length,
    local_date_time,
)

__all__ = ["JavaDateTimeFormatter", "date_time_formatter"]


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
