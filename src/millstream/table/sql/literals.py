"""SQL literals as Flink's parser (Calcite) reads and types them.

* character strings: ``''`` inside a literal is one quote and a backslash is an ordinary
  character (the dialect's tokenizer); ``U&'\\0041'`` takes Unicode escapes of four hex digits
  (``UESCAPE '!'`` names another escape character); ``_UTF16'...'`` and ``N'...'`` name a
  character set; fragments on separate lines (``'a'`` newline ``'b'``) are one literal. Each is
  ``CHAR(n) NOT NULL``, ``n`` its length in UTF-16 code units as Java counts it;
* binary strings ``X'0102'``: ``BINARY(n) NOT NULL``;
* exact numerics: ``INT`` or ``BIGINT`` without a fraction (``5.`` too), else
  ``DECIMAL(digits written, digits after the point)``; the unscaled value must fit a BIGINT
  (Calcite's limit); approximate numerics (``1e2``) are ``DOUBLE``;
* ``DATE 'yyyy-MM-dd'``, ``TIME 'HH:mm:ss[.f]'`` (``TIME(p)``, ``p`` the fraction's digits, at
  most 3), ``TIMESTAMP 'yyyy-MM-dd[ HH:mm:ss[.f]]'`` (``TIMESTAMP(p)``, at most 9), read as
  Java's non-lenient ``SimpleDateFormat`` does (one or more digits a field, no field out of
  range);
* intervals: ``INTERVAL '2-3' YEAR TO MONTH`` and every other qualifier, a leading field of at
  most its precision's digits (2 unless given: ``DAY(3)``), the others in range, the fraction
  at most the fractional precision's digits (6 unless given: ``SECOND(2, 6)``) and kept to the
  millisecond; a year-month interval is its months (``INTERVAL MONTH``), a day-time interval
  its milliseconds (``INTERVAL SECOND(3)``), as Flink's planner types them.

Errors carry Calcite's messages (``LiteralError``); the parser and the expression converter
report them as the statement's error.
"""

from __future__ import annotations

import codecs
import datetime
import decimal
import re
from dataclasses import dataclass

from millstream.table.common.timestamps import with_nano_of_second
from millstream.table.common.types import DataType, DataTypes

__all__ = [
    "INTERVAL_UNITS",
    "IntervalQualifier",
    "LiteralError",
    "approximate_numeric",
    "binary_literal",
    "char_length",
    "check_character_set",
    "date_literal",
    "exact_numeric",
    "interval_literal",
    "interval_qualifier",
    "interval_type",
    "interval_unit",
    "time_literal",
    "timestamp_literal",
    "unescape_unicode",
    "unicode_escape_character",
]

_INT_RANGE = range(-(2**31), 2**31)
_BIGINT_RANGE = range(-(2**63), 2**63)


class LiteralError(ValueError):
    """A literal Flink's parser or validator refuses, with Calcite's message."""


def char_length(text: str) -> int:
    """The length of ``text`` as Java counts it: UTF-16 code units (an emoji is two)."""
    return len(text.encode("utf-16-le")) // 2


# -- character strings ------------------------------------------------------------------------------


def unicode_escape_character(text: str) -> str:
    """The escape character ``UESCAPE 'c'`` names (Calcite's ``checkUnicodeEscapeChar``)."""
    if len(text) != 1:
        raise LiteralError(f"UESCAPE '{text}' must be exactly one character")
    if text in '0123456789abcdefABCDEF+"' or text.isspace():
        raise LiteralError(f"UESCAPE '{text}' may not be hex digit, whitespace, plus sign, or double quote")
    return text


def _java_parse_hex(text: str) -> int | None:
    """Java's ``Integer.parseInt(text, 16)``: an optional sign, then hex digits."""
    digits = text[1:] if text[:1] in "+-" else text
    if not digits or any(c not in "0123456789abcdefABCDEF" for c in digits):
        return None
    value = int(digits, 16)
    return -value if text[0] == "-" else value


