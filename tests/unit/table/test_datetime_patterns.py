"""Java's date-time patterns as Flink 2.3's temporal functions use them
(``millstream.table.functions.datetime_patterns``).

Every expected value is what PyFlink 2.3.0 printed (batch mode, UTC) for the SQL expression named
in the table's comment; the values come from the SQL conformance corpus's PyFlink run
(``tests/differential/sql_conformance.jsonl``, category ``pattern``). A value starting with ``!``
is the message of the error PyFlink raised.
"""

from __future__ import annotations

import datetime

import pytest

from millstream.table.functions.datetime_patterns import (
    LONG_MIN,
    UNPARSED_DATE,
    DateTimeFormatError,
    DateTimePatternError,
    LocalDateTime,
    format_timestamp,
    format_timestamp_string,
    from_unixtime,
    parse_date,
    parse_date_with_format,
    parse_timestamp,
    parse_timestamp_with_format,
    unix_timestamp,
)

A = LocalDateTime(datetime.date(2024, 3, 5), 7, 8, 9, 123_456_789)
B = LocalDateTime(datetime.date(2024, 12, 30), 19, 8, 9, 500_000_000)

# PyFlink 2.3.0 prints, for DATE_FORMAT(TIMESTAMP '2024-03-05 07:08:09.123456789', p) and
# DATE_FORMAT(TIMESTAMP '2024-12-30 19:08:09.5', p) (java.time's DateTimeFormatter):
DATE_FORMAT = [
    ("G", "AD", "AD"),
    ("GGGG", "Anno Domini", "Anno Domini"),
    ("GGGGG", "A", "A"),
    ("u", "2024", "2024"),
    ("uu", "24", "24"),
    ("uuuu", "2024", "2024"),
    ("y", "2024", "2024"),
    ("yy", "24", "24"),
    ("yyy", "2024", "2024"),
    ("yyyy", "2024", "2024"),
    ("yyyyy", "02024", "02024"),
    ("Y", "2024", "2025"),
    ("YY", "24", "25"),
    ("YYYY", "2024", "2025"),
    ("Q", "1", "4"),
    ("QQ", "01", "04"),
    ("QQQ", "Q1", "Q4"),
    ("QQQQ", "1st quarter", "4th quarter"),
    ("QQQQQ", "1", "4"),
    ("q", "1", "4"),
    ("qq", "01", "04"),
    ("M", "3", "12"),
    ("MM", "03", "12"),
    ("MMM", "Mar", "Dec"),
    ("MMMM", "March", "December"),
    ("MMMMM", "M", "D"),
    ("L", "3", "12"),
    ("LL", "03", "12"),
    ("LLL", "Mar", "Dec"),
    ("LLLL", "March", "December"),
    ("w", "10", "1"),
    ("ww", "10", "01"),
    ("W", "2", "5"),
    ("d", "5", "30"),
    ("dd", "05", "30"),
    ("ddd", "!Too many pattern letters: d", "!Too many pattern letters: d"),
    ("D", "65", "365"),
    ("DD", "65", "365"),
    ("DDD", "065", "365"),
    ("DDDD", "!Too many pattern letters: D", "!Too many pattern letters: D"),
    ("F", "5", "2"),
    ("E", "Tue", "Mon"),
    ("EE", "Tue", "Mon"),
    ("EEE", "Tue", "Mon"),
    ("EEEE", "Tuesday", "Monday"),
    ("EEEEE", "T", "M"),
    ("e", "3", "2"),
    ("ee", "03", "02"),
    ("eee", "Tue", "Mon"),
    ("eeee", "Tuesday", "Monday"),
    ("c", "3", "2"),
    ("ccc", "Tue", "Mon"),
    ("cccc", "Tuesday", "Monday"),
    ("a", "AM", "PM"),
    ("aa", "!Too many pattern letters: a", "!Too many pattern letters: a"),
    ("h", "7", "7"),
    ("hh", "07", "07"),
    ("hhh", "!Too many pattern letters: h", "!Too many pattern letters: h"),
    ("K", "7", "7"),
    ("KK", "07", "07"),
    ("k", "7", "19"),
    ("kk", "07", "19"),
    ("H", "7", "19"),
    ("HH", "07", "19"),
    ("HHH", "!Too many pattern letters: H", "!Too many pattern letters: H"),
    ("m", "8", "8"),
    ("mm", "08", "08"),
    ("s", "9", "9"),
    ("ss", "09", "09"),
    ("S", "1", "5"),
    ("SS", "12", "50"),
    ("SSS", "123", "500"),
    ("SSSS", "1234", "5000"),
    ("SSSSSS", "123456", "500000"),
    ("SSSSSSSSS", "123456789", "500000000"),
    (
        "SSSSSSSSSS",
        "!Minimum width must be from 0 to 9 inclusive but was 10",
        "!Minimum width must be from 0 to 9 inclusive but was 10",
    ),
    ("A", "25689123", "68889500"),
    ("n", "123456789", "500000000"),
    ("N", "25689123456789", "68889500000000"),
    ("B", "in the morning", "in the evening"),
    ("V", "!Pattern letter count must be 2: V", "!Pattern letter count must be 2: V"),
    (
        "VV",
        "!Unable to extract ZoneId from temporal 2024-03-05T07:08:09.123456789",
        "!Unable to extract ZoneId from temporal 2024-12-30T19:08:09.500",
    ),
    (
        "z",
        "!Unable to extract ZoneId from temporal 2024-03-05T07:08:09.123456789",
        "!Unable to extract ZoneId from temporal 2024-12-30T19:08:09.500",
    ),
    (
        "zzzz",
        "!Unable to extract ZoneId from temporal 2024-03-05T07:08:09.123456789",
        "!Unable to extract ZoneId from temporal 2024-12-30T19:08:09.500",
    ),
    ("O", "!Unsupported field: OffsetSeconds", "!Unsupported field: OffsetSeconds"),
    ("OOOO", "!Unsupported field: OffsetSeconds", "!Unsupported field: OffsetSeconds"),
    ("X", "!Unsupported field: OffsetSeconds", "!Unsupported field: OffsetSeconds"),
    ("XX", "!Unsupported field: OffsetSeconds", "!Unsupported field: OffsetSeconds"),
    ("XXX", "!Unsupported field: OffsetSeconds", "!Unsupported field: OffsetSeconds"),
    ("x", "!Unsupported field: OffsetSeconds", "!Unsupported field: OffsetSeconds"),
    ("xxx", "!Unsupported field: OffsetSeconds", "!Unsupported field: OffsetSeconds"),
    ("Z", "!Unsupported field: OffsetSeconds", "!Unsupported field: OffsetSeconds"),
    ("ZZZZ", "!Unsupported field: OffsetSeconds", "!Unsupported field: OffsetSeconds"),
    ("ZZZZZ", "!Unsupported field: OffsetSeconds", "!Unsupported field: OffsetSeconds"),
    ("'T'", "T", "T"),
    ("''", "'", "'"),
    ("'o''clock'", "o'clock", "o'clock"),
    ("[yyyy]", "2024", "2024"),
    ("ppH", " 7", "19"),
    ("#", "!Pattern includes reserved character: '#'", "!Pattern includes reserved character: '#'"),
    ("{", "!Pattern includes reserved character: '{'", "!Pattern includes reserved character: '{'"),
    ("b", "!Unknown pattern letter: b", "!Unknown pattern letter: b"),
    ("l", "!Unknown pattern letter: l", "!Unknown pattern letter: l"),
    ("yyyy-MM-dd HH:mm:ss", "2024-03-05 07:08:09", "2024-12-30 19:08:09"),
    ("yy/M/d h:mm a", "24/3/5 7:08 AM", "24/12/30 7:08 PM"),
    ("yyyyMMddHHmmssSSS", "20240305070809123", "20241230190809500"),
    ("EEE, dd MMM yyyy HH:mm:ss", "Tue, 05 Mar 2024 07:08:09", "Mon, 30 Dec 2024 19:08:09"),
    ("YYYY-'W'ww-e", "2024-W10-3", "2025-W01-2"),
    ("yyyy-DDD", "2024-065", "2024-365"),
    ("dd.MM.yy", "05.03.24", "30.12.24"),
    ("hh 'o''clock' a", "07 o'clock AM", "07 o'clock PM"),
    ("HH:mm:ss.SSSSSS", "07:08:09.123456", "19:08:09.500000"),
    ("%Y-%m-%d", "%2024-%8-%5", "%2025-%8-%30"),
    (
        "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
        "!Unsupported field: OffsetSeconds",
        "!Unsupported field: OffsetSeconds",
    ),
]


