# ruff: noqa: E501 - the cases read best on one line
"""Conformance cases: dates, times, timestamps, intervals, EXTRACT and FLOOR/CEIL units."""

from __future__ import annotations

from scripts.sql_conformance.corpus import BI, DEC, A, Corpus, D, I, N, S

DATE_ = A("DATE", "DATE '2024-02-29'")
TS3 = A("TIMESTAMP(3)", "TIMESTAMP '2024-02-29 13:14:15.678'")
TS9 = A("TIMESTAMP(9)", "TIMESTAMP '1999-12-31 23:59:59.123456789'")
TS0 = A("TIMESTAMP(0)", "TIMESTAMP '2021-01-03 00:00:00'")
TIME_ = A("TIME(3)", "TIME '13:14:15.678'")
LTZ = A("TIMESTAMP_LTZ(3)", "TO_TIMESTAMP_LTZ(1709212455678, 3)")
OLD = A("TIMESTAMP(3)", "TIMESTAMP '1969-12-31 23:59:59.999'")
ANCIENT = A("DATE", "DATE '0001-01-01'")
SUNDAY = A("DATE", "DATE '2021-01-03'")
YM = A("INTERVAL YEAR TO MONTH", "INTERVAL '2-10' YEAR TO MONTH")
DS = A("INTERVAL DAY TO SECOND(3)", "INTERVAL '10 11:12:13.456' DAY TO SECOND")

EXTRACT_UNITS = [
    "MILLENNIUM",
    "CENTURY",
    "DECADE",
    "YEAR",
    "ISOYEAR",
    "QUARTER",
    "MONTH",
    "WEEK",
    "DAY",
    "DOY",
    "DOW",
    "ISODOW",
    "HOUR",
    "MINUTE",
    "SECOND",
    "MILLISECOND",
    "MICROSECOND",
    "NANOSECOND",
    "EPOCH",
]
EXTRACT_SOURCES = [DATE_, SUNDAY, ANCIENT, TS3, TS9, OLD, TIME_, LTZ, YM, DS, N("TIMESTAMP(3)")]
ROUND_UNITS = [
    "MILLENNIUM",
    "CENTURY",
    "DECADE",
    "YEAR",
    "QUARTER",
    "MONTH",
    "WEEK",
    "DAY",
    "HOUR",
    "MINUTE",
    "SECOND",
    "MILLISECOND",
    "MICROSECOND",
    "NANOSECOND",
]
ROUND_SOURCES = [
    A("DATE", "DATE '2021-02-27'"),
    A("TIMESTAMP(3)", "TIMESTAMP '2024-05-15 13:14:15.678'"),
    TS9,
    TIME_,
    LTZ,
    A("TIMESTAMP(0)", "TIMESTAMP '2024-01-01 00:00:00'"),
    A("DATE", "DATE '2000-01-01'"),
    N("TIMESTAMP(3)"),
]


def extract(c: Corpus) -> None:
    for unit in EXTRACT_UNITS:
        for source in EXTRACT_SOURCES:
            c.lit("units", f"EXTRACT {unit}", f"EXTRACT({unit} FROM $0)", source)
        for source in (DATE_, TS3, TS9, TIME_):
            c.col("units", f"EXTRACT {unit}", f"EXTRACT({unit} FROM $0)", source)
    for fn in [
        "YEAR",
        "QUARTER",
        "MONTH",
        "WEEK",
        "DAYOFYEAR",
        "DAYOFMONTH",
        "DAYOFWEEK",
        "HOUR",
        "MINUTE",
        "SECOND",
    ]:
        for source in (DATE_, SUNDAY, TS3, TS9, TIME_, N("DATE"), A("DATE", "DATE '2020-12-31'")):
            c.both("temporal", fn, f"{fn}($0)", source)


