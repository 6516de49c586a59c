# ruff: noqa: E501 - the cases read best on one line
"""Conformance cases: arithmetic operators and math functions, integer widths (Java's overflow),
DECIMAL precision and scale."""

from __future__ import annotations

from scripts.sql_conformance.corpus import BI, DEC, A, B, Corpus, D, I, N, S

# -- arithmetic ---------------------------------------------------------------------------------------------

UNARY_MATH = [
    "SQRT",
    "LN",
    "LOG10",
    "LOG2",
    "EXP",
    "SIN",
    "SINH",
    "COS",
    "COSH",
    "TAN",
    "TANH",
    "COT",
    "ASIN",
    "ACOS",
    "ATAN",
    "DEGREES",
    "RADIANS",
    "LOG",
]
MATH_INPUTS = [
    D("0.0"),
    D("1.0"),
    D("-1.0"),
    D("0.5"),
    D("2.0"),
    D("1e308"),
    N("DOUBLE"),
    I(2),
    DEC("2.50", 3, 2),
]
ROUNDING_INPUTS = [
    A("TINYINT", "-7"),
    A("SMALLINT", "-300"),
    I(-2147483648),
    BI(-9223372036854775807),
    DEC("-2.50", 3, 2),
    DEC("2.49", 3, 2),
    DEC("0.5", 1, 1),
    DEC("-12345.6789", 9, 4),
    A("FLOAT", "-2.5"),
    D("2.5"),
    D("-0.5"),
    D("1e20"),
    D("'NaN'"),
    D("'Infinity'"),
    N("DECIMAL(5, 2)"),
    N("DOUBLE"),
]


def arithmetic(c: Corpus) -> None:
    for fn in UNARY_MATH:
        for arg in MATH_INPUTS:
            c.lit("arithmetic", fn, f"{fn}($0)", arg)
        c.col("arithmetic", fn, f"{fn}($0)", D("0.5"))
        c.col("arithmetic", fn, f"{fn}($0)", N("DOUBLE"))
    for fn in ["ABS", "SIGN", "CEIL", "CEILING", "FLOOR", "ROUND", "TRUNCATE"]:
        for arg in ROUNDING_INPUTS:
            c.both("arithmetic", fn, f"{fn}($0)", arg)
    for value in [
        DEC("3.14159", 6, 5),
        D("3.14159"),
        DEC("1.005", 4, 3),
        D("1.005"),
        DEC("-2.5", 2, 1),
        I(1234),
        BI(1250),
    ]:
        for digits in [-2, -1, 0, 1, 2, 3]:
            c.both("arithmetic", "ROUND", "ROUND($0, $1)", value, I(digits))
            c.lit("arithmetic", "TRUNCATE", "TRUNCATE($0, $1)", value, I(digits))
    c.both("arithmetic", "ROUND", "ROUND($0, $1)", DEC("2.5", 2, 1), N("INT"))
    c.both("arithmetic", "TRUNCATE", "TRUNCATE($0, $1)", N("DOUBLE"), I(1))
    c.lit("arithmetic", "ROUND", "ROUND($0, $1)", DEC("99.99", 4, 2), I(1))
    c.lit("arithmetic", "ROUND", "ROUND($0, $1)", DEC("9.99", 3, 2), I(0))
    c.lit("arithmetic", "ROUND", "ROUND($0, $1)", A("FLOAT", "2.675"), I(2))


