# ruff: noqa: E501 - the cases read best on one line
"""Conformance cases: the JSON functions (IS JSON, JSON_EXISTS, JSON_VALUE, JSON_QUERY,
JSON_OBJECT, JSON_ARRAY, JSON_STRING, JSON_QUOTE, JSON_UNQUOTE, JSON() and the JSON aggregates)."""

from __future__ import annotations

from scripts.sql_conformance.corpus import BI, DEC, A, B, Corpus, D, I, N, S, q

JSON_TEXTS = [
    "1",
    "[]",
    "{}",
    '"abc"',
    "abc",
    "",
    '{"a":1}',
    "[1,",
    " 1 ",
    "true",
    "null",
    '{"a":1}{"b":2}',
    "1 2",
    '{"a":[1,{"b":null}]}',
    "-0.5e3",
    "01",
    "'single'",
    '{"a":1,"a":2}',
    '"\\u00e9"',
]
DOC = '{"a": {"b": 2, "s": "x", "t": true, "n": null, "d": 1.5, "arr": [1, 2, {"c": "d"}], "o": {}}, "e": [], "big": 12345678901234567890, "esc": "q\\"uote", "u": "\\u00e9", "a b": "space"}'
VALUE_TYPES = [
    I(1),
    BI(9223372036854775807),
    D("1.5"),
    D("1e20"),
    D("0.1"),
    A("FLOAT", "1.5"),
    DEC("1.50", 3, 2),
    B(True),
    S('a"b\\c\nd'),
    S("é日本"),
    A("DATE", "DATE '2024-01-15'"),
    A("TIME", "TIME '10:20:30'"),
    A("TIMESTAMP(3)", "TIMESTAMP '2024-01-15 10:20:30.5'"),
    A("TIMESTAMP(9)", "TIMESTAMP '2024-01-15 10:20:30.123456789'"),
    A("TIMESTAMP_LTZ(3)", "TO_TIMESTAMP_LTZ(0, 3)"),
    A("BYTES", "X'0102'"),
    A("ARRAY<INT>", "ARRAY[1, CAST(NULL AS INT)]"),
    A("MAP<STRING, INT>", "MAP['k', 1]"),
    A("ROW<a INT, b STRING>", "ROW(1, 'x')"),
    N("INT"),
    N("STRING"),
    A("ARRAY<ROW<a INT>>", "ARRAY[ROW(1)]"),
    A("DOUBLE", "CAST('NaN' AS DOUBLE)"),
]