def floor_ceil(c: Corpus) -> None:
    for unit in ROUND_UNITS:
        for source in ROUND_SOURCES:
            for fn in ("FLOOR", "CEIL"):
                c.lit("units", f"{fn} TO {unit}", f"{fn}($0 TO {unit})", source)
        for source in ROUND_SOURCES[:4]:
            c.col("units", f"FLOOR TO {unit}", f"FLOOR($0 TO {unit})", source)
            c.col("units", f"CEIL TO {unit}", f"CEIL($0 TO {unit})", source)
    c.expr("units", "CEIL TO DAY", "CEIL(DATE '2021-02-27' TO DAY)")
    c.expr("units", "CEILING TO DAY", "CEILING(TIMESTAMP '2021-02-27 00:00:01' TO DAY)")
    c.expr("units", "FLOOR TO WEEK", "FLOOR(DATE '2024-01-03' TO WEEK)")


def literals_and_precision(c: Corpus) -> None:
    value = "'2024-01-02 03:04:05.123456789'"
    for p in range(10):
        c.expr("temporal", "TIMESTAMP(p)", f"CAST({value} AS TIMESTAMP({p}))")
        c.expr("temporal", "TIMESTAMP(p)", f"CAST(CAST({value} AS TIMESTAMP({p})) AS STRING)")
        c.expr("temporal", "TIMESTAMP_LTZ(p)", f"CAST({value} AS TIMESTAMP_LTZ({p}))")
        c.expr("temporal", "TIMESTAMP_LTZ(p)", f"CAST(CAST({value} AS TIMESTAMP_LTZ({p})) AS STRING)")
        c.expr("temporal", "TIME(p)", f"CAST('10:20:30.123456789' AS TIME({p}))")
        c.col(
            "temporal", "TIMESTAMP(p)", f"CAST($0 AS TIMESTAMP({p}))", A("TIMESTAMP(9)", f"TIMESTAMP {value}")
        )
        c.col("temporal", "TIMESTAMP(p)", "$0", A(f"TIMESTAMP({p})", f"TIMESTAMP {value}"))
        c.col(
            "temporal",
            "TIMESTAMP(p)",
            "CAST($0 AS STRING)",
            A(f"TIMESTAMP({p})", "TIMESTAMP '2024-01-02 03:04:05'"),
        )
        c.col(
            "temporal",
            "TIMESTAMP_LTZ(p)",
            "$0",
            A(f"TIMESTAMP_LTZ({p})", f"CAST({value} AS TIMESTAMP_LTZ(9))"),
        )
    for text in [
        "CAST(TIME '06:55:44' AS TIME(0))",
        "CAST(TIME '06:55:44.123' AS TIME(0))",
        "TIME '06:55:44.5' = TIME '06:55:44'",
        "TIMESTAMP '2024-01-01 00:00:00.000000001' = TIMESTAMP '2024-01-01 00:00:00.000000002'",
        "TIMESTAMP '2024-01-01 00:00:00.000000001' < TIMESTAMP '2024-01-01 00:00:00.000000002'",
        "CAST(TIMESTAMP '2024-01-01 00:00:00.999999999' AS TIMESTAMP(3))",
        "CAST(TIMESTAMP '2024-01-01 00:00:00.9995' AS TIMESTAMP(3))",
        "CAST(TIMESTAMP '2024-01-01 10:00:00' AS DATE)",
        "CAST(TIMESTAMP '2024-01-01 10:00:00.5' AS TIME)",
        "CAST(DATE '2024-01-01' AS TIMESTAMP)",
        "CAST(DATE '2024-01-01' AS TIMESTAMP(9))",
        "TIMESTAMP '2024-01-01 00:00:00.5' + INTERVAL '0.25' SECOND",
        "TIMESTAMP '2024-01-01 00:00:00.123456789' + INTERVAL '1' SECOND",
        "TYPEOF(TIMESTAMP '2024-01-01 00:00:00.5' + INTERVAL '1' SECOND)",
        "TYPEOF(TIMESTAMP '2024-01-01 00:00:00.123456789')",
        "TYPEOF(TIME '10:00:00.123')",
    ]:
        c.expr("temporal", "TIMESTAMP(p)", text)


