"""Flink's JSON functions (``functions/json_*.py``): values and types as Flink 2.3's.

``SQL_CASES`` are expressions (a ``Q:`` line: a whole query) with what PyFlink 2.3.0 printed for
each (batch mode, UTC) and the column type it printed, or ``None`` and ``!`` with the stage of
the error PyFlink raised (``plan``: while planning; ``run``: when the job ran, where millstream
may refuse the call while planning already).

``flink_json_paths.json`` holds what Flink 2.3.0's own code returned, called directly from the
PyFlink 2.3.0 install's ``flink-table-runtime-2.3.0.jar`` (``SqlJsonUtils.jsonExists(text,
path, UNKNOWN)``, ``jsonValue(text, path, DEFAULT, "DEF_EMPTY", DEFAULT, "DEF_ERROR")``,
``jsonQuery(text, path, STRING, WITHOUT_ARRAY, EMPTY_OBJECT, EMPTY_ARRAY)``, ``isJsonValue`` /
``isJsonObject`` / ``isJsonArray`` / ``isJsonScalar``, ``json(text)``, and the ``eval`` of
``JsonQuoteFunction`` / ``JsonUnquoteFunction``), each as ``<Java class>:<value>``, ``null``
or ``ERR``, over documents and paths of every kind (Jackson's parsing of the first value, Jayway's
paths in strict and lax mode). The filters that need json-smart, which Flink's Jayway lacks, are
left out there (Flink's JVM fails on them).
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value, summary_string
from millstream.table.functions.json_functions import json_exists, json_query, json_value
from millstream.table.functions.json_text import java_class_name, java_decimal_str
from millstream.table.functions.json_values import is_json, json_quote, json_text, json_unquote

# (expression or "Q: " query, what PyFlink 2.3.0 printed, its column type) or (..., None, "!" stage)
SQL_CASES = [
    ("JSON_STRING(CAST(0.1 AS FLOAT))", "0.10000000149011612", "STRING NOT NULL"),
    ("JSON_STRING(CAST(1e-5 AS DOUBLE))", "0.000010", "STRING NOT NULL"),
    ("JSON_STRING(CAST(100 AS DOUBLE))", "100.0", "STRING NOT NULL"),
    ("JSON_STRING(CAST('Infinity' AS DOUBLE))", '"Infinity"', "STRING NOT NULL"),
    ("JSON_STRING(CAST('-Infinity' AS DOUBLE))", '"-Infinity"', "STRING NOT NULL"),
    ("JSON_STRING(CAST(0.0000001 AS DECIMAL(10, 9)))", "1.00E-7", "STRING NOT NULL"),
    ("JSON_STRING(CAST(0 AS DECIMAL(5, 2)))", "0.00", "STRING NOT NULL"),
    ("JSON_STRING(CAST(-0.0 AS DOUBLE))", "0.0", "STRING NOT NULL"),
    ("JSON_STRING(CAST(100 AS DECIMAL(5, 0)))", "100", "STRING NOT NULL"),
    ("JSON_STRING(CAST(1 AS TINYINT))", "1", "STRING NOT NULL"),
    ("JSON_STRING(CAST(NULL AS INT))", "<NULL>", "STRING"),
    ("JSON_STRING(NULL)", "<NULL>", "STRING"),
    ("JSON_STRING(TIMESTAMP '2024-01-15 10:20:00')", '"2024-01-15T10:20:00"', "STRING NOT NULL"),
    ("JSON_STRING(TIMESTAMP '2024-01-15 10:20:30.120')", '"2024-01-15T10:20:30.12"', "STRING NOT NULL"),
    (
        "JSON_STRING(CAST(TIMESTAMP '2024-01-15 10:20:30.123456' AS TIMESTAMP(6)))",
        '"2024-01-15T10:20:30.123456"',
        "STRING NOT NULL",
    ),
    ("JSON_STRING(TO_TIMESTAMP_LTZ(1500, 3))", '"1970-01-01T00:00:01.5Z"', "STRING"),
    ("JSON_STRING(INTERVAL '1' DAY)", None, "!plan"),
    ("JSON_STRING(MAP[1, 2])", None, "!run"),
    ("JSON_STRING(MAP['b', 1, 'a', 2])", '{"a":2,"b":1}', "STRING NOT NULL"),
    ("JSON_STRING(ARRAY[DATE '2024-01-01'])", None, "!run"),
    ("JSON_STRING(ROW(DATE '2024-01-01'))", None, "!run"),
    ("JSON_STRING(CAST(ROW('x', 1) AS ROW<b STRING, a INT>))", '{"a":1,"b":"x"}', "STRING NOT NULL"),
    ("JSON_STRING(ARRAY[MAP['z', 1, 'a', 2]])", '[{"a":2,"z":1}]', "STRING NOT NULL"),
    ("JSON_STRING(CAST('ab' AS CHAR(4)))", '"ab  "', "STRING NOT NULL"),
    ("JSON_STRING(CAST('ab' AS BINARY(3)))", '"YWIA"', "STRING NOT NULL"),
    (
        "JSON_STRING('a' || CHR(1) || CHR(31) || CHR(127) || '/' || CHR(8232) || '😀')",
        '"a\\u0001\\u001F\x7f/(😀"',
        "STRING",
    ),
    ("JSON_STRING(JSON_ARRAY(1, 2))", "[1,2]", "STRING NOT NULL"),
    ('JSON_STRING(JSON(\'{"b": 1, "a": [2]}\'))', None, "!run"),
    ("JSON('{\"b\": 1}')", None, "!run"),
    ('JSON_ARRAY(JSON(\'  {"b": 1, "a": 2}  \'))', '[{"a":2,"b":1}]', "STRING NOT NULL"),
    ("JSON_ARRAY(JSON(''))", "[]", "STRING NOT NULL"),
    ("JSON_ARRAY(JSON('[1, 2.50, 1e2]'))", "[[1,2.50,1E+2]]", "STRING NOT NULL"),
    ("JSON_ARRAY(JSON('{bad'))", None, "!run"),
    (
        "JSON_OBJECT('a' VALUE JSON_OBJECT('z' VALUE 1, 'b' VALUE 2), 'A' VALUE 0)",
        '{"A":0,"a":{"b":2,"z":1}}',
        "STRING NOT NULL",
    ),
    (
        "JSON_OBJECT('é' VALUE 1, 'e' VALUE 2, 'f' VALUE 3, '😀' VALUE 4, '\uffff' VALUE 5)",
        '{"e":2,"f":3,"é":1,"😀":4,"\uffff":5}',
        "STRING NOT NULL",
    ),
    ("JSON_OBJECT('a' VALUE CAST(NULL AS INT))", '{"a":null}', "STRING NOT NULL"),
    ("JSON_OBJECT('a' VALUE CAST(NULL AS INT) ABSENT ON NULL)", "{}", "STRING NOT NULL"),
    ("JSON_OBJECT('a' VALUE CAST(NULL AS INT) NULL ON NULL)", '{"a":null}', "STRING NOT NULL"),
    ("JSON_OBJECT()", "{}", "STRING NOT NULL"),
    ("JSON_ARRAY()", "[]", "STRING NOT NULL"),
    ("JSON_ARRAY(1, CAST(NULL AS INT), 'x')", '[1,"x"]', "STRING NOT NULL"),
    ("JSON_ARRAY(1, CAST(NULL AS INT), 'x' NULL ON NULL)", '[1,null,"x"]', "STRING NOT NULL"),
    ("JSON_OBJECT(KEY 'a' VALUE 1, KEY 'a' VALUE 2)", '{"a":2}', "STRING NOT NULL"),
    ("JSON_OBJECT('k' VALUE MAP[1, 2])", None, "!run"),
    ("JSON_OBJECT('k' VALUE CAST(0.1 AS FLOAT))", '{"k":0.10000000149011612}', "STRING NOT NULL"),
    ("JSON_OBJECT('k' VALUE ARRAY[CAST(NULL AS INT)])", '{"k":[null]}', "STRING NOT NULL"),
    ("JSON_OBJECT('k' VALUE INTERVAL '1' DAY)", None, "!run"),
    ("JSON_OBJECT('k' VALUE 1.0E-7)", '{"k":1.0E-7}', "STRING NOT NULL"),
    ("JSON_OBJECT('k' VALUE JSON_QUERY('{\"a\":1}', '$'))", '{"k":"{\\"a\\":1}"}', "STRING NOT NULL"),
    ("JSON_OBJECT('k' VALUE JSON_STRING(1))", '{"k":"1"}', "STRING NOT NULL"),
    (
        "JSON_QUOTE('a\"b\\c' || CHR(10) || CHR(13) || CHR(9) || CHR(8) || CHR(12) || CHR(127) || CHR(128))",
        '"a\\"b\\\\c\\n\\r\\t\\b\\f\x7f\\u0080"',
        "STRING",
    ),
    ("JSON_QUOTE(CAST(NULL AS STRING))", "<NULL>", "STRING"),
    ('JSON_UNQUOTE(\'"a\\"b\\\\c\\/\\n\\t\\u00e9\\u0041"\')', 'a"b\\c/\n\téA', "STRING NOT NULL"),
    ("JSON_UNQUOTE('\"abc')", '"abc', "STRING NOT NULL"),
    ("JSON_UNQUOTE('abc\"')", 'abc"', "STRING NOT NULL"),
    ('JSON_UNQUOTE(\'"a" "b"\')', 'a" "b', "STRING NOT NULL"),
    ("JSON_UNQUOTE('[1]')", "[1]", "STRING NOT NULL"),
    ("JSON_UNQUOTE('\"\\ud83d\\ude00\"')", "😀", "STRING NOT NULL"),
    ("JSON_UNQUOTE('\"\"')", "", "STRING NOT NULL"),
    ('JSON_UNQUOTE(\'"x"y"\')', 'x"y', "STRING NOT NULL"),
    ("JSON_UNQUOTE(CAST(NULL AS STRING))", "<NULL>", "STRING"),
    ("'' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'   ' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("' 1 ' IS JSON", "TRUE", "BOOLEAN NOT NULL"),
    ("'01' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'-0' IS JSON", "TRUE", "BOOLEAN NOT NULL"),
    ("'1.' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'.5' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'1e5' IS JSON", "TRUE", "BOOLEAN NOT NULL"),
    ("'+1' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'1x' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'1,2' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'1]' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'truex' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'true]' IS JSON", "TRUE", "BOOLEAN NOT NULL"),
    ("'true 1' IS JSON", "TRUE", "BOOLEAN NOT NULL"),
    ("'\"a\"x' IS JSON", "TRUE", "BOOLEAN NOT NULL"),
    ("'[1,]' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'{\"a\":1,}' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'{\"a\" 1}' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'{a:1}' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'''a''' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'NaN' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'null' IS JSON", "TRUE", "BOOLEAN NOT NULL"),
    ("'null' IS JSON SCALAR", "TRUE", "BOOLEAN NOT NULL"),
    ("'[]' IS JSON ARRAY", "TRUE", "BOOLEAN NOT NULL"),
    ("'{}' IS JSON OBJECT", "TRUE", "BOOLEAN NOT NULL"),
    ("'\"\\x\"' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'\"\\u00zz\"' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'\"a' || CHR(10) || 'b\"' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("CHR(12) || '1' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'/* c */ 1' IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("'[1] x' IS JSON ARRAY", "TRUE", "BOOLEAN NOT NULL"),
    ('\'{"a":{"a":{"a":{"a":[[[[[[[]]]]]]]}}}}\' IS JSON', "TRUE", "BOOLEAN NOT NULL"),
    ("CAST(NULL AS STRING) IS JSON", "FALSE", "BOOLEAN NOT NULL"),
    ("CAST(NULL AS STRING) IS NOT JSON", "TRUE", "BOOLEAN NOT NULL"),
    ("JSON_EXISTS('{\"a\":[1,2,{\"b\":null}]}', '$.a[-1]')", "TRUE", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":[1,2,{\"b\":null}]}', '$.a[-1].b')", "FALSE", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":[1,2,{\"b\":null}]}', 'lax $.a[-1].b')", "FALSE", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":[1,2,{\"b\":null}]}', '$.a[9]')", "FALSE", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":[1,2,{\"b\":null}]}', '$.a[*].c')", "TRUE", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":[]}', '$.a[*]')", "TRUE", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":1}', '$.a.b')", "FALSE", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":1}', '$.b.c')", "FALSE", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":1}', 'lax $.b.c')", "FALSE", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":1}', 'strict $.b.c' UNKNOWN ON ERROR)", "<NULL>", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":1}', 'lax $.b.c' UNKNOWN ON ERROR)", "FALSE", "BOOLEAN"),
    ("JSON_EXISTS('{bad', 'lax $.a' UNKNOWN ON ERROR)", "FALSE", "BOOLEAN"),
    ("JSON_EXISTS('{bad', 'strict $.a' ERROR ON ERROR)", None, "!run"),
    ("JSON_EXISTS('null', '$' UNKNOWN ON ERROR)", "<NULL>", "BOOLEAN"),
    ("JSON_EXISTS('null', 'lax $' UNKNOWN ON ERROR)", "<NULL>", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":1}', '$.' UNKNOWN ON ERROR)", "<NULL>", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":1}', 'lax $.' UNKNOWN ON ERROR)", "<NULL>", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":1}', 'LAX $.a')", "TRUE", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":1}', '  lax   $.a')", "TRUE", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":1}', 'lax$.a' UNKNOWN ON ERROR)", "<NULL>", "BOOLEAN"),
    ("JSON_EXISTS('{\"a b\":1}', '$.a b' UNKNOWN ON ERROR)", "<NULL>", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":{\"b\":1}}', '$..b')", "TRUE", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":{\"b\":1}}', '$.*.b')", "TRUE", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":1}', '$[''a'',''b'']')", "TRUE", "BOOLEAN"),
    ("JSON_EXISTS('{\"a\":1}', '$.a[0]' UNKNOWN ON ERROR)", "<NULL>", "BOOLEAN"),
    ("JSON_EXISTS(CAST(NULL AS STRING), '$.a')", "<NULL>", "BOOLEAN"),
    ("JSON_VALUE('{\"a\":[1,2,3]}', '$.a[-1]')", "3", "STRING"),
    ("JSON_VALUE('{\"a\":[1,2,3]}', '$.a[1:]')", "<NULL>", "STRING"),
    ("JSON_VALUE('{\"a\":[1,2,3]}', '$.a[0]')", "1", "STRING"),
    ("JSON_VALUE('{\"a\":1.50}', '$.a')", "1.50", "STRING"),
    ("JSON_VALUE('{\"a\":1e2}', '$.a')", "1E+2", "STRING"),
    ("JSON_VALUE('{\"a\":-0.0}', '$.a')", "0.0", "STRING"),
    ("JSON_VALUE('{\"a\":-0}', '$.a')", "0", "STRING"),
    ("JSON_VALUE('{\"a\":12345678901234567890123}', '$.a')", "12345678901234567890123", "STRING"),
    ("JSON_VALUE('{\"a\":true}', '$.a')", "true", "STRING"),
    ("JSON_VALUE('{\"a\":null}', '$.a')", "<NULL>", "STRING"),
    ("JSON_VALUE('{\"a\":null}', 'lax $.a')", "<NULL>", "STRING"),
    ("JSON_VALUE('{\"a\":\"\\u00e9\\n\"}', '$.a')", "é\n", "STRING"),
    ("JSON_VALUE('{\"a\":{\"b\":1}}', '$.a')", "<NULL>", "STRING"),
    ("JSON_VALUE('{\"a\":{\"b\":1}}', 'lax $.a' DEFAULT 'e' ON EMPTY DEFAULT 'r' ON ERROR)", "e", "STRING"),
    (
        "JSON_VALUE('{\"a\":{\"b\":1}}', 'strict $.a' DEFAULT 'e' ON EMPTY DEFAULT 'r' ON ERROR)",
        "r",
        "STRING",
    ),
    ("JSON_VALUE('{\"a\":1}', 'lax $.b' ERROR ON EMPTY)", None, "!run"),
    ("JSON_VALUE('{\"a\":1}', 'strict $.b' ERROR ON ERROR)", None, "!run"),
    ("JSON_VALUE('{\"a\":1}', '$.a' RETURNING DOUBLE)", None, "!run"),
    ("JSON_VALUE('{\"a\":3000000000}', '$.a' RETURNING INT)", None, "!run"),
    ("JSON_VALUE('{\"a\":1}', '$.a' RETURNING TINYINT)", None, "!run"),
    ("JSON_VALUE('{\"a\":1}', '$.a' RETURNING CHAR(3))", None, "!run"),
    ("JSON_VALUE('{\"a\":1}', '$.a' RETURNING VARCHAR(3))", "1", "VARCHAR(3)"),
    ("JSON_VALUE('{\"a\":1}', '$.b' RETURNING INT DEFAULT 5 ON ERROR)", "5", "INT"),
    ("JSON_VALUE('{\"a\":1}', 'lax $.b' RETURNING INT DEFAULT 5 ON EMPTY)", "5", "INT"),
    ("JSON_VALUE('{\"a\":1}', 'lax $.b' DEFAULT 1.5 ON EMPTY)", "1.5", "STRING"),
    ("JSON_VALUE('{\"a\":1}', 'lax $.b' DEFAULT CAST(1.5 AS DOUBLE) ON EMPTY)", "1.5", "STRING"),
    ("JSON_VALUE('{\"a\":1}', '$.a' DEFAULT CAST(NULL AS STRING) ON EMPTY)", "<NULL>", "STRING"),
    ("JSON_VALUE('{\"a\":1}', 'lax $.b' DEFAULT DATE '2024-01-01' ON EMPTY)", "19723", "STRING"),
    ("JSON_VALUE('{\"a\":1}', CAST(NULL AS STRING))", "<NULL>", "STRING"),
    ("JSON_VALUE(CAST(NULL AS STRING), '$.a')", "<NULL>", "STRING"),
    ("JSON_VALUE('{\"a\":[1]}', '$.a[*]')", "<NULL>", "STRING"),
    ("JSON_VALUE('{\"a\":[1]}', 'lax $.a[*]')", "<NULL>", "STRING"),
    ("JSON_VALUE('[{\"a\":1},{\"a\":2}]', '$[0].a')", "1", "STRING"),
    ('JSON_VALUE(\'{"a":{"b":{"c":"x"}}}\', \'$..c\')', "<NULL>", "STRING"),
    ("JSON_VALUE('{\"a\":{\"b\":{\"c\":\"x\"}}}', '$.a.b[''c'']')", "x", "STRING"),
    ('JSON_VALUE(\'{"a":{"b":{"c":"x"}}}\', \'$["a"]["b"]["c"]\')', "x", "STRING"),
    ("JSON_VALUE('{\"a\\\"b\":1}', '$[''a\"b'']')", "1", "STRING"),
    ("JSON_VALUE('{\"a''b\":1}', '$[''a\\''b'']')", "1", "STRING"),
    ("JSON_VALUE('{\"a\":1,\"a\":2}', '$.a')", "2", "STRING"),
    ("JSON_VALUE('  {\"a\":1} trailing', '$.a')", "1", "STRING"),
    ("JSON_VALUE('{\"a\":[1,2]}', '$.a.length()')", "2", "STRING"),
    ("JSON_VALUE('{\"a\":[1,2]}', '$.a[?(@ > 1)]')", "<NULL>", "STRING"),
    ('JSON_QUERY(\'{"a":[1,2,{"b":"x"}]}\', \'$.a\')', '[1,2,{"b":"x"}]', "STRING"),
    ('JSON_QUERY(\'{"a":[1,2,{"b":"x"}]}\', \'$.a[*]\')', '[1,2,{"b":"x"}]', "STRING"),
    ('JSON_QUERY(\'{"a":[1,2,{"b":"x"}]}\', \'$.a[0:2]\')', "[1,2]", "STRING"),
    ('JSON_QUERY(\'{"a":[1,2,{"b":"x"}]}\', \'$.a[-2:]\')', '[2,{"b":"x"}]', "STRING"),
    ('JSON_QUERY(\'{"a":[1,2,{"b":"x"}]}\', \'$.a[:2]\')', "[1,2]", "STRING"),
    ('JSON_QUERY(\'{"a":[1,2,{"b":"x"}]}\', \'$.a[0,2]\')', '[1,{"b":"x"}]', "STRING"),
    ('JSON_QUERY(\'{"a":[1,2,{"b":"x"}]}\', \'$..b\')', '["x"]', "STRING"),
    ('JSON_QUERY(\'{"b":1,"a":{"b":2,"c":[{"b":3}]}}\', \'$..b\')', "[1,2,3]", "STRING"),
    ("JSON_QUERY('{\"a\":[1,2]}', '$.a[0]')", "<NULL>", "STRING"),
    ("JSON_QUERY('{\"a\":[1,2]}', 'lax $.a[0]')", "<NULL>", "STRING"),
    ("JSON_QUERY('{\"a\":[1,2]}', 'lax $.a[0]' WITH WRAPPER)", "[1]", "STRING"),
    ("JSON_QUERY('{\"a\":[1,2]}', 'strict $.a[0]' WITH CONDITIONAL WRAPPER)", "[1]", "STRING"),
    ("JSON_QUERY('{\"a\":[1,2]}', '$.a[5]' EMPTY ARRAY ON ERROR)", "[]", "STRING"),
    ("JSON_QUERY('{\"a\":[1,2]}', 'lax $.a[5]' EMPTY OBJECT ON EMPTY)", "{}", "STRING"),
    ("JSON_QUERY('{\"a\":[1,2]}', 'lax $.a[5]' ERROR ON EMPTY)", None, "!run"),
    ("JSON_QUERY('{\"a\":1}', 'strict $.a' ERROR ON ERROR)", None, "!run"),
    ('JSON_QUERY(\'{"z":1,"a":[1.50,true,null,"s"]}\', \'$\')', '{"a":[1.50,true,null,"s"],"z":1}', "STRING"),
    (
        'JSON_QUERY(\'{"a":["x", null, 1.5, {"q":[1]}, true]}\', \'$.a\' RETURNING ARRAY<STRING>)',
        '[x, NULL, 1.5, {"q":[1]}, true]',
        "ARRAY<STRING>",
    ),
    (
        "JSON_QUERY('{\"a\":[\"x\"]}', 'lax $.b' RETURNING ARRAY<STRING> EMPTY ARRAY ON EMPTY)",
        "[]",
        "ARRAY<STRING>",
    ),
    ("JSON_QUERY('{\"a\":[\"x\"]}', 'lax $.b' RETURNING ARRAY<STRING> EMPTY OBJECT ON EMPTY)", None, "!plan"),
    ("JSON_QUERY('{\"a\":[\"x\"]}', '$.a' RETURNING ARRAY<INT>)", None, "!plan"),
    ("JSON_QUERY('{\"a\":[\"x\"]}', '$.a' RETURNING ARRAY<VARCHAR(3)>)", "[x]", "ARRAY<VARCHAR(3)>"),
    ("JSON_QUERY('{\"a\":[\"x\"]}', '$.a' RETURNING INT)", None, "!run"),
    ("JSON_QUERY('{\"a\":{\"x\":1}}', '$.a' RETURNING ARRAY<STRING>)", "<NULL>", "ARRAY<STRING>"),
    ("JSON_QUERY('{\"a\":{\"x\":1}}', '$.a' WITH WRAPPER RETURNING ARRAY<STRING>)", None, "!plan"),
    (
        "JSON_QUERY('{\"a\":{\"x\":1}}', '$.a' RETURNING ARRAY<STRING> WITH WRAPPER)",
        '[{"x":1}]',
        "ARRAY<STRING>",
    ),
    ("JSON_QUERY(CAST(NULL AS STRING), '$')", "<NULL>", "STRING"),
    ("JSON_QUERY('{\"a\":\"\\u00e9/\"}', '$')", '{"a":"é/"}', "STRING"),
    ("TYPEOF(JSON_QUERY('{}', '$'))", "STRING", "STRING"),
    ("TYPEOF(JSON_EXISTS('{}', '$'))", "BOOLEAN", "STRING"),
    ("TYPEOF(JSON_VALUE('{}', '$' RETURNING VARCHAR(3)))", "VARCHAR(3)", "STRING"),
    ("JSON_QUERY('{\"a\":[1,2,3]}', '$.a[?(@ > 1)]')", "[2,3]", "STRING"),
    ('JSON_QUERY(\'{"a":[{"b":1},{"b":2}]}\', \'$.a[?(@.b == 2)]\')', '[{"b":2}]', "STRING"),
    ('JSON_QUERY(\'{"a":[{"b":1},{"b":2}]}\', \'$.a[?(@.b > 1 && @.b < 5)].b\')', "[2]", "STRING"),
    ('JSON_QUERY(\'{"a":[{"b":"x"},{"b":"y"}]}\', \'$.a[?(@.b == \'\'y\'\')]\')', '[{"b":"y"}]', "STRING"),
    ('JSON_QUERY(\'{"a":[{"b":"x"},{"c":"y"}]}\', \'$.a[?(@.c)]\')', None, "!run"),
    ("JSON_QUERY('{\"a\":[1,2,3]}', '$.a.length()')", "<NULL>", "STRING"),
    ("JSON_QUERY('{\"a\":[1,2,3]}', '$.a.min()')", "<NULL>", "STRING"),
    ("JSON_VALUE('{\"a\":[1,2,3]}', '$.a.max()')", "3.0", "STRING"),
    ("JSON_VALUE('{\"a\":[1,2,3]}', '$.a.sum()')", "6.0", "STRING"),
    ("JSON_VALUE('{\"a\":[1,2,3]}', '$.a.avg()')", "2.0", "STRING"),
    ("JSON_VALUE('{\"a\":\"abc\"}', '$.a.length()')", "<NULL>", "STRING"),
    ('JSON_VALUE(\'{"a":{"x":1,"y":2}}\', \'$.a.length()\')', "2", "STRING"),
    ("JSON_VALUE('{\"a\":[[1],[2,3]]}', '$.a[*].length()')", "<NULL>", "STRING"),
    ("JSON_VALUE('{\"a\":[1,2,3]}', '$.a.size()')", "3", "STRING"),
    (
        "Q: SELECT JSON_OBJECT(v0 VALUE 1)"
        " FROM (VALUES (CAST('a' AS STRING)), (CAST(NULL AS STRING))) AS t(v0)",
        None,
        "!plan",
    ),
    ("JSON_OBJECT('k' VALUE NULL)", None, "!run"),
    ("JSON_ARRAY(NULL)", None, "!run"),
    ("JSON_ARRAY(NULL NULL ON NULL)", None, "!run"),
    (
        "Q: SELECT JSON_OBJECT('k' VALUE v0)"
        " FROM (VALUES (CAST('a' AS STRING)), (CAST(NULL AS STRING))) AS t(v0)",
        '{"k":"a"}\n{"k":null}',
        "STRING NOT NULL",
    ),
    (
        "Q: SELECT JSON_STRING(v0) FROM (VALUES (CAST('a' AS STRING)), (CAST(NULL AS STRING))) AS t(v0)",
        '"a"\n<NULL>',
        "STRING",
    ),
    (
        "Q: SELECT JSON_OBJECTAGG(KEY k VALUE v NULL ON NULL)"
        " FROM (VALUES ('a', 1), ('b', CAST(NULL AS INT))) AS t(k, v)",
        '{"a":1,"b":null}',
        "VARCHAR(2000) NOT NULL",
    ),
    (
        "Q: SELECT JSON_OBJECTAGG(KEY k VALUE JSON_ARRAY(v)) FROM (VALUES ('b', 1), ('a', 2)) AS t(k, v)",
        '{"a":[2],"b":[1]}',
        "VARCHAR(2000) NOT NULL",
    ),
    ("Q: SELECT JSON_OBJECTAGG(KEY k VALUE v) FROM (VALUES ('a', 1), ('a', 2)) AS t(k, v)", None, "!run"),
    (
        "Q: SELECT JSON_ARRAYAGG(x ABSENT ON NULL) FROM (VALUES (3), (CAST(NULL AS INT))) AS t(x)",
        "[3]",
        "VARCHAR(2000) NOT NULL",
    ),
    (
        "Q: SELECT JSON_ARRAYAGG(x) FROM (VALUES (1.50), (2.0)) AS t(x)",
        "[1.50,2.00]",
        "VARCHAR(2000) NOT NULL",
    ),
    (
        "Q: SELECT JSON_ARRAYAGG(x) FROM (VALUES (CAST(1e20 AS DOUBLE))) AS t(x)",
        "[1.0E+20]",
        "VARCHAR(2000) NOT NULL",
    ),
    (
        "Q: SELECT JSON_ARRAYAGG(x) FROM (VALUES (TIMESTAMP '2024-01-01 10:00:00')) AS t(x)",
        '["2024-01-01T10:00:00"]',
        "VARCHAR(2000) NOT NULL",
    ),
    ("Q: SELECT JSON_ARRAYAGG(x) FROM (VALUES (DATE '2024-01-01')) AS t(x)", None, "!run"),
    (
        "Q: SELECT k, JSON_ARRAYAGG(x) FROM (VALUES ('a', 1), ('b', 2), ('a', 3)) AS t(k, x) GROUP BY k",
        "a | [1,3]\nb | [2]",
        "CHAR(1) NOT NULL, VARCHAR(2000) NOT NULL",
    ),
    ("Q: SELECT JSON_OBJECTAGG(KEY k VALUE v) FROM (VALUES (1, 1)) AS t(k, v)", None, "!plan"),
]


def _environment() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("table.local-time-zone", "UTC")
    return t_env


def _query(case: str) -> str:
    return case[3:] if case.startswith("Q: ") else "SELECT " + case


def _printed(table: Any) -> tuple[str, str]:
    types = table.get_schema().get_field_data_types()
    rows = [
        [format_value(t, v) for t, v in zip(types, row, strict=True)] for row in table.execute().collect()
    ]
    return "\n".join(" | ".join(r) for r in rows), ", ".join(summary_string(t) for t in types)


def test_what_pyflink_prints() -> None:
    """The expressions PyFlink computes, in one query: each value and type as PyFlink's."""
    t_env = _environment()
    expressions = [c for c, printed, _ in SQL_CASES if printed is not None and not c.startswith("Q: ")]
    table = t_env.sql_query("SELECT " + ", ".join(expressions))
    types = table.get_schema().get_field_data_types()
    (row,) = list(table.execute().collect())
    expected = {c: (printed, type_) for c, printed, type_ in SQL_CASES}
    for expression, data_type, value in zip(expressions, types, row, strict=True):
        assert (format_value(data_type, value), summary_string(data_type)) == expected[expression], expression