def arithmetic_binary(c: Corpus) -> None:
    for base, exponent in [
        (I(2), I(10)),
        (I(2), I(-1)),
        (I(0), I(0)),
        (D("-8.0"), D("0.3333333333333333")),
        (N("DOUBLE"), I(2)),
        (DEC("2.5", 2, 1), I(2)),
        (I(10), I(400)),
        (D("-1.0"), D("0.5")),
    ]:
        c.both("arithmetic", "POWER", "POWER($0, $1)", base, exponent)
    c.expr("arithmetic", "POWER", "POWER(2, 3) = 8")
    for a, b in [
        (I(7), I(3)),
        (I(-7), I(3)),
        (I(7), I(-3)),
        (I(7), I(0)),
        (DEC("7.5", 2, 1), I(2)),
        (BI(-9), I(4)),
        (D("7.5"), D("2.0")),
        (D("-7.5"), D("2.0")),
        (D("1.0"), D("0.0")),
        (N("INT"), I(3)),
        (A("TINYINT", "-128"), A("TINYINT", "-1")),
        (DEC("10.25", 4, 2), DEC("0.1", 2, 1)),
    ]:
        c.both("arithmetic", "MOD", "MOD($0, $1)", a, b)
        c.lit("arithmetic", "%", "$0 % $1", a, b)
    for a, b in [
        (D("1.0"), D("1.0")),
        (D("0.0"), D("0.0")),
        (D("-1.0"), D("-0.0")),
        (I(1), I(0)),
        (N("DOUBLE"), D("1.0")),
    ]:
        c.both("arithmetic", "ATAN2", "ATAN2($0, $1)", a, b)
    for a, b in [
        (D("2.0"), D("8.0")),
        (I(10), I(100)),
        (D("1.0"), D("5.0")),
        (D("0.5"), D("4.0")),
        (D("2.0"), D("0.0")),
        (D("2.0"), D("-1.0")),
        (N("DOUBLE"), D("2.0")),
    ]:
        c.both("arithmetic", "LOG", "LOG($0, $1)", a, b)
    for value in [I(12), I(0), I(-1), BI(9223372036854775807), A("TINYINT", "-1"), N("INT"), I(4)]:
        c.both("arithmetic", "BIN", "BIN($0)", value)
    for value in [
        I(100),
        I(0),
        I(-1),
        BI(-1),
        BI(9223372036854775807),
        A("TINYINT", "-1"),
        S("hello,world"),
        S(""),
        S("日本"),
        N("INT"),
        N("STRING"),
        DEC("20.5", 3, 1),
        D("20.7"),
    ]:
        c.both("arithmetic", "HEX", "HEX($0)", value)
    for hex_text in ["414243", "4", "ABC", "zz", "", "e697a5", "0A0b", None]:
        c.both("arithmetic", "UNHEX", "UNHEX($0)", S(hex_text))


def arithmetic_constants(c: Corpus) -> None:
    for text in [
        "RAND(42)",
        "RAND(0)",
        "RAND(-1)",
        "RAND(CAST(NULL AS INT))",
        "RAND_INTEGER(42, 10)",
        "RAND_INTEGER(0, 100)",
        "RAND_INTEGER(7, 1)",
        "RAND_INTEGER(42, CAST(NULL AS INT))",
        "RAND() >= 0 AND RAND() < 1",
        "RAND_INTEGER(10) BETWEEN 0 AND 9",
        "RAND_INTEGER(0)",
        "CHAR_LENGTH(UUID())",
        "UUID() SIMILAR TO '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}'",
        "UUID() = UUID()",
        "PI()",
        "E()",
        "PI",
        "-PI()",
        "+5",
        "-(5)",
        "- -5",
        "-CAST(NULL AS INT)",
        "+'a'",
        "-'1'",
        "- DATE '2024-01-01'",
    ]:
        c.expr("arithmetic", text.split("(")[0].strip("+- ") or "unary", text)


def arithmetic_operators(c: Corpus) -> None:
    ops = ["+", "-", "*", "/"]
    pairs = [
        (I(7), I(2)),
        (I(-7), I(2)),
        (I(7), I(-2)),
        (I(7), I(0)),
        (I(0), I(0)),
        (A("TINYINT", "7"), A("SMALLINT", "2")),
        (A("SMALLINT", "7"), I(2)),
        (I(7), BI(2)),
        (I(7), DEC("2.00", 3, 2)),
        (I(7), A("FLOAT", "2.0")),
        (A("FLOAT", "0.1"), D("0.2")),
        (D("0.1"), D("0.2")),
        (BI(7), D("2.0")),
        (DEC("7.5", 2, 1), D("2.0")),
        (D("1.0"), D("0.0")),
        (D("-1.0"), D("0.0")),
        (D("0.0"), D("0.0")),
        (DEC("1.0", 2, 1), DEC("0.0", 2, 1)),
        (N("INT"), I(1)),
        (I(1), N("DOUBLE")),
        (S("1"), I(1)),
        (I(1), S("1")),
        (B(True), I(1)),
    ]
    for a, b in pairs:
        for op in ops:
            c.lit("arithmetic", op, f"$0 {op} $1", a, b)
            if op in ("+", "/"):
                c.col("arithmetic", op, f"$0 {op} $1", a, b)


# -- integer widths ----------------------------------------------------------------------------------------

INT_TYPES = {
    "TINYINT": (-128, 127),
    "SMALLINT": (-32768, 32767),
    "INT": (-2147483648, 2147483647),
    "BIGINT": (-9223372036854775808, 9223372036854775807),
}


