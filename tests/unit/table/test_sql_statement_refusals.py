"""Every statement of Flink 2.3's SQL reference that ``execute_sql`` does not run is refused in
one line naming it: those Flink's own ``TableEnvironment.executeSql`` refuses too (PyFlink
2.3.0: ``Unsupported SQL query! executeSql() only accepts a single SQL statement of type ...``
for SET, RESET, BEGIN STATEMENT SET, END, STOP JOB, REMOVE JAR; ``ShowJobsOperation doesn't
support ExecutableOperation yet``), those whose work no connector, catalog or JVM here can do,
and the EXPLAIN details the planner does not print. Where Flink refuses with its own message
(``TRUNCATE TABLE statement is not supported in streaming mode.``), it is Flink's.

Before, most of these ended in "unsupported statement: ..." after a warning of sqlglot's on
stderr, or a parse error pointing into the middle of the statement.
"""

from __future__ import annotations

import logging

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment


@pytest.fixture
def t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql("CREATE TABLE src (id INT, name STRING) WITH ('connector'='datagen')")
    t_env.execute_sql("CREATE TABLE snk (id INT, name STRING) WITH ('connector'='blackhole')")
    return t_env


@pytest.mark.parametrize(
    ("statement", "refusal"),
    [
        ("SET 'table.local-time-zone' = 'UTC'", "millstream: SET is not supported by execute_sql"),
        ("SET", "millstream: SET is not supported by execute_sql"),
        ("RESET 'table.local-time-zone'", "millstream: RESET is not supported by execute_sql"),
        ("RESET", "millstream: RESET is not supported by execute_sql"),
        ("BEGIN STATEMENT SET", "millstream: BEGIN STATEMENT SET is not supported by execute_sql"),
        ("END", "millstream: END is not supported by execute_sql"),
        ("SHOW JOBS", "millstream: SHOW JOBS is not supported by execute_sql"),
        ("STOP JOB 'abc' WITH SAVEPOINT", "millstream: STOP JOB is not supported by execute_sql"),
        ("DESCRIBE JOB 'abc'", "millstream: DESCRIBE JOB is not supported by execute_sql"),
        ("ADD JAR '/tmp/x.jar'", "millstream: ADD JAR is not supported (no JVM runs here)"),
        ("REMOVE JAR '/tmp/x.jar'", "millstream: REMOVE JAR is not supported (no JVM runs here)"),
        ("CALL c1.system.f(1)", "millstream: CALL is not supported"),
        (
            "COMPILE PLAN '/tmp/p.json' FOR INSERT INTO snk SELECT * FROM src",
            "millstream: COMPILE PLAN is not",
        ),
        ("EXECUTE PLAN '/tmp/p.json'", "millstream: EXECUTE PLAN is not supported"),
        ("DELETE FROM snk WHERE id = 1", "millstream: DELETE is not supported"),
        ("UPDATE snk SET name = 'x' WHERE id = 1", "millstream: UPDATE is not supported"),
        ("INSERT OVERWRITE snk SELECT * FROM src", "millstream: INSERT OVERWRITE is not supported"),
        ("ANALYZE TABLE src COMPUTE STATISTICS", "ANALYZE TABLE is not supported for streaming mode now"),
        ("TRUNCATE TABLE snk", "TRUNCATE TABLE statement is not supported in streaming mode."),
        ("LOAD MODULE hive WITH ('hive-version'='3.1.2')", "millstream: LOAD MODULE hive is not supported"),
        ("UNLOAD MODULE core", "millstream: UNLOAD MODULE core is not supported"),
        (
            "CREATE MODEL m INPUT (a INT) OUTPUT (b INT) WITH ('provider'='x')",
            "millstream: CREATE MODEL is not",
        ),
        ("CREATE MATERIALIZED TABLE mt AS SELECT 1", "millstream: CREATE MATERIALIZED TABLE is not"),
        ("DESCRIBE DATABASE default_database", "millstream: DESCRIBE DATABASE is not supported"),
        ("SHOW PROCEDURES", "millstream: SHOW PROCEDURES is not supported"),
        ("SHOW CREATE MODEL m", "millstream: SHOW CREATE MODEL is not supported"),
        (
            "ALTER TABLE snk ADD DISTRIBUTION BY HASH(id) INTO 4 BUCKETS",
            "millstream: ALTER TABLE ... ADD DISTRIBUTION",
        ),
        (
            "CREATE FUNCTION f AS 'com.x.F'",
            "millstream: CREATE FUNCTION f ... LANGUAGE JAVA is not supported",
        ),
        (
            "CREATE FUNCTION f AS 'com.x.F' LANGUAGE SCALA",
            "millstream: CREATE FUNCTION f ... LANGUAGE SCALA is not",
        ),
        (
            "CREATE FUNCTION f AS 'a.b' LANGUAGE PYTHON USING JAR '/x.jar'",
            "millstream: CREATE FUNCTION f ... USING JAR",
        ),
        ("CREATE FUNCTION f AS 'a.b' LANGUAGE SQL", "Unrecognized function language string SQL"),
        ("EXPLAIN ESTIMATED_COST SELECT * FROM src", "millstream: EXPLAIN ESTIMATED_COST is not supported"),
        ("EXPLAIN PLAN_ADVICE SELECT * FROM src", "millstream: EXPLAIN PLAN_ADVICE is not supported"),
        ("EXPLAIN JSON_EXECUTION_PLAN SELECT * FROM src", "millstream: EXPLAIN JSON_EXECUTION_PLAN is not"),
        (
            "EXPLAIN STATEMENT SET BEGIN INSERT INTO snk SELECT * FROM src; END",
            "millstream: EXPLAIN STATEMENT SET is not supported",
        ),
        (
            "CREATE TABLE c (x INT) WITH ('connector'='blackhole') AS SELECT id FROM src",
            "millstream: CREATE TABLE AS SELECT with a column list is not supported",
        ),
    ],
)
def test_a_statement_millstream_does_not_run_is_refused_in_one_line_naming_it(
    t_env: TableEnvironment, statement: str, refusal: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING), pytest.raises(ValueError) as caught:
        t_env.execute_sql(statement)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(refusal), message
    assert not caplog.records, "no warning of the parser's on the way"


