# ruff: noqa: E501 - the cases read best on one line
"""Conformance cases: arrays and maps, rows, TYPEOF, aggregates, OVER windows, and the
remaining built-ins (catalog, BITMAP, VARIANT, structured objects)."""

from __future__ import annotations

from scripts.sql_conformance.corpus import BI, A, B, Corpus, D, I, N, S


def collections(c: Corpus) -> None:
    arr = A("ARRAY<INT>", "ARRAY[1, 2, 3]")
    arr_null = A("ARRAY<INT>", "ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)]")
    dup = A("ARRAY<INT>", "ARRAY[1, 2, 1, 3, 2]")
    strs = A("ARRAY<STRING>", "ARRAY['b', 'a', CAST(NULL AS STRING), 'c']")
    empty = A(
        "ARRAY<INT>", "CAST(ARRAY[1] AS ARRAY<INT>)"
    )  # replaced below by ARRAY_REMOVE: no empty literal
    null_arr = N("ARRAY<INT>")
    mp = A("MAP<STRING, INT>", "MAP['a', 1, 'b', 2]")
    null_map = N("MAP<STRING, INT>")
    del empty
    for text in [
        "ARRAY[1, CAST(NULL AS INT)]",
        "ARRAY['a', 'bb']",
        "ARRAY[1, 2.5]",
        "ARRAY[1, CAST(2 AS BIGINT)]",
        "ARRAY[ARRAY[1], ARRAY[2, 3]]",
        "ARRAY[ROW(1, 'a')]",
        "ARRAY[]",
        "ARRAY[CAST(NULL AS INT)]",
        "ARRAY[DATE '2024-01-01', DATE '2024-01-02']",
        "ARRAY[1.5e0, 2]",
        "MAP['a', 1, 'a', 2]",
        "MAP['a', CAST(NULL AS INT)]",
        "MAP[1, 'x', 2, 'y']",
        "MAP[ARRAY[1], 'x']",
        "MAP['a', 1, 'b']",
        "ROW(1, 'a')",
        "ROW(1, CAST(NULL AS STRING))",
        "(1, 'a')",
        "ROW(ROW(1, 2), ARRAY[3])",
        "ROW(1)",
        "TYPEOF(ROW(1, 'a'))",
        "TYPEOF(ARRAY['a', 'bb'])",
        "TYPEOF(MAP['a', 1])",
    ]:
        c.expr("valueconstruction", text.split("[")[0].split("(")[0] or "ROW", text)
    row = A("ROW<a INT, b STRING, c ARRAY<INT>>", "ROW(1, 'x', ARRAY[7, 8])")
    c.col("valueconstruction", "field access", "$0.a", row)
    c.col("valueconstruction", "field access", "$0.b", row)
    c.col("valueconstruction", "field access", "$0.c[2]", row)
    c.col("valueconstruction", "field access", "$0", row)
    c.col("valueconstruction", "field access", "$0.a", N("ROW<a INT, b STRING>"))
    for args in [
        (arr,),
        (arr_null,),
        (null_arr,),
        (mp,),
        (null_map,),
        (A("ARRAY<INT>", "ARRAY[CAST(NULL AS INT)]"),),
    ]:
        c.both("collection", "CARDINALITY", "CARDINALITY($0)", *args)
    for args in [
        (A("ARRAY<INT>", "ARRAY[7]"),),
        (A("ARRAY<INT>", "ARRAY[7, 8]"),),
        (null_arr,),
        (A("ARRAY<INT>", "ARRAY[CAST(NULL AS INT)]"),),
    ]:
        c.both("collection", "ELEMENT", "ELEMENT($0)", *args)
    for index in [1, 3, 0, 4, -1]:
        c.both("collection", "array[i]", f"$0[{index}]", arr)
    c.both("collection", "array[i]", "$0[$1]", arr, N("INT"))
    c.both("collection", "array[i]", "$0[2]", null_arr)
    for key in [S("b"), S("z"), N("STRING")]:
        c.both("collection", "map[key]", "$0[$1]", mp, key)
    c.expr("collection", "array[i]", "(ARRAY[10, 20, 30])[2]")
    c.expr("collection", "map[key]", "(MAP['a', 1, 'b', 2])['b']")
    calls: list[tuple[str, str, list[tuple[A, ...]]]] = [
        (
            "ARRAY_APPEND",
            "ARRAY_APPEND($0, $1)",
            [(arr, I(4)), (arr, N("INT")), (null_arr, I(1)), (strs, S("z")), (arr, BI(5)), (arr, D("1.5"))],
        ),
        ("ARRAY_PREPEND", "ARRAY_PREPEND($0, $1)", [(arr, I(0)), (arr, N("INT")), (null_arr, I(1))]),
        ("ARRAY_CONCAT", "ARRAY_CONCAT($0, $1)", [(arr, arr_null), (arr, null_arr), (null_arr, null_arr)]),
        ("ARRAY_CONCAT", "ARRAY_CONCAT($0)", [(arr,)]),
        ("ARRAY_CONCAT", "ARRAY_CONCAT($0, $1, $2)", [(arr, arr, A("ARRAY<INT>", "ARRAY[9]"))]),
        (
            "ARRAY_CONTAINS",
            "ARRAY_CONTAINS($0, $1)",
            [
                (arr, I(2)),
                (arr, I(5)),
                (arr_null, N("INT")),
                (arr, N("INT")),
                (null_arr, I(1)),
                (arr, BI(2)),
                (arr, D("2.0")),
                (strs, S("a")),
            ],
        ),
        ("ARRAY_DISTINCT", "ARRAY_DISTINCT($0)", [(dup,), (arr_null,), (null_arr,), (strs,)]),
        (
            "ARRAY_EXCEPT",
            "ARRAY_EXCEPT($0, $1)",
            [
                (dup, A("ARRAY<INT>", "ARRAY[2]")),
                (arr_null, A("ARRAY<INT>", "ARRAY[CAST(NULL AS INT)]")),
                (arr, null_arr),
                (dup, arr),
            ],
        ),
        (
            "ARRAY_INTERSECT",
            "ARRAY_INTERSECT($0, $1)",
            [(dup, A("ARRAY<INT>", "ARRAY[2, 4, 2]")), (arr_null, arr_null), (arr, null_arr)],
        ),
        (
            "ARRAY_UNION",
            "ARRAY_UNION($0, $1)",
            [(dup, A("ARRAY<INT>", "ARRAY[4, 1]")), (arr_null, arr_null), (arr, null_arr)],
        ),
        (
            "ARRAY_JOIN",
            "ARRAY_JOIN($0, $1)",
            [
                (strs, S("-")),
                (strs, S("")),
                (A("ARRAY<STRING>", "ARRAY['a']"), N("STRING")),
                (N("ARRAY<STRING>"), S(",")),
            ],
        ),
        ("ARRAY_JOIN", "ARRAY_JOIN($0, $1, $2)", [(strs, S("-"), S("?")), (strs, S("-"), N("STRING"))]),
        ("ARRAY_JOIN", "ARRAY_JOIN($0, $1)", [(arr, S(","))]),
        (
            "ARRAY_MAX",
            "ARRAY_MAX($0)",
            [
                (arr,),
                (arr_null,),
                (null_arr,),
                (strs,),
                (A("ARRAY<INT>", "ARRAY[CAST(NULL AS INT)]"),),
                (A("ARRAY<DOUBLE>", "ARRAY[1.5e0, CAST('NaN' AS DOUBLE)]"),),
            ],
        ),
        (
            "ARRAY_MIN",
            "ARRAY_MIN($0)",
            [
                (arr,),
                (arr_null,),
                (null_arr,),
                (strs,),
                (A("ARRAY<DATE>", "ARRAY[DATE '2024-01-02', DATE '2023-01-01']"),),
            ],
        ),
        (
            "ARRAY_POSITION",
            "ARRAY_POSITION($0, $1)",
            [(dup, I(2)), (dup, I(9)), (arr_null, N("INT")), (null_arr, I(1)), (arr, N("INT"))],
        ),
        (
            "ARRAY_REMOVE",
            "ARRAY_REMOVE($0, $1)",
            [(dup, I(1)), (arr_null, N("INT")), (null_arr, I(1)), (A("ARRAY<INT>", "ARRAY[1]"), I(1))],
        ),
        ("ARRAY_REVERSE", "ARRAY_REVERSE($0)", [(arr,), (arr_null,), (null_arr,)]),
        (
            "ARRAY_SLICE",
            "ARRAY_SLICE($0, $1, $2)",
            [
                (dup, I(2), I(3)),
                (dup, I(0), I(2)),
                (dup, I(-2), I(-1)),
                (dup, I(4), I(2)),
                (dup, I(2), I(99)),
                (dup, I(-99), I(1)),
                (dup, N("INT"), I(1)),
                (null_arr, I(1), I(2)),
            ],
        ),
        ("ARRAY_SLICE", "ARRAY_SLICE($0, $1)", [(dup, I(3)), (dup, I(-1))]),
        ("ARRAY_SORT", "ARRAY_SORT($0)", [(dup,), (arr_null,), (strs,), (null_arr,)]),
        ("ARRAY_SORT", "ARRAY_SORT($0, $1)", [(arr_null, B(False)), (arr_null, B(True))]),
        (
            "ARRAY_SORT",
            "ARRAY_SORT($0, $1, $2)",
            [(arr_null, B(True), B(False)), (arr_null, B(False), B(True))],
        ),
        ("MAP_KEYS", "MAP_KEYS($0)", [(mp,), (null_map,)]),
        ("MAP_VALUES", "MAP_VALUES($0)", [(mp,), (null_map,)]),
        ("MAP_ENTRIES", "MAP_ENTRIES($0)", [(mp,), (null_map,)]),
        (
            "MAP_FROM_ARRAYS",
            "MAP_FROM_ARRAYS($0, $1)",
            [
                (A("ARRAY<STRING>", "ARRAY['a', 'b']"), A("ARRAY<INT>", "ARRAY[1, 2]")),
                (A("ARRAY<STRING>", "ARRAY['a', 'b']"), A("ARRAY<INT>", "ARRAY[1]")),
                (A("ARRAY<STRING>", "ARRAY['a', 'a']"), A("ARRAY<INT>", "ARRAY[1, 2]")),
                (N("ARRAY<STRING>"), A("ARRAY<INT>", "ARRAY[1]")),
                (A("ARRAY<STRING>", "ARRAY[CAST(NULL AS STRING)]"), A("ARRAY<INT>", "ARRAY[1]")),
            ],
        ),
        (
            "MAP_UNION",
            "MAP_UNION($0, $1)",
            [(mp, A("MAP<STRING, INT>", "MAP['b', 20, 'c', 30]")), (mp, null_map), (null_map, mp)],
        ),
        ("MAP_UNION", "MAP_UNION($0)", [(mp,)]),
    ]
    for function, template, cases in calls:
        for call in cases:
            c.both("collection", function, template, *call)
    c.expr("collection", "ARRAY_UNION", "ARRAY_UNION(ARRAY[1], ARRAY['a'])")
    c.expr("collection", "ARRAY_CONTAINS", "ARRAY_CONTAINS(ARRAY[1, 2], 'a')")
    c.expr("collection", "ARRAY_REMOVE", "ARRAY_REMOVE(ARRAY[1], 1)")
    c.expr("collection", "CARDINALITY", "CARDINALITY(ARRAY_REMOVE(ARRAY[1], 1))")


