# ruff: noqa: E501 - the statements and PyFlink's messages read best on one line
"""JSON_OBJECT and JSON_OBJECTAGG take any expression as a key (``KEY 'k' || s VALUE n``, as
Calcite's grammar), JSON_ARRAYAGG an ORDER BY inside or a WITHIN GROUP (ORDER BY ...) after,
which Flink validates and ignores, and what Flink's parser refuses around them is refused with
its message. Before, an expression key failed to parse (``Encountered "VALUE"``: sqlglot read a
column there), JSON_ARRAYAGG's ORDER BY was refused, JSON_ARRAYAGG(...) OVER (...) ran and a
FILTER after a JSON aggregate failed with millstream's own words.

Every expected table and message is what PyFlink 2.3.0 printed for the same statement over the
same view (``v(s, n, g)`` of VALUES ('b', 2, 'x'), ('a', 1, 'y'), ('c', 3, 'x')), in batch mode
at parallelism 1.
"""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value
from millstream.table.sql.errors import SqlError

SETUP = [
    "CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES ('b', 2, 'x'), ('a', 1, 'y'), ('c', 3, 'x')) AS x(s, n, g)"
]

ROWS = [
    ("SELECT JSON_OBJECTAGG(KEY 'k' || s VALUE n) FROM v", [['{"ka":1,"kb":2,"kc":3}']]),
    ("SELECT JSON_OBJECTAGG('k' || s VALUE n) FROM v", [['{"ka":1,"kb":2,"kc":3}']]),
    ("SELECT JSON_OBJECTAGG(UPPER(s) VALUE n) FROM v", [['{"A":1,"B":2,"C":3}']]),
    ("SELECT JSON_OBJECTAGG(KEY s || g VALUE n NULL ON NULL) FROM v", [['{"ay":1,"bx":2,"cx":3}']]),
    (
        "SELECT g, JSON_OBJECTAGG(KEY 'k' || s VALUE n * 2) FROM v GROUP BY g",
        [["x", '{"kb":4,"kc":6}'], ["y", '{"ka":2}']],
    ),
    (
        "SELECT JSON_OBJECT(KEY 'k' || s VALUE n, KEY UPPER(g) VALUE s) FROM v",
        [['{"X":"b","kb":2}'], ['{"Y":"a","ka":1}'], ['{"X":"c","kc":3}']],
    ),
    ("SELECT JSON_OBJECT('k' || s VALUE n) FROM v", [['{"kb":2}'], ['{"ka":1}'], ['{"kc":3}']]),
    # the ORDER BY is validated and ignored: the values in arrival order
    ("SELECT JSON_ARRAYAGG(s ORDER BY s) FROM v", [['["b","a","c"]']]),
    ("SELECT JSON_ARRAYAGG(s ORDER BY n DESC) FROM v", [['["b","a","c"]']]),
    ("SELECT JSON_ARRAYAGG(s ORDER BY n NULL ON NULL) FROM v", [['["b","a","c"]']]),
    ("SELECT JSON_ARRAYAGG(s ORDER BY n ASC NULLS FIRST, s) FROM v", [['["b","a","c"]']]),
    ("SELECT JSON_ARRAYAGG(s) WITHIN GROUP (ORDER BY s) FROM v", [['["b","a","c"]']]),
    (
        "SELECT g, JSON_ARRAYAGG(s ORDER BY s DESC ABSENT ON NULL) FROM v GROUP BY g",
        [["x", '["b","c"]'], ["y", '["a"]']],
    ),
]