def unescape_unicode(text: str, escape: str = "\\") -> str:
    """A ``U&'...'`` literal's text with its escapes replaced, as Calcite's
    ``SqlLiteral.unescapeUnicode`` does: the escape character twice is itself, else it takes
    the next four characters as a hexadecimal UTF-16 code unit (Java's ``parseInt``, so
    ``\\+01F`` is U+001F); a surrogate pair makes one character."""
    units: list[int] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c != escape:
            units.extend(_utf16_units(c))
            i += 1
            continue
        if i + 1 < n and text[i + 1] == escape:
            units.extend(_utf16_units(escape))
            i += 2
            continue
        value = _java_parse_hex(text[i + 1 : i + 5]) if i + 5 <= n else None
        if value is None:
            raise LiteralError(
                f"Unicode escape sequence starting at character {i} is not exactly four hex digits"
            )
        units.append(value & 0xFFFF)
        i += 5
    data = b"".join(u.to_bytes(2, "little") for u in units)
    return data.decode("utf-16-le", errors="surrogatepass")


def _utf16_units(c: str) -> list[int]:
    data = c.encode("utf-16-le", errors="surrogatepass")
    return [int.from_bytes(data[k : k + 2], "little") for k in range(0, len(data), 2)]


# Calcite's names of character sets, as Java's Charset.forName knows them (SqlUtil.getCharset)
_CHARSETS = {"UTF16": "utf-16", "UTF-16": "utf-16", "UTF8": "utf-8", "UTF-8": "utf-8", "LATIN1": "latin-1"}


def check_character_set(name: str, text: str) -> None:
    """``_charset'text'``: the character set is known and can encode the text (Calcite's
    ``unknownCharacterSet`` / ``charsetEncoding`` errors)."""
    try:
        codec = codecs.lookup(_CHARSETS.get(name.upper(), name))
    except LookupError as err:
        raise LiteralError(f"Unknown character set '{name}'") from err
    try:
        text.encode(codec.name)
    except UnicodeEncodeError as err:
        raise LiteralError(f"Failed to encode '{text}' in character set '{name}'") from err


# -- binary strings ---------------------------------------------------------------------------------


def binary_literal(fragments: list[str]) -> bytes:
    """The bytes of ``X'0102'`` and its continuations on later lines. A continued literal
    concatenates the fragments' bits as Calcite's ``BitString.concat`` does, without their
    leading zero bits (``X'01'`` newline ``'02'`` is ``x'0006'`` on Flink 2.3)."""
    for fragment in fragments:
        if any(c not in "0123456789abcdefABCDEF" for c in fragment):
            raise LiteralError("Binary literal string must contain only characters '0' - '9', 'A' - 'F'")
        if len(fragment) % 2:
            raise LiteralError("Binary literal string must contain an even number of hexits")
    if len(fragments) == 1:
        return bytes.fromhex(fragments[0])
    bit_count = sum(len(f) * 4 for f in fragments)
    bits = "".join(format(int(f, 16), "b") if f else "" for f in fragments)
    value = int(bits, 2) if bits else 0
    size = (bit_count + 7) // 8
    return (value % (1 << (8 * size))).to_bytes(size, "big") if size else b""


# -- numbers ----------------------------------------------------------------------------------------


def exact_numeric(text: str) -> tuple[int | decimal.Decimal, DataType]:
    """An exact numeric literal (``-`` folded in, as Calcite's parser does): INT, BIGINT or
    DECIMAL(p, s) NOT NULL, Calcite's ``SqlNumericLiteral`` rules."""
    negative = text.startswith("-")
    digits = text.lstrip("+-")
    point = digits.find(".")
    if point < 0 or point == len(digits) - 1:  # 12 or 12.: an integer
        whole = digits.rstrip(".")
        value = -int(whole) if negative else int(whole)
        if value in _INT_RANGE:
            return value, DataTypes.INT(False)
        if value in _BIGINT_RANGE:
            return value, DataTypes.BIGINT(False)
        raise LiteralError(f"Numeric literal '{text}' out of range")
    number = abs(decimal.Decimal(digits))  # no negative zero: -0.0 is 0.0, as Java's BigDecimal
    number = -number if negative else number
    unscaled = int(digits.replace(".", ""))
    if unscaled not in _BIGINT_RANGE:  # the unscaled value must fit a long (Calcite's validator)
        raise LiteralError(f"Numeric literal '{text}' out of range")
    return number, DataTypes.DECIMAL(len(digits) - 1, len(digits) - point - 1, False)