@pytest.mark.parametrize(
    ("case", "printed", "type_"),
    [c for c in SQL_CASES if c[1] is None or c[0].startswith("Q: ")],
    ids=[c[0][:70] for c in SQL_CASES if c[1] is None or c[0].startswith("Q: ")],
)
def test_queries_and_errors(case: str, printed: str | None, type_: str) -> None:
    t_env = _environment()
    if printed is not None:
        assert _printed(t_env.sql_query(_query(case))) == (printed, type_)
    elif type_ == "!plan":
        with pytest.raises(Exception):
            t_env.sql_query(_query(case))
    else:
        with pytest.raises(Exception):
            _printed(t_env.sql_query(_query(case)))


_FLINK = json.loads((Path(__file__).parent / "flink_json_paths.json").read_text(encoding="utf-8"))


def _shown(value: Any) -> str:
    """A value as the Java calls' results are written down: ``<Java class>:<value>``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "Boolean:" + ("true" if value else "false")
    if isinstance(value, Decimal):
        return "BigDecimal:" + java_decimal_str(value)
    return java_class_name(value).rsplit(".", 1)[1] + ":" + str(value)


def _read(function: str, text: str, spec: str) -> str:
    try:
        if function == "e":
            return _shown(json_exists(text, spec, "UNKNOWN"))
        if function == "v":
            return _shown(json_value(text, spec, "DEFAULT", "DEF_EMPTY", "DEFAULT", "DEF_ERROR"))
        return _shown(json_query(text, spec, False, "WITHOUT ARRAY", "EMPTY OBJECT", "EMPTY ARRAY"))
    except ValueError:
        return "ERR"


@pytest.mark.parametrize("document", range(len(_FLINK["docs"])))
def test_paths_read_what_flinks_sql_json_utils_reads(document: int) -> None:
    cases = [c for c in _FLINK["read"] if c[1] == document]
    text = _FLINK["docs"][document]
    differing = [
        (function, mode + _FLINK["paths"][path], expected)
        for function, _, path, mode, expected in cases
        if _read(function, text, mode + _FLINK["paths"][path]) != expected
    ]
    assert not differing


def _text_function(function: str, text: str) -> str:
    try:
        if function == "json":
            return _shown(json_text(text))
        if function == "quote":
            return "BinaryStringData:" + json_quote(text)
        if function == "unquote":
            return "BinaryStringData:" + json_unquote(text)
        kind = {"isvalue": "VALUE", "isobject": "OBJECT", "isarray": "ARRAY", "isscalar": "SCALAR"}[function]
        return _shown(is_json(text, kind))
    except ValueError:
        return "ERR"


def test_parsing_quoting_and_unquoting_as_flinks() -> None:
    differing = [(f, t, e) for f, t, e in _FLINK["text"] if _text_function(f, t) != e]
    assert not differing