def current_time(c: Corpus) -> None:
    for text in [
        "LOCALTIME IS NOT NULL",
        "LOCALTIMESTAMP IS NOT NULL",
        "CURRENT_TIME IS NOT NULL",
        "CURRENT_DATE IS NOT NULL",
        "CURRENT_TIMESTAMP IS NOT NULL",
        "NOW() IS NOT NULL",
        "CURRENT_ROW_TIMESTAMP() IS NOT NULL",
        "UNIX_TIMESTAMP() > 1700000000",
        "TYPEOF(LOCALTIME)",
        "TYPEOF(LOCALTIMESTAMP)",
        "TYPEOF(CURRENT_TIME)",
        "TYPEOF(CURRENT_DATE)",
        "TYPEOF(CURRENT_TIMESTAMP)",
        "TYPEOF(NOW())",
        "TYPEOF(CURRENT_ROW_TIMESTAMP())",
        "TYPEOF(UNIX_TIMESTAMP())",
        "EXTRACT(YEAR FROM CURRENT_DATE) >= 2024",
        "CURRENT_TIMESTAMP > TIMESTAMP '2024-01-01 00:00:00'",
        "CAST(CURRENT_TIMESTAMP AS DATE) = CURRENT_DATE",
    ]:
        c.expr("temporal", text.split("(")[0].split(" ")[0].replace("TYPEOF", "current time"), text)


