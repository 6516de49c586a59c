# ruff: noqa: E501 - the cases read best on one line
"""Conformance cases: NULL and edge inputs the other parts leave out (NOT LIKE, ESCAPE, SIMILAR
TO, SUBSTR, ENCODE/DECODE, OVERLAPS, VARIANT, BITMAP, window functions, aggregates over
overflowing or empty input), string literal forms, TIME and nanosecond values."""

from __future__ import annotations

import re

from scripts.sql_conformance.corpus import BI, DEC, A, Corpus, D, I, N, S

TS9 = A("TIMESTAMP(9)", "TIMESTAMP '2024-03-05 07:08:09.123456789'")


def patterns_with_null(c: Corpus) -> None:
    for args in [(N("STRING"), S("a%")), (S("abc"), N("STRING")), (S(""), S("")), (S(""), S("%"))]:
        c.both("comparison", "NOT LIKE", "$0 NOT LIKE $1", *args)
    for text in [
        "CAST(NULL AS STRING) LIKE 'a!%' ESCAPE '!'",
        "'a%' LIKE CAST(NULL AS STRING) ESCAPE '!'",
        "'a%' NOT LIKE 'a!%' ESCAPE '!'",
        "'a!' LIKE 'a!!' ESCAPE '!'",
        "'a_' LIKE 'a__' ESCAPE '_'",
        "'a%' LIKE 'a%%' ESCAPE '%'",
        "'ab' LIKE 'a!b' ESCAPE '!'",
        "'abc' LIKE 'abc!' ESCAPE '!'",
        "'abc' LIKE 'abc' ESCAPE ''",
        "'abc' LIKE 'a%' ESCAPE CAST(NULL AS STRING)",
        "'aXb' LIKE 'a_b' ESCAPE 'X'",
        "'a\\b' LIKE 'a\\b'",
        "'a\\b' LIKE 'a\\\\b' ESCAPE '\\'",
    ]:
        c.expr("comparison", "LIKE ESCAPE", text)
    for args in [(N("STRING"), S("a+")), (S("abc"), N("STRING")), (S(""), S("")), (S("abc"), S("a%"))]:
        c.both("comparison", "NOT SIMILAR TO", "$0 NOT SIMILAR TO $1", *args)
    for text in [
        "'a+' NOT SIMILAR TO 'a!+' ESCAPE '!'",
        "CAST(NULL AS STRING) SIMILAR TO 'a' ESCAPE '!'",
        "'a%b' SIMILAR TO 'a!%b' ESCAPE '!'",
        "'axb' SIMILAR TO 'a!%b' ESCAPE '!'",
        "'a|b' SIMILAR TO 'a!|b' ESCAPE '!'",
        "'ab' SIMILAR TO '(a|b)*'",
        "'abc' SIMILAR TO '%(b|x)%'",
        "'abc' SIMILAR TO '[^x]+'",
        "'abc' SIMILAR TO 'a(b'",
    ]:
        c.expr("comparison", "SIMILAR TO", text)
    for text in [
        "12 BETWEEN ASYMMETRIC 10 AND 15",
        "12 NOT BETWEEN ASYMMETRIC 15 AND 10",
        "CAST(NULL AS INT) NOT BETWEEN 1 AND 2",
        "12 BETWEEN SYMMETRIC CAST(NULL AS INT) AND CAST(NULL AS INT)",
        "'b' NOT BETWEEN 'a' AND CAST(NULL AS STRING)",
        "TIME '10:00:00' BETWEEN TIME '09:00:00' AND TIME '11:00:00'",
        "TIMESTAMP '2024-01-01 00:00:00.000000002' BETWEEN TIMESTAMP '2024-01-01 00:00:00.000000001' AND TIMESTAMP '2024-01-01 00:00:00.000000003'",
    ]:
        c.expr("comparison", "BETWEEN", text)
    for sql in [
        "SELECT EXISTS (SELECT 1 FROM (VALUES (1)) AS t(x) WHERE x IS NULL)",
        "SELECT x FROM (VALUES (1), (CAST(NULL AS INT))) AS t(x) WHERE x IN (SELECT y FROM (VALUES (1), (CAST(NULL AS INT))) AS u(y))",
        "SELECT x FROM (VALUES (1), (2)) AS t(x) WHERE NOT EXISTS (SELECT 1 FROM (VALUES (2)) AS u(y) WHERE y = x)",
    ]:
        c.query("comparison", "EXISTS / IN subquery", sql)