def approximate_numeric(text: str) -> tuple[float, DataType]:
    """An approximate numeric literal (``1e2``): DOUBLE NOT NULL; out of a double's range an
    error. Calcite holds the literal as a BigDecimal, which has no negative zero: ``-0.0e0`` is
    0.0 (PyFlink 2.3.0 prints 0.0, and groups it with 0.0)."""
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise LiteralError(f"Numeric literal '{text.upper()}' out of range")
    return value + 0.0, DataTypes.DOUBLE(False)


# -- dates and times --------------------------------------------------------------------------------

_DATE = r"(\d+)-(\d+)-(\d+)"
_TIME = r"(\d+):(\d+):(\d+)"
_FRACTION = r"(?:\.(\d*))?"
_DATE_RE = re.compile(_DATE)
_TIME_RE = re.compile(_TIME + _FRACTION)
_TIMESTAMP_RE = re.compile(_DATE + " " + _TIME + _FRACTION)
_DATE_ONLY_RE = re.compile(_DATE + _FRACTION)


def _illegal(kind: str, text: str, pattern: str) -> LiteralError:
    return LiteralError(f"Illegal {kind} literal '{text}': not in format '{pattern}'")


def _date(groups: tuple[str, ...]) -> datetime.date | None:
    try:
        return datetime.date(int(groups[0]), int(groups[1]), int(groups[2]))
    except ValueError:
        return None


def _time(groups: tuple[str, ...]) -> tuple[int, int, int] | None:
    hour, minute, second = (int(g) for g in groups)
    return (hour, minute, second) if hour < 24 and minute < 60 and second < 60 else None


def _fraction(text: str | None) -> str | None:
    """The fraction's digits ('' for none); None when a point has no digits after it."""
    if text is None:
        return ""
    return text or None


def date_literal(text: str) -> datetime.date:
    """``DATE 'yyyy-MM-dd'``'s value."""
    match = _DATE_RE.fullmatch(text)
    value = _date(match.groups()) if match else None
    if value is None:
        raise _illegal("DATE", text, "yyyy-MM-dd")
    return value


def time_literal(text: str) -> tuple[datetime.time, int]:
    """``TIME 'HH:mm:ss[.fff]'``'s value and precision (the fraction's digits, at most 3:
    Flink keeps a TIME to the millisecond)."""
    match = _TIME_RE.fullmatch(text)
    fields = _time(match.groups()[:3]) if match else None
    fraction = _fraction(match.group(4)) if match else None
    if fields is None or fraction is None:
        raise _illegal("TIME", text, "HH:mm:ss")
    millis = int((fraction + "000")[:3])
    return datetime.time(*fields, millis * 1000), min(len(fraction), 3)


def timestamp_literal(text: str, kind: str = "TIMESTAMP") -> tuple[datetime.datetime, int]:
    """``TIMESTAMP 'yyyy-MM-dd[ HH:mm:ss][.f]'``'s value and precision (the fraction's digits,
    at most 9; a value of 7 to 9 digits keeps its nanoseconds, a ``NanoTimestamp``)."""
    match = _TIMESTAMP_RE.fullmatch(text)
    if match:
        date, fields, fraction = _date(match.groups()[:3]), _time(match.groups()[3:6]), match.group(7)
    else:
        match = _DATE_ONLY_RE.fullmatch(text)
        date, fields, fraction = (
            (_date(match.groups()[:3]), (0, 0, 0), match.group(4)) if match else (None, None, None)
        )
    digits = _fraction(fraction)
    if date is None or fields is None or digits is None or len(digits) > 9:
        raise _illegal(kind, text, "yyyy-MM-dd HH:mm:ss")
    nanos = int((digits + "000000000")[:9])
    moment = datetime.datetime(date.year, date.month, date.day, *fields)
    return with_nano_of_second(moment, nanos), len(digits)


