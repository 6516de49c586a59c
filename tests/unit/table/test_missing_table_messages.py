# ruff: noqa: E501 - the statements and PyFlink's messages read best on one line
"""A query reading a table no one created fails with Flink's message for the catalogs as they
are and the current catalog and database (``sql/missing_objects.py``): where the name stops
resolving (``within 'cat2.db'``) and Calcite's "did you mean" for a name that resolves when
case is ignored. Before, the message named ``default_catalog.default_database`` whatever the
current database and said ``Object 'cat2' not found`` of any name with a catalog.
``CURRENT_DATABASE()`` is the current database too (it was ``default_database`` always).

Every message is what PyFlink 2.3.0 raised (``sql_query``) after the same statements:
``t`` in ``default_catalog.default_database``, ``u`` in ``default_catalog.db2``, ``w`` in
``cat2.db`` (a ``generic_in_memory`` catalog, whose default database is ``default``).
PyFlink 2.3.0 fails ``default_database.T``, ``db2.U`` and ``db.W`` (a qualified name whose
last part differs in case) with "SQL validation failed. Index 3 out of bounds for length 3";
millstream gives Calcite's message for them (``Object 'U' not found within
'default_catalog.db2'; did you mean 'u'?``).
"""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.sql.errors import SqlError

SETUP = [
    "CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1')",
    "CREATE DATABASE db2",
    "CREATE TABLE db2.u (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1')",
    "CREATE CATALOG cat2 WITH ('type' = 'generic_in_memory')",
    "CREATE DATABASE cat2.db",
    "CREATE TABLE cat2.db.w (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1')",
]

_V = "SQL validation failed. "
IN_DEFAULT_DATABASE = [
    ("SELECT * FROM tt", _V + "From line 1, column 15 to line 1, column 16: Object 'tt' not found"),
    (
        "SELECT * FROM T",
        _V
        + "At line 1, column 15: Object 'T' not found within 'default_catalog.default_database'; did you mean 't'?",
    ),
    (
        "SELECT * FROM default_database.tt",
        _V
        + "From line 1, column 15 to line 1, column 33: Object 'tt' not found within 'default_catalog.default_database'",
    ),
    (
        "SELECT * FROM default_catalog.default_database.tt",
        _V
        + "From line 1, column 15 to line 1, column 49: Object 'tt' not found within 'default_catalog.default_database'",
    ),
    ("SELECT * FROM db3.tt", _V + "From line 1, column 15 to line 1, column 20: Object 'db3' not found"),
    (
        "SELECT * FROM db2.tt",
        _V
        + "From line 1, column 15 to line 1, column 20: Object 'tt' not found within 'default_catalog.db2'",
    ),
    ("SELECT * FROM cat9.db.tt", _V + "From line 1, column 15 to line 1, column 24: Object 'cat9' not found"),
    (
        "SELECT * FROM cat2.db.tt",
        _V + "From line 1, column 15 to line 1, column 24: Object 'tt' not found within 'cat2.db'",
    ),
    (
        "SELECT * FROM cat2.nodb.tt",
        _V + "From line 1, column 15 to line 1, column 26: Object 'nodb' not found within 'cat2'",
    ),
    (
        "SELECT * FROM cat2.db.W",
        _V
        + "From line 1, column 15 to line 1, column 23: Object 'W' not found within 'cat2.db'; did you mean 'w'?",
    ),
    ("SELECT * FROM u", _V + "At line 1, column 15: Object 'u' not found"),
    (
        "SELECT * FROM DB2.u",
        _V
        + "From line 1, column 15 to line 1, column 19: Object 'DB2' not found within 'default_catalog'; did you mean 'db2'?",
    ),
    (
        "SELECT * FROM t AS x JOIN tt AS y ON x.a = y.a",
        _V + "From line 1, column 27 to line 1, column 28: Object 'tt' not found",
    ),
]
AFTER_USE_DB2 = [
    ("SELECT * FROM tt", _V + "From line 1, column 15 to line 1, column 16: Object 'tt' not found"),
    ("SELECT * FROM T", _V + "At line 1, column 15: Object 'T' not found"),
    (
        "SELECT * FROM default_database.tt",
        _V
        + "From line 1, column 15 to line 1, column 33: Object 'tt' not found within 'default_catalog.default_database'",
    ),
    (
        "SELECT * FROM db2.tt",
        _V
        + "From line 1, column 15 to line 1, column 20: Object 'tt' not found within 'default_catalog.db2'",
    ),
    ("SELECT * FROM t AS x JOIN tt AS y ON x.a = y.a", _V + "At line 1, column 15: Object 't' not found"),
]
AFTER_USE_CATALOG_CAT2 = [
    ("SELECT * FROM tt", _V + "From line 1, column 15 to line 1, column 16: Object 'tt' not found"),
    (
        "SELECT * FROM default_database.tt",
        _V + "From line 1, column 15 to line 1, column 33: Object 'default_database' not found",
    ),
    (
        "SELECT * FROM default_catalog.default_database.tt",
        _V
        + "From line 1, column 15 to line 1, column 49: Object 'tt' not found within 'default_catalog.default_database'",
    ),
    ("SELECT * FROM db2.U", _V + "From line 1, column 15 to line 1, column 19: Object 'db2' not found"),
    ("SELECT * FROM DB2.u", _V + "From line 1, column 15 to line 1, column 19: Object 'DB2' not found"),
    (
        "SELECT * FROM db.tt",
        _V + "From line 1, column 15 to line 1, column 19: Object 'tt' not found within 'cat2.db'",
    ),
    ("SELECT * FROM W", _V + "At line 1, column 15: Object 'W' not found"),
]
AFTER_USE_DB = [
    (
        "SELECT * FROM W",
        _V + "At line 1, column 15: Object 'W' not found within 'cat2.db'; did you mean 'w'?",
    ),
    (
        "SELECT * FROM db.tt",
        _V + "From line 1, column 15 to line 1, column 19: Object 'tt' not found within 'cat2.db'",
    ),
]