def strings_with_null(c: Corpus) -> None:
    args: tuple[A, ...]
    for args in [
        (N("STRING"), I(1)),
        (S("hello"), N("INT")),
        (S(""), I(1)),
        (S(""), I(0)),
        (S("hello"), I(-5)),
        (S("hello"), I(-6)),
        (S("hello"), I(2147483647)),
    ]:
        c.both("string", "SUBSTR", "SUBSTR($0, $1)", *args)
    for args in [
        (S("hello"), I(2), N("INT")),
        (S("hello"), I(2), I(2147483647)),
        (S("hello"), I(-2147483648), I(3)),
        (S("日本語"), I(2), I(5)),
    ]:
        c.both("string", "SUBSTR", "SUBSTR($0, $1, $2)", *args)
    for args in [
        (N("STRING"), S("UTF-8")),
        (S("abc"), N("STRING")),
        (S(""), S("UTF-8")),
        (S("é"), S("ISO-8859-1")),
        (S("é"), S("US-ASCII")),
        (S("é"), S("UTF-16")),
        (S("é"), S("UTF-16LE")),
        (S("abc"), S("utf-8")),
        (S("abc"), S("UTF-32")),
        (S("abc"), S("no-such-charset")),
        (S("abc"), S("")),
    ]:
        c.both("string", "ENCODE", "ENCODE($0, $1)", *args)
    for text in [
        "DECODE(CAST(NULL AS BYTES), 'UTF-8')",
        "DECODE(ENCODE('é', 'UTF-8'), CAST(NULL AS STRING))",
        "DECODE(ENCODE('é', 'UTF-8'), 'ISO-8859-1')",
        "DECODE(ENCODE('é', 'UTF-16BE'), 'UTF-16BE')",
        "DECODE(ENCODE('', 'UTF-8'), 'UTF-8')",
        "DECODE(ENCODE('abc', 'UTF-8'), 'no-such-charset')",
        "DECODE(ENCODE('abc', 'UTF-8'), 'UTF-32')",
    ]:
        c.expr("string", "DECODE", text)
    c.col("string", "DECODE", "DECODE($0, $1)", A("BYTES", "X'C3A9'"), S("UTF-8"))
    c.col("string", "DECODE", "DECODE($0, $1)", A("BYTES", "X'FF'"), S("UTF-8"))
    c.col("string", "DECODE", "DECODE($0, $1)", N("BYTES"), S("UTF-8"))
    for text in [
        "'it''s' || ''''",
        "''''''",
        "'a''''b'",
        "CHAR_LENGTH('''')",
        "'\\''",
        "'\\\\'",
        "'a\\tb'",
        "U&'\\0041\\0042'",
        "U&'\\\\'",
        "U&'\\D83D\\DE00'",
        "U&'\\+01F600x'",
        "U&'#0041#0042' UESCAPE '#'",
        "U&'\\0041' UESCAPE '!'",
        "U&'a''b'",
        "U&'\\004'",
        "U&''",
        "CHAR_LENGTH(U&'\\+01F600')",
        "'a' || U&'\\0000' || 'b'",
        "CHAR_LENGTH(U&'\\0000')",
        "'trailing '",
        "CHAR_LENGTH('trailing ')",
        "'x' = 'x '",
        "CAST('x' AS VARCHAR(3)) = CAST('x ' AS VARCHAR(3))",
        "CAST('x' AS CHAR(3)) = 'x'",
    ]:
        c.expr("literal", "literal", text)