def arithmetic(c: Corpus) -> None:
    for text in [
        "DATE '2024-01-31' + INTERVAL '1' DAY",
        "DATE '2024-01-31' + INTERVAL '1' MONTH",
        "DATE '2024-02-29' + INTERVAL '1' YEAR",
        "DATE '2024-03-31' - INTERVAL '1' MONTH",
        "DATE '2024-01-01' + INTERVAL '1' HOUR",
        "DATE '2024-01-01' + INTERVAL '25' HOUR",
        "DATE '2024-01-01' - INTERVAL '2-3' YEAR TO MONTH",
        "TIMESTAMP '2024-01-31 10:00:00' + INTERVAL '1' MONTH",
        "TIMESTAMP '2024-01-01 00:00:00' - INTERVAL '1' SECOND",
        "TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '1 02:03:04.5' DAY TO SECOND",
        "TIMESTAMP '2024-03-10 01:30:00' + INTERVAL '1' HOUR",
        "TIME '23:30:00' + INTERVAL '1' HOUR",
        "TIME '00:30:00' - INTERVAL '1' HOUR",
        "TIME '10:00:00' + INTERVAL '1' DAY",
        "TIME '10:00:00' + INTERVAL '1' MONTH",
        "INTERVAL '1' DAY + DATE '2024-01-01'",
        "(TIMESTAMP '2024-01-02 00:00:00' - TIMESTAMP '2024-01-01 12:00:00') HOUR",
        "(TIMESTAMP '2024-01-02 00:00:00' - TIMESTAMP '2024-01-01 12:00:00') DAY",
        "(TIMESTAMP '2024-01-02 00:00:00' - TIMESTAMP '2024-01-01 12:00:00') SECOND",
        "(DATE '2024-03-01' - DATE '2024-01-01') DAY",
        "(DATE '2024-03-01' - DATE '2024-01-01') MONTH",
        "DATE '2024-03-01' - DATE '2024-01-01'",
        "TIMESTAMP '2024-01-01 00:00:00' + 1",
        "TO_TIMESTAMP_LTZ(0, 3) + INTERVAL '1' HOUR",
        "CAST(NULL AS DATE) + INTERVAL '1' DAY",
    ]:
        c.expr("temporal", "datetime arithmetic", text)
    c.col("temporal", "datetime arithmetic", "$0 + INTERVAL '1' MONTH", A("DATE", "DATE '2024-01-31'"))
    c.col(
        "temporal",
        "datetime arithmetic",
        "$0 + INTERVAL '36' HOUR",
        A("TIMESTAMP(3)", "TIMESTAMP '2024-01-01 00:00:00.5'"),
    )
    c.col("temporal", "datetime arithmetic", "$0 - INTERVAL '1' MINUTE", A("TIME", "TIME '00:00:30'"))
    c.col(
        "temporal", "datetime arithmetic", "$0 + $1", A("TIMESTAMP(3)", "TIMESTAMP '2024-01-01 00:00:00'"), DS
    )
    for unit in [
        "YEAR",
        "QUARTER",
        "MONTH",
        "WEEK",
        "DAY",
        "HOUR",
        "MINUTE",
        "SECOND",
        "MILLISECOND",
        "MICROSECOND",
        "NANOSECOND",
    ]:
        for source in [
            A("TIMESTAMP(3)", "TIMESTAMP '2024-01-31 10:20:30.400'"),
            A("DATE", "DATE '2024-02-29'"),
            A("TIME", "TIME '23:59:00'"),
            TS9,
        ]:
            c.lit("temporal", "TIMESTAMPADD", f"TIMESTAMPADD({unit}, 1, $0)", source)
        c.lit(
            "temporal",
            "TIMESTAMPADD",
            f"TIMESTAMPADD({unit}, -2, $0)",
            A("TIMESTAMP(3)", "TIMESTAMP '2024-03-31 00:00:00'"),
        )
        c.col(
            "temporal",
            "TIMESTAMPADD",
            f"TIMESTAMPADD({unit}, $0, $1)",
            I(3),
            A("TIMESTAMP(3)", "TIMESTAMP '2024-01-31 10:20:30.400'"),
        )
        for a, b in [
            ("TIMESTAMP '2024-01-01 00:00:00'", "TIMESTAMP '2024-01-02 06:00:00'"),
            ("TIMESTAMP '2024-01-31 00:00:00'", "TIMESTAMP '2024-02-29 00:00:00'"),
            ("TIMESTAMP '2024-03-01 00:00:00'", "TIMESTAMP '2023-01-01 00:00:00.5'"),
            ("DATE '2024-01-01'", "DATE '2025-03-01'"),
            ("DATE '2024-01-01'", "TIMESTAMP '2024-01-01 12:00:00'"),
            ("TIME '10:00:00'", "TIME '12:30:00'"),
        ]:
            c.expr("temporal", "TIMESTAMPDIFF", f"TIMESTAMPDIFF({unit}, {a}, {b})")
        c.col(
            "temporal",
            "TIMESTAMPDIFF",
            f"TIMESTAMPDIFF({unit}, $0, $1)",
            A("TIMESTAMP(3)", "TIMESTAMP '2024-01-01 00:00:00'"),
            A("TIMESTAMP(3)", "TIMESTAMP '2025-02-03 04:05:06.789'"),
        )
    c.expr("temporal", "TIMESTAMPADD", "TIMESTAMPADD(MINUTE, 1, TIME '00:00:00')")
    c.expr("temporal", "TIMESTAMPADD", "TIMESTAMPADD(DAY, CAST(NULL AS INT), DATE '2024-01-01')")
    c.expr("temporal", "TIMESTAMPADD", "TIMESTAMPADD(DAY, 1, CAST(NULL AS DATE))")
    c.expr("temporal", "TIMESTAMPDIFF", "TIMESTAMPDIFF(DAY, CAST(NULL AS DATE), DATE '2024-01-01')")
    for text in [
        "(TIME '02:55:00', INTERVAL '1' HOUR) OVERLAPS (TIME '03:30:00', INTERVAL '2' HOUR)",
        "(TIME '09:00:00', TIME '10:00:00') OVERLAPS (TIME '10:15:00', INTERVAL '3' HOUR)",
        "(TIME '09:00:00', TIME '10:00:00') OVERLAPS (TIME '10:00:00', TIME '11:00:00')",
        "(DATE '2024-01-01', DATE '2024-01-10') OVERLAPS (DATE '2024-01-05', DATE '2024-01-20')",
        "(TIMESTAMP '2024-01-01 00:00:00', INTERVAL '1' DAY) OVERLAPS (TIMESTAMP '2024-01-02 00:00:00', INTERVAL '1' DAY)",
        "(TIMESTAMP '2024-01-10 00:00:00', TIMESTAMP '2024-01-01 00:00:00') OVERLAPS (TIMESTAMP '2024-01-05 00:00:00', INTERVAL '1' HOUR)",
    ]:
        c.expr("temporal", "OVERLAPS", text)


