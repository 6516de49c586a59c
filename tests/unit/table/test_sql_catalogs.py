"""Catalogs, databases and names as Flink's ``CatalogManager`` keeps them, through
``execute_sql``: ``CREATE | ALTER | DROP CATALOG`` (in-memory catalogs, Flink's
``generic_in_memory``), ``CREATE | ALTER | DROP DATABASE``, ``USE``, qualified names
(``c.db.t``) in DDL, queries and plans, temporary objects shadowing permanent ones, and SHOW
with ``FROM | IN`` and ``[NOT] LIKE``. Every expectation is what PyFlink 2.3.0 printed for the
same statements (its Java exception class left out of an error's text).

Before, only ``default_catalog.default_database`` existed: CREATE CATALOG and DATABASE were
"unsupported statement", a qualified name resolved by its last part only, SHOW took no FROM or
LIKE, and DROP TABLE dropped a temporary table as well as a permanent one.
"""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment


def _t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    return t_env


def _shown(t_env: TableEnvironment, statement: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    t_env.execute_sql(statement).print()
    return capsys.readouterr().out


def _error(t_env: TableEnvironment, statement: str) -> str:
    with pytest.raises(ValueError) as caught:
        t_env.execute_sql(statement)
    message = str(caught.value)
    assert "\n" not in message, f"{statement}: a refusal is one line: {message!r}"
    return message


def test_catalogs_are_created_used_described_and_dropped_as_flinks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    t_env = _t_env()
    t_env.execute_sql("CREATE CATALOG c1 WITH ('type'='generic_in_memory', 'default-database'='mydb')")
    t_env.execute_sql("CREATE CATALOG IF NOT EXISTS c1 WITH ('type'='generic_in_memory')")
    t_env.execute_sql("CREATE CATALOG c2 COMMENT 'hello' WITH ('type'='generic_in_memory')")
    # PyFlink 2.3.0 prints these tables
    assert _shown(t_env, "SHOW CATALOGS", capsys) == (
        "+-----------------+\n|    catalog name |\n+-----------------+\n|              c1 |\n"
        "|              c2 |\n| default_catalog |\n+-----------------+\n3 rows in set\n"
    )
    assert _shown(t_env, "SHOW DATABASES FROM c1", capsys) == (
        "+---------------+\n| database name |\n+---------------+\n|          mydb |\n"
        "+---------------+\n1 row in set\n"
    )
    assert _shown(t_env, "SHOW CATALOGS NOT LIKE 'def%'", capsys).splitlines()[3:5] == [
        "|           c1 |",
        "|           c2 |",
    ]
    t_env.execute_sql("ALTER CATALOG c1 COMMENT 'hello'")
    assert _shown(t_env, "DESCRIBE CATALOG EXTENDED c1", capsys) == (
        "+-------------------------+-------------------+\n"
        "|               info name |        info value |\n"
        "+-------------------------+-------------------+\n"
        "|                    name |                c1 |\n"
        "|                    type | generic_in_memory |\n"
        "|                 comment |             hello |\n"
        "| option:default-database |              mydb |\n"
        "+-------------------------+-------------------+\n4 rows in set\n"
    )
    create = _shown(t_env, "SHOW CREATE CATALOG c1", capsys).splitlines()
    assert create[3:9] == [
        "| CREATE CATALOG `c1`",
        "COMMENT 'hello'",
        "WITH (",
        "  'default-database' = 'mydb',",
        "  'type' = 'generic_in_memory'",
        ")",
    ]
    t_env.execute_sql("USE CATALOG c1")
    assert t_env.get_current_catalog() == "c1" and t_env.get_current_database() == "mydb"
    assert _error(t_env, "DROP CATALOG c1") == "Cannot drop a catalog which is currently in use."
    t_env.execute_sql("USE CATALOG default_catalog")
    t_env.execute_sql("DROP CATALOG c1")
    t_env.execute_sql("DROP CATALOG IF EXISTS c1")
    assert t_env.list_catalogs() == ["c2", "default_catalog"]


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        # PyFlink 2.3.0: ValidationException: Unable to create catalog 'n'. (Caused by:) Catalog
        # options do not contain an option key 'type' for discovering a catalog.
        (
            "CREATE CATALOG n WITH ('default-database'='x')",
            "Unable to create catalog 'n': Catalog options do not contain an option key 'type' for "
            "discovering "
            "a catalog.",
        ),
        # PyFlink 2.3.0: Could not find any factory for identifier 'hive' that implements
        # 'org.apache.flink.table.factories.CatalogFactory' in the classpath.
        (
            "CREATE CATALOG h WITH ('type'='hive')",
            "Unable to create catalog 'h': millstream has no catalog of type 'hive' (only "
            "'generic_in_memory', "
            "kept in memory)",
        ),
        # PyFlink 2.3.0: Unsupported options found for 'generic_in_memory'.
        (
            "CREATE CATALOG c WITH ('type'='generic_in_memory', 'foo'='bar')",
            "Unable to create catalog 'c': Unsupported options found for 'generic_in_memory': foo "
            "(supported: "
            "default-database, property-version, type)",
        ),
        (
            "CREATE CATALOG default_catalog WITH ('type'='generic_in_memory')",
            "Catalog default_catalog already exists.",
        ),
        ("DROP CATALOG nope", "Catalog nope does not exist."),
        ("DROP CATALOG default_catalog", "Cannot drop a catalog which is currently in use."),
        ("ALTER CATALOG nope COMMENT 'x'", "Catalog nope does not exist in the catalog store."),
        ("USE CATALOG nope", "A catalog with name [nope] does not exist."),
        (
            "SHOW CREATE CATALOG default_catalog",
            "Cannot obtain metadata information from Catalog default_catalog.",
        ),
        (
            "DESCRIBE CATALOG default_catalog",
            "Cannot obtain metadata information from Catalog default_catalog.",
        ),
    ],
)
def test_catalog_errors_are_flinks(statement: str, message: str) -> None:
    assert _error(_t_env(), statement) == message