def temporal_edges(c: Corpus) -> None:
    for text in [
        "TIME '23:59:59.999' + INTERVAL '1' SECOND",
        "TIME '00:00:00' - INTERVAL '0.001' SECOND",
        "TIME '12:00:00' + INTERVAL '25' HOUR",
        "CAST(TIME '10:20:30.123' AS TIME(1))",
        "CAST(TIME '10:20:30.999' AS TIME(0))",
        "CAST(CAST('10:20:30.123456789' AS TIME(9)) AS STRING)",
        "CAST(TIME '10:20:30' AS STRING)",
        "CAST(TIME '10:20:30.5' AS STRING)",
        "TIME '10:20:30.123' = TIME '10:20:30.1234'",
        "TIME '10:20:30' < TIME '10:20:30.001'",
        "EXTRACT(MILLISECOND FROM TIME '10:20:30.123')",
        "EXTRACT(HOUR FROM TIME '23:00:00')",
        "HOUR(TIME '23:00:00')",
        "MINUTE(TIME '23:45:00')",
        "SECOND(TIME '23:45:59')",
        "TIMESTAMPDIFF(SECOND, TIME '10:00:00', TIME '09:00:00')",
        "DATE_FORMAT(TIME '10:20:30', 'HH:mm')",
        "CAST('24:00:00' AS TIME)",
        "CAST('23:59:60' AS TIME)",
        "CAST('-01:00:00' AS TIME)",
        "CAST(NULL AS TIME(3))",
        "TIME '10:20:30' + CAST(NULL AS INTERVAL HOUR)",
    ]:
        c.expr("temporal", "TIME", text)
    c.col("temporal", "TIME", "$0 + INTERVAL '1' HOUR", A("TIME(3)", "TIME '23:30:00.500'"))
    c.col("temporal", "TIME", "CAST($0 AS STRING)", A("TIME(3)", "TIME '23:30:00.500'"))
    c.col("temporal", "TIME", "$0", A("TIME(0)", "TIME '23:30:00'"))
    c.col("temporal", "TIME", "$0 = $1", A("TIME(3)", "TIME '10:00:00.1'"), A("TIME(0)", "TIME '10:00:00'"))
    c.col("temporal", "TIME", "$0", N("TIME"))
    for text in [
        "CAST('2024-03-05 07:08:09.123456789' AS TIMESTAMP(9)) < CAST('2024-03-05 07:08:09.12345679' AS TIMESTAMP(9))",
        "CAST('2024-03-05 07:08:09.123456789' AS TIMESTAMP(9)) = CAST('2024-03-05 07:08:09.123456788' AS TIMESTAMP(9))",
        "TIMESTAMPDIFF(SECOND, TIMESTAMP '2024-01-01 00:00:00.999999999', TIMESTAMP '2024-01-01 00:00:01')",
        "TIMESTAMP '2024-03-05 07:08:09.123456789' + INTERVAL '1' DAY",
        "TIMESTAMP '2024-03-05 07:08:09.123456789' - INTERVAL '0.001' SECOND",
        "CAST(TIMESTAMP '2024-03-05 07:08:09.123456789' AS TIMESTAMP(6))",
        "CAST(TIMESTAMP '2024-03-05 07:08:09.123456789' AS TIMESTAMP(0))",
        "CAST(TIMESTAMP '2024-03-05 07:08:09.123456789' AS DATE)",
        "CAST(TIMESTAMP '2024-03-05 07:08:09.123456789' AS TIME(9))",
        "CAST(TIMESTAMP '2024-03-05 07:08:09.123456789' AS TIMESTAMP_LTZ(9))",
        "EXTRACT(MICROSECOND FROM TIMESTAMP '2024-03-05 07:08:09.123456789')",
        "EXTRACT(NANOSECOND FROM TIMESTAMP '2024-03-05 07:08:09.000000001')",
        "DATE_FORMAT(TIMESTAMP '2024-03-05 07:08:09.000000001', 'SSSSSSSSS')",
        "GREATEST(TIMESTAMP '2024-01-01 00:00:00.000000001', TIMESTAMP '2024-01-01 00:00:00.000000002')",
        "TO_TIMESTAMP('2024-03-05 07:08:09.000000001', 'yyyy-MM-dd HH:mm:ss.SSSSSSSSS')",
        "TYPEOF(TO_TIMESTAMP('2024-03-05 07:08:09.000000001', 'yyyy-MM-dd HH:mm:ss.SSSSSSSSS'))",
        "CAST(TIMESTAMP '2024-03-05 07:08:09.123456789' AS STRING) = '2024-03-05 07:08:09.123456789'",
        "TIMESTAMP '9999-12-31 23:59:59.999999999'",
        "TIMESTAMP '9999-12-31 23:59:59' + INTERVAL '1' SECOND",
        "DATE '9999-12-31' + INTERVAL '1' DAY",
        "DATE '0001-01-01' - INTERVAL '1' DAY",
        "CAST('10000-01-01' AS DATE)",
    ]:
        c.expr("temporal", "TIMESTAMP(p)", text)
    c.col(
        "temporal",
        "TIMESTAMP(p)",
        "$0 = $1",
        TS9,
        A("TIMESTAMP(9)", "TIMESTAMP '2024-03-05 07:08:09.123456788'"),
    )
    c.col("temporal", "TIMESTAMP(p)", "$0 + INTERVAL '1' SECOND", TS9)
    c.col("temporal", "TIMESTAMP(p)", "EXTRACT(NANOSECOND FROM $0)", TS9)
    c.col("temporal", "TIMESTAMP(p)", "CAST($0 AS TIMESTAMP(3))", TS9)
    for text in [
        "(DATE '2024-01-01', CAST(NULL AS DATE)) OVERLAPS (DATE '2024-01-05', DATE '2024-01-20')",
        "(CAST(NULL AS TIMESTAMP(3)), INTERVAL '1' DAY) OVERLAPS (TIMESTAMP '2024-01-02 00:00:00', INTERVAL '1' DAY)",
        "(TIME '09:00:00', TIME '10:00:00') OVERLAPS (TIME '10:00:00', INTERVAL '0' HOUR)",
        "(DATE '2024-01-10', DATE '2024-01-01') OVERLAPS (DATE '2024-01-05', DATE '2024-01-06')",
    ]:
        c.expr("temporal", "OVERLAPS", text)
    for text in [
        "INTERVAL '99' DAY",
        "INTERVAL '100' DAY(2)",
        "INTERVAL '9999-11' YEAR(4) TO MONTH",
        "INTERVAL '0' SECOND",
        "INTERVAL '0.000001' SECOND(1, 6)",
        "INTERVAL '-0.5' SECOND",
        "INTERVAL '1 25:00:00' DAY TO SECOND",
        "INTERVAL '1:60' HOUR TO MINUTE",
        "INTERVAL '' DAY",
        "INTERVAL '1' DAY * CAST(NULL AS INT)",
        "INTERVAL '1' DAY / 0",
        "INTERVAL '2147483647' DAY(10)",
        "INTERVAL '1' MONTH * 2147483647",
        "CAST(INTERVAL '-1 02:03:04.005' DAY TO SECOND AS STRING)",
        "CAST(INTERVAL '-2-10' YEAR TO MONTH AS STRING)",
    ]:
        c.expr("interval", "INTERVAL", text)