def conversions(c: Corpus) -> None:
    args: tuple[A, ...]
    for args in [
        (S("1970-01-01 00:00:00"), S("UTC"), S("America/Los_Angeles")),
        (S("2024-07-01 12:00:00"), S("UTC"), S("Asia/Shanghai")),
        (S("2024-07-01 12:00:00"), S("GMT+08:00"), S("UTC")),
        (S("2024-03-10 02:30:00"), S("America/New_York"), S("UTC")),
        (S("2024-07-01 12:00:00"), S("PST"), S("UTC")),
        (S("2024-07-01 12:00:00"), S("No/Such_Zone"), S("UTC")),
        (S("garbage"), S("UTC"), S("UTC")),
        (S("2024-07-01"), S("UTC"), S("UTC")),
        (S("2024-07-01 12:00:00.123"), S("UTC"), S("Europe/Berlin")),
        (N("STRING"), S("UTC"), S("UTC")),
    ]:
        c.both("temporal", "CONVERT_TZ", "CONVERT_TZ($0, $1, $2)", *args)
    for args in [
        (I(44),),
        (I(0),),
        (I(-1),),
        (BI(1700000000),),
        (BI(253402300800),),
        (N("BIGINT"),),
        (DEC("44.9", 3, 1),),
    ]:
        c.both("temporal", "FROM_UNIXTIME", "FROM_UNIXTIME($0)", *args)
    for fmt in ["yyyy", "HH:mm:ss.SSS", "yyyy-MM-dd'T'HH:mm:ssXXX", "EEE, d MMM yyyy", "nonsense", "#"]:
        c.both("temporal", "FROM_UNIXTIME", "FROM_UNIXTIME($0, $1)", BI(1700000000), S(fmt))
    for args in [
        (BI(1700000000123), I(3)),
        (BI(1700000000), I(0)),
        (BI(1700000000123456), I(6)),
        (BI(1700000000123456789), I(9)),
        (BI(-1), I(3)),
        (BI(1700000000), I(1)),
        (N("BIGINT"), I(3)),
        (DEC("1700000000.5", 11, 1), I(0)),
        (D("1700000000.5"), I(0)),
        (I(1700000000), I(0)),
        (BI(1700000000123),),
        (BI(253402300800000), I(3)),
    ]:
        template = "TO_TIMESTAMP_LTZ(" + ", ".join(f"${i}" for i in range(len(args))) + ")"
        c.both("temporal", "TO_TIMESTAMP_LTZ", template, *args)
    for text in [
        "TO_TIMESTAMP_LTZ(123, 'no-such-unit')",
        "TO_TIMESTAMP_LTZ('2024-03-05 07:08:09')",
        "TO_TIMESTAMP_LTZ('2024-03-05 07:08:09.123')",
        "TO_TIMESTAMP_LTZ('05/03/2024 07:08', 'dd/MM/yyyy HH:mm')",
        "TO_TIMESTAMP_LTZ('2024-03-05 07:08:09', 'yyyy-MM-dd HH:mm:ss', 'Asia/Shanghai')",
        "TO_TIMESTAMP_LTZ('garbage')",
        "TO_TIMESTAMP_LTZ(CAST(NULL AS STRING))",
        "CAST(TO_TIMESTAMP_LTZ(0, 3) AS STRING)",
        "CAST(TO_TIMESTAMP_LTZ(0, 3) AS TIMESTAMP(3))",
        "CAST(TIMESTAMP '2024-01-01 00:00:00' AS TIMESTAMP_LTZ(3))",
        "TO_TIMESTAMP_LTZ(0, 3) = TO_TIMESTAMP_LTZ(0, 0)",
    ]:
        c.expr("temporal", "TO_TIMESTAMP_LTZ", text)
    c.expr("temporal", "CURRENT_WATERMARK", "CURRENT_WATERMARK(TIMESTAMP '2024-01-01 00:00:00')")


