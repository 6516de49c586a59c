# ruff: noqa: E501 - the cases read best on one line
"""Conformance cases: the docs' function table, literals, operators, numbers, conditionals, hashes."""

from __future__ import annotations

import json

from scripts.sql_conformance.corpus import BI, DEC, ROOT, A, B, Corpus, D, I, N, S, q

# -- the docs' function table -------------------------------------------------------------------------


def docs_samples(c: Corpus) -> None:
    """Every sample of docs/sql_functions.jsonl, under its own category."""
    with open(ROOT / "docs" / "sql_functions.jsonl", encoding="utf-8") as lines:
        for text in lines:
            if not text.strip():
                continue
            sample = json.loads(text)
            if sample.get("setup"):  # it reads a table of its own (CURRENT_WATERMARK's): no expression case
                continue
            category = {"catalog": "misc", "window": "window"}.get(sample["category"], sample["category"])
            if sample["sample"].startswith("SELECT "):
                c.query(category, sample["name"], sample["sample"])
            else:
                c.expr(category, sample["name"], sample["sample"])


# -- literals ---------------------------------------------------------------------------------------------


def literals(c: Corpus) -> None:
    for text in [
        "'it''s'",
        "''''",
        "''",
        "'a\\b'",
        "'a\\nb'",
        "'\\'",
        "'C:\\temp\\new'",
        "'\\d+'",
        "U&'\\0041'",
        "U&'\\00e9t\\00e9'",
        "U&'a\\\\b'",
        "U&'\\+01F600'",
        "U&'!0041' UESCAPE '!'",
        "'multi' 'part'",
        "'a'\n'b'",
        "'日本語'",
        "'😀'",
        "'tab\there'",
        "'  padded  '",
        "_UTF16'abc'",
        "N'abc'",
        "X'0102'",
        "X''",
        "x'abCD'",
        "X'0'",
        "X'GG'",
        "X'01' '02'",
        "TRUE",
        "FALSE",
        "UNKNOWN",
        "NULL",
        "CAST(NULL AS STRING)",
        "0",
        "-0",
        "1",
        "-1",
        "2147483647",
        "2147483648",
        "-2147483648",
        "-2147483649",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "99999999999999999999999999999999999999",
        "999999999999999999999999999999999999999",
        "1.0",
        "1.50",
        ".5",
        "5.",
        "0.000",
        "-0.0",
        "123456789012345678901234567890.123456789",
        "1e0",
        "1E10",
        "1.5e-3",
        "0.1e0",
        "-2.5E+2",
        "1e308",
        "1e309",
        "4.9e-324",
        "DATE '2024-02-29'",
        "DATE '2023-02-29'",
        "DATE '0001-01-01'",
        "DATE '9999-12-31'",
        "DATE '2024-1-5'",
        "DATE '1969-12-31'",
        "TIME '12:34:56'",
        "TIME '12:34:56.789'",
        "TIME '23:59:59.999999999'",
        "TIME '24:00:00'",
        "TIME '1:2:3'",
        "TIMESTAMP '2024-01-01 00:00:00'",
        "TIMESTAMP '2024-01-01 00:00:00.1'",
        "TIMESTAMP '2024-01-01 00:00:00.12'",
        "TIMESTAMP '2024-01-01 00:00:00.123'",
        "TIMESTAMP '2024-01-01 00:00:00.1234'",
        "TIMESTAMP '2024-01-01 00:00:00.123456'",
        "TIMESTAMP '2024-01-01 00:00:00.1234567'",
        "TIMESTAMP '2024-01-01 00:00:00.123456789'",
        "TIMESTAMP '2024-01-01 00:00:00.000'",
        "TIMESTAMP '2024-01-01'",
        "TIMESTAMP '2024-01-01T10:00:00'",
        "TIMESTAMP '1969-12-31 23:59:59.999'",
        "TIMESTAMP '0001-01-01 00:00:00'",
        "TIMESTAMP '2024-13-01 00:00:00'",
        "TIMESTAMP WITH LOCAL TIME ZONE '2024-01-01 10:20:30.5'",
        "TIMESTAMP_LTZ '2024-01-01 10:20:30.5'",
    ]:
        c.expr("literal", "literal", text)
    for text in ["'it''s'", "'a\\b'", "U&'\\0041'", "'O''Brien'"]:
        c.expr("literal", "literal", f"CHAR_LENGTH({text})")
        c.expr("literal", "literal", f"{text} = {text}")
    c.expr("literal", "literal", "'O''Brien' = 'OBrien'")
    c.expr("literal", "literal", "'a\\b' LIKE 'a\\\\b'")
    c.expr("literal", "literal", "'it''s' || '!'")