def integers(c: Corpus) -> None:
    for name, (low, high) in INT_TYPES.items():
        lo, hi = A(name, str(low)), A(name, str(high))
        one, minus_one, two = A(name, "1"), A(name, "-1"), A(name, "2")
        for template, args in [
            ("$0 + $1", (hi, one)),
            ("$0 - $1", (lo, one)),
            ("$0 * $1", (hi, two)),
            ("$0 * $1", (lo, minus_one)),
            ("$0 / $1", (lo, minus_one)),
            ("$0 % $1", (lo, minus_one)),
            ("$0 * $0", (hi,)),
            ("-$0", (lo,)),
            ("ABS($0)", (lo,)),
            ("$0 + 1", (hi,)),
            ("$0 - 1", (lo,)),
            ("$0 + CAST(1 AS BIGINT)", (hi,)),
            ("$0 + 1.0", (hi,)),
            ("$0 + 1e0", (hi,)),
            ("$0 / 2", (A(name, "7"),)),
            ("$0 / $1", (A(name, "-7"), two)),
            ("$0 % $1", (A(name, "-7"), two)),
            ("CAST($0 AS BIGINT) + 1", (hi,)),
            ("$0 = $1", (hi, hi)),
            ("$0 + $1", (hi, N(name))),
            ("$0 / $1", (hi, A(name, "0"))),
        ]:
            c.both(
                "integer",
                template.split(" ")[1] if " " in template else template.split("(")[0],
                template,
                *args,
            )
    for text in [
        "2147483647 + 1",
        "-2147483648 - 1",
        "2147483647 * 2",
        "-(-2147483648)",
        "9223372036854775807 + 1",
        "-9223372036854775808 - 1",
        "9223372036854775807 * 2",
        "CAST(127 AS TINYINT) + CAST(1 AS TINYINT)",
        "CAST(32767 AS SMALLINT) + CAST(1 AS SMALLINT)",
        "CAST(100 AS TINYINT) * CAST(3 AS TINYINT)",
        "CAST(-128 AS TINYINT) / CAST(-1 AS TINYINT)",
        "CAST(1 AS TINYINT) + CAST(1 AS SMALLINT)",
        "CAST(1 AS SMALLINT) + 1",
        "CAST(1 AS TINYINT) * 1.5",
        "2147483647 + CAST(1 AS BIGINT)",
        "ABS(-2147483648)",
        "ABS(CAST(-128 AS TINYINT))",
        "-CAST(-128 AS TINYINT)",
        "2147483648 - 1",
        "7 / 2 * 2",
        "-7 / 2",
        "-7 % 2",
        "7 % -2",
        "1 / 3",
        "1 / 3.0",
        "1.0 / 3",
        "1 / 3e0",
        "CAST(2147483647 AS BIGINT) * 2",
    ]:
        c.expr("integer", "overflow", text)


# -- DECIMAL precision and scale ----------------------------------------------------------------------------

DECIMAL_PAIRS = [
    (("1.25", 5, 2), ("3.125", 7, 3)),
    (("12.3", 38, 10), ("4.56", 38, 10)),
    (("1234567890", 10, 0), ("0.12345", 5, 5)),
    (("'99999999999999999999999999999999999999'", 38, 0), ("1", 1, 0)),
    (("1.5", 20, 2), ("2.25", 20, 2)),
    (("0.1", 38, 37), ("0.3", 38, 37)),
    (("10", 2, 0), ("3", 1, 0)),
    (("-7.50", 5, 2), ("2", 1, 0)),
    (("'12345678901234567890.12'", 22, 2), ("'98765432109876543210.98'", 22, 2)),
]