def _environment(*uses: str) -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "1")
    for statement in [*SETUP, *uses]:
        t_env.execute_sql(statement)
    return t_env


@pytest.mark.parametrize(
    ("uses", "query", "message"),
    [((), q, m) for q, m in IN_DEFAULT_DATABASE]
    + [(("USE db2",), q, m) for q, m in AFTER_USE_DB2]
    + [(("USE CATALOG cat2",), q, m) for q, m in AFTER_USE_CATALOG_CAT2]
    + [(("USE CATALOG cat2", "USE db"), q, m) for q, m in AFTER_USE_DB],
)
def test_a_missing_table_is_said_as_flinks_validator_says_it(
    uses: tuple[str, ...], query: str, message: str
) -> None:
    t_env = _environment(*uses)
    with pytest.raises(SqlError) as failure:
        t_env.sql_query(query)
    assert str(failure.value) == message


def test_a_qualified_name_whose_table_differs_in_case_gets_calcites_suggestion() -> None:
    # PyFlink 2.3.0: "SQL validation failed. Index 3 out of bounds for length 3" (ledger)
    with pytest.raises(SqlError) as failure:
        _environment().sql_query("SELECT * FROM db2.U")
    assert str(failure.value) == (
        _V
        + "From line 1, column 15 to line 1, column 19: Object 'U' not found within 'default_catalog.db2'; did you mean 'u'?"
    )


@pytest.mark.parametrize(
    ("uses", "database"),
    [((), "default_database"), (("USE db2",), "db2"), (("USE CATALOG cat2",), "default")],
)
def test_current_database_is_the_current_one(uses: tuple[str, ...], database: str) -> None:
    # PyFlink 2.3.0 prints default_database, db2, then default (cat2's default database)
    with _environment(*uses).execute_sql("SELECT CURRENT_DATABASE()").collect() as rows:
        assert [row[0] for row in rows] == [database]