# -- comparison -------------------------------------------------------------------------------------------

COMPARE_PAIRS: list[tuple[A, A]] = [
    (I(1), I(1)),
    (I(1), I(2)),
    (I(2), I(1)),
    (I(1), N("INT")),
    (N("INT"), N("INT")),
    (I(1), BI(1)),
    (I(1), DEC("1.00", 3, 2)),
    (I(1), D("1.0")),
    (D("0.1"), DEC("0.1", 2, 1)),
    (A("FLOAT", "0.1"), D("0.1")),
    (D("'NaN'"), D("'NaN'")),
    (A("TINYINT", "127"), BI(127)),
    (S("a"), S("b")),
    (S("b"), S("a")),
    (S("a"), S("A")),
    (S("abc"), S("abd")),
    (S(""), S("a")),
    (S("a "), S("a")),
    (A("CHAR(3)", "'a'"), S("a")),
    (A("CHAR(3)", "'a'"), A("CHAR(5)", "'a'")),
    (S("é"), S("f")),
    (B(True), B(False)),
    (B(False), B(True)),
    (A("DATE", "DATE '2024-01-01'"), A("DATE", "DATE '2024-01-02'")),
    (A("DATE", "DATE '2024-01-01'"), A("TIMESTAMP(3)", "TIMESTAMP '2024-01-01 00:00:00'")),
    (
        A("TIMESTAMP(9)", "TIMESTAMP '2024-01-01 00:00:00.000000001'"),
        A("TIMESTAMP(9)", "TIMESTAMP '2024-01-01 00:00:00.000000002'"),
    ),
    (
        A("TIMESTAMP(3)", "TIMESTAMP '2024-01-01 00:00:00.5'"),
        A("TIMESTAMP(6)", "TIMESTAMP '2024-01-01 00:00:00.500000'"),
    ),
    (A("TIME", "TIME '10:00:00'"), A("TIME", "TIME '09:59:59'")),
    (A("BYTES", "X'01'"), A("BYTES", "X'02'")),
    (A("BYTES", "X'0102'"), A("BYTES", "X'01'")),
    (A("ARRAY<INT>", "ARRAY[1, 2]"), A("ARRAY<INT>", "ARRAY[1, 2]")),
    (A("ARRAY<INT>", "ARRAY[1, 2]"), A("ARRAY<INT>", "ARRAY[1, 3]")),
    (A("ROW<a INT, b STRING>", "ROW(1, 'a')"), A("ROW<a INT, b STRING>", "ROW(1, 'a')")),
]
COMPARE_OPS = ["=", "<>", "<", "<=", ">", ">=", "IS DISTINCT FROM", "IS NOT DISTINCT FROM"]


