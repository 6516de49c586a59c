"""Conformance cases: string functions."""

from __future__ import annotations

from collections.abc import Sequence

from scripts.sql_conformance.corpus import BI, A, Corpus, I, N, S

BYTES_NULL = N("BYTES")


def _calls(c: Corpus, function: str, template: str, cases: Sequence[tuple[A, ...]]) -> None:
    for args in cases:
        c.both("string", function, template, *args)


def strings(c: Corpus) -> None:  # noqa: C901 - one list of cases per function
    _calls(
        c,
        "||",
        "$0 || $1",
        [
            (S("ab"), S("cd")),
            (S(""), S("")),
            (S("a"), N("STRING")),
            (A("CHAR(3)", "'a'"), S("b")),
            (S("日本"), S("語")),
            (I(1), S("a")),
            (A("VARCHAR(2)", "'ab'"), A("VARCHAR(3)", "'cde'")),
        ],
    )
    for fn in ["CHAR_LENGTH", "CHARACTER_LENGTH"]:
        _calls(
            c,
            fn,
            f"{fn}($0)",
            [
                (S("hello"),),
                (S(""),),
                (N("STRING"),),
                (S("日本語"),),
                (S("😀"),),
                (A("CHAR(5)", "'ab'"),),
                (S("  "),),
            ],
        )
    for fn in ["UPPER", "LOWER"]:
        _calls(
            c,
            fn,
            f"{fn}($0)",
            [
                (S("HeLLo"),),
                (S(""),),
                (N("STRING"),),
                (S("straße"),),
                (S("İstanbul"),),
                (S("àÉî"),),
                (S("ǅ"),),
                (S("ΣΑΣ"),),
                (A("CHAR(4)", "'ab'"),),
            ],
        )
    for text in [
        "POSITION('l' IN 'hello')",
        "POSITION('' IN 'abc')",
        "POSITION('z' IN 'abc')",
        "POSITION('b' IN 'abcb' FROM 3)",
        "POSITION(CAST(NULL AS STRING) IN 'abc')",
        "POSITION('語' IN '日本語')",
        "POSITION('😀' IN 'a😀b')",
    ]:
        c.expr("string", "POSITION", text)
    c.col("string", "POSITION", "POSITION($0 IN $1)", S("l"), S("hello"))
    c.col("string", "POSITION", "POSITION($0 IN $1)", S("x"), N("STRING"))
    for text in [
        "TRIM(BOTH 'x' FROM 'xxhixx')",
        "TRIM(LEADING 'x' FROM 'xxhixx')",
        "TRIM(TRAILING 'x' FROM 'xxhixx')",
        "TRIM('  hi  ')",
        "TRIM(BOTH FROM '  hi  ')",
        "TRIM(LEADING FROM '  hi  ')",
        "TRIM(BOTH 'ab' FROM 'abxyba')",
        "TRIM(BOTH '' FROM 'abc')",
        "TRIM(CAST(NULL AS STRING))",
        "TRIM(BOTH CAST(NULL AS STRING) FROM 'abc')",
        "TRIM(U&'\\0009hi\\000A')",
        "TRIM('')",
    ]:
        c.expr("string", "TRIM", text)
    c.col("string", "TRIM", "TRIM(BOTH $0 FROM $1)", S("x"), S("xxhixx"))
    c.col("string", "TRIM", "TRIM($0)", S("  hi  "))
    for fn in ["LTRIM", "RTRIM", "BTRIM"]:
        _calls(c, fn, f"{fn}($0)", [(S("  hi  "),), (S(""),), (N("STRING"),), (S("\thi\t"),), (S("hi"),)])
        _calls(
            c,
            fn,
            f"{fn}($0, $1)",
            [
                (S("xxhixx"), S("x")),
                (S("abhiba"), S("ab")),
                (S("hi"), S("")),
                (S("hi"), N("STRING")),
                (S("  hi  "), S(" ")),
            ],
        )
    _calls(
        c,
        "REPEAT",
        "REPEAT($0, $1)",
        [
            (S("ab"), I(3)),
            (S("ab"), I(0)),
            (S("ab"), I(-1)),
            (S(""), I(5)),
            (N("STRING"), I(2)),
            (S("ab"), N("INT")),
        ],
    )
    _calls(
        c,
        "REGEXP_REPLACE",
        "REGEXP_REPLACE($0, $1, $2)",
        [
            (S("foobar"), S("oo|ar"), S("")),
            (S("a1b22c"), S("\\d+"), S("#")),
            (S("abc"), S("(b)"), S("[$1]")),
            (S("abc"), S(""), S("-")),
            (S("abc"), S("("), S("x")),
            (S("a.b.c"), S("."), S("x")),
            (S("a.b.c"), S("\\."), S("x")),
            (S("abc"), S("B"), S("x")),
            (S("abc"), S("(?i)B"), S("x")),
            (S("abc"), S("b"), S("\\$")),
            (N("STRING"), S("a"), S("b")),
            (S("abc"), N("STRING"), S("b")),
            (S("abc"), S("b"), N("STRING")),
            (S("日本語"), S("本"), S("-")),
        ],
    )
    for text in [
        "OVERLAY('xxxxxtest' PLACING 'xxxx' FROM 6)",
        "OVERLAY('xxxxxtest' PLACING 'xxxx' FROM 6 FOR 2)",
        "OVERLAY('abc' PLACING 'XY' FROM 1)",
        "OVERLAY('abc' PLACING 'XY' FROM 10)",
        "OVERLAY('abc' PLACING 'XY' FROM 2 FOR 0)",
        "OVERLAY('abc' PLACING '' FROM 2 FOR 1)",
        "OVERLAY('abc' PLACING 'XY' FROM 0)",
        "OVERLAY('abc' PLACING 'XY' FROM -1)",
        "OVERLAY(CAST(NULL AS STRING) PLACING 'XY' FROM 1)",
    ]:
        c.expr("string", "OVERLAY", text)
    c.col("string", "OVERLAY", "OVERLAY($0 PLACING $1 FROM $2 FOR $3)", S("xxxxxtest"), S("xxxx"), I(6), I(2))
    for start, length in [
        (0, 2),
        (1, 2),
        (2, None),
        (-2, None),
        (-2, 1),
        (-10, 3),
        (2, 0),
        (2, -1),
        (10, None),
        (5, 1),
        (6, 1),
        (0, None),
        (1, 100),
    ]:
        for fn in ["SUBSTRING", "SUBSTR"]:
            if length is None:
                c.both("string", fn, f"{fn}($0, $1)", S("hello"), I(start))
            else:
                c.both("string", fn, f"{fn}($0, $1, $2)", S("hello"), I(start), I(length))
    for text in [
        "SUBSTRING('hello' FROM 2 FOR 3)",
        "SUBSTRING('hello' FROM 2)",
        "SUBSTRING('hello' FROM 0 FOR 2)",
        "SUBSTRING('hello' FROM -1 FOR 3)",
        "SUBSTRING('日本語テキスト' FROM 2 FOR 2)",
        "SUBSTRING('a😀b' FROM 2 FOR 1)",
        "SUBSTRING(CAST(NULL AS STRING) FROM 1 FOR 2)",
        "SUBSTRING('hello' FROM CAST(NULL AS INT))",
        "SUBSTRING(X'01020304' FROM 2 FOR 2)",
        "SUBSTR(X'01020304', 3)",
    ]:
        c.expr("string", "SUBSTRING", text)
    _calls(
        c,
        "REPLACE",
        "REPLACE($0, $1, $2)",
        [
            (S("hello world"), S("world"), S("flink")),
            (S("ababab"), S("abab"), S("z")),
            (S("abc"), S(""), S("x")),
            (S("abc"), S("b"), S("")),
            (S("aaa"), S("a"), S("aa")),
            (N("STRING"), S("a"), S("b")),
            (S("abc"), S("a"), N("STRING")),
            (S("a.b"), S("."), S("-")),
        ],
    )
    _calls(
        c,
        "REGEXP_EXTRACT",
        "REGEXP_EXTRACT($0, $1, $2)",
        [
            (S("foothebar"), S("foo(.*?)(bar)"), I(2)),
            (S("foothebar"), S("foo(.*?)(bar)"), I(0)),
            (S("foothebar"), S("foo(.*?)(bar)"), I(1)),
            (S("foothebar"), S("foo(.*?)(bar)"), I(3)),
            (S("foothebar"), S("foo(.*?)(bar)"), I(-1)),
            (S("foo123bar456"), S("([a-z]+)(\\d+)"), I(2)),
            (S("nothing"), S("(\\d+)"), I(1)),
            (S("abc"), S("("), I(1)),
            (N("STRING"), S("(a)"), I(1)),
            (S("abc"), S("(b)"), N("INT")),
        ],
    )
    _calls(
        c,
        "REGEXP_EXTRACT",
        "REGEXP_EXTRACT($0, $1)",
        [(S("foothebar"), S("foo(.*?)(bar)")), (S("abc"), S("b")), (S("x1y2"), S("(\\d)"))],
    )
    _calls(
        c,
        "REGEXP_EXTRACT_ALL",
        "REGEXP_EXTRACT_ALL($0, $1)",
        [
            (S("a1b22c333"), S("[0-9]+")),
            (S("a1b22c333"), S("([0-9]+)")),
            (S("abc"), S("(\\d)")),
            (N("STRING"), S("(a)")),
        ],
    )
    _calls(
        c,
        "REGEXP_EXTRACT_ALL",
        "REGEXP_EXTRACT_ALL($0, $1, $2)",
        [
            (S("a1b22c333"), S("[0-9]+"), I(0)),
            (S("k1=v1;k2=v2"), S("(\\w+)=(\\w+)"), I(2)),
            (S("ab"), S("(a)(b)"), I(3)),
        ],
    )
    for fn in ["REGEXP_COUNT", "REGEXP_INSTR", "REGEXP_SUBSTR"]:
        _calls(
            c,
            fn,
            f"{fn}($0, $1)",
            [
                (S("a1b22c333"), S("[0-9]+")),
                (S("abc"), S("[0-9]+")),
                (S(""), S("a*")),
                (S("abc"), S("(")),
                (N("STRING"), S("a")),
                (S("abc"), N("STRING")),
                (S("aaa"), S("a")),
                (S("日本語"), S("本")),
            ],
        )
    _calls(
        c,
        "INITCAP",
        "INITCAP($0)",
        [
            (S("hello wORLD"),),
            (S("a-b c_d"),),
            (S(""),),
            (S("123abc"),),
            (N("STRING"),),
            (S("o'neil mcdonald"),),
            (S("  two  spaces"),),
            (S("ÉCOLE élève"),),
        ],
    )
    for args in [
        (S("AA"), S("BB"), S("CC")),
        (S("a"),),
        (S("a"), N("STRING")),
        (S(""), S("")),
        (S("a"), I(1)),
        (S("日"), S("本")),
    ]:
        c.both("string", "CONCAT", "CONCAT(" + ", ".join(f"${i}" for i in range(len(args))) + ")", *args)
    for args in [
        (S("~"), S("AA"), N("STRING"), S("BB"), S(""), S("CC")),
        (N("STRING"), S("a"), S("b")),
        (S(""), S("a"), S("b")),
        (S(","), N("STRING")),
        (S(","), S("a")),
        (S("--"), S("a"), S("b"), S("c")),
    ]:
        c.both(
            "string", "CONCAT_WS", "CONCAT_WS(" + ", ".join(f"${i}" for i in range(len(args))) + ")", *args
        )
    for fn in ["LPAD", "RPAD"]:
        _calls(
            c,
            fn,
            f"{fn}($0, $1, $2)",
            [
                (S("hi"), I(4), S("??")),
                (S("hi"), I(1), S("??")),
                (S("hi"), I(5), S("ab")),
                (S("hi"), I(0), S("x")),
                (S("hi"), I(-1), S("x")),
                (S("hi"), I(4), S("")),
                (N("STRING"), I(4), S("x")),
                (S("hi"), N("INT"), S("x")),
                (S("日本"), I(4), S("語")),
            ],
        )
    _calls(
        c,
        "FROM_BASE64",
        "FROM_BASE64($0)",
        [(S("aGVsbG8gd29ybGQ="),), (S("!!!"),), (S(""),), (N("STRING"),), (S("aGk"),), (S("5pel5pys"),)],
    )
    _calls(
        c,
        "TO_BASE64",
        "TO_BASE64($0)",
        [(S("hello world"),), (S(""),), (N("STRING"),), (S("日本"),), (A("BYTES", "X'00FF'"),)],
    )
    _calls(c, "ASCII", "ASCII($0)", [(S("abc"),), (S(""),), (N("STRING"),), (S("é"),), (S("😀"),), (S(" "),)])
    _calls(
        c,
        "CHR",
        "CHR($0)",
        [(I(97),), (I(353),), (I(0),), (I(-1),), (I(255),), (I(256),), (N("INT"),), (A("BIGINT", "65"),)],
    )
    for charset in ["UTF-8", "US-ASCII", "ISO-8859-1", "UTF-16BE", "UTF-16LE", "UTF-16", "utf8", "nope"]:
        c.both("string", "ENCODE", "ENCODE($0, $1)", S("héllo"), S(charset))
        c.both("string", "DECODE", "DECODE(ENCODE($0, $1), $1)", S("héllo"), S(charset))
    _calls(
        c,
        "DECODE",
        "DECODE($0, $1)",
        [
            (A("BYTES", "X'68C3A9'"), S("UTF-8")),
            (A("BYTES", "X'E9'"), S("UTF-8")),
            (A("BYTES", "X'E9'"), S("ISO-8859-1")),
            (BYTES_NULL, S("UTF-8")),
            (A("BYTES", "X'6869'"), N("STRING")),
        ],
    )
    _calls(
        c,
        "INSTR",
        "INSTR($0, $1)",
        [
            (S("hello"), S("ll")),
            (S("hello"), S("z")),
            (S("hello"), S("")),
            (N("STRING"), S("a")),
            (S("日本語"), S("語")),
        ],
    )
    _calls(
        c,
        "INSTR",
        "INSTR($0, $1, $2, $3)",
        [
            (S("hello hello"), S("ll"), I(1), I(2)),
            (S("hello hello"), S("ll"), I(4), I(1)),
            (S("hello hello"), S("l"), I(-1), I(1)),
            (S("hello hello"), S("l"), I(-1), I(3)),
            (S("hello"), S("l"), I(0), I(1)),
            (S("hello"), S("l"), I(1), I(0)),
            (S("hello"), S("l"), I(1), I(5)),
            (S("hello"), S("l"), I(10), I(1)),
            (S("hello"), S("l"), N("INT"), I(1)),
        ],
    )
    for fn in ["LEFT", "RIGHT"]:
        _calls(
            c,
            fn,
            f"{fn}($0, $1)",
            [
                (S("hello"), I(2)),
                (S("hello"), I(0)),
                (S("hello"), I(-1)),
                (S("hello"), I(10)),
                (N("STRING"), I(1)),
                (S("hello"), N("INT")),
                (S("日本語"), I(2)),
            ],
        )
    _calls(
        c,
        "LOCATE",
        "LOCATE($0, $1)",
        [(S("l"), S("hello")), (S(""), S("hello")), (S("z"), S("hello")), (N("STRING"), S("a"))],
    )
    _calls(
        c,
        "LOCATE",
        "LOCATE($0, $1, $2)",
        [
            (S("l"), S("hello"), I(4)),
            (S("l"), S("hello"), I(10)),
            (S("l"), S("hello"), I(0)),
            (S("l"), S("hello"), I(-1)),
            (S("l"), S("hello"), N("INT")),
        ],
    )
    url = "http://user:pw@facebook.com:8080/path1/p.php?k1=v1&k2=v2#Ref1"
    for part in ["HOST", "PATH", "QUERY", "REF", "PROTOCOL", "AUTHORITY", "FILE", "USERINFO", "FOO", "host"]:
        c.both("string", "PARSE_URL", "PARSE_URL($0, $1)", S(url), S(part))
    _calls(
        c,
        "PARSE_URL",
        "PARSE_URL($0, $1, $2)",
        [
            (S(url), S("QUERY"), S("k1")),
            (S(url), S("QUERY"), S("k9")),
            (S(url), S("HOST"), S("k1")),
            (S("http://a.com/?k=1&k=2"), S("QUERY"), S("k")),
        ],
    )
    _calls(
        c,
        "PARSE_URL",
        "PARSE_URL($0, $1)",
        [
            (S("not a url"), S("HOST")),
            (S("http://[bad"), S("HOST")),
            (N("STRING"), S("HOST")),
            (S("https://x.org"), S("PATH")),
            (S("https://x.org"), S("QUERY")),
        ],
    )
    _calls(
        c,
        "REGEXP",
        "REGEXP($0, $1)",
        [
            (S("hello"), S("l+")),
            (S("hello"), S("^l")),
            (S(""), S("")),
            (S("abc"), S("(")),
            (N("STRING"), S("a")),
            (S("abc"), N("STRING")),
            (S("ABC"), S("(?i)abc")),
        ],
    )
    _calls(
        c, "REVERSE", "REVERSE($0)", [(S("hello"),), (S(""),), (N("STRING"),), (S("ab😀"),), (S("日本語"),)]
    )
    _calls(
        c,
        "SPLIT_INDEX",
        "SPLIT_INDEX($0, $1, $2)",
        [
            (S("a,b,c"), S(","), I(1)),
            (S("a,b,c"), S(","), I(3)),
            (S("a,b,c"), S(","), I(-1)),
            (S("a,,c"), S(","), I(1)),
            (S("a||b"), S("||"), I(1)),
            (N("STRING"), S(","), I(0)),
            (S("a.b"), S("."), I(1)),
            (S(""), S(","), I(0)),
            (S("a,b"), S(""), I(0)),
        ],
    )
    _calls(
        c,
        "SPLIT",
        "SPLIT($0, $1)",
        [
            (S("a,b,c"), S(",")),
            (S("a,,c"), S(",")),
            (S(""), S(",")),
            (S("abc"), S("")),
            (N("STRING"), S(",")),
            (S("a,b"), N("STRING")),
            (S("a.b"), S(".")),
            (S(",a,"), S(",")),
        ],
    )
    _calls(
        c,
        "STR_TO_MAP",
        "STR_TO_MAP($0)",
        [(S("a=1,b=2"),), (S("a"),), (S(""),), (S("a=1,a=2"),), (N("STRING"),), (S("a=1=2"),)],
    )
    _calls(
        c,
        "STR_TO_MAP",
        "STR_TO_MAP($0, $1, $2)",
        [(S("a:1;b:2"), S(";"), S(":")), (S("a.1|b.2"), S("\\|"), S("\\.")), (S("a=1"), N("STRING"), S("="))],
    )
    for fn in ["STARTSWITH", "ENDSWITH"]:
        _calls(
            c,
            fn,
            f"{fn}($0, $1)",
            [
                (S("hello"), S("he")),
                (S("hello"), S("lo")),
                (S("hello"), S("")),
                (S(""), S("a")),
                (N("STRING"), S("a")),
                (A("BYTES", "X'0102'"), A("BYTES", "X'01'")),
                (A("BYTES", "X'0102'"), A("BYTES", "X'02'")),
            ],
        )
    _calls(
        c,
        "TRANSLATE",
        "TRANSLATE($0, $1, $2)",
        [
            (S("hello"), S("el"), S("ip")),
            (S("hello"), S("el"), S("i")),
            (S("hello"), S(""), S("")),
            (N("STRING"), S("a"), S("b")),
            (S("hello"), S("l"), S("")),
            (S("aabb"), S("ab"), S("ba")),
            (S("hello"), S("ll"), S("xy")),
            (S("abc"), S("a"), N("STRING")),
        ],
    )
    for args in [
        (I(2), S("a"), S("b"), S("c")),
        (I(0), S("a"), S("b")),
        (I(4), S("a"), S("b")),
        (N("INT"), S("a")),
        (I(1), N("STRING"), S("b")),
        (I(-1), S("a")),
        (A("BIGINT", "2"), S("a"), S("b")),
    ]:
        c.both("string", "ELT", "ELT(" + ", ".join(f"${i}" for i in range(len(args))) + ")", *args)
    for args in [
        (S("%s-%d"), S("a"), I(5)),
        (S("%.2f"), A("DOUBLE", "3.14159")),
        (S("%5s|%-5s|"), S("a"), S("b")),
        (S("%x"), I(255)),
        (S("%d"), S("a")),
        (S("%%"),),
        (S("%s"), N("STRING")),
        (S("%s %s"), S("a")),
        (N("STRING"), S("a")),
        (S("%08.3f"), A("DECIMAL(5, 2)", "3.14")),
        (S("%b %c"), A("BOOLEAN", "TRUE"), S("x")),
    ]:
        c.both("string", "PRINTF", "PRINTF(" + ", ".join(f"${i}" for i in range(len(args))) + ")", *args)
    _calls(
        c,
        "URL_ENCODE",
        "URL_ENCODE($0)",
        [(S("a b&c"),), (S(""),), (N("STRING"),), (S("é/?="),), (S("~*'()"),)],
    )
    _calls(
        c,
        "URL_DECODE",
        "URL_DECODE($0)",
        [(S("a+b%26c"),), (S(""),), (N("STRING"),), (S("%C3%A9"),), (S("%zz"),), (S("100%"),)],
    )
    _calls(
        c,
        "INET_ATON",
        "INET_ATON($0)",
        [
            (S(v),)
            for v in [
                "127.0.0.1",
                "0.0.0.0",
                "255.255.255.255",
                "256.0.0.1",
                "1.2.3",
                "127.1",
                " 1.2.3.4",
                "1.2.3.4 ",
                "abc",
                "",
                "1.2.3.4.5",
                "01.02.03.04",
                "-1.2.3.4",
            ]
        ]
        + [(N("STRING"),)],
    )
    _calls(
        c,
        "INET_NTOA",
        "INET_NTOA($0)",
        [
            (BI(2130706433),),
            (BI(0),),
            (BI(4294967295),),
            (BI(4294967296),),
            (BI(-1),),
            (N("BIGINT"),),
            (I(167773449),),
        ],
    )


PARTS = (strings,)
