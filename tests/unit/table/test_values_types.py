# ruff: noqa: E501 - PyFlink's schemas and messages read best on one line
"""VALUES as Flink types and names it: a column's type is the common type of its rows' values
down to an ARRAY's elements and a MAP's keys and values (``ARRAY['a', 'b']`` and
``ARRAY['ccc']``: ``ARRAY<VARCHAR(3) NOT NULL>``); ``VALUES (...)`` alone is a query; ``(ROW(a,
b))`` is a row of two columns (Calcite's row constructor); an alias's column list names the
columns of VALUES and of a subquery and must have as many names as there are columns. Before,
the first row's element type was the column's (``ccc`` came out as ``c``, a NULL array kept
``ARRAY<CHAR(1) NOT NULL>``), ``VALUES (...)`` alone was refused, a subquery's alias columns
were ignored and a short alias list failed with "list index out of range".

Every schema, row and message below is what PyFlink 2.3.0 printed (``print_schema``,
``execute().print()``) for the same query in batch mode.
"""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value
from millstream.table.sql.errors import SqlError

CASES = [
    ("VALUES (ARRAY['a','b'])", "`EXPR$0` ARRAY<CHAR(1) NOT NULL> NOT NULL", [["[a, b]"]]),
    (
        "SELECT * FROM (VALUES (ARRAY['a','b']), (ARRAY['ccc'])) AS t(x)",
        "`x` ARRAY<VARCHAR(3) NOT NULL> NOT NULL",
        [["[a, b]"], ["[ccc]"]],
    ),
    (
        "SELECT * FROM (VALUES (ARRAY['a','b']), (CAST(NULL AS ARRAY<STRING>))) AS t(x)",
        "`x` ARRAY<STRING>",
        [["[a, b]"], ["<NULL>"]],
    ),
    (
        "SELECT * FROM (VALUES (ARRAY[1, 2]), (ARRAY[3])) AS t(x)",
        "`x` ARRAY<INT NOT NULL> NOT NULL",
        [["[1, 2]"], ["[3]"]],
    ),
    (
        "SELECT * FROM (VALUES (MAP['a', 1]), (MAP['bb', 2])) AS t(x)",
        "`x` MAP<VARCHAR(2) NOT NULL, INT NOT NULL> NOT NULL",
        [["{a=1}"], ["{bb=2}"]],
    ),
    (
        "SELECT CASE WHEN TRUE THEN ARRAY['a'] ELSE ARRAY['bb'] END",
        "`EXPR$0` ARRAY<VARCHAR(2) NOT NULL> NOT NULL",
        [["[a]"]],
    ),
    (
        "SELECT COALESCE(MAP['a', 1], MAP['bb', 2])",
        "`EXPR$0` MAP<VARCHAR(2) NOT NULL, INT NOT NULL> NOT NULL",
        [["{a=1}"]],
    ),
    (
        "SELECT * FROM (VALUES ROW('a', 1), ROW('bb', 2)) AS t(x, y)",
        "`x` VARCHAR(2) NOT NULL,\n  `y` INT NOT NULL",
        [["a", "1"], ["bb", "2"]],
    ),
    (
        "SELECT * FROM (SELECT 1 AS a, 2 AS b) AS t(x, y)",
        "`x` INT NOT NULL,\n  `y` INT NOT NULL",
        [["1", "2"]],
    ),
    (
        "SELECT t.x FROM (VALUES (1, 2)) AS t(x, y) JOIN (SELECT 3 AS a) AS u(z) ON t.x < u.z",
        "`x` INT NOT NULL",
        [["1"]],
    ),
]

_V = "SQL validation failed. "
ERRORS = [
    (
        "SELECT * FROM (VALUES (ROW('a', 1)), (ROW('bb', 2))) AS t(x)",
        _V
        + "At line 1, column 59: List of column aliases must have same degree as table; table has 2 columns ('EXPR$0', 'EXPR$1'), whereas alias list has 1 columns",
    ),
    (
        "SELECT * FROM (VALUES (ROW('a', 1, 2)), (ROW('bb', 2, 3))) AS t(xx, yy)",
        _V
        + "From line 1, column 65 to line 1, column 70: List of column aliases must have same degree as table; table has 3 columns ('EXPR$0', 'EXPR$1', 'EXPR$2'), whereas alias list has 2 columns",
    ),
    (
        "SELECT * FROM (VALUES (1, 2)) AS t(xx, yy, zz)",
        _V
        + "From line 1, column 36 to line 1, column 45: List of column aliases must have same degree as table; table has 2 columns ('EXPR$0', 'EXPR$1'), whereas alias list has 3 columns",
    ),
    (
        "SELECT * FROM (SELECT 1 AS a, 2 AS b) AS t(xx)",
        _V
        + "From line 1, column 44 to line 1, column 45: List of column aliases must have same degree as table; table has 2 columns ('a', 'b'), whereas alias list has 1 columns",
    ),
]


@pytest.fixture(scope="module")
def t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "1")
    return t_env


@pytest.mark.parametrize(("query", "schema", "rows"), CASES, ids=[q for q, _, _ in CASES])
def test_values_are_typed_and_named_as_flinks(
    t_env: TableEnvironment, query: str, schema: str, rows: list[list[str]]
) -> None:
    table = t_env.sql_query(query)
    resolved = table.get_resolved_schema()
    assert str(resolved) == f"(\n  {schema}\n)"
    types = resolved.get_column_data_types()
    with table.execute().collect() as collected:
        printed = [[format_value(t, v) for t, v in zip(types, row, strict=True)] for row in collected]
    assert printed == rows


@pytest.mark.parametrize(("query", "message"), ERRORS, ids=[q for q, _ in ERRORS])
def test_an_alias_list_of_another_length_is_refused_as_calcite_refuses_it(
    t_env: TableEnvironment, query: str, message: str
) -> None:
    with pytest.raises(SqlError) as failure:
        t_env.sql_query(query)
    assert str(failure.value) == message