def conversion(c: Corpus) -> None:
    for text in [
        "TYPEOF(1)",
        "TYPEOF(CAST(1 AS TINYINT))",
        "TYPEOF(1.50)",
        "TYPEOF(1e0)",
        "TYPEOF('abc')",
        "TYPEOF(CAST('abc' AS STRING))",
        "TYPEOF(CAST('abc' AS VARCHAR(10)))",
        "TYPEOF(TRUE)",
        "TYPEOF(NULL)",
        "TYPEOF(CAST(NULL AS INT))",
        "TYPEOF(DATE '2024-01-01')",
        "TYPEOF(TIMESTAMP '2024-01-01 00:00:00')",
        "TYPEOF(TO_TIMESTAMP_LTZ(0, 3))",
        "TYPEOF(ARRAY[1])",
        "TYPEOF(MAP['a', 1])",
        "TYPEOF(ROW(1, 'a'))",
        "TYPEOF(1, TRUE)",
        "TYPEOF(ROW(1, 'a'), TRUE)",
        "TYPEOF(CAST(ROW(1, 'a') AS ROW<x INT, y STRING>))",
        "TYPEOF(1 + 1)",
        "TYPEOF(CAST(1 AS TINYINT) + CAST(1 AS TINYINT))",
        "TYPEOF(1 / 2)",
        "TYPEOF(1.5 * 2.25)",
        "TYPEOF(X'01')",
        "TYPEOF(INTERVAL '1' DAY)",
        "TYPEOF(TIME '10:00:00')",
        "TYPEOF(JSON_OBJECT())",
        "TYPEOF(JSON_VALUE('{}', '$.a' RETURNING INT))",
    ]:
        c.expr("conversion", "TYPEOF", text)
    for value in [
        I(1),
        S("a"),
        N("DOUBLE"),
        A("ARRAY<INT>", "ARRAY[1]"),
        A("TIMESTAMP(3)", "TIMESTAMP '2024-01-01 00:00:00'"),
    ]:
        c.col("conversion", "TYPEOF", "TYPEOF($0)", value)