@pytest.mark.parametrize(("pattern", "expected_a", "expected_b"), DATE_FORMAT)
def test_date_format_of_a_timestamp_uses_java_time_pattern_letters(
    pattern: str, expected_a: str, expected_b: str
) -> None:
    for moment, expected in ((A, expected_a), (B, expected_b)):
        if expected.startswith("!"):
            with pytest.raises((DateTimePatternError, DateTimeFormatError)) as raised:
                format_timestamp(moment, pattern)
            assert str(raised.value) == expected[1:]
        else:
            assert format_timestamp(moment, pattern) == expected


def test_date_format_takes_a_datetime_and_a_value_with_nanoseconds() -> None:
    """A TIMESTAMP(9) value keeps its nanoseconds: ``S`` up to nine digits prints them."""

    class WithNanos(datetime.datetime):
        nanosecond = 789

    value = WithNanos(2024, 3, 5, 7, 8, 9, 123456)
    assert format_timestamp(value, "HH:mm:ss.SSSSSSSSS") == "07:08:09.123456789"
    assert format_timestamp(datetime.datetime(2024, 3, 5, 7, 8, 9, 123456), "SSSSSSSSS") == "123456000"


# PyFlink 2.3.0 prints, for TO_TIMESTAMP(s[, fmt]), TO_DATE(s[, fmt]) and UNIX_TIMESTAMP(s[, fmt]):
PARSE = [
    ("2024-03-05 07:08:09", None, "2024-03-05 07:08:09.000", "2024-03-05", "1709622489"),
    ("2024-03-05 07:08:09.123", None, "2024-03-05 07:08:09.123", "2024-03-05", "1709622489"),
    ("2024-03-05", None, "2024-03-05 00:00:00.000", "2024-03-05", "-9223372036854775808"),
    ("2024-03-05T07:08:09", None, "<NULL>", "<NULL>", "-9223372036854775808"),
    ("garbage", None, "<NULL>", "<NULL>", "-9223372036854775808"),
    ("", None, "<NULL>", "<NULL>", "-9223372036854775808"),
    ("2024-02-30 00:00:00", None, "2024-02-29 00:00:00.000", "<NULL>", "1709251200"),
    ("2024-3-5 7:8:9", None, "2024-03-05 07:08:09.000", "2024-03-05", "1709622489"),
    (" 2024-03-05 07:08:09", None, "<NULL>", "<NULL>", "1709622489"),
    ("05/03/2024 07:08", "dd/MM/yyyy HH:mm", "2024-03-05 07:08:00.000", "2024-03-05", "1709622480"),
    (
        "2024-03-05 07:08:09.123456789",
        "yyyy-MM-dd HH:mm:ss.SSSSSSSSS",
        "2024-03-05 07:08:09.123",
        "2024-03-06",
        "1709745945",
    ),
    ("2024-03-05 07:08:09.1", "yyyy-MM-dd HH:mm:ss.S", "2024-03-05 07:08:09.100", "2024-03-05", "1709622489"),
    (
        "2024-03-05 07:08:09.12",
        "yyyy-MM-dd HH:mm:ss.SSS",
        "2024-03-05 07:08:09.120",
        "2024-03-05",
        "1709622489",
    ),
    ("2024-03-05T07:08:09", "yyyy-MM-dd'T'HH:mm:ss", "2024-03-05 07:08:09.000", "2024-03-05", "1709622489"),
    ("24/3/5 7:08 PM", "yy/M/d h:mm a", "2024-03-05 19:08:00.000", "2024-03-05", "1709665680"),
    ("2024-065", "yyyy-DDD", "2024-03-05 00:00:00.000", "2024-03-05", "1709596800"),
    ("Tue, 5 Mar 2024", "EEE, d MMM yyyy", "2024-03-05 00:00:00.000", "2024-03-05", "1709596800"),
    ("20240305", "yyyyMMdd", "2024-03-05 00:00:00.000", "2024-03-05", "1709596800"),
    ("20240305070809", "yyyyMMddHHmmss", "2024-03-05 07:08:09.000", "2024-03-05", "1709622489"),
    (
        "2024-03-05 07:08:09 +0800",
        "yyyy-MM-dd HH:mm:ss Z",
        "2024-03-05 07:08:09.000",
        "2024-03-04",
        "1709593689",
    ),
    (
        "2024-03-05 07:08:09 +08:00",
        "yyyy-MM-dd HH:mm:ss XXX",
        "2024-03-05 07:08:09.000",
        "2024-03-04",
        "1709593689",
    ),
    (
        "2024-03-05 07:08:09.001 +0800",
        "yyyy-MM-dd HH:mm:ss.SSS X",
        "2024-03-05 07:08:09.001",
        "2024-03-04",
        "1709593689",
    ),
    ("1970-01-01 08:00:01.001", "yyyy-MM-dd HH:mm:ss.SSS", "1970-01-01 08:00:01.001", "1970-01-01", "28801"),
    ("1970-01-01 08:00:01.001 +0800", "yyyy-MM-dd HH:mm:ss.SSS", "<NULL>", "1970-01-01", "28801"),
    (
        "1970-01-01 08:00:01.001",
        "yyyy-MM-dd HH:mm:ss.SSS X",
        "1970-01-01 08:00:01.001",
        "5471-09-27",
        "-9223372036854775808",
    ),
    ("2024", "yyyy", "2024-01-01 00:00:00.000", "2024-01-01", "1704067200"),
    ("2024-03", "yyyy-MM", "2024-03-01 00:00:00.000", "2024-03-01", "1709251200"),
    ("07:08:09", "HH:mm:ss", "1970-01-01 07:08:09.000", "1970-01-01", "25689"),
    (
        "2024-W10-2",
        "YYYY-'W'ww-e",
        "2024-03-04 00:00:00.000",
        "!Illegal pattern character 'e'",
        "!Illegal pattern character 'e'",
    ),
    ("12 AM", "hh a", "1970-01-01 00:00:00.000", "1970-01-01", "0"),
    ("March 5, 2024", "MMMM d, yyyy", "2024-03-05 00:00:00.000", "2024-03-05", "1709596800"),
    ("2024-03-05", "#", "<NULL>", "5471-09-27", "-9223372036854775808"),
    ("2024-03-05", "", "2024-03-05 00:00:00.000", "5471-09-27", "-9223372036854775808"),
]