# -- intervals --------------------------------------------------------------------------------------

# unit -> (year-month?, months or milliseconds of one)
INTERVAL_UNITS: dict[str, tuple[bool, int]] = {
    "YEAR": (True, 12),
    "QUARTER": (True, 3),
    "MONTH": (True, 1),
    "WEEK": (False, 7 * 86_400_000),
    "DAY": (False, 86_400_000),
    "HOUR": (False, 3_600_000),
    "MINUTE": (False, 60_000),
    "SECOND": (False, 1_000),
}
_SPANS = {
    ("YEAR", "MONTH"),
    ("DAY", "HOUR"),
    ("DAY", "MINUTE"),
    ("DAY", "SECOND"),
    ("HOUR", "MINUTE"),
    ("HOUR", "SECOND"),
    ("MINUTE", "SECOND"),
}
_DEFAULT_PRECISION = 2
_DEFAULT_FRACTIONAL_PRECISION = 6
_QUALIFIER = re.compile(r"([A-Z]+)(?:\((\d+)(?:, (\d+))?\))?(?: TO ([A-Z]+)(?:\((\d+)\))?)?")


def interval_unit(name: str) -> str | None:
    """The interval unit a name spells (``DAY``, ``days``), or None."""
    unit = name.upper()
    unit = unit[:-1] if unit.endswith("S") and unit[:-1] in INTERVAL_UNITS else unit
    return unit if unit in INTERVAL_UNITS else None


@dataclass(frozen=True)
class IntervalQualifier:
    """``DAY``, ``DAY(3) TO SECOND(6)``, ``SECOND(2, 6)`` ...: the units and precisions of an
    interval literal or type (None: the default, 2 for the leading field, 6 for a fraction)."""

    start: str
    end: str | None = None
    precision: int | None = None
    fractional_precision: int | None = None

    def __post_init__(self) -> None:
        for unit in (self.start, self.end):
            if unit is not None and unit not in INTERVAL_UNITS:
                raise LiteralError(f"unknown time unit {unit} in an interval")
        if self.end is not None and (self.start, self.end) not in _SPANS:
            raise LiteralError(f"INTERVAL {self.start} TO {self.end} is not an interval qualifier")

    @property
    def year_month(self) -> bool:
        """Whether this is a year-month interval (YEAR, QUARTER, MONTH, YEAR TO MONTH)."""
        return INTERVAL_UNITS[self.start][0]

    @property
    def unit(self) -> str:
        """The unit a number cast to this interval counts: the last field (Calcite's
        ``getUnit``: SECOND for ``HOUR TO SECOND``)."""
        return self.end or self.start

    def data_type(self, nullable: bool = False) -> DataType:
        """Flink's type of this interval: ``INTERVAL MONTH`` or ``INTERVAL SECOND(3)``."""
        return interval_type(self.year_month, nullable)

    def __str__(self) -> str:
        start = self.start + (f"({self.precision})" if self.precision is not None else "")
        if self.end is None:
            if self.start == "SECOND" and self.fractional_precision is not None:
                start = f"SECOND({self.precision or _DEFAULT_PRECISION}, {self.fractional_precision})"
            return start
        end = self.end
        if self.end == "SECOND" and self.fractional_precision is not None:
            end += f"({self.fractional_precision})"
        return f"{start} TO {end}"