def comparison(c: Corpus) -> None:
    for left, right in COMPARE_PAIRS:
        for op in COMPARE_OPS:
            template = f"$0 {op} $1"
            c.lit("comparison", op, template, left, right)
            if op in ("=", "<", "IS DISTINCT FROM"):
                c.col("comparison", op, template, left, right)
    for text in [
        "1 = '1'",
        "'1' = 1",
        "DATE '2024-01-01' = '2024-01-01'",
        "TRUE = 1",
        "1 = 1.0",
        "1 < 1.5",
        "CAST(1 AS TINYINT) = 1",
        "9223372036854775807 = 9223372036854775807.0",
        "'abc' < 'abcd'",
        "NULL = NULL",
        "NULL IS NULL",
        "NOT (1 = 1)",
        "(1, 2) = (1, 2)",
        "(1, 2) < (1, 3)",
    ]:
        c.expr("comparison", "=", text)
    null_tests = [
        I(1),
        N("INT"),
        S(""),
        N("STRING"),
        B(False),
        N("BOOLEAN"),
        A("ARRAY<INT>", "ARRAY[CAST(NULL AS INT)]"),
    ]
    for arg in null_tests:
        c.both("comparison", "IS NULL", "$0 IS NULL", arg)
        c.both("comparison", "IS NOT NULL", "$0 IS NOT NULL", arg)
    between = [
        ("12 BETWEEN 10 AND 15", None),
        ("12 BETWEEN 15 AND 12", None),
        ("12 BETWEEN SYMMETRIC 15 AND 12", None),
        ("12 BETWEEN ASYMMETRIC 15 AND 12", None),
        ("12 BETWEEN 10 AND NULL", None),
        ("12 BETWEEN NULL AND 10", None),
        ("12 BETWEEN SYMMETRIC NULL AND 12", None),
        ("12 NOT BETWEEN 15 AND 12", None),
        ("12 NOT BETWEEN SYMMETRIC 15 AND 12", None),
        ("12 NOT BETWEEN NULL AND 15", None),
        ("12 NOT BETWEEN 15 AND NULL", None),
        ("12 NOT BETWEEN SYMMETRIC 12 AND NULL", None),
        ("CAST(NULL AS INT) BETWEEN 1 AND 2", None),
        ("'b' BETWEEN 'a' AND 'c'", None),
        ("DATE '2024-01-02' BETWEEN DATE '2024-01-01' AND DATE '2024-01-31'", None),
        ("1.5 BETWEEN 1 AND 2", None),
    ]
    for text, _ in between:
        c.expr("comparison", "BETWEEN", text)
    c.col("comparison", "BETWEEN", "$0 BETWEEN $1 AND $2", I(12), I(10), N("INT"))
    c.col("comparison", "BETWEEN", "$0 BETWEEN SYMMETRIC $1 AND $2", I(12), I(15), I(12))
    like = [
        ("hello", "h%o"),
        ("hello", "h_llo"),
        ("hello", "h_lo"),
        ("hello", "%"),
        ("", "%"),
        ("", "_"),
        ("hello", "HELLO"),
        ("a.c", "a.c"),
        ("abc", "a.c"),
        ("a+c", "a+c"),
        ("a*c", "a*c"),
        ("a(b", "a(b"),
        ("a[b]", "a[b]"),
        ("a$", "a$"),
        ("^a", "^a"),
        ("50%", "50\\%"),
        ("50x", "50\\%"),
        ("a_b", "a\\_b"),
        ("axb", "a\\_b"),
        ("a\\b", "a\\\\b"),
        ("line1\nline2", "line1%"),
        ("日本語", "日_語"),
    ]
    for value, pattern in like:
        c.both("comparison", "LIKE", "$0 LIKE $1", S(value), S(pattern))
    for value, pattern, escape in [
        ("50%", "50!%", "!"),
        ("50x", "50!%", "!"),
        ("a_b", "a#_b", "#"),
        ("a#b", "a##b", "#"),
        ("a%b", "a\\%b", "\\"),
        ("abc", "a!", "!"),
        ("abc", "abc", "ab"),
    ]:
        c.lit("comparison", "LIKE ESCAPE", f"$0 LIKE $1 ESCAPE {q(escape)}", S(value), S(pattern))
    c.both("comparison", "LIKE", "$0 LIKE $1", N("STRING"), S("%"))
    c.both("comparison", "LIKE", "$0 LIKE $1", S("a"), N("STRING"))
    c.both("comparison", "NOT LIKE", "$0 NOT LIKE $1", S("hello"), S("x%"))
    c.both("comparison", "NOT LIKE", "$0 NOT LIKE $1", S("hello"), S("h%"))
    c.lit("comparison", "NOT LIKE", "$0 NOT LIKE $1 ESCAPE '!'", S("5%"), S("5!%"))
    for value, pattern in [
        ("abc", "a(b|c)+"),
        ("abc", "abc"),
        ("abc", "a%"),
        ("abc", "a_c"),
        ("abc", "[a-c]+"),
        ("abd", "a(b|c)+"),
        ("aaa", "a{3}"),
        ("aaa", "a{2}"),
        ("a.c", "a.c"),
        ("abc", "a.c"),
        ("", ""),
        ("ab", "a?b"),
    ]:
        c.both("comparison", "SIMILAR TO", "$0 SIMILAR TO $1", S(value), S(pattern))
    c.both("comparison", "SIMILAR TO", "$0 SIMILAR TO $1", N("STRING"), S("a"))
    c.both("comparison", "NOT SIMILAR TO", "$0 NOT SIMILAR TO $1", S("abc"), S("a(b|c)+"))
    c.lit("comparison", "SIMILAR TO", "$0 SIMILAR TO $1 ESCAPE '!'", S("a+"), S("a!+"))
    for text in [
        "4 IN (1, 2, 3)",
        "2 IN (1, 2, 3)",
        "1 IN (1, 2, NULL)",
        "4 IN (1, 2, NULL)",
        "CAST(NULL AS INT) IN (1, 2)",
        "4 NOT IN (1, 2, 3)",
        "1 NOT IN (1, 2, NULL)",
        "4 NOT IN (1, 2, NULL)",
        "'b' IN ('a', 'b')",
        "'b ' IN ('a', 'b')",
        "1 IN (1.0, 2.5)",
        "1.0 IN (1, 2)",
        "DATE '2024-01-01' IN (DATE '2024-01-01')",
        "(1, 'a') IN ((1, 'a'), (2, 'b'))",
        "1 IN (1)",
    ]:
        c.expr("comparison", "IN" if " NOT IN " not in text else "NOT IN", text)
    c.col("comparison", "IN", "$0 IN (1, 2, 3)", I(2))
    c.col("comparison", "IN", "$0 IN (1, 2, 3)", N("INT"))
    c.col("comparison", "NOT IN", "$0 NOT IN ('a', 'b')", S("c"))
    c.col("comparison", "IN", "$0 IN ($1, $2)", I(2), I(1), N("INT"))
    for sql in [
        "SELECT EXISTS (SELECT 1 FROM (VALUES (1)) AS t(x) WHERE x > 0)",
        "SELECT x FROM (VALUES (1), (2), (3)) AS t(x) WHERE EXISTS (SELECT 1 FROM (VALUES (2)) AS u(y) WHERE y = x)",
        "SELECT x FROM (VALUES (1), (2), (3)) AS t(x) WHERE x IN (SELECT y FROM (VALUES (2), (3)) AS u(y))",
        "SELECT x FROM (VALUES (1), (2), (3)) AS t(x) WHERE x NOT IN (SELECT y FROM (VALUES (2)) AS u(y))",
        "SELECT x FROM (VALUES (1), (2), (CAST(NULL AS INT))) AS t(x) WHERE x NOT IN (SELECT y FROM (VALUES (2)) AS u(y))",
        "SELECT x FROM (VALUES (1), (2)) AS t(x) WHERE x NOT IN (SELECT y FROM (VALUES (2), (CAST(NULL AS INT))) AS u(y))",
    ]:
        c.query("comparison", "EXISTS / IN subquery", sql)