def test_explain_changelog_mode_prints_each_nodes_changelog_mode(t_env: TableEnvironment) -> None:
    plan = t_env.execute_sql("EXPLAIN CHANGELOG_MODE SELECT id FROM src").collect()
    # PyFlink 2.3.0: TableSourceScan(table=[[default_catalog, default_database, src]], fields=[id, name],
    # changelogMode=[I]) (it pushes the projection into the scan)
    assert "changelogMode=[I]" in next(iter(plan))[0]


def test_a_parse_error_names_the_token_at_its_own_position(t_env: TableEnvironment) -> None:
    with pytest.raises(ValueError) as caught:
        t_env.execute_sql("ALTER TABLE snk COMPACT")
    # PyFlink 2.3.0: SQL parse failed. Encountered "COMPACT" at line 1, column 17.
    assert str(caught.value) == 'SQL parse failed. Encountered "COMPACT" at line 1, column 17.'
    with pytest.raises(ValueError) as caught:
        t_env.execute_sql("SHOW TABLES\nFROM default_database\n  BOGUS")
    assert str(caught.value) == 'SQL parse failed. Encountered "BOGUS" at line 3, column 3.'


def test_a_python_function_whose_name_imports_nothing_fails_the_query_calling_it(
    t_env: TableEnvironment,
) -> None:
    # PyFlink 2.3.0 creates it (OK), then fails the query: "SQL validation failed. Cannot
    # instantiate user-defined function 'default_catalog.default_database.nm'."
    t_env.execute_sql("CREATE FUNCTION nm AS 'nomodule.x' LANGUAGE PYTHON")
    with pytest.raises(ValueError) as caught:
        t_env.sql_query("SELECT nm(1)")
    assert (
        str(caught.value) == "Cannot instantiate user-defined function 'default_catalog.default_database.nm'."
    )
    t_env.execute_sql("DROP FUNCTION nm")