def test_databases_hold_tables_named_by_qualified_names(capsys: pytest.CaptureFixture[str]) -> None:
    t_env = _t_env()
    t_env.execute_sql("CREATE DATABASE db1")
    t_env.execute_sql("CREATE DATABASE IF NOT EXISTS db1 COMMENT 'c' WITH ('k'='v')")
    t_env.execute_sql("CREATE TABLE db1.t1 (a INT) WITH ('connector'='datagen','number-of-rows'='1')")
    t_env.execute_sql("CREATE TABLE default_catalog.db1.t2 (a INT) WITH ('connector'='datagen')")
    # PyFlink 2.3.0 prints these
    assert _shown(t_env, "SHOW DATABASES LIKE 'd%'", capsys).splitlines()[3:5] == [
        "|              db1 |",
        "| default_database |",
    ]
    assert _shown(t_env, "SHOW TABLES FROM db1", capsys) == (
        "+------------+\n| table name |\n+------------+\n|         t1 |\n|         t2 |\n"
        "+------------+\n2 rows in set\n"
    )
    assert _shown(t_env, "SHOW VIEWS FROM db1", capsys) == "Empty set\n"
    assert "TableSourceScan(table=[[default_catalog, db1, t1]], fields=[a])" in _shown(
        t_env, "EXPLAIN SELECT * FROM db1.t1", capsys
    )
    t_env.execute_sql("USE db1")
    assert _shown(t_env, "SHOW CURRENT DATABASE", capsys).splitlines()[3] == "|                   db1 |"
    assert t_env.from_path("t1").get_schema().get_field_names() == ["a"]
    t_env.execute_sql("CREATE TEMPORARY TABLE tt (a INT) WITH ('connector'='datagen')")
    assert t_env.list_tables() == ["t1", "t2", "tt"]
    assert _error(t_env, "DROP DATABASE db1 CASCADE") == "Cannot drop a database which is currently in use."
    t_env.execute_sql("USE default_database")
    assert _error(t_env, "DROP DATABASE db1") == (
        "Could not execute DROP DATABASE default_catalog.db1 RESTRICT: Database db1 in catalog "
        "default_catalog is "
        "not empty."
    )
    t_env.execute_sql("ALTER DATABASE db1 SET ('k2'='v2')")
    t_env.execute_sql("DROP DATABASE db1 CASCADE")
    t_env.execute_sql("DROP DATABASE IF EXISTS db1")
    assert t_env.list_databases() == ["default_database"]