def _printed_timestamp(value: LocalDateTime | None) -> str:
    if value is None:
        return "<NULL>"
    return value.to_datetime().strftime("%Y-%m-%d %H:%M:%S.") + f"{value.nano // 1_000_000:03d}"


@pytest.mark.parametrize(("text", "pattern", "timestamp", "date", "unix"), PARSE)
def test_to_timestamp_to_date_and_unix_timestamp_read_as_flink(
    text: str, pattern: str | None, timestamp: str, date: str, unix: str
) -> None:
    utc = datetime.UTC
    if pattern is None:
        assert _printed_timestamp(parse_timestamp(text)) == timestamp
        parsed = parse_date(text)
        assert (parsed.isoformat() if parsed else "<NULL>") == date
        assert str(unix_timestamp(text, "yyyy-MM-dd HH:mm:ss", utc)) == unix
        return
    assert _printed_timestamp(parse_timestamp_with_format(text, pattern)) == timestamp
    if date.startswith("!"):
        with pytest.raises(DateTimePatternError, match=date[1:]):
            parse_date_with_format(text, pattern)
        with pytest.raises(DateTimePatternError, match=unix[1:]):
            unix_timestamp(text, pattern, utc)
        return
    assert parse_date_with_format(text, pattern).isoformat() == date
    assert str(unix_timestamp(text, pattern, utc)) == unix