def numbers_edges(c: Corpus) -> None:
    for text in [
        "CAST(127 AS TINYINT) / CAST(0 AS TINYINT)",
        "CAST(127 AS TINYINT) % CAST(0 AS TINYINT)",
        "CAST(-32768 AS SMALLINT) / CAST(-1 AS SMALLINT)",
        "-CAST(-32768 AS SMALLINT)",
        "CAST(-128 AS TINYINT) * CAST(-1 AS TINYINT)",
        "CAST(200 AS SMALLINT) * CAST(200 AS SMALLINT)",
        "CAST(-9223372036854775808 AS BIGINT) / -1",
        "CAST(-9223372036854775808 AS BIGINT) % -1",
        "ABS(CAST(-9223372036854775808 AS BIGINT))",
        "MOD(CAST(-128 AS TINYINT), CAST(0 AS TINYINT))",
        "CAST(128 AS TINYINT)",
        "CAST(-32769 AS SMALLINT)",
        "CAST(2147483648 AS INT)",
        "CAST(9223372036854775807 AS INT)",
        "CAST(CAST(9223372036854775807 AS BIGINT) AS SMALLINT)",
        "CAST(CAST(3.99e0 AS DOUBLE) AS TINYINT)",
        "CAST(CAST(-3.99e0 AS DOUBLE) AS TINYINT)",
        "CAST(CAST(1e19 AS DOUBLE) AS BIGINT)",
        "CAST(CAST(-1e19 AS DOUBLE) AS BIGINT)",
        "CAST(CAST(128.5 AS DECIMAL(4, 1)) AS TINYINT)",
        "CAST(CAST(99999.99 AS DECIMAL(7, 2)) AS SMALLINT)",
        "CAST(CAST('NaN' AS FLOAT) AS INT)",
        "CAST(CAST(3.4e38 AS DOUBLE) AS FLOAT)",
        "CAST(CAST(1e-46 AS DOUBLE) AS FLOAT)",
        "CAST(1.5e0 AS DECIMAL(1, 0))",
        "CAST(9.5e0 AS DECIMAL(1, 0))",
        "CAST(-9.5e0 AS DECIMAL(1, 0))",
        "CAST(CAST('NaN' AS DOUBLE) AS DECIMAL(5, 2))",
        "CAST(CAST('Infinity' AS DOUBLE) AS DECIMAL(5, 2))",
        "CAST(0.5 AS DECIMAL(1, 1))",
        "CAST(1 AS DECIMAL(1, 1))",
        "CAST(NULLIF(1, 0) AS DECIMAL(1, 1))",
        "CAST('0.000000000000000000000000000000000000001' AS DECIMAL(38, 38))",
        "CAST(1 AS DECIMAL(38, 38))",
        "CAST(10 AS DECIMAL(10, 0)) / CAST(3 AS DECIMAL(10, 0))",
        "CAST(10 AS DECIMAL(5, 2)) / CAST(3 AS DECIMAL(20, 10))",
        "CAST(10 AS DECIMAL(38, 0)) / CAST(3 AS DECIMAL(38, 38))",
        "CAST(1 AS DECIMAL(38, 18)) * CAST(1 AS DECIMAL(38, 18))",
        "CAST(0.1 AS DECIMAL(2, 1)) * CAST(0.1 AS DECIMAL(2, 1))",
        "CAST(1 AS DECIMAL(5, 0)) + CAST(0.001 AS DECIMAL(4, 3))",
        "CAST(-0.005 AS DECIMAL(4, 3)) + 0",
        "ROUND(CAST(-2.5 AS DECIMAL(2, 1)), 0)",
        "ROUND(CAST(99.5 AS DECIMAL(3, 1)), 0)",
        "ROUND(-2.5e0)",
        "ROUND(2.5e0)",
        "ROUND(CAST(2.5 AS FLOAT))",
        "ROUND(123, -1)",
        "ROUND(CAST(127 AS TINYINT), -1)",
        "TRUNCATE(CAST(-2.5 AS DECIMAL(2, 1)))",
        "TRUNCATE(123.456, -5)",
        "1e308 * 10",
        "-1e308 * 10",
        "0e0 / 0e0",
        "CAST(0.1 AS FLOAT) + CAST(0.2 AS FLOAT)",
        "CAST(1 AS FLOAT) / 3",
        "CAST(16777217 AS FLOAT)",
        "CAST(CAST(16777217 AS FLOAT) AS INT)",
        "1.0e0 / 3",
        "100.0e0",
        "1.0e7",
        "1.0e-3",
        "0.001e0",
        "1234567.0e0",
        "12345678.0e0",
        "-0.0e0",
        "CAST(1e7 AS FLOAT)",
        "CAST(1.5e-5 AS FLOAT)",
        "CAST(123456.7 AS FLOAT)",
    ]:
        category = (
            "decimal"
            if "DECIMAL" in text
            else "integer"
            if re.search(r"\bINT\b|INT\b", text)
            else "arithmetic"
        )
        c.expr(category, "overflow" if category != "arithmetic" else "DOUBLE", text)
    for value in [D("1e7"), D("1e-3"), D("12345678.9"), A("FLOAT", "1e7"), A("FLOAT", "0.1"), D("-0.0")]:
        c.col("arithmetic", "DOUBLE", "$0", value)
        c.col("arithmetic", "DOUBLE", "CAST($0 AS STRING)", value)