INT_ROWS = [["1"], ["2"], ["2"], ["NULL"]]
DEC_ROWS = [["1.10"], ["2.20"], ["NULL"], ["4.05"]]
DOUBLE_ROWS = [["1.5e0"], ["2.0e0"], ["4.0e0"]]
STRING_ROWS = [["'b'"], ["'a'"], ["NULL"], ["'c'"], ["'a'"]]
AGG_INPUTS = [
    ([("v0", "INT")], INT_ROWS),
    ([("v0", "DECIMAL(5, 2)")], DEC_ROWS),
    ([("v0", "DOUBLE")], DOUBLE_ROWS),
    ([("v0", "STRING")], STRING_ROWS),
    ([("v0", "INT")], [["NULL"], ["NULL"]]),
    ([("v0", "INT")], [["2147483647"], ["1"]]),
    ([("v0", "TINYINT")], [["127"], ["1"]]),
    ([("v0", "BIGINT")], [["9223372036854775807"], ["1"]]),
    ([("v0", "BOOLEAN")], [["TRUE"], ["FALSE"], ["NULL"]]),
    ([("v0", "TIMESTAMP(3)")], [["TIMESTAMP '2024-01-01 00:00:00.5'"], ["TIMESTAMP '2023-01-01 00:00:00'"]]),
    ([("v0", "DATE")], [["DATE '2024-01-01'"], ["DATE '2023-06-01'"]]),
]
AGGREGATES = [
    "COUNT(v0)",
    "COUNT(*)",
    "COUNT(DISTINCT v0)",
    "SUM(v0)",
    "SUM(DISTINCT v0)",
    "AVG(v0)",
    "MIN(v0)",
    "MAX(v0)",
    "STDDEV_POP(v0)",
    "STDDEV_SAMP(v0)",
    "VAR_POP(v0)",
    "VAR_SAMP(v0)",
    "VARIANCE(v0)",
    "COLLECT(v0)",
    "FIRST_VALUE(v0)",
    "LAST_VALUE(v0)",
    "ARRAY_AGG(v0)",
    "ARRAY_AGG(DISTINCT v0)",
    "LISTAGG(CAST(v0 AS STRING))",
    "LISTAGG(CAST(v0 AS STRING), '; ')",
    "JSON_ARRAYAGG(v0)",
    "PERCENTILE(v0, 0.5)",
    "PERCENTILE(v0, ARRAY[0.25, 0.75])",
    "COUNT(v0) FILTER (WHERE v0 IS NOT NULL)",
    "ARRAY_AGG(v0 RESPECT NULLS)",
    "AVG(DISTINCT v0)",
]


