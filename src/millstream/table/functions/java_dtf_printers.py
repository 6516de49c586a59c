"""The elements of a compiled ``java.time.format.DateTimeFormatter`` pattern
(``java_date_time_formatter``), each able to print its field of a ``LocalDateTime`` and to parse
it back as Java's ``DateTimeFormatterBuilder`` printer-parsers do: literals, numbers (with
Java's sign styles and widths, reduced years, fractions to the nanosecond, week-based fields),
texts, day periods, zone names and offsets (nothing to print for a ``LocalDateTime``: an
error, as Java's), optional sections and padding."""

from __future__ import annotations

import re

from millstream.table.functions.java_time_fields import (
    _JAVA_FIELD_NAMES,
    DateTimeFormatError,
    LocalDateTime,
    _field,
    _text,
    _texts,
)

__all__ = []


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