AGG_EDGE_INPUTS = [
    ([("v0", "SMALLINT")], [["32767"], ["1"]]),
    ([("v0", "INT")], [["-2147483648"], ["-1"]]),
    ([("v0", "DECIMAL(38, 0)")], [["'99999999999999999999999999999999999999'"], ["1"]]),
    ([("v0", "DECIMAL(10, 3)")], [["1.001"], ["2.002"], ["3.004"]]),
    ([("v0", "DOUBLE")], [["CAST('NaN' AS DOUBLE)"], ["1.0e0"]]),
    ([("v0", "FLOAT")], [["0.1"], ["0.2"]]),
    (
        [("v0", "TIMESTAMP(9)")],
        [["TIMESTAMP '2024-01-01 00:00:00.000000002'"], ["TIMESTAMP '2024-01-01 00:00:00.000000001'"]],
    ),
    ([("v0", "STRING")], [["''"], ["' '"]]),
    ([("v0", "INT")], [["7"]]),
]
AGG_EDGES = [
    "COUNT(v0)",
    "SUM(v0)",
    "AVG(v0)",
    "MIN(v0)",
    "MAX(v0)",
    "STDDEV_SAMP(v0)",
    "VAR_POP(v0)",
    "LISTAGG(CAST(v0 AS STRING))",
    "ARRAY_AGG(v0)",
    "FIRST_VALUE(v0)",
]