def aggregates(c: Corpus) -> None:
    for columns, rows in AGG_INPUTS:
        for text in AGGREGATES:
            c.agg("aggregate", text.split("(")[0], text, columns, rows)
    c.agg(
        "aggregate",
        "JSON_OBJECTAGG",
        "JSON_OBJECTAGG(KEY v0 VALUE v1)",
        [("v0", "STRING"), ("v1", "INT")],
        [["'a'", "1"], ["'b'", "NULL"]],
    )
    c.agg(
        "aggregate",
        "LISTAGG",
        "LISTAGG(v0, v1)",
        [("v0", "STRING"), ("v1", "STRING")],
        [["'a'", "'-'"], ["'b'", "'-'"]],
    )
    c.agg(
        "aggregate",
        "SUM",
        "SUM(v0 * v1)",
        [("v0", "INT"), ("v1", "DECIMAL(5, 2)")],
        [["2", "1.25"], ["3", "0.50"]],
    )
    c.agg("aggregate", "COUNT", "COUNT(v0, v1)", [("v0", "INT"), ("v1", "INT")], [["1", "NULL"], ["2", "3"]])
    c.agg(
        "aggregate",
        "COUNT",
        "COUNT(DISTINCT v0, v1)",
        [("v0", "INT"), ("v1", "INT")],
        [["1", "2"], ["1", "2"], ["1", "3"]],
    )


