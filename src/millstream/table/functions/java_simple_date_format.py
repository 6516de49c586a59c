"""``java.text.SimpleDateFormat`` as Flink's temporal functions use it (``DATE_FORMAT`` of a
STRING, ``TO_DATE``, ``UNIX_TIMESTAMP``, ``FROM_UNIXTIME``): its own pattern letters (``S`` a
count of milliseconds, ``u`` the ISO day of the week, no ``e`` or ``Q``), formatting an instant in
a zone, and lenient parsing (numbers of any width, ``2024-13-01`` is January 2025, text after the
pattern ignored) on a ``GregorianCalendar`` of the locale ``en``. Its Julian calendar before
1582-10-15 is not modelled (dates are proleptic Gregorian, as java.time's); zone names are the
short ones Python's zone gives."""

from __future__ import annotations

import datetime
import functools
import re
from dataclasses import dataclass

from millstream.table.functions.java_time_fields import (
    _AM_PM,
    _DAYS,
    _MINIMAL_DAYS,
    _MONTHS,
    _SHORT_DAYS,
    _SHORT_MONTHS,
    DateTimePatternError,
    _week_based,
    _week_of_month,
)

__all__ = ["SimpleDateFormat", "session_zone", "simple_date_format"]


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