def aggregate_edges(c: Corpus) -> None:
    for columns, rows in AGG_EDGE_INPUTS:
        for text in AGG_EDGES:
            c.agg("aggregate", text.split("(")[0], text, columns, rows)
    empty = "(VALUES (1), (2)) AS t(x) WHERE x > 5"
    for text in [
        "COUNT(*)",
        "COUNT(x)",
        "SUM(x)",
        "AVG(x)",
        "MIN(x)",
        "MAX(x)",
        "LISTAGG(CAST(x AS STRING))",
        "ARRAY_AGG(x)",
        "JSON_ARRAYAGG(x)",
        "STDDEV_POP(x)",
        "COLLECT(x)",
    ]:
        c.query("aggregate", text.split("(")[0], f"SELECT {text} FROM {empty}")
    for sql in [
        "SELECT k, SUM(x) FROM (VALUES ('a', 1), ('a', CAST(NULL AS INT)), (CAST(NULL AS STRING), 3), (CAST(NULL AS STRING), 4)) AS t(k, x) GROUP BY k",
        "SELECT k, COUNT(DISTINCT x) FROM (VALUES ('a', 1), ('a', 1), ('a', CAST(NULL AS INT)), ('b', 2)) AS t(k, x) GROUP BY k",
        "SELECT SUM(x), COUNT(*) FROM (VALUES (CAST(2147483647 AS INT)), (CAST(2147483647 AS INT))) AS t(x)",
        "SELECT AVG(x) FROM (VALUES (CAST(1 AS TINYINT)), (CAST(2 AS TINYINT))) AS t(x)",
        "SELECT AVG(x) FROM (VALUES (CAST(127 AS TINYINT)), (CAST(127 AS TINYINT))) AS t(x)",
        "SELECT SUM(x) FROM (VALUES (CAST(127 AS TINYINT)), (CAST(1 AS TINYINT))) AS t(x)",
        "SELECT x, COUNT(*) FROM (VALUES (1.0e0), (CAST('NaN' AS DOUBLE)), (CAST('NaN' AS DOUBLE)), (-0.0e0), (0.0e0)) AS t(x) GROUP BY x",
    ]:
        c.query("aggregate", "GROUP BY", sql)


def windows_with_null(c: Corpus) -> None:
    data = "(VALUES ('a', 3), ('a', CAST(NULL AS INT)), ('a', 1), ('a', 1), (CAST(NULL AS STRING), 2), (CAST(NULL AS STRING), 5)) AS t(k, x)"
    for fn in [
        "ROW_NUMBER()",
        "RANK()",
        "DENSE_RANK()",
        "CUME_DIST()",
        "PERCENT_RANK()",
        "NTILE(3)",
        "LEAD(x)",
        "LAG(x, 2)",
        "FIRST_VALUE(x)",
        "LAST_VALUE(x)",
        "SUM(x)",
        "COUNT(x)",
    ]:
        c.query(
            "window",
            fn.split("(")[0],
            f"SELECT k, x, {fn} OVER (PARTITION BY k ORDER BY x) AS w FROM {data} ORDER BY k, x, w",
        )
    c.query(
        "window",
        "SUM",
        f"SELECT k, x, SUM(x) OVER (PARTITION BY k ORDER BY x RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS w FROM {data} ORDER BY k, x, w",
    )
    c.query(
        "window",
        "ROW_NUMBER",
        "SELECT * FROM (SELECT k, x, ROW_NUMBER() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM (VALUES ('a', 3), ('a', 1), ('b', 2)) AS t(k, x)) WHERE rn = 1",
    )