def windows(c: Corpus) -> None:
    data = "(VALUES ('a', 3), ('a', 1), ('a', 1), ('b', 2), ('b', 5)) AS t(k, x)"
    for fn in [
        "ROW_NUMBER()",
        "RANK()",
        "DENSE_RANK()",
        "CUME_DIST()",
        "PERCENT_RANK()",
        "NTILE(2)",
        "LEAD(x)",
        "LAG(x)",
        "LEAD(x, 2, -1)",
        "LAG(x, 1, 0)",
        "FIRST_VALUE(x)",
        "LAST_VALUE(x)",
        "SUM(x)",
        "COUNT(*)",
        "AVG(x)",
        "MIN(x)",
    ]:
        c.query(
            "window",
            fn.split("(")[0],
            f"SELECT k, x, {fn} OVER (PARTITION BY k ORDER BY x) AS w FROM {data} ORDER BY k, x, w",
        )
    c.query(
        "window",
        "SUM",
        f"SELECT k, x, SUM(x) OVER (PARTITION BY k ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS w FROM {data} ORDER BY k, x, w",
    )
    for text in ["GROUPING(k)", "GROUP_ID()", "GROUPING_ID(k, x)"]:
        c.query(
            "aggregate",
            text.split("(")[0],
            f"SELECT k, {text} AS g, COUNT(*) AS n FROM {data} GROUP BY ROLLUP(k, x) ORDER BY k, g, n",
        )


