"""Conformance cases: the Java date-time patterns of DATE_FORMAT, TO_TIMESTAMP, TO_DATE and
UNIX_TIMESTAMP, every pattern letter in the counts Java accepts (and some it refuses)."""

from __future__ import annotations

from scripts.sql_conformance.corpus import A, Corpus, N, S, q
from scripts.sql_conformance.temporal import LTZ

# Java DateTimeFormatter pattern letters, each in the counts Java accepts (and some it refuses).
PATTERNS = [
    "G",
    "GGGG",
    "GGGGG",
    "u",
    "uu",
    "uuuu",
    "y",
    "yy",
    "yyy",
    "yyyy",
    "yyyyy",
    "Y",
    "YY",
    "YYYY",
    "Q",
    "QQ",
    "QQQ",
    "QQQQ",
    "QQQQQ",
    "q",
    "qq",
    "M",
    "MM",
    "MMM",
    "MMMM",
    "MMMMM",
    "L",
    "LL",
    "LLL",
    "LLLL",
    "w",
    "ww",
    "W",
    "d",
    "dd",
    "ddd",
    "D",
    "DD",
    "DDD",
    "DDDD",
    "F",
    "E",
    "EE",
    "EEE",
    "EEEE",
    "EEEEE",
    "e",
    "ee",
    "eee",
    "eeee",
    "c",
    "ccc",
    "cccc",
    "a",
    "aa",
    "h",
    "hh",
    "hhh",
    "K",
    "KK",
    "k",
    "kk",
    "H",
    "HH",
    "HHH",
    "m",
    "mm",
    "s",
    "ss",
    "S",
    "SS",
    "SSS",
    "SSSS",
    "SSSSSS",
    "SSSSSSSSS",
    "SSSSSSSSSS",
    "A",
    "n",
    "N",
    "B",
    "V",
    "VV",
    "z",
    "zzzz",
    "O",
    "OOOO",
    "X",
    "XX",
    "XXX",
    "x",
    "xxx",
    "Z",
    "ZZZZ",
    "ZZZZZ",
    "'T'",
    "''",
    "'o''clock'",
    "[yyyy]",
    "ppH",
    "#",
    "{",
    "b",
    "l",
    "yyyy-MM-dd HH:mm:ss",
    "yy/M/d h:mm a",
    "yyyyMMddHHmmssSSS",
    "EEE, dd MMM yyyy HH:mm:ss",
    "YYYY-'W'ww-e",
    "yyyy-DDD",
    "dd.MM.yy",
    "hh 'o''clock' a",
    "HH:mm:ss.SSSSSS",
    "%Y-%m-%d",
    "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
]
PATTERN_SOURCES = [
    A("TIMESTAMP(9)", "TIMESTAMP '2024-03-05 07:08:09.123456789'"),
    A("TIMESTAMP(3)", "TIMESTAMP '2024-12-30 19:08:09.5'"),
]


def patterns(c: Corpus) -> None:
    for pattern in PATTERNS:
        for source in PATTERN_SOURCES:
            c.lit("pattern", "DATE_FORMAT", f"DATE_FORMAT($0, {q(pattern)})", source)
        c.col("pattern", "DATE_FORMAT", "DATE_FORMAT($0, $1)", PATTERN_SOURCES[0], S(pattern))
    for pattern in ["yyyy-MM-dd HH:mm:ss", "z", "VV", "XXX", "O"]:
        c.lit("pattern", "DATE_FORMAT", f"DATE_FORMAT($0, {q(pattern)})", LTZ)
    for args in [
        (S("2024-03-05 07:08:09"), S("yyyy/MM/dd")),
        (S("2024-03-05"), S("yyyy/MM/dd")),
        (S("garbage"), S("yyyy")),
        (S("2024-03-05T07:08:09"), S("yyyy")),
        (A("DATE", "DATE '2024-03-05'"), S("yyyy/MM/dd EEE")),
        (A("TIMESTAMP(3)", "TIMESTAMP '2024-03-05 07:08:09'"), N("STRING")),
        (N("TIMESTAMP(3)"), S("yyyy")),
        (A("TIME", "TIME '07:08:09'"), S("HH")),
    ]:
        c.both("pattern", "DATE_FORMAT", "DATE_FORMAT($0, $1)", *args)
    parse = [
        ("2024-03-05 07:08:09", None),
        ("2024-03-05 07:08:09.123", None),
        ("2024-03-05", None),
        ("2024-03-05T07:08:09", None),
        ("garbage", None),
        ("", None),
        ("2024-02-30 00:00:00", None),
        ("2024-3-5 7:8:9", None),
        (" 2024-03-05 07:08:09", None),
        ("05/03/2024 07:08", "dd/MM/yyyy HH:mm"),
        ("2024-03-05 07:08:09.123456789", "yyyy-MM-dd HH:mm:ss.SSSSSSSSS"),
        ("2024-03-05 07:08:09.1", "yyyy-MM-dd HH:mm:ss.S"),
        ("2024-03-05 07:08:09.12", "yyyy-MM-dd HH:mm:ss.SSS"),
        ("2024-03-05T07:08:09", "yyyy-MM-dd'T'HH:mm:ss"),
        ("24/3/5 7:08 PM", "yy/M/d h:mm a"),
        ("2024-065", "yyyy-DDD"),
        ("Tue, 5 Mar 2024", "EEE, d MMM yyyy"),
        ("20240305", "yyyyMMdd"),
        ("20240305070809", "yyyyMMddHHmmss"),
        ("2024-03-05 07:08:09 +0800", "yyyy-MM-dd HH:mm:ss Z"),
        ("2024-03-05 07:08:09 +08:00", "yyyy-MM-dd HH:mm:ss XXX"),
        ("2024-03-05 07:08:09.001 +0800", "yyyy-MM-dd HH:mm:ss.SSS X"),
        ("1970-01-01 08:00:01.001", "yyyy-MM-dd HH:mm:ss.SSS"),
        ("1970-01-01 08:00:01.001 +0800", "yyyy-MM-dd HH:mm:ss.SSS"),
        ("1970-01-01 08:00:01.001", "yyyy-MM-dd HH:mm:ss.SSS X"),
        ("2024", "yyyy"),
        ("2024-03", "yyyy-MM"),
        ("07:08:09", "HH:mm:ss"),
        ("2024-W10-2", "YYYY-'W'ww-e"),
        ("12 AM", "hh a"),
        ("March 5, 2024", "MMMM d, yyyy"),
        ("2024-03-05", "#"),
        ("2024-03-05", ""),
    ]
    for text, fmt in parse:
        for fn in ["TO_TIMESTAMP", "TO_DATE", "UNIX_TIMESTAMP"]:
            if fmt is None:
                c.both("pattern", fn, f"{fn}($0)", S(text))
            else:
                c.both("pattern", fn, f"{fn}($0, $1)", S(text), S(fmt))
    for fn in ["TO_TIMESTAMP", "TO_DATE", "UNIX_TIMESTAMP"]:
        c.both("pattern", fn, f"{fn}($0)", N("STRING"))
        c.both("pattern", fn, f"{fn}($0, $1)", S("2024"), N("STRING"))
    c.expr("pattern", "TO_DATE", "TO_DATE(20240305)")
    c.expr("pattern", "TO_TIMESTAMP", "TYPEOF(TO_TIMESTAMP('2024-03-05 07:08:09'))")
    c.expr("pattern", "TO_TIMESTAMP", "TYPEOF(TO_TIMESTAMP('2024-03-05 07:08:09', 'yyyy-MM-dd HH:mm:ss'))")


PARTS = (patterns,)