def json_functions(c: Corpus) -> None:  # noqa: C901 - one list of cases per function
    for text in JSON_TEXTS + [None]:
        for kind in ["", " VALUE", " SCALAR", " ARRAY", " OBJECT"]:
            c.lit("json", f"IS JSON{kind}", f"$0 IS JSON{kind}", S(text))
        c.col("json", "IS JSON", "$0 IS JSON", S(text))
        c.lit("json", "IS NOT JSON", "$0 IS NOT JSON", S(text))
    for path, on_error in [
        ("$.a", ""),
        ("$.b", ""),
        ("$.a.b", ""),
        ("$.a.arr[2].c", ""),
        ("$.a.arr[5]", ""),
        ("$.a.arr[*]", ""),
        ("strict $.b", " TRUE ON ERROR"),
        ("strict $.b", " FALSE ON ERROR"),
        ("strict $.b", " UNKNOWN ON ERROR"),
        ("strict $.b", " ERROR ON ERROR"),
        ("lax $.b", " ERROR ON ERROR"),
        ("$.a.n", ""),
        ("$['a b']", ""),
        ("$", ""),
        ("$.", ""),
        ("a", ""),
    ]:
        c.lit("json", "JSON_EXISTS", f"JSON_EXISTS($0, {q(path)}{on_error})", S(DOC))
    for text in ["{", "", "[1]"]:
        for on_error in ["", " TRUE ON ERROR", " ERROR ON ERROR"]:
            c.lit("json", "JSON_EXISTS", f"JSON_EXISTS($0, '$.a'{on_error})", S(text))
    c.both("json", "JSON_EXISTS", "JSON_EXISTS($0, '$.a')", N("STRING"))
    c.col("json", "JSON_EXISTS", "JSON_EXISTS($0, '$.a.b')", S(DOC))
    for path in [
        "$.a.b",
        "$.a.s",
        "$.a.t",
        "$.a.n",
        "$.a.d",
        "$.a.arr",
        "$.a.o",
        "$.a.arr[0]",
        "$.missing",
        "$.big",
        "$.esc",
        "$.u",
        "$['a b']",
        "$.e",
        "strict $.missing",
        "lax $.a.arr[9]",
        "$.a.*",
    ]:
        c.lit("json", "JSON_VALUE", f"JSON_VALUE($0, {q(path)})", S(DOC))
    for path, returning in [
        ("$.a.b", "INT"),
        ("$.a.b", "INTEGER"),
        ("$.a.b", "BIGINT"),
        ("$.a.d", "DOUBLE"),
        ("$.a.d", "INT"),
        ("$.a.s", "INT"),
        ("$.a.t", "BOOLEAN"),
        ("$.a.s", "BOOLEAN"),
        ("$.a.d", "DECIMAL(10, 2)"),
        ("$.a.b", "STRING"),
        ("$.a.b", "VARCHAR(1)"),
        ("$.big", "BIGINT"),
        ("$.big", "DOUBLE"),
        ("$.a.d", "FLOAT"),
        ("$.a.b", "DATE"),
        ("$.a.t", "INT"),
    ]:
        c.lit("json", "JSON_VALUE RETURNING", f"JSON_VALUE($0, {q(path)} RETURNING {returning})", S(DOC))
    for clause in [
        "'lax $.b' DEFAULT FALSE ON EMPTY",
        "'strict $.b' DEFAULT FALSE ON ERROR",
        "'lax $.b' NULL ON EMPTY",
        "'lax $.b' ERROR ON EMPTY",
        "'strict $.b' ERROR ON ERROR",
        "'strict $.b' NULL ON EMPTY DEFAULT 'wrong' ON ERROR",
        "'lax $.b' DEFAULT 'x' ON EMPTY DEFAULT 'y' ON ERROR",
        "'$.a' RETURNING INT DEFAULT -1 ON ERROR",
        "'$.a' RETURNING INT ERROR ON ERROR",
        "'$.a' DEFAULT 'x' ON ERROR",
    ]:
        for text in ['{"a": true}', '{"a": "str"}', "{bad"]:
            c.lit("json", "JSON_VALUE ON EMPTY/ERROR", f"JSON_VALUE($0, {clause})", S(text))
    c.expr("json", "JSON_VALUE", """JSON_VALUE('{"a.b": [0.998,0.996]}','$.["a.b"][0]' RETURNING DOUBLE)""")
    c.expr(
        "json",
        "JSON_VALUE",
        """JSON_VALUE('{"contains blank": "right"}', 'strict $.[''contains blank'']' NULL ON EMPTY DEFAULT 'wrong' ON ERROR)""",
    )
    c.both("json", "JSON_VALUE", "JSON_VALUE($0, '$.a')", N("STRING"))
    c.col("json", "JSON_VALUE", "JSON_VALUE($0, '$.a.s')", S(DOC))
    c.col("json", "JSON_VALUE", "JSON_VALUE($0, '$.a.b' RETURNING INT)", S(DOC))
    for json_text, path, wrapper in [
        ('{ "a": { "b": 1 } }', "$.a", ""),
        ("[1, 2]", "$", ""),
        ('{"a":[{"c":"c1"},{"c":"c2"}]}', "lax $.a[*].c", ""),
        ("{}", "$", " WITH CONDITIONAL ARRAY WRAPPER"),
        ("[1, 2]", "$", " WITH CONDITIONAL ARRAY WRAPPER"),
        ("[1, 2]", "$", " WITH UNCONDITIONAL ARRAY WRAPPER"),
        ("[1, 2]", "$", " WITH ARRAY WRAPPER"),
        ("[1, 2]", "$", " WITHOUT ARRAY WRAPPER"),
        ("1", "$", ""),
        ("1", "$", " WITH CONDITIONAL ARRAY WRAPPER"),
        ('{"a": "x"}', "$.a", ""),
        ('{"a": "x"}', "$.a", " WITH WRAPPER"),
        ("{}", "lax $.invalid", " EMPTY OBJECT ON EMPTY"),
        ("{}", "strict $.invalid", " EMPTY ARRAY ON ERROR"),
        ("{}", "lax $.invalid", " EMPTY ARRAY ON EMPTY"),
        ("{}", "lax $.invalid", " ERROR ON EMPTY"),
        ("{}", "strict $.invalid", " ERROR ON ERROR"),
        ("{}", "strict $.invalid", " NULL ON ERROR"),
        ("{bad", "$", ""),
        ("{bad", "$", " EMPTY OBJECT ON ERROR"),
        ('{"a": {"b": [1, {"c": null}]}}', "$.a", ""),
        ('{"a":  [ 1 ,  2 ] }', "$.a", ""),
        ('{"a": "\\u00e9"}', "$", ""),
        ('{"a": 1.50, "b": 1e2}', "$", ""),
    ]:
        c.lit("json", "JSON_QUERY", f"JSON_QUERY($0, {q(path)}{wrapper})", S(json_text))
    for text in [
        """JSON_QUERY('{"a": ["x", "y"]}', '$.a' RETURNING ARRAY<STRING>)""",
        """JSON_QUERY('{"a": [1, 2]}', '$.a' RETURNING ARRAY<STRING>)""",
        """JSON_QUERY('{"a": "x"}', '$.a' RETURNING ARRAY<STRING>)""",
        """JSON_QUERY('{"a": ["x"]}', '$.b' RETURNING ARRAY<STRING> EMPTY ARRAY ON EMPTY)""",
        """JSON_QUERY('{"a": {"b": 1}}', '$.a' RETURNING STRING)""",
        "JSON_QUERY(CAST(NULL AS STRING), '$')",
    ]:
        c.expr("json", "JSON_QUERY", text)
    c.col("json", "JSON_QUERY", "JSON_QUERY($0, '$.a.arr')", S(DOC))
    for value in VALUE_TYPES:
        c.both("json", "JSON_STRING", "JSON_STRING($0)", value)
        c.both("json", "JSON_OBJECT", "JSON_OBJECT('k' VALUE $0)", value)
        c.both("json", "JSON_ARRAY", "JSON_ARRAY($0)", value)
    for text in [
        "JSON_OBJECT()",
        "JSON_OBJECT('K1' VALUE 'V1', 'K2' VALUE 'V2')",
        "JSON_OBJECT(KEY 'K1' VALUE CAST(NULL AS STRING) NULL ON NULL)",
        "JSON_OBJECT(KEY 'K1' VALUE CAST(NULL AS STRING) ABSENT ON NULL)",
        "JSON_OBJECT(KEY 'K1' VALUE JSON_OBJECT(KEY 'K2' VALUE 'V'))",
        "JSON_OBJECT('a' VALUE JSON_ARRAY(1, 2))",
        "JSON_OBJECT('a' VALUE JSON_STRING(JSON_ARRAY(1)))",
        "JSON_OBJECT('a' VALUE JSON('{\"b\": 1}'))",
        "JSON_OBJECT('a' VALUE JSON('[1, 2]'))",
        "JSON_OBJECT('a' VALUE JSON('{invalid'))",
        "JSON_OBJECT('a' VALUE '{\"b\": 1}')",
        "JSON_OBJECT('b' VALUE 1, 'a' VALUE 2)",
        "JSON_OBJECT('a' VALUE 1, 'a' VALUE 2)",
        "JSON_OBJECT('a\"b' VALUE 1)",
        "JSON_OBJECT(CAST(NULL AS STRING) VALUE 1)",
        "JSON_OBJECT('a' VALUE 1 ABSENT ON NULL)",
        "JSON_ARRAY()",
        "JSON_ARRAY(1, '2')",
        "JSON_ARRAY(CAST(NULL AS STRING) NULL ON NULL)",
        "JSON_ARRAY(CAST(NULL AS STRING) ABSENT ON NULL)",
        "JSON_ARRAY(CAST(NULL AS STRING))",
        "JSON_ARRAY(JSON_ARRAY(1))",
        "JSON_ARRAY(JSON_OBJECT('a' VALUE 1), JSON('[true]'))",
        "JSON_ARRAY(JSON('null'))",
        "JSON('{\"a\": 1}')",
        "JSON_STRING(JSON_OBJECT('a' VALUE 1))",
        "JSON_STRING('Hello, World!')",
        "JSON_STRING(CAST(NULL AS INT))",
    ]:
        c.expr("json", text.split("(")[0], text)
    for text in [
        'a"b',
        "a\\b",
        "line\nbreak",
        "tab\there",
        "é",
        "/",
        "",
        "日本",
        "\u0001",
        "'",
        "<>&",
        "😀",
    ]:
        c.both("json", "JSON_QUOTE", "JSON_QUOTE($0)", S(text))
    c.both("json", "JSON_QUOTE", "JSON_QUOTE($0)", N("STRING"))
    for text in [
        '"abc"',
        '"a\\"b"',
        '"\\u00e9"',
        "abc",
        '"abc',
        '""',
        '"\\n"',
        "[1,2]",
        '"\\t\\\\"',
        '  "x"  ',
        '"\\ud83d\\ude00"',
        '"\\x"',
        "123",
        "null",
    ]:
        c.both("json", "JSON_UNQUOTE", "JSON_UNQUOTE($0)", S(text))
    c.both("json", "JSON_UNQUOTE", "JSON_UNQUOTE($0)", N("STRING"))
    for sql in [
        "SELECT JSON_OBJECTAGG(KEY k VALUE v) FROM (VALUES ('a', 1), ('b', CAST(NULL AS INT))) AS t(k, v)",
        "SELECT JSON_OBJECTAGG(KEY k VALUE v ABSENT ON NULL) FROM (VALUES ('a', 1), ('b', CAST(NULL AS INT))) AS t(k, v)",
        "SELECT JSON_OBJECTAGG(k VALUE v) FROM (VALUES ('a', 1), ('a', 2)) AS t(k, v)",
        "SELECT JSON_ARRAYAGG(x) FROM (VALUES (3), (CAST(NULL AS INT)), (2)) AS t(x)",
        "SELECT JSON_ARRAYAGG(x NULL ON NULL) FROM (VALUES (3), (CAST(NULL AS INT)), (2)) AS t(x)",
        "SELECT JSON_ARRAYAGG(x) FROM (VALUES ('a'), ('b\"')) AS t(x)",
        "SELECT JSON_ARRAYAGG(JSON_OBJECT('v' VALUE x)) FROM (VALUES (1), (2)) AS t(x)",
        "SELECT JSON_ARRAYAGG(x) FROM (VALUES (1)) AS t(x) WHERE x > 5",
    ]:
        c.query("json", sql.split("(")[0].replace("SELECT ", ""), sql)


PARTS = (json_functions,)
