"""``EXECUTE STATEMENT SET BEGIN INSERT ...; INSERT ...; END`` runs its INSERTs as one job, and
``CREATE TABLE ... AS SELECT`` creates the table of the query's columns and writes the query
into it, as PyFlink 2.3.0 does: its ``print()`` shows ``-1, -1`` (a column per table written;
two INSERTs into one table: one), and the files hold the rows PyFlink wrote for the same
statements (batch mode, json files).

Before, the statement set failed with "unsupported statement" (after a warning of sqlglot's) and
CTAS with "CREATE TABLE needs its columns".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment


def _t_env(tmp_path: Path) -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    for name, columns in (("a", "id INT, name STRING"), ("b", "id INT")):
        t_env.execute_sql(
            f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'filesystem', "
            f"'path' = '{tmp_path / name}', 'format' = 'json')"
        )
    return t_env


def _written(path: Path) -> list[dict[str, object]]:
    lines = [line for f in sorted(path.iterdir()) for line in f.read_text().splitlines() if line]
    return sorted((json.loads(line) for line in lines), key=json.dumps)


def test_a_statement_set_runs_its_inserts_as_one_job(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t_env = _t_env(tmp_path)
    result = t_env.execute_sql(
        "EXECUTE STATEMENT SET BEGIN\n"
        "  INSERT INTO a VALUES (1, 'x'), (2, 'y');\n"
        "  INSERT INTO b SELECT id * 10 FROM (VALUES (1), (2), (3)) AS t(id);\n"
        "END;"
    )
    result.print()
    result.wait()
    # PyFlink 2.3.0 prints -1, -1 and writes these json lines
    assert capsys.readouterr().out == "-1, -1\n"
    assert result.get_table_schema().get_field_names() == [
        "default_catalog.default_database.a",
        "default_catalog.default_database.b",
    ]
    assert _written(tmp_path / "a") == [{"id": 1, "name": "x"}, {"id": 2, "name": "y"}]
    assert _written(tmp_path / "b") == [{"id": 10}, {"id": 20}, {"id": 30}]


def test_create_table_as_select_makes_the_querys_table_and_fills_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t_env = _t_env(tmp_path)
    result = t_env.execute_sql(
        f"CREATE TABLE c WITH ('connector' = 'filesystem', 'path' = '{tmp_path / 'c'}', 'format' = 'json') "
        "AS SELECT id + 1 AS nid, CAST(name AS VARCHAR(5)) AS n5 FROM (VALUES (1, 'abcdefg')) AS t(id, name)"
    )
    result.wait()
    # PyFlink 2.3.0: SHOW CREATE TABLE c shows `nid` INT NOT NULL, `n5` VARCHAR(5) NOT NULL, and
    # the file holds {"nid":2,"n5":"abcde"}
    t_env.execute_sql("SHOW CREATE TABLE c").print()
    shown = capsys.readouterr().out.splitlines()
    assert shown[3:7] == [
        "| CREATE TABLE `default_catalog`.`default_database`.`c` (",
        "  `nid` INT NOT NULL,",
        "  `n5` VARCHAR(5) NOT NULL",
        ")",
    ]
    assert _written(tmp_path / "c") == [{"n5": "abcde", "nid": 2}]


@pytest.mark.parametrize(
    ("statement", "at"),
    [
        # PyFlink 2.3.0: ... From line 1, column 25 to line 1, column 28: Column 'nmae' not found in any table
        ("CREATE VIEW v AS SELECT nmae FROM src", "column 25 to line 1, column 28"),
        (
            "CREATE TABLE c2 WITH ('connector'='blackhole') AS SELECT nmae FROM src",
            "column 58 to line 1, column 61",
        ),
        (
            "EXECUTE STATEMENT SET BEGIN INSERT INTO c SELECT nmae FROM src; END",
            "column 50 to line 1, column 53",
        ),
    ],
)
def test_an_unknown_column_of_a_nested_query_is_placed_in_the_whole_statement(
    statement: str, at: str
) -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql("CREATE TABLE src (name STRING, id INT) WITH ('connector'='datagen')")
    t_env.execute_sql("CREATE TABLE c (name STRING) WITH ('connector'='blackhole')")
    with pytest.raises(ValueError) as caught:
        t_env.execute_sql(statement)
    assert (
        str(caught.value) == f"SQL validation failed. From line 1, {at}: Column 'nmae' not found in any table"
    )