def variant_bitmap_and_more(c: Corpus) -> None:
    for text in [
        "PARSE_JSON(CAST(NULL AS STRING))",
        "PARSE_JSON('')",
        "PARSE_JSON('null')",
        "PARSE_JSON('\"x\"')",
        "PARSE_JSON('1e400')",
        'PARSE_JSON(\'{"a": 1, "a": 2}\')',
        "TRY_PARSE_JSON(CAST(NULL AS STRING))",
        "TRY_PARSE_JSON('')",
        "TRY_PARSE_JSON('[1, 2]')",
        "PARSE_JSON('[1, 2]')[1]",
        "PARSE_JSON('{\"a\": 1}')['b']",
        "CAST(PARSE_JSON('\"x\"') AS STRING)",
        "CAST(PARSE_JSON('1.5') AS INT)",
        "BITMAP_BUILD(ARRAY[CAST(NULL AS INT)])",
        "BITMAP_TO_STRING(BITMAP_BUILD(ARRAY[1, CAST(NULL AS INT)]))",
        "BITMAP_CARDINALITY(CAST(NULL AS BITMAP))",
        "BITMAP_TO_STRING(BITMAP_AND(BITMAP_BUILD(ARRAY[1]), CAST(NULL AS BITMAP)))",
        "BITMAP_TO_STRING(BITMAP_BUILD(ARRAY[2147483647, -2147483648]))",
        "BITMAP_TO_ARRAY(BITMAP_BUILD(ARRAY[-1]))",
        "BITMAP_FROM_BYTES(X'00')",
        "BITMAP_FROM_BYTES(CAST(NULL AS BYTES))",
        "OBJECT_OF('com.example.User', 'name', CAST(NULL AS STRING))",
        "OBJECT_OF('com.example.User')",
        "OBJECT_UPDATE(OBJECT_OF('com.example.User', 'name', 'Bob'), 'missing', 1)",
        "CURRENT_WATERMARK(CAST(NULL AS TIMESTAMP(3)))",
    ]:
        c.expr("misc", text.split("(")[0], text)
    for sql in [
        "SELECT BITMAP_BUILD_CARDINALITY_AGG(x) FROM (VALUES (1), (CAST(NULL AS INT))) AS t(x)",
        "SELECT BITMAP_BUILD_CARDINALITY_AGG(x) FROM (VALUES (1)) AS t(x) WHERE x > 5",
    ]:
        c.query("misc", "BITMAP aggregate", sql)
    for text in [
        "ROW(CAST(NULL AS INT), 1)",
        "ROW(CAST(NULL AS INT))",
        "ARRAY[NULL]",
        "ARRAY[CAST(NULL AS INT), CAST(NULL AS INT)]",
        "MAP[CAST(NULL AS STRING), 1]",
        "MAP['a', CAST(NULL AS INT), 'b', 2]",
        "ARRAY[ARRAY[CAST(NULL AS INT)]]",
        "ARRAY[MAP['a', 1]]",
        "ROW(1, ROW(CAST(NULL AS STRING), 2))",
        "ARRAY['a', CAST(NULL AS STRING)][2]",
        "CARDINALITY(ARRAY[CAST(NULL AS INT)])",
    ]:
        c.expr(
            "valueconstruction",
            "ARRAY" if text.startswith("ARRAY") else text.split("[")[0].split("(")[0],
            text,
        )
    for value in [
        A("ARRAY<STRING>", "ARRAY['', ' ', CAST(NULL AS STRING)]"),
        A("MAP<INT, STRING>", "MAP[1, '', 2, CAST(NULL AS STRING)]"),
        A("ROW<a STRING, b DOUBLE>", "ROW('', 1e0)"),
        A("ARRAY<DECIMAL(5, 2)>", "ARRAY[CAST(1.5 AS DECIMAL(5, 2))]"),
        A("ARRAY<TIMESTAMP(3)>", "ARRAY[TIMESTAMP '2024-01-01 00:00:00']"),
        A("ARRAY<BYTES>", "ARRAY[X'0102']"),
        A("ARRAY<DOUBLE>", "ARRAY[1e7, 0.001e0, CAST('NaN' AS DOUBLE)]"),
        A("ARRAY<BOOLEAN>", "ARRAY[TRUE, CAST(NULL AS BOOLEAN)]"),
    ]:
        c.col("valueconstruction", "printed", "$0", value)
    c.col("valueconstruction", "printed", "$0", A("ARRAY<INT>", "ARRAY[1]"))
    c.col("valueconstruction", "printed", "$0", N("MAP<STRING, INT>"))
    c.col("valueconstruction", "printed", "$0", N("ROW<a INT>"))
    for arg in [I(0), BI(0), DEC("0.00", 3, 2), D("0.0"), S(""), N("STRING")]:
        c.col("conditional", "COALESCE", "COALESCE($0, $0)", arg)


PARTS = (
    patterns_with_null,
    strings_with_null,
    temporal_edges,
    numbers_edges,
    aggregate_edges,
    windows_with_null,
    variant_bitmap_and_more,
)