ERRORS = [
    (
        "SELECT JSON_ARRAYAGG(s ORDER BY zz) FROM v",
        "SQL validation failed. From line 1, column 33 to line 1, column 34: Column 'zz' not found in any table",
    ),
    (
        "SELECT JSON_ARRAYAGG(s) WITHIN GROUP (ORDER BY zz) FROM v",
        "SQL validation failed. From line 1, column 48 to line 1, column 49: Column 'zz' not found in any table",
    ),
    (
        "SELECT JSON_ARRAYAGG(s ORDER BY n) WITHIN GROUP (ORDER BY s) FROM v",
        "SQL parse failed. Including both WITHIN GROUP(...) and inside ORDER BY in a single JSON_ARRAYAGG call is not allowed",
    ),
    (
        "SELECT JSON_OBJECTAGG(KEY s VALUE n ORDER BY n) FROM v",
        'SQL parse failed. Encountered "ORDER" at line 1, column 37.',
    ),
    (
        "SELECT JSON_OBJECT(KEY s VALUE n ORDER BY n) FROM v",
        'SQL parse failed. Encountered "ORDER" at line 1, column 34.',
    ),
    (
        "SELECT JSON_OBJECTAGG(KEY s VALUE n) WITHIN GROUP (ORDER BY n) FROM v",
        "SQL parse failed. Incorrect syntax near the keyword 'WITHIN' at line 1, column 38.",
    ),
    (
        "SELECT JSON_ARRAYAGG(s) FILTER (WHERE n > 1) FROM v",
        "SQL parse failed. Incorrect syntax near the keyword 'FILTER' at line 1, column 25.",
    ),
    (
        "SELECT JSON_OBJECTAGG(KEY s VALUE n) FILTER (WHERE n > 1) FROM v",
        "SQL parse failed. Incorrect syntax near the keyword 'FILTER' at line 1, column 38.",
    ),
    (
        "SELECT JSON_ARRAYAGG(s) OVER (ORDER BY n) FROM v",
        "SQL parse failed. Incorrect syntax near the keyword 'OVER' at line 1, column 25.",
    ),
    (
        "SELECT JSON_ARRAYAGG(s ORDER BY n) OVER () FROM v",
        "SQL parse failed. Incorrect syntax near the keyword 'OVER' at line 1, column 36.",
    ),
    (
        "SELECT JSON_ARRAYAGG(s) WITHIN GROUP (ORDER BY s) OVER () FROM v",
        "SQL parse failed. Incorrect syntax near the keyword 'OVER' at line 1, column 51.",
    ),
    (
        "SELECT LISTAGG(s) WITHIN GROUP (ORDER BY s) FROM v",
        "SQL validation failed. From line 1, column 8 to line 1, column 17: Aggregate expression 'LISTAGG' must not contain a WITHIN GROUP clause",
    ),
    (
        "SELECT ARRAY_AGG(s) WITHIN GROUP (ORDER BY s) FROM v",
        "SQL validation failed. From line 1, column 8 to line 1, column 19: Aggregate expression 'ARRAY_AGG' must not contain a WITHIN GROUP clause",
    ),
    (
        "SELECT COUNT(*) WITHIN GROUP (ORDER BY s) FROM v",
        "SQL validation failed. From line 1, column 8 to line 1, column 15: Aggregate expression 'COUNT' must not contain a WITHIN GROUP clause",
    ),
]


@pytest.fixture(scope="module")
def t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "1")
    for statement in SETUP:
        t_env.execute_sql(statement)
    return t_env


@pytest.mark.parametrize(("query", "expected"), ROWS, ids=[q for q, _ in ROWS])
def test_json_aggregates_and_objects_read_as_pyflinks(
    t_env: TableEnvironment, query: str, expected: list[list[str]]
) -> None:
    table = t_env.sql_query(query)
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        printed = [[format_value(t, v) for t, v in zip(types, row, strict=True)] for row in rows]
    assert sorted(printed) == sorted(expected)


@pytest.mark.parametrize(("query", "message"), ERRORS, ids=[q for q, _ in ERRORS])
def test_what_flink_refuses_around_json_aggregates_is_refused_in_its_words(
    t_env: TableEnvironment, query: str, message: str
) -> None:
    with pytest.raises(SqlError) as failure:
        t_env.execute_sql(query)
    assert str(failure.value) == message