def test_a_text_the_pattern_does_not_read() -> None:
    """PyFlink 2.3.0: ``UNIX_TIMESTAMP('garbage', 'yyyy')`` is -9223372036854775808 and
    ``TO_DATE('2024-03-05', '#')`` prints 5471-09-27 (the date of Long.MIN_VALUE ms, whose
    year 1705471 Flink prints with four digits)."""
    assert unix_timestamp("garbage", "yyyy", datetime.UTC) == LONG_MIN
    assert parse_date_with_format("2024-03-05", "#") == UNPARSED_DATE == datetime.date(5471, 9, 27)


def test_date_format_of_a_string_reads_and_writes_with_simple_date_format() -> None:
    """PyFlink 2.3.0: ``DATE_FORMAT('2024-03-05 07:08:09', 'yyyy/MM/dd')`` is 2024/03/05;
    ``DATE_FORMAT('2024-03-05', 'yyyy/MM/dd')``, ``DATE_FORMAT('garbage', 'yyyy')`` and
    ``DATE_FORMAT('2024-03-05T07:08:09', 'yyyy')`` are NULL (not a failed job)."""
    utc = datetime.UTC
    assert format_timestamp_string("2024-03-05 07:08:09", "yyyy/MM/dd", utc) == "2024/03/05"
    assert format_timestamp_string("2024-03-05", "yyyy/MM/dd", utc) is None
    assert format_timestamp_string("garbage", "yyyy", utc) is None
    assert format_timestamp_string("2024-03-05T07:08:09", "yyyy", utc) is None
    with pytest.raises(DateTimePatternError, match="Illegal pattern character 'e'"):
        format_timestamp_string("garbage", "e", utc)  # the pattern is compiled before the text is read


