"""``DESCRIBE`` / ``DESC``, ``SHOW COLUMNS ... [NOT] LIKE`` and ``SHOW CREATE TABLE | VIEW`` print
what PyFlink 2.3.0 prints: Flink's columns (name, type with ``*ROWTIME*`` / ``*PROCTIME*``,
null, ``PRI(...)`` key, extras of computed and metadata columns, watermark, and comment when a
column has one), and the DDL with Flink's serialized types and sorted options.
``pyflink_describe_outputs.txt`` holds PyFlink's printed output for each statement.

Before, DESCRIBE, SHOW COLUMNS and SHOW CREATE were "unsupported statement"s.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

KAFKA = "'connector'='kafka','topic'='x','properties.bootstrap.servers'='localhost:9092','format'='csv'"
TABLES = (
    "CREATE TABLE src (id INT NOT NULL COMMENT 'the id', name STRING, ts TIMESTAMP(3), "
    "m TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL, c AS id + 1 COMMENT 'computed', "
    "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND, CONSTRAINT pk PRIMARY KEY (id) NOT ENFORCED) "
    f"COMMENT 'a table' PARTITIONED BY (name) WITH ({KAFKA})",
    "CREATE TABLE g (id INT NOT NULL, x INT NOT NULL, pt AS PROCTIME(), `topic` STRING METADATA "
    "VIRTUAL, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts, PRIMARY KEY (id, x) NOT ENFORCED) "
    f"WITH ({KAFKA})",
    "CREATE TABLE o (a INT, b DECIMAL(10, 2), c ARRAY<STRING>, d ROW<x INT, y BYTES>, "
    "e TIMESTAMP(6), f MAP<STRING, INT NOT NULL>) WITH ('connector'='datagen', "
    "'number-of-rows'='3', 'fields.a.min'='1', 'fields.a.max'='2', 'rows-per-second'='9')",
    "CREATE TEMPORARY VIEW tv AS SELECT a FROM o",
)


def _pyflink_outputs() -> dict[str, str]:
    text = (Path(__file__).parent / "pyflink_describe_outputs.txt").read_text()
    blocks = text.split("\n>>> ")[1:]
    return {b.split("\n", 1)[0]: b.split("\n", 1)[1].rstrip("\n") + "\n" for b in blocks}


PYFLINK = _pyflink_outputs()


@pytest.fixture(scope="module")
def t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    for statement in TABLES:
        t_env.execute_sql(statement)
    return t_env


@pytest.mark.parametrize("statement", sorted(PYFLINK))
def test_describe_and_show_create_print_what_pyflink_prints(
    t_env: TableEnvironment, statement: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    t_env.execute_sql(statement).print()
    assert capsys.readouterr().out == PYFLINK[statement]


def test_show_create_view_prints_the_views_columns_and_its_query_as_written(
    t_env: TableEnvironment, capsys: pytest.CaptureFixture[str]
) -> None:
    t_env.execute_sql("CREATE VIEW v (a2) COMMENT 'my view' AS SELECT a FROM o")
    capsys.readouterr()
    t_env.execute_sql("SHOW CREATE VIEW v").print()
    lines = capsys.readouterr().out.splitlines()
    # PyFlink 2.3.0 prints the same head; its query as Calcite expanded it (names qualified):
    # AS SELECT `o`.`a`
    # FROM `default_catalog`.`default_database`.`o` AS `o`
    assert lines[3:8] == [
        "| CREATE VIEW `default_catalog`.`default_database`.`v` (",
        "  `a2`",
        ")",
        "COMMENT 'my view'",
        "AS SELECT a FROM o",
    ]
    t_env.execute_sql("SHOW CREATE VIEW tv").print()
    assert capsys.readouterr().out.splitlines()[3] == (
        "| CREATE TEMPORARY VIEW `default_catalog`.`default_database`.`tv` ("
    )


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        # PyFlink 2.3.0's messages
        (
            "DESCRIBE nope",
            "Tables or views with the identifier 'default_catalog.default_database.nope' doesn't exist.",
        ),
        (
            "SHOW COLUMNS FROM nope",
            "Tables or views with the identifier 'default_catalog.default_database.nope' doesn't exist.",
        ),
        (
            "SHOW CREATE TABLE nope",
            "Could not execute SHOW CREATE TABLE. Table with identifier "
            "`default_catalog`.`default_database`.`nope` does not exist.",
        ),
        (
            "SHOW CREATE VIEW o",
            "SHOW CREATE VIEW is only supported for views, but `default_catalog`.`default_database`.`o` "
            "is a table. Please use SHOW CREATE TABLE instead.",
        ),
        (
            "SHOW CREATE TABLE tv",
            "SHOW CREATE TABLE is only supported for tables, but "
            "`default_catalog`.`default_database`.`tv` is a view. Please use SHOW CREATE VIEW instead.",
        ),
    ],
)
def test_describe_errors_are_flinks(t_env: TableEnvironment, statement: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        t_env.execute_sql(statement)
    assert str(caught.value) == message