def test_a_table_of_another_catalog_reads_and_plans_with_its_full_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    t_env = _t_env()
    t_env.execute_sql("CREATE CATALOG c1 WITH ('type'='generic_in_memory', 'default-database'='mydb')")
    t_env.execute_sql("USE CATALOG c1")
    t_env.execute_sql("CREATE TABLE t (a INT) WITH ('connector'='datagen','number-of-rows'='2')")
    # PyFlink 2.3.0: TableSourceScan(table=[[c1, mydb, t]], fields=[a])
    assert "TableSourceScan(table=[[c1, mydb, t]], fields=[a])" in _shown(
        t_env, "EXPLAIN SELECT * FROM t", capsys
    )
    t_env.execute_sql("USE CATALOG default_catalog")
    rows = list(t_env.execute_sql("SELECT COUNT(*) FROM c1.mydb.t").collect())
    assert [r[0] for r in rows][-1] == 2  # PyFlink 2.3.0: +I 1, -U 1, +U 2
    t_env.execute_sql("CREATE TABLE snk (a INT) WITH ('connector'='blackhole')")
    assert "Sink(table=[default_catalog.default_database.snk], fields=[a])" in _shown(
        t_env, "EXPLAIN INSERT INTO snk SELECT * FROM c1.mydb.t", capsys
    )


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        # PyFlink 2.3.0 (ValidationException, its cause after the colon)
        (
            "CREATE DATABASE default_database",
            "Database default_database already exists in Catalog default_catalog.",
        ),
        ("CREATE DATABASE c9.x", "Catalog c9 does not exist"),
        (
            "DROP DATABASE nope",
            "Could not execute DROP DATABASE default_catalog.nope RESTRICT: Database nope does not exist in "
            "Catalog default_catalog.",
        ),
        ("ALTER DATABASE nope SET ('k2'='v2')", "Database nope not exists"),
        ("USE nope", "A database with name [nope] does not exist in the catalog: [default_catalog]."),
        ("SHOW TABLES FROM nodb", "Database 'default_catalog'.'nodb' doesn't exist."),
        ("SHOW TABLES FROM nocat.db", "Catalog nocat does not exist"),
        ("SHOW DATABASES FROM nope", "Catalog nope does not exist"),
        (
            "CREATE TABLE nodb.t2 (a INT) WITH ('connector'='datagen')",
            "Could not execute CreateTable in path `default_catalog`.`nodb`.`t2`: Database nodb "
            "does not exist "
            "in Catalog default_catalog.",
        ),
        ("CREATE TABLE nocat.db.t2 (a INT) WITH ('connector'='datagen')", "Catalog nocat does not exist."),
        (
            "CREATE TABLE a.b.c.d (a INT) WITH ('connector'='datagen')",
            "Object identifier must consist of 1 to 3 parts.",
        ),
        ("SHOW TABLES ILIKE 'S%'", 'SQL parse failed. Encountered "ILIKE" at line 1, column 13.'),
    ],
)
def test_database_and_name_errors_are_flinks(statement: str, message: str) -> None:
    assert _error(_t_env(), statement) == message