@pytest.mark.parametrize(
    ("seconds", "pattern", "expected"),
    [
        # PyFlink 2.3.0 prints, for FROM_UNIXTIME(n[, fmt]) (SimpleDateFormat, UTC):
        (44, "yyyy-MM-dd HH:mm:ss", "1970-01-01 00:00:44"),
        (-1, "yyyy-MM-dd HH:mm:ss", "1969-12-31 23:59:59"),
        (1700000000, "yyyy-MM-dd HH:mm:ss", "2023-11-14 22:13:20"),
        (253402300800, "yyyy-MM-dd HH:mm:ss", "10000-01-01 00:00:00"),
        (1700000000, "yyyy", "2023"),
        (1700000000, "HH:mm:ss.SSS", "22:13:20.000"),
        (1700000000, "yyyy-MM-dd'T'HH:mm:ssXXX", "2023-11-14T22:13:20Z"),
        (1700000000, "EEE, d MMM yyyy", "Tue, 14 Nov 2023"),
        (1700000000, "#", "#"),
        (1700000000, "nonsense", "!Illegal pattern character 'n'"),
    ],
)
def test_from_unixtime_writes_with_simple_date_format(seconds: int, pattern: str, expected: str) -> None:
    if expected.startswith("!"):
        with pytest.raises(DateTimePatternError, match=expected[1:]):
            from_unixtime(seconds, pattern, datetime.UTC)
    else:
        assert from_unixtime(seconds, pattern, datetime.UTC) == expected