# -- logical -----------------------------------------------------------------------------------------------


def logical(c: Corpus) -> None:
    truth = [B(True), B(False), N("BOOLEAN")]
    for left in truth:
        for right in truth:
            c.lit("logical", "AND", "$0 AND $1", left, right)
            c.lit("logical", "OR", "$0 OR $1", left, right)
            c.col("logical", "AND", "$0 AND $1", left, right)
            c.col("logical", "OR", "$0 OR $1", left, right)
    for value in truth:
        c.both("logical", "NOT", "NOT $0", value)
        for test in ["IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE", "IS UNKNOWN", "IS NOT UNKNOWN"]:
            c.both("logical", test, f"$0 {test}", value)
    c.expr("logical", "AND", "TRUE AND 1 = 1 AND 'a' = 'a'")
    c.expr("logical", "OR", "FALSE OR NULL")
    c.expr("logical", "AND", "NOT NULL")
    c.expr("logical", "AND", "1 AND TRUE")
    c.expr("logical", "OR", "'true' OR FALSE")


# -- conditional --------------------------------------------------------------------------------------------


def conditional(c: Corpus) -> None:
    for text in [
        "CASE 2 WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END",
        "CASE 3 WHEN 1 THEN 'one' WHEN 2 THEN 'two' END",
        "CASE 2 WHEN 1, 2 THEN 'low' ELSE 'high' END",
        "CASE CAST(NULL AS INT) WHEN 1 THEN 'one' ELSE 'other' END",
        "CASE WHEN 1 > 2 THEN 'yes' ELSE 'no' END",
        "CASE WHEN 1 > 2 THEN 'yes' END",
        "CASE WHEN CAST(NULL AS BOOLEAN) THEN 1 ELSE 2 END",
        "CASE WHEN TRUE THEN 1 ELSE 2.5 END",
        "CASE WHEN TRUE THEN 'a' ELSE 'bbb' END",
        "CASE WHEN FALSE THEN 'a' ELSE 'bbb' END",
        "CASE WHEN TRUE THEN 1 ELSE CAST(NULL AS INT) END",
        "CASE WHEN TRUE THEN CAST(1 AS TINYINT) ELSE CAST(2 AS BIGINT) END",
        "CASE WHEN TRUE THEN 1 ELSE 1e0 END",
        "CASE WHEN TRUE THEN DATE '2024-01-01' ELSE TIMESTAMP '2024-01-01 10:00:00' END",
        "CASE WHEN TRUE THEN 1 ELSE 'a' END",
        "CASE 'a' WHEN 'a ' THEN 'padded' ELSE 'exact' END",
    ]:
        c.expr("conditional", "CASE", text)
    c.col("conditional", "CASE", "CASE $0 WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END", I(2))
    c.col("conditional", "CASE", "CASE WHEN $0 > 1 THEN $1 ELSE $2 END", I(2), S("x"), N("STRING"))
    c.col("conditional", "CASE", "CASE WHEN $0 THEN 1 END", N("BOOLEAN"))
    for a, b in [
        (I(5), I(5)),
        (I(5), I(0)),
        (N("INT"), I(1)),
        (S("a"), S("a")),
        (S("a"), S("b")),
        (I(1), D("1.0")),
        (I(1), BI(1)),
        (DEC("1.0", 2, 1), I(1)),
    ]:
        c.both("conditional", "NULLIF", "NULLIF($0, $1)", a, b)
    for args in [
        (N("STRING"), S("default")),
        (S("x"), S("default")),
        (N("INT"), N("INT")),
        (N("INT"), I(1), I(2)),
        (N("INT"), D("1.5")),
        (N("INT"), BI(3)),
        (N("STRING"), S("a"), S("bbb")),
        (N("DATE"), A("DATE", "DATE '2024-01-01'")),
        (I(1),),
    ]:
        template = "COALESCE(" + ", ".join(f"${i}" for i in range(len(args))) + ")"
        c.both("conditional", "COALESCE", template, *args)
    c.expr("conditional", "COALESCE", "COALESCE(NULL, 'default')")
    c.expr("conditional", "COALESCE", "COALESCE(1, 'a')")
    for args in [
        (B(True), I(1), I(2)),
        (B(False), I(1), I(2)),
        (N("BOOLEAN"), I(1), I(2)),
        (B(True), S("a"), S("bb")),
        (B(False), I(1), D("2.5")),
        (B(True), I(1), N("INT")),
        (B(True), DEC("1.5", 2, 1), I(7)),
    ]:
        c.both("conditional", "IF", "IF($0, $1, $2)", *args)
    c.expr("conditional", "IF", "IF(5 > 3, 5, 3)")
    c.expr("conditional", "IF", "IF(1, 'a', 'b')")
    for args in [
        (N("INT"), I(5)),
        (I(3), I(5)),
        (N("INT"), N("INT")),
        (N("STRING"), S("x")),
        (N("INT"), D("1.5")),
        (S("a"), S("bbb")),
        (N("BIGINT"), I(1)),
    ]:
        c.both("conditional", "IFNULL", "IFNULL($0, $1)", *args)
    for fn in ["IS_ALPHA", "IS_DECIMAL", "IS_DIGIT"]:
        for value in [
            "abc",
            "abc1",
            "123",
            "1.5",
            "-1",
            "+1",
            "1.5e3",
            " 1",
            "1 ",
            "",
            "é",
            "١٢",
            "Ⅻ",
            "0x1F",
            ".5",
            "5.",
            "NaN",
            None,
        ]:
            c.both("conditional", fn, f"{fn}($0)", S(value))
    for fn in ["GREATEST", "LEAST"]:
        for args in [
            (I(1), I(5), I(3)),
            (I(1), N("INT"), I(3)),
            (I(1), D("2.5")),
            (I(1), BI(7)),
            (S("a"), S("B"), S("c")),
            (S("apple"), S("app")),
            (A("DATE", "DATE '2024-01-01'"), A("DATE", "DATE '2023-12-31'")),
            (
                A("TIMESTAMP(3)", "TIMESTAMP '2024-01-01 00:00:00'"),
                A("TIMESTAMP(3)", "TIMESTAMP '2024-01-01 00:00:00.001'"),
            ),
            (B(True), B(False)),
            (I(7),),
            (DEC("1.5", 2, 1), DEC("1.25", 3, 2)),
            (D("'NaN'"), D("1.0")),
        ]:
            template = f"{fn}(" + ", ".join(f"${i}" for i in range(len(args))) + ")"
            c.both("conditional", fn, template, *args)
        c.expr("conditional", fn, f"{fn}(1, 'a')")


# -- hash functions -----------------------------------------------------------------------------------------


def hashes(c: Corpus) -> None:
    for fn in ["MD5", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512"]:
        for value in [S(""), S("hello"), S("é日本"), N("STRING"), A("BYTES", "X'0102'"), I(1)]:
            c.both("hash", fn, f"{fn}($0)", value)
    for bits in [224, 256, 384, 512, 0, 1, 128]:
        c.both("hash", "SHA2", "SHA2($0, $1)", S("hello"), I(bits))
    c.both("hash", "SHA2", "SHA2($0, $1)", S("hello"), N("INT"))
    c.both("hash", "SHA2", "SHA2($0, $1)", N("STRING"), I(256))


PARTS = (
    docs_samples,
    literals,
    comparison,
    logical,
    conditional,
    hashes,
)