def misc(c: Corpus) -> None:
    for text in [
        "CURRENT_DATABASE()",
        "SOURCE_WATERMARK()",
        "CURRENT_CATALOG",
        "BITMAP_TO_STRING(BITMAP_BUILD(ARRAY[1, 2, 3]))",
        "BITMAP_CARDINALITY(BITMAP_BUILD(ARRAY[1, 2, 2, 3]))",
        "BITMAP_TO_ARRAY(BITMAP_BUILD(ARRAY[3, 1, 2]))",
        "BITMAP_TO_ARRAY(BITMAP_AND(BITMAP_BUILD(ARRAY[1, 2, 3]), BITMAP_BUILD(ARRAY[2, 3, 4])))",
        "BITMAP_TO_ARRAY(BITMAP_OR(BITMAP_BUILD(ARRAY[1]), BITMAP_BUILD(ARRAY[2])))",
        "BITMAP_TO_ARRAY(BITMAP_XOR(BITMAP_BUILD(ARRAY[1, 2]), BITMAP_BUILD(ARRAY[2, 3])))",
        "BITMAP_TO_ARRAY(BITMAP_ANDNOT(BITMAP_BUILD(ARRAY[1, 2]), BITMAP_BUILD(ARRAY[2, 3])))",
        "BITMAP_TO_BYTES(BITMAP_BUILD(ARRAY[1]))",
        "BITMAP_TO_STRING(BITMAP_FROM_BYTES(BITMAP_TO_BYTES(BITMAP_BUILD(ARRAY[5]))))",
        "BITMAP_TO_STRING(BITMAP_BUILD(ARRAY[-1, 0]))",
        "BITMAP_BUILD(CAST(NULL AS ARRAY<INT>))",
        "TYPEOF(BITMAP_BUILD(ARRAY[1]))",
        "PARSE_JSON('{\"a\": 1}')",
        "PARSE_JSON('[1, \"x\"]')",
        "PARSE_JSON('{bad')",
        "TRY_PARSE_JSON('{bad')",
        "TRY_PARSE_JSON('1.5')",
        "TYPEOF(PARSE_JSON('1'))",
        "PARSE_JSON('{\"a\": {\"b\": 1}}')['a']['b']",
        "CAST(PARSE_JSON('1') AS INT)",
        "OBJECT_OF('com.example.User', 'name', 'Bob', 'age', 42)",
        "TYPEOF(OBJECT_OF('com.example.User', 'name', 'Bob'))",
        "OBJECT_UPDATE(OBJECT_OF('com.example.User', 'name', 'Bob', 'age', 42), 'age', 43)",
    ]:
        c.expr("misc", text.split("(")[0], text)
    for sql in [
        "SELECT BITMAP_TO_STRING(BITMAP_BUILD_AGG(x)) FROM (VALUES (1), (2), (2)) AS t(x)",
        "SELECT BITMAP_BUILD_CARDINALITY_AGG(x) FROM (VALUES (1), (2), (2)) AS t(x)",
        "SELECT BITMAP_TO_STRING(BITMAP_OR_AGG(BITMAP_BUILD(ARRAY[x]))) FROM (VALUES (1), (2)) AS t(x)",
        "SELECT BITMAP_AND_CARDINALITY_AGG(BITMAP_BUILD(ARRAY[x, 9])) FROM (VALUES (1), (2)) AS t(x)",
        "SELECT BITMAP_TO_STRING(BITMAP_AND_AGG(BITMAP_BUILD(ARRAY[x, 9]))) FROM (VALUES (1), (2)) AS t(x)",
        "SELECT BITMAP_TO_STRING(BITMAP_XOR_AGG(BITMAP_BUILD(ARRAY[x, 9]))) FROM (VALUES (1), (2)) AS t(x)",
        "SELECT BITMAP_OR_CARDINALITY_AGG(BITMAP_BUILD(ARRAY[x])) FROM (VALUES (1), (2), (2)) AS t(x)",
        "SELECT BITMAP_XOR_CARDINALITY_AGG(BITMAP_BUILD(ARRAY[x, 9])) FROM (VALUES (1), (2)) AS t(x)",
    ]:
        c.query("misc", "BITMAP aggregate", sql)


PARTS = (collections, conversion, aggregates, windows, misc)