def intervals(c: Corpus) -> None:
    for text in [
        "INTERVAL '1' YEAR",
        "INTERVAL '2' YEAR",
        "INTERVAL '2-10' YEAR TO MONTH",
        "INTERVAL '-2-10' YEAR TO MONTH",
        "INTERVAL '1' MONTH",
        "INTERVAL '13' MONTH",
        "INTERVAL '100' MONTH",
        "INTERVAL '100' MONTH(3)",
        "INTERVAL '10' DAY",
        "INTERVAL '100' DAY",
        "INTERVAL '100' DAY(3)",
        "INTERVAL '1 02' DAY TO HOUR",
        "INTERVAL '1 02:03' DAY TO MINUTE",
        "INTERVAL '10 00:00:00.004' DAY TO SECOND",
        "INTERVAL '10 00:00:00.123456789' DAY TO SECOND",
        "INTERVAL '10 00:00:00.123456' DAY TO SECOND(6)",
        "INTERVAL '2' HOUR",
        "INTERVAL '2:30' HOUR TO MINUTE",
        "INTERVAL '2:30:15' HOUR TO SECOND",
        "INTERVAL '30' MINUTE",
        "INTERVAL '30:15' MINUTE TO SECOND",
        "INTERVAL '15' SECOND",
        "INTERVAL '15.5' SECOND",
        "INTERVAL '15.123456' SECOND(2, 6)",
        "INTERVAL '-1' DAY",
        "INTERVAL -'1' DAY",
        "INTERVAL '+1' DAY",
        "INTERVAL '1' WEEK",
        "INTERVAL '1' QUARTER",
        "INTERVAL '1-13' YEAR TO MONTH",
        "INTERVAL 'abc' DAY",
        "INTERVAL '25:00' HOUR TO MINUTE",
        "INTERVAL '1' DAY + INTERVAL '2' HOUR",
        "INTERVAL '1' YEAR + INTERVAL '2' MONTH",
        "INTERVAL '1' YEAR + INTERVAL '2' DAY",
        "INTERVAL '1' DAY * 3",
        "3 * INTERVAL '1' HOUR",
        "INTERVAL '1' DAY / 2",
        "INTERVAL '1' YEAR * 1.5",
        "-INTERVAL '1' DAY",
        "INTERVAL '1' DAY > INTERVAL '23' HOUR",
        "INTERVAL '24' HOUR = INTERVAL '1' DAY",
        "CAST(INTERVAL '1' DAY AS STRING)",
        "CAST(INTERVAL '2-10' YEAR TO MONTH AS STRING)",
        "CAST(INTERVAL '1' DAY AS BIGINT)",
        "CAST(2 AS INTERVAL DAY)",
        "CAST('1' AS INTERVAL DAY)",
        "ABS(INTERVAL '-1' DAY)",
        "TYPEOF(INTERVAL '1' DAY)",
        "TYPEOF(INTERVAL '10 00:00:00.004' DAY TO SECOND)",
        "TYPEOF(INTERVAL '2-10' YEAR TO MONTH)",
        "TYPEOF(INTERVAL '15.5' SECOND)",
        "EXTRACT(DAY FROM INTERVAL '10 11:12:13.456' DAY TO SECOND)",
        "EXTRACT(MONTH FROM INTERVAL '2-10' YEAR TO MONTH)",
    ]:
        c.expr("interval", "INTERVAL", text)
    c.col("interval", "INTERVAL", "$0", YM)
    c.col("interval", "INTERVAL", "$0", DS)
    c.col("interval", "INTERVAL", "$0 * 2", DS)
    c.col("interval", "INTERVAL", "$0", N("INTERVAL DAY"))


PARTS = (
    extract,
    floor_ceil,
    literals_and_precision,
    current_time,
    arithmetic,
    conversions,
    intervals,
)
