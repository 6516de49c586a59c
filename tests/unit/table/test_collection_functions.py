"""Flink's array and map functions (``functions/collections.py``, ``functions/array_functions.py``):
values and types as Flink 2.3's.

``SQL_CASES`` are expressions (a ``Q:`` line: a whole query) with what PyFlink 2.3.0 printed for
each (batch mode, UTC) and the column type it printed, or ``None`` and ``!`` with the stage of
the error PyFlink raised (``plan``: while planning; ``run``: when the job ran, where millstream
may refuse the call while planning already). They are the conformance corpus's literal cases of
these functions (``tests/differential/sql_conformance.jsonl``, category ``collection``) and more
taken from PyFlink 2.3.0 the same way: constructors' common types and casts, an element argument
cast to the element type, ``array[i]`` past the end (-1 where the element type is NOT NULL, as
Flink's generated code reads it), MAP_UNION's order.
"""

from __future__ import annotations

from typing import Any

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value, summary_string

# (expression or "Q: " query, what PyFlink 2.3.0 printed, its column type) or (..., None, "!" stage)
SQL_CASES = [
    ("ARRAY[1, 2, 3][4]", "-1", "INT"),
    ("ARRAY[1, 2, 3][2]", "2", "INT"),
    ("MAP['a', 1, 'b', 2]['z']", "-1", "INT"),
    ("MAP['a', 1, 'b', 2]['a']", "1", "INT"),
    ("Q: SELECT v0[4], v0[2], v0[1] FROM (VALUES (ARRAY[1, 2, 3])) AS t(v0)", "-1 | 2 | 1", "INT, INT, INT"),
    ("Q: SELECT v0['z'], v0['a'] FROM (VALUES (MAP['a', 1, 'b', 2])) AS t(v0)", "-1 | 1", "INT, INT"),
    ("Q: SELECT v0[4] FROM (VALUES (ARRAY['x', 'y'])) AS t(v0)", " ", "CHAR(1)"),
    ("Q: SELECT v0[i] FROM (VALUES (ARRAY[1, 2, 3], 0)) AS t(v0, i)", None, "!run"),
    ("ARRAY['a', 'bb']", "[a, bb]", "ARRAY<VARCHAR(2) NOT NULL> NOT NULL"),
    ("ARRAY['a', CAST(NULL AS STRING)]", "[a, NULL]", "ARRAY<STRING> NOT NULL"),
    ("ARRAY[1, CAST(NULL AS INT)]", "[1, NULL]", "ARRAY<INT> NOT NULL"),
    ("ARRAY[1, CAST(2 AS BIGINT)]", "[1, 2]", "ARRAY<BIGINT NOT NULL> NOT NULL"),
    ("ARRAY[1, 2.5]", "[1.0, 2.5]", "ARRAY<DECIMAL(11, 1) NOT NULL> NOT NULL"),
    ("ARRAY[1, CAST(2.5 AS DOUBLE)]", "[1.0, 2.5]", "ARRAY<DOUBLE NOT NULL> NOT NULL"),
    ("ARRAY[CAST(NULL AS INT)]", "[NULL]", "ARRAY<INT> NOT NULL"),
    ("ARRAY[ARRAY[1], ARRAY[CAST(NULL AS INT)]]", "[[1], [NULL]]", "ARRAY<ARRAY<INT> NOT NULL> NOT NULL"),
    ("MAP['a', 1, 'bb', CAST(NULL AS INT)]", "{a=1, bb=NULL}", "MAP<VARCHAR(2) NOT NULL, INT> NOT NULL"),
    (
        "MAP[1, 'x', CAST(2 AS BIGINT), 'yy']",
        "{1=x, 2=yy}",
        "MAP<BIGINT NOT NULL, VARCHAR(2) NOT NULL> NOT NULL",
    ),
    ("ELEMENT(ARRAY[7])", "7", "INT NOT NULL"),
    ("ELEMENT(ARRAY[CAST(NULL AS INT)])", "<NULL>", "INT"),
    ("ELEMENT(ARRAY[1, 2])", None, "!run"),
    ("CARDINALITY(ARRAY[1, 2])", "2", "INT NOT NULL"),
    ("CARDINALITY(MAP['a', 1])", "1", "INT NOT NULL"),
    ("ARRAY_POSITION(ARRAY[1, 2, 3], 2)", "2", "INT NOT NULL"),
    ("ARRAY_POSITION(ARRAY[1, 2, 3], CAST(NULL AS INT))", "<NULL>", "INT"),
    ("ARRAY_POSITION(ARRAY[1, CAST(NULL AS INT)], CAST(NULL AS INT))", "<NULL>", "INT"),
    ("ARRAY_CONTAINS(ARRAY[CAST(1 AS BIGINT)], 1)", "TRUE", "BOOLEAN NOT NULL"),
    ("ARRAY_CONTAINS(ARRAY['abc'], 'a')", "FALSE", "BOOLEAN NOT NULL"),
    ("ARRAY_CONTAINS(ARRAY[1.5], 1.50)", "TRUE", "BOOLEAN NOT NULL"),
    ("ARRAY_APPEND(ARRAY['a'], 'bcd')", "[a, b]", "ARRAY<CHAR(1) NOT NULL> NOT NULL"),
    ("ARRAY_APPEND(ARRAY[CAST(1 AS BIGINT)], 2)", "[1, 2]", "ARRAY<BIGINT NOT NULL> NOT NULL"),
    ("ARRAY_APPEND(CAST(NULL AS ARRAY<INT>), 1)", "<NULL>", "ARRAY<INT>"),
    ("ARRAY_PREPEND(ARRAY[1.5], 2)", "[2.0, 1.5]", "ARRAY<DECIMAL(2, 1) NOT NULL> NOT NULL"),
    ("ARRAY_REMOVE(ARRAY[1, 2, 1], 1)", "[2]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_REMOVE(CAST(NULL AS ARRAY<INT>), 1)", "<NULL>", "ARRAY<INT>"),
    ("ARRAY_REMOVE(ARRAY[1, 2], CAST(NULL AS INT))", "[1, 2]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], 2, 4)", "[2, 3, 4]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], -2)", "[4, 5]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], 0, 2)", "[1, 2]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], 4, 2)", "[]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], -10, 10)", "[1, 2, 3, 4, 5]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], 3, -2)", "[3, 4]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SORT(ARRAY['b', 'A', 'a'])", "[A, a, b]", "ARRAY<CHAR(1) NOT NULL> NOT NULL"),
    ("ARRAY_SORT(ARRAY[1.5, 0.5])", "[0.5, 1.5]", "ARRAY<DECIMAL(2, 1) NOT NULL> NOT NULL"),
    ("ARRAY_SORT(ARRAY[TRUE, FALSE])", None, "!plan"),
    ("ARRAY_SORT(ARRAY[ARRAY[2], ARRAY[1]])", None, "!plan"),
    ("ARRAY_SORT(ARRAY[1, 2], CAST(NULL AS BOOLEAN))", "<NULL>", "ARRAY<INT NOT NULL>"),
    ("ARRAY_MAX(ARRAY[1, 5, 3])", "5", "INT"),
    ("ARRAY_MAX(ARRAY[CAST(NULL AS INT)])", "<NULL>", "INT"),
    ("ARRAY_MIN(ARRAY['b', 'A'])", "A", "CHAR(1)"),
    ("ARRAY_MAX(ARRAY[ARRAY[1]])", None, "!plan"),
    ("ARRAY_JOIN(ARRAY['a', CAST(NULL AS STRING), 'c'], '-')", "a-c", "STRING NOT NULL"),
    ("ARRAY_JOIN(ARRAY['a', CAST(NULL AS STRING), 'c'], '-', 'N')", "a-N-c", "STRING NOT NULL"),
    ("ARRAY_JOIN(ARRAY['a'], CAST(NULL AS STRING))", "<NULL>", "STRING"),
    ("ARRAY_EXCEPT(ARRAY[1, 2, 2, 3], ARRAY[2])", "[1, 3]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_EXCEPT(ARRAY[1, 1], ARRAY[CAST(2 AS BIGINT)])", "[1]", "ARRAY<BIGINT NOT NULL> NOT NULL"),
    ("ARRAY_INTERSECT(ARRAY[1, 2, 2, 3], ARRAY[2, 2, 3, 3])", "[2, 3]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_UNION(ARRAY[1, 2, 2], ARRAY[3, 1])", "[1, 2, 3]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_UNION(ARRAY[1], ARRAY[CAST(2 AS BIGINT)])", "[1, 2]", "ARRAY<BIGINT NOT NULL> NOT NULL"),
    ("ARRAY_CONCAT(ARRAY[1], ARRAY[CAST(2 AS BIGINT)])", "[1, 2]", "ARRAY<BIGINT NOT NULL> NOT NULL"),
    ("ARRAY_CONCAT(ARRAY[1])", "[1]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_CONCAT(ARRAY['a'], ARRAY['bb'])", "[a, bb]", "ARRAY<VARCHAR(2) NOT NULL> NOT NULL"),
    ("ARRAY_DISTINCT(ARRAY[1.0, 1.00, 2])", "[1.00, 2.00]", "ARRAY<DECIMAL(12, 2) NOT NULL> NOT NULL"),
    ("ARRAY_REVERSE(CAST(NULL AS ARRAY<INT>))", "<NULL>", "ARRAY<INT>"),
    ("MAP_KEYS(CAST(NULL AS MAP<STRING, INT>))", "<NULL>", "ARRAY<STRING>"),
    (
        "MAP_ENTRIES(MAP[1, 'x'])",
        "[(1, x)]",
        "ARRAY<ROW<`key` INT NOT NULL, `value` CHAR(1) NOT NULL>> NOT NULL",
    ),
    ("MAP_FROM_ARRAYS(ARRAY['a'], ARRAY[1, 2])", None, "!run"),
    ("MAP_FROM_ARRAYS(ARRAY['a', 'b'], ARRAY[1])", None, "!run"),
    ("MAP_UNION(MAP['a', 1])", "{a=1}", "MAP<CHAR(1) NOT NULL, INT NOT NULL> NOT NULL"),
    (
        "MAP_UNION(MAP['x', 1, 'y', 2, 'z', 3], MAP['w', 4])",
        "{w=4, x=1, y=2, z=3}",
        "MAP<CHAR(1) NOT NULL, INT NOT NULL> NOT NULL",
    ),
    (
        "MAP_UNION(MAP[1, 'a', 2, 'b'], MAP[3, 'c'])",
        "{3=c, 1=a, 2=b}",
        "MAP<INT NOT NULL, CHAR(1) NOT NULL> NOT NULL",
    ),
    (
        "MAP_UNION(MAP['a', 1], MAP[CAST('b' AS VARCHAR(3)), CAST(2 AS BIGINT)])",
        "{b=2, a=1}",
        "MAP<VARCHAR(3) NOT NULL, BIGINT NOT NULL> NOT NULL",
    ),
    ("MAP_UNION(MAP['a', 1], MAP[1, 2])", None, "!plan"),
    ("CARDINALITY(ARRAY[1, 2, 3])", "3", "INT NOT NULL"),
    ("(ARRAY[10, 20, 30])[2]", "20", "INT"),
    ("(MAP['a', 1, 'b', 2])['b']", "2", "INT"),
    ("ARRAY_APPEND(ARRAY[1, 2], 3)", "[1, 2, 3]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_CONCAT(ARRAY[1], ARRAY[2, 3])", "[1, 2, 3]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_CONTAINS(ARRAY[1, 2], 2)", "TRUE", "BOOLEAN NOT NULL"),
    ("ARRAY_DISTINCT(ARRAY[1, 2, 1])", "[1, 2]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_EXCEPT(ARRAY[1, 2, 3], ARRAY[2])", "[1, 3]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_INTERSECT(ARRAY[1, 2, 3], ARRAY[2, 4])", "[2]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_JOIN(ARRAY['a', 'b'], '-')", "a-b", "STRING NOT NULL"),
    ("ARRAY_MIN(ARRAY[4, 2, 3])", "2", "INT"),
    ("ARRAY_PREPEND(ARRAY[1, 2], 0)", "[0, 1, 2]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_REVERSE(ARRAY[1, 2, 3])", "[3, 2, 1]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SLICE(ARRAY[1, 2, 3, 4], 2, 3)", "[2, 3]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SORT(ARRAY[3, 1, 2])", "[1, 2, 3]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_UNION(ARRAY[1, 2], ARRAY[2, 3])", "[1, 2, 3]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("MAP_KEYS(MAP['a', 1])", "[a]", "ARRAY<CHAR(1) NOT NULL> NOT NULL"),
    ("MAP_VALUES(MAP['a', 1])", "[1]", "ARRAY<INT NOT NULL> NOT NULL"),
    (
        "MAP_ENTRIES(MAP['a', 1])",
        "[(a, 1)]",
        "ARRAY<ROW<`key` CHAR(1) NOT NULL, `value` INT NOT NULL>> NOT NULL",
    ),
    (
        "MAP_FROM_ARRAYS(ARRAY['a', 'b'], ARRAY[1, 2])",
        "{a=1, b=2}",
        "MAP<CHAR(1) NOT NULL, INT NOT NULL> NOT NULL",
    ),
    ("MAP_UNION(MAP['a', 1], MAP['b', 2])", "{b=2, a=1}", "MAP<CHAR(1) NOT NULL, INT NOT NULL> NOT NULL"),
    ("CARDINALITY(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)])", "4", "INT NOT NULL"),
    ("CARDINALITY(CAST(NULL AS ARRAY<INT>))", "<NULL>", "INT"),
    ("CARDINALITY(MAP['a', 1, 'b', 2])", "2", "INT NOT NULL"),
    ("CARDINALITY(CAST(NULL AS MAP<STRING, INT>))", "<NULL>", "INT"),
    ("CARDINALITY(ARRAY[CAST(NULL AS INT)])", "1", "INT NOT NULL"),
    ("ELEMENT(ARRAY[7, 8])", None, "!run"),
    ("ELEMENT(CAST(NULL AS ARRAY<INT>))", "<NULL>", "INT"),
    ("ARRAY[1, 2, 3][1]", "1", "INT"),
    ("ARRAY[1, 2, 3][3]", "3", "INT"),
    ("ARRAY[1, 2, 3][0]", None, "!run"),
    ("ARRAY[1, 2, 3][-1]", None, "!run"),
    ("ARRAY[1, 2, 3][CAST(NULL AS INT)]", "<NULL>", "INT"),
    ("CAST(NULL AS ARRAY<INT>)[2]", "<NULL>", "INT"),
    ("MAP['a', 1, 'b', 2]['b']", "2", "INT"),
    ("MAP['a', 1, 'b', 2][CAST(NULL AS STRING)]", "<NULL>", "INT"),
    ("ARRAY_APPEND(ARRAY[1, 2, 3], 4)", "[1, 2, 3, 4]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_APPEND(ARRAY[1, 2, 3], CAST(NULL AS INT))", "[1, 2, 3, NULL]", "ARRAY<INT>"),
    (
        "ARRAY_APPEND(ARRAY['b', 'a', CAST(NULL AS STRING), 'c'], 'z')",
        "[b, a, NULL, c, z]",
        "ARRAY<STRING> NOT NULL",
    ),
    ("ARRAY_APPEND(ARRAY[1, 2, 3], CAST(5 AS BIGINT))", None, "!plan"),
    ("ARRAY_APPEND(ARRAY[1, 2, 3], CAST(1.5 AS DOUBLE))", None, "!plan"),
    ("ARRAY_PREPEND(ARRAY[1, 2, 3], 0)", "[0, 1, 2, 3]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_PREPEND(ARRAY[1, 2, 3], CAST(NULL AS INT))", "[NULL, 1, 2, 3]", "ARRAY<INT>"),
    ("ARRAY_PREPEND(CAST(NULL AS ARRAY<INT>), 1)", "<NULL>", "ARRAY<INT>"),
    (
        "ARRAY_CONCAT(ARRAY[1, 2, 3], ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)])",
        "[1, 2, 3, 1, NULL, 2, NULL]",
        "ARRAY<INT> NOT NULL",
    ),
    ("ARRAY_CONCAT(ARRAY[1, 2, 3], CAST(NULL AS ARRAY<INT>))", "<NULL>", "ARRAY<INT>"),
    ("ARRAY_CONCAT(CAST(NULL AS ARRAY<INT>), CAST(NULL AS ARRAY<INT>))", "<NULL>", "ARRAY<INT>"),
    ("ARRAY_CONCAT(ARRAY[1, 2, 3])", "[1, 2, 3]", "ARRAY<INT NOT NULL> NOT NULL"),
    (
        "ARRAY_CONCAT(ARRAY[1, 2, 3], ARRAY[1, 2, 3], ARRAY[9])",
        "[1, 2, 3, 1, 2, 3, 9]",
        "ARRAY<INT NOT NULL> NOT NULL",
    ),
    ("ARRAY_CONTAINS(ARRAY[1, 2, 3], 2)", "TRUE", "BOOLEAN NOT NULL"),
    ("ARRAY_CONTAINS(ARRAY[1, 2, 3], 5)", "FALSE", "BOOLEAN NOT NULL"),
    (
        "ARRAY_CONTAINS(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)], CAST(NULL AS INT))",
        "TRUE",
        "BOOLEAN NOT NULL",
    ),
    ("ARRAY_CONTAINS(ARRAY[1, 2, 3], CAST(NULL AS INT))", "FALSE", "BOOLEAN NOT NULL"),
    ("ARRAY_CONTAINS(CAST(NULL AS ARRAY<INT>), 1)", "<NULL>", "BOOLEAN"),
    ("ARRAY_CONTAINS(ARRAY[1, 2, 3], CAST(2 AS BIGINT))", None, "!plan"),
    ("ARRAY_CONTAINS(ARRAY[1, 2, 3], CAST(2.0 AS DOUBLE))", None, "!plan"),
    ("ARRAY_CONTAINS(ARRAY['b', 'a', CAST(NULL AS STRING), 'c'], 'a')", "TRUE", "BOOLEAN NOT NULL"),
    ("ARRAY_DISTINCT(ARRAY[1, 2, 1, 3, 2])", "[1, 2, 3]", "ARRAY<INT NOT NULL> NOT NULL"),
    (
        "ARRAY_DISTINCT(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)])",
        "[1, NULL, 2]",
        "ARRAY<INT> NOT NULL",
    ),
    ("ARRAY_DISTINCT(CAST(NULL AS ARRAY<INT>))", "<NULL>", "ARRAY<INT>"),
    (
        "ARRAY_DISTINCT(ARRAY['b', 'a', CAST(NULL AS STRING), 'c'])",
        "[b, a, NULL, c]",
        "ARRAY<STRING> NOT NULL",
    ),
    ("ARRAY_EXCEPT(ARRAY[1, 2, 1, 3, 2], ARRAY[2])", "[1, 3]", "ARRAY<INT NOT NULL> NOT NULL"),
    (
        "ARRAY_EXCEPT(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)], ARRAY[CAST(NULL AS INT)])",
        "[1, 2]",
        "ARRAY<INT> NOT NULL",
    ),
    ("ARRAY_EXCEPT(ARRAY[1, 2, 3], CAST(NULL AS ARRAY<INT>))", "<NULL>", "ARRAY<INT>"),
    ("ARRAY_EXCEPT(ARRAY[1, 2, 1, 3, 2], ARRAY[1, 2, 3])", "[]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_INTERSECT(ARRAY[1, 2, 1, 3, 2], ARRAY[2, 4, 2])", "[2]", "ARRAY<INT NOT NULL> NOT NULL"),
    (
        "ARRAY_INTERSECT(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)], "
        "ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)])",
        "[1, NULL, 2]",
        "ARRAY<INT> NOT NULL",
    ),
    ("ARRAY_INTERSECT(ARRAY[1, 2, 3], CAST(NULL AS ARRAY<INT>))", "<NULL>", "ARRAY<INT>"),
    ("ARRAY_UNION(ARRAY[1, 2, 1, 3, 2], ARRAY[4, 1])", "[1, 2, 3, 4]", "ARRAY<INT NOT NULL> NOT NULL"),
    (
        "ARRAY_UNION(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)], "
        "ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)])",
        "[1, NULL, 2]",
        "ARRAY<INT> NOT NULL",
    ),
    ("ARRAY_UNION(ARRAY[1, 2, 3], CAST(NULL AS ARRAY<INT>))", "<NULL>", "ARRAY<INT>"),
    ("ARRAY_JOIN(ARRAY['b', 'a', CAST(NULL AS STRING), 'c'], '-')", "b-a-c", "STRING NOT NULL"),
    ("ARRAY_JOIN(ARRAY['b', 'a', CAST(NULL AS STRING), 'c'], '')", "bac", "STRING NOT NULL"),
    ("ARRAY_JOIN(CAST(NULL AS ARRAY<STRING>), ',')", "<NULL>", "STRING"),
    ("ARRAY_JOIN(ARRAY['b', 'a', CAST(NULL AS STRING), 'c'], '-', '?')", "b-a-?-c", "STRING NOT NULL"),
    ("ARRAY_JOIN(ARRAY['b', 'a', CAST(NULL AS STRING), 'c'], '-', CAST(NULL AS STRING))", "<NULL>", "STRING"),
    ("ARRAY_JOIN(ARRAY[1, 2, 3], ',')", None, "!plan"),
    ("ARRAY_MAX(ARRAY[1, 2, 3])", "3", "INT"),
    ("ARRAY_MAX(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)])", "2", "INT"),
    ("ARRAY_MAX(CAST(NULL AS ARRAY<INT>))", "<NULL>", "INT"),
    ("ARRAY_MAX(ARRAY['b', 'a', CAST(NULL AS STRING), 'c'])", "c", "STRING"),
    ("ARRAY_MAX(ARRAY[1.5e0, CAST('NaN' AS DOUBLE)])", "1.5", "DOUBLE"),
    ("ARRAY_MIN(ARRAY[1, 2, 3])", "1", "INT"),
    ("ARRAY_MIN(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)])", "1", "INT"),
    ("ARRAY_MIN(CAST(NULL AS ARRAY<INT>))", "<NULL>", "INT"),
    ("ARRAY_MIN(ARRAY['b', 'a', CAST(NULL AS STRING), 'c'])", "a", "STRING"),
    ("ARRAY_MIN(ARRAY[DATE '2024-01-02', DATE '2023-01-01'])", "2023-01-01", "DATE"),
    ("ARRAY_POSITION(ARRAY[1, 2, 1, 3, 2], 2)", "2", "INT NOT NULL"),
    ("ARRAY_POSITION(ARRAY[1, 2, 1, 3, 2], 9)", "0", "INT NOT NULL"),
    ("ARRAY_POSITION(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)], CAST(NULL AS INT))", "<NULL>", "INT"),
    ("ARRAY_POSITION(CAST(NULL AS ARRAY<INT>), 1)", "<NULL>", "INT"),
    ("ARRAY_REMOVE(ARRAY[1, 2, 1, 3, 2], 1)", "[2, 3, 2]", "ARRAY<INT NOT NULL> NOT NULL"),
    (
        "ARRAY_REMOVE(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)], CAST(NULL AS INT))",
        "[1, 2]",
        "ARRAY<INT> NOT NULL",
    ),
    ("ARRAY_REMOVE(ARRAY[1], 1)", "[]", "ARRAY<INT NOT NULL> NOT NULL"),
    (
        "ARRAY_REVERSE(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)])",
        "[NULL, 2, NULL, 1]",
        "ARRAY<INT> NOT NULL",
    ),
    ("ARRAY_SLICE(ARRAY[1, 2, 1, 3, 2], 2, 3)", "[2, 1]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SLICE(ARRAY[1, 2, 1, 3, 2], 0, 2)", "[1, 2]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SLICE(ARRAY[1, 2, 1, 3, 2], (-2), (-1))", "[3, 2]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SLICE(ARRAY[1, 2, 1, 3, 2], 4, 2)", "[]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SLICE(ARRAY[1, 2, 1, 3, 2], 2, 99)", "[2, 1, 3, 2]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SLICE(ARRAY[1, 2, 1, 3, 2], (-99), 1)", "[1]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SLICE(ARRAY[1, 2, 1, 3, 2], CAST(NULL AS INT), 1)", "<NULL>", "ARRAY<INT NOT NULL>"),
    ("ARRAY_SLICE(CAST(NULL AS ARRAY<INT>), 1, 2)", "<NULL>", "ARRAY<INT>"),
    ("ARRAY_SLICE(ARRAY[1, 2, 1, 3, 2], 3)", "[1, 3, 2]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SLICE(ARRAY[1, 2, 1, 3, 2], (-1))", "[2]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("ARRAY_SORT(ARRAY[1, 2, 1, 3, 2])", "[1, 1, 2, 2, 3]", "ARRAY<INT NOT NULL> NOT NULL"),
    (
        "ARRAY_SORT(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)])",
        "[NULL, NULL, 1, 2]",
        "ARRAY<INT> NOT NULL",
    ),
    ("ARRAY_SORT(ARRAY['b', 'a', CAST(NULL AS STRING), 'c'])", "[NULL, a, b, c]", "ARRAY<STRING> NOT NULL"),
    ("ARRAY_SORT(CAST(NULL AS ARRAY<INT>))", "<NULL>", "ARRAY<INT>"),
    (
        "ARRAY_SORT(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)], FALSE)",
        "[2, 1, NULL, NULL]",
        "ARRAY<INT> NOT NULL",
    ),
    (
        "ARRAY_SORT(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)], TRUE)",
        "[NULL, NULL, 1, 2]",
        "ARRAY<INT> NOT NULL",
    ),
    (
        "ARRAY_SORT(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)], TRUE, FALSE)",
        "[1, 2, NULL, NULL]",
        "ARRAY<INT> NOT NULL",
    ),
    (
        "ARRAY_SORT(ARRAY[1, CAST(NULL AS INT), 2, CAST(NULL AS INT)], FALSE, TRUE)",
        "[NULL, NULL, 2, 1]",
        "ARRAY<INT> NOT NULL",
    ),
    ("MAP_KEYS(MAP['a', 1, 'b', 2])", "[a, b]", "ARRAY<CHAR(1) NOT NULL> NOT NULL"),
    ("MAP_VALUES(MAP['a', 1, 'b', 2])", "[1, 2]", "ARRAY<INT NOT NULL> NOT NULL"),
    ("MAP_VALUES(CAST(NULL AS MAP<STRING, INT>))", "<NULL>", "ARRAY<INT>"),
    (
        "MAP_ENTRIES(MAP['a', 1, 'b', 2])",
        "[(a, 1), (b, 2)]",
        "ARRAY<ROW<`key` CHAR(1) NOT NULL, `value` INT NOT NULL>> NOT NULL",
    ),
    ("MAP_ENTRIES(CAST(NULL AS MAP<STRING, INT>))", "<NULL>", "ARRAY<ROW<`key` STRING, `value` INT>>"),
    ("MAP_FROM_ARRAYS(CAST(NULL AS ARRAY<STRING>), ARRAY[1])", "<NULL>", "MAP<STRING, INT NOT NULL>"),
    (
        "MAP_FROM_ARRAYS(ARRAY[CAST(NULL AS STRING)], ARRAY[1])",
        "{NULL=1}",
        "MAP<STRING, INT NOT NULL> NOT NULL",
    ),
    (
        "MAP_UNION(MAP['a', 1, 'b', 2], MAP['b', 20, 'c', 30])",
        "{b=20, c=30, a=1}",
        "MAP<CHAR(1) NOT NULL, INT NOT NULL> NOT NULL",
    ),
    ("MAP_UNION(MAP['a', 1, 'b', 2], CAST(NULL AS MAP<STRING, INT>))", "<NULL>", "MAP<STRING, INT>"),
    ("MAP_UNION(CAST(NULL AS MAP<STRING, INT>), MAP['a', 1, 'b', 2])", "<NULL>", "MAP<STRING, INT>"),
    ("MAP_UNION(MAP['a', 1, 'b', 2])", "{a=1, b=2}", "MAP<CHAR(1) NOT NULL, INT NOT NULL> NOT NULL"),
    ("ARRAY_UNION(ARRAY[1], ARRAY['a'])", None, "!plan"),
    ("ARRAY_CONTAINS(ARRAY[1, 2], 'a')", None, "!plan"),
    ("CARDINALITY(ARRAY_REMOVE(ARRAY[1], 1))", "0", "INT NOT NULL"),
]


def _environment() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "1")
    return t_env


def _printed(table: Any) -> tuple[str, str]:
    types = table.get_schema().get_field_data_types()
    rows = [
        [format_value(t, v) for t, v in zip(types, row, strict=True)] for row in table.execute().collect()
    ]
    return "\n".join(" | ".join(r) for r in rows), ", ".join(summary_string(t) for t in types)


def test_what_pyflink_prints() -> None:
    """The expressions PyFlink computes, in one query: each value and type as PyFlink's."""
    expressions = [c for c, printed, _ in SQL_CASES if printed is not None and not c.startswith("Q: ")]
    table = _environment().sql_query("SELECT " + ", ".join(expressions))
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
    query = case[3:] if case.startswith("Q: ") else "SELECT " + case
    if printed is not None:
        assert _printed(t_env.sql_query(query)) == (printed, type_)
    elif type_ == "!plan":
        with pytest.raises(Exception):
            t_env.sql_query(query)
    else:
        with pytest.raises(Exception):
            _printed(t_env.sql_query(query))