def interval_qualifier(text: str) -> IntervalQualifier:
    """The qualifier ``str(IntervalQualifier)`` wrote (``DAY(3) TO SECOND(6)``): how the
    parser hands it on in the tree."""
    match = _QUALIFIER.fullmatch(text)
    if match is None:
        raise LiteralError(f"not an interval qualifier: {text}")
    start, precision, fractional, end, end_fractional = match.groups()
    fraction = fractional or end_fractional
    return IntervalQualifier(
        start, end, int(precision) if precision is not None else None, int(fraction) if fraction else None
    )


def interval_type(year_month: bool, nullable: bool = False) -> DataType:
    """The type Flink's planner gives every year-month interval (``INTERVAL MONTH``) and
    every day-time interval (``INTERVAL SECOND(3)``)."""
    return (
        DataType("INTERVAL_YEAR_MONTH", nullable)
        if year_month
        else DataType("INTERVAL_DAY_TIME", nullable, 3)
    )


def _interval_pattern(qualifier: IntervalQualifier) -> re.Pattern[str]:
    fraction = rf"(?:\.(\d{{1,{qualifier.fractional_precision or _DEFAULT_FRACTIONAL_PRECISION}}}))?"
    if qualifier.end is None:
        return re.compile(r"(\d+)" + (fraction if qualifier.start == "SECOND" else ""))
    fields = {
        ("YEAR", "MONTH"): r"(\d+)-(\d{1,2})",
        ("DAY", "HOUR"): r"(\d+) (\d{1,2})",
        ("DAY", "MINUTE"): r"(\d+) (\d{1,2}):(\d{1,2})",
        ("DAY", "SECOND"): r"(\d+) (\d{1,2}):(\d{1,2}):(\d{1,2})" + fraction,
        ("HOUR", "MINUTE"): r"(\d+):(\d{1,2})",
        ("HOUR", "SECOND"): r"(\d+):(\d{1,2}):(\d{1,2})" + fraction,
        ("MINUTE", "SECOND"): r"(\d+):(\d{1,2})" + fraction,
    }
    return re.compile(fields[(qualifier.start, qualifier.end)])


# the units of the fields an interval's string holds, leading field first
_FIELDS = {
    "YEAR": ["YEAR", "MONTH"],
    "DAY": ["DAY", "HOUR", "MINUTE", "SECOND"],
    "HOUR": ["HOUR", "MINUTE", "SECOND"],
    "MINUTE": ["MINUTE", "SECOND"],
}
_SECONDARY_LIMITS = {"MONTH": 12, "HOUR": 24, "MINUTE": 60, "SECOND": 60}


def interval_literal(text: str, qualifier: IntervalQualifier, sign: int = 1) -> int:
    """``INTERVAL [-]'text' qualifier``'s value: months of a year-month interval, milliseconds
    of a day-time one (Calcite's ``SqlIntervalQualifier.evaluateIntervalLiteral``)."""
    value = text.strip()
    if value[:1] in "+-":
        sign, value = (-sign if value[0] == "-" else sign), value[1:]
    invalid = LiteralError(f"Illegal interval literal format '{text}' for INTERVAL {qualifier}")
    match = _interval_pattern(qualifier).fullmatch(value) if value else None
    if match is None:
        raise invalid
    groups = list(match.groups())
    fraction = groups.pop() if qualifier.unit == "SECOND" else None
    units = [qualifier.start] if qualifier.end is None else _FIELDS[qualifier.start]
    units = units[: units.index(qualifier.end) + 1] if qualifier.end is not None else units
    fields = [int(g) for g in groups]
    precision = qualifier.precision if qualifier.precision is not None else _DEFAULT_PRECISION
    if fields[0] >= 10**precision:
        field = f"{qualifier.start}({precision})"
        raise LiteralError(f"Interval field value {sign * fields[0]} exceeds precision of {field} field")
    if any(f >= _SECONDARY_LIMITS[u] for u, f in zip(units[1:], fields[1:], strict=True)):
        raise invalid
    total = sum(f * INTERVAL_UNITS[u][1] for u, f in zip(units, fields, strict=True))
    if fraction is not None:
        total += int((fraction + "000")[:3])  # to the millisecond, the rest dropped (Calcite's)
    return sign * total