def decimals(c: Corpus) -> None:
    for (av, ap, as_), (bv, bp, bs) in DECIMAL_PAIRS:
        a, b = DEC(av, ap, as_), DEC(bv, bp, bs)
        for op in ["+", "-", "*", "/", "%"]:
            c.col("decimal", op, f"$0 {op} $1", a, b)
        c.col("decimal", "MOD", "MOD($0, $1)", a, b)
        c.col("decimal", "=", "$0 = $1", a, b)
    for text in [
        "0.1 + 0.2",
        "0.1 + 0.2 = 0.3",
        "1.10 * 1.1",
        "10.0 / 3",
        "10 / 3.0",
        "1.0 / 3.0",
        "2.00 / 0.5",
        "1.0 = 1.00",
        "1.5 + 1",
        "1.5 + CAST(1 AS BIGINT)",
        "1.5 + CAST(1 AS TINYINT)",
        "1.5 * 1e0",
        "1.5 + CAST(1.5 AS FLOAT)",
        "CAST(1.005 AS DECIMAL(3, 2))",
        "CAST(-1.005 AS DECIMAL(3, 2))",
        "CAST(1.004 AS DECIMAL(3, 2))",
        "CAST(12345.678 AS DECIMAL(5, 2))",
        "CAST(999.995 AS DECIMAL(5, 2))",
        "CAST('99999999999999999999999999999999999999' AS DECIMAL(38, 0)) + 1",
        "CAST('99999999999999999999999999999999999999' AS DECIMAL(38, 0)) * 10",
        "CAST(1 AS DECIMAL(38, 37)) * 10",
        "CAST(0.00000000000000000001 AS DECIMAL(38, 20)) / 3",
        "CAST(1.5 AS DECIMAL(2, 1)) / 0",
        "CAST(1.5 AS DECIMAL(10, 2)) / CAST(0 AS DECIMAL(10, 2))",
        "CAST(1.5 AS DECIMAL(10, 2)) % CAST(0 AS DECIMAL(10, 2))",
        "-CAST(1.5 AS DECIMAL(10, 2))",
        "ABS(CAST(-1.50 AS DECIMAL(10, 2)))",
        "CAST(5 AS DECIMAL(3, 0)) / CAST(2 AS DECIMAL(3, 0))",
        "CAST(1 AS DECIMAL(38, 0)) / CAST(3 AS DECIMAL(38, 0))",
        "CAST(1 AS DECIMAL(38, 10)) / CAST(3 AS DECIMAL(38, 10))",
        "CAST(123.456 AS DECIMAL(38, 18)) * CAST(2 AS DECIMAL(38, 18))",
        "CAST(12.34 AS DECIMAL(4, 2)) * CAST(56.78 AS DECIMAL(4, 2))",
        "CAST(1.1 AS DECIMAL(2, 1)) + CAST(9.9 AS DECIMAL(2, 1))",
        "CAST(0 AS DECIMAL(1, 0))",
        "CAST(-0.0 AS DECIMAL(3, 1))",
        "CAST('1e3' AS DECIMAL(10, 2))",
        "CAST('1.23456789' AS DECIMAL(5, 3))",
        "CAST(1e-10 AS DECIMAL(10, 5))",
        "CAST(123.5 AS DECIMAL(3, 0))",
        "CAST(-123.5 AS DECIMAL(3, 0))",
        "FLOOR(CAST(-1.5 AS DECIMAL(5, 2)))",
        "CEIL(CAST(1.01 AS DECIMAL(5, 2)))",
        "ROUND(CAST(1.235 AS DECIMAL(5, 3)), 2)",
        "SIGN(CAST(-1.5 AS DECIMAL(5, 2)))",
        "POWER(CAST(1.5 AS DECIMAL(5, 2)), 2)",
        "SQRT(CAST(2.25 AS DECIMAL(5, 2)))",
        "CAST(12.5 AS DECIMAL(5, 2)) > 12.49",
        "GREATEST(CAST(1.5 AS DECIMAL(5, 2)), CAST(1.25 AS DECIMAL(6, 3)))",
        "COALESCE(CAST(NULL AS DECIMAL(5, 2)), CAST(1.2345 AS DECIMAL(10, 4)))",
        "CASE WHEN TRUE THEN CAST(1.5 AS DECIMAL(5, 2)) ELSE CAST(1 AS DECIMAL(10, 4)) END",
    ]:
        c.expr("decimal", "decimal", text)
    # An overflow is NULL, and a NOT NULL column refuses it when printed: over a nullable
    # value (NULLIF), the NULL itself prints.
    for text in [
        "CAST(NULLIF(12345.678, 0) AS DECIMAL(5, 2))",
        "CAST(NULLIF(2147483647, 0) AS DECIMAL(5, 2))",
        "CAST(NULLIF(1e20, 0) AS DECIMAL(10, 2))",
        "NULLIF(CAST('99999999999999999999999999999999999999' AS DECIMAL(38, 0)), 0) + 1",
        "NULLIF(CAST('99999999999999999999999999999999999999' AS DECIMAL(38, 0)), 0) * 10",
        "NULLIF(CAST('12345678901234567890.12' AS DECIMAL(22, 2)), 0) * CAST('98765432109876543210.98' AS DECIMAL(22, 2))",
    ]:
        c.expr("decimal", "overflow", text)
    for text in [
        "LPAD(NULLIF('hi', ''), -1, 'x')",
        "RPAD(NULLIF('hi', ''), 4, '')",
        "REGEXP_REPLACE(NULLIF('abc', ''), '(', 'x')",
    ]:
        c.expr("string", text.split("(")[0], text)


PARTS = (arithmetic, arithmetic_binary, arithmetic_constants, arithmetic_operators, integers, decimals)