def test_temporary_objects_shadow_permanent_ones_as_flinks(capsys: pytest.CaptureFixture[str]) -> None:
    t_env = _t_env()
    t_env.execute_sql("CREATE TABLE p (a INT, b STRING) WITH ('connector'='datagen')")
    t_env.execute_sql("CREATE TEMPORARY TABLE p (a INT) WITH ('connector'='datagen')")
    # PyFlink 2.3.0: the temporary table shadows the permanent one of its name
    assert t_env.from_path("p").get_schema().get_field_names() == ["a"]
    assert _error(t_env, "CREATE TEMPORARY TABLE p (a INT) WITH ('connector'='datagen')") == (
        "Temporary table '`default_catalog`.`default_database`.`p`' already exists"
    )
    assert _error(t_env, "DROP TABLE p") == (
        "Temporary table with identifier '`default_catalog`.`default_database`.`p`' exists. Drop it first "
        "before removing the permanent table."
    )
    t_env.execute_sql("DROP TEMPORARY TABLE p")
    assert t_env.from_path("p").get_schema().get_field_names() == ["a", "b"]
    assert _error(t_env, "DROP TEMPORARY TABLE p") == (
        "Temporary table or view with identifier 'default_catalog.default_database.p' does not exist."
    )
    t_env.execute_sql("CREATE TEMPORARY VIEW tv AS SELECT 1 AS x")
    assert _error(t_env, "CREATE TEMPORARY VIEW tv AS SELECT 1 AS x") == (
        "Temporary table '`default_catalog`.`default_database`.`tv`' already exists"
    )
    t_env.execute_sql("CREATE TEMPORARY VIEW IF NOT EXISTS tv AS SELECT 1 AS x")
    t_env.execute_sql("CREATE VIEW tv AS SELECT 2 AS y")
    assert [r[0] for r in t_env.execute_sql("SELECT * FROM tv").collect()] == [1]
    assert _error(t_env, "DROP VIEW tv") == (
        "Temporary view with identifier '`default_catalog`.`default_database`.`tv`' exists. Drop it "
        "first before "
        "removing the permanent view."
    )
    t_env.execute_sql("DROP TEMPORARY VIEW tv")
    assert [r[0] for r in t_env.execute_sql("SELECT * FROM tv").collect()] == [2]
    assert _error(t_env, "CREATE VIEW p AS SELECT 1") == (
        "Could not execute CreateTable in path `default_catalog`.`default_database`.`p`: Table (or view) "
        "default_database.p already exists in Catalog default_catalog."
    )
    assert (
        _error(t_env, "DROP TABLE tv")
        == "Table with identifier 'default_catalog.default_database.tv' does not exist."
    )
    assert (
        _error(t_env, "DROP VIEW p")
        == "View with identifier 'default_catalog.default_database.p' does not exist."
    )
    t_env.execute_sql("DROP TABLE IF EXISTS nope")
    t_env.execute_sql("DROP VIEW tv")
    assert _shown(t_env, "SHOW TABLES", capsys) == (
        "+------------+\n| table name |\n+------------+\n|          p |\n+------------+\n1 row in set\n"
    )


def test_the_table_apis_catalog_methods_see_what_sql_made() -> None:
    t_env = _t_env()
    t_env.execute_sql("CREATE CATALOG c1 WITH ('type'='generic_in_memory')")
    # PyFlink 2.3.0 returns what each assertion says
    assert t_env.list_catalogs() == ["c1", "default_catalog"]
    t_env.use_catalog("c1")
    assert (t_env.get_current_catalog(), t_env.get_current_database()) == ("c1", "default")
    assert t_env.list_databases() == ["default"]
    t_env.use_catalog("default_catalog")
    t_env.execute_sql(
        "CREATE TEMPORARY SYSTEM FUNCTION f AS 'tests.unit.table.ddl_udfs.plus_one' LANGUAGE PYTHON"
    )
    t_env.execute_sql("CREATE FUNCTION g AS 'tests.unit.table.ddl_udfs.plus_one' LANGUAGE PYTHON")
    assert t_env.list_user_defined_functions() == ["f", "g"]
    assert len(t_env.list_functions()) == 253 and t_env.list_modules() == ["core"]
    t_env.execute_sql("CREATE TABLE p (a INT) WITH ('connector'='blackhole')")
    t_env.execute_sql("CREATE VIEW v AS SELECT 1 AS x")
    assert [t_env.drop_table("p"), t_env.drop_table("p"), t_env.drop_view("v"), t_env.drop_view("v")] == [
        True,
        False,
        True,
        False,
    ]
    with pytest.raises(
        ValueError, match=r"^Table with identifier 'default_catalog\.default_database\.nope' does"
    ):
        t_env.drop_table("nope", False)
    assert t_env.get_catalog("nope") is None and t_env.get_catalog("c1") is not None
    t_env.execute_sql("DROP TEMPORARY SYSTEM FUNCTION f")
    t_env.execute_sql("DROP FUNCTION g")
