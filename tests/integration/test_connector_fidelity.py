"""Tables of the datagen, filesystem (CSV, JSON) connectors read and written as PyFlink 2.3.0
reads and writes them, checked on whole jobs; each expectation is what PyFlink printed or
wrote for the same program."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

# PyFlink 2.3.0, parallelism.default 2, twice (the same both times):
#   2> +I[1, 1, 1, 11]  2> -U[1, 1, 1, 11]  2> +U[1, 2, 4, 11,13]  2> -U[1, 2, 4, 11,13]
#   2> +U[1, 3, 9, 11,13,15]  2> -U[1, 3, 9, 11,13,15]  2> +U[1, 4, 16, 11,13,15,17]
#   2> +I[0, 1, 2, 12]  2> -U[0, 1, 2, 12]  2> +U[0, 2, 6, 12,14]  2> -U[0, 2, 6, 12,14]
#   2> +U[0, 3, 12, 12,14,16]  2> -U[0, 3, 12, 12,14,16]  2> +U[0, 4, 20, 12,14,16,18]
# Subtask 0 generates ids 1, 3, 5, 7 and subtask 1 ids 2, 4, 6, 8 (SequenceGenerator), so each
# key's changes come from one subtask in order; how the two keys' lines interleave is not fixed.
PYFLINK_BY_KEY = {
    "1": [
        "+I[1, 1, 1, 11]",
        "-U[1, 1, 1, 11]",
        "+U[1, 2, 4, 11,13]",
        "-U[1, 2, 4, 11,13]",
        "+U[1, 3, 9, 11,13,15]",
        "-U[1, 3, 9, 11,13,15]",
        "+U[1, 4, 16, 11,13,15,17]",
    ],
    "0": [
        "+I[0, 1, 2, 12]",
        "-U[0, 1, 2, 12]",
        "+U[0, 2, 6, 12,14]",
        "-U[0, 2, 6, 12,14]",
        "+U[0, 3, 12, 12,14,16]",
        "-U[0, 3, 12, 12,14,16]",
        "+U[0, 4, 20, 12,14,16,18]",
    ],
}


def test_a_datagen_sequence_at_parallelism_two_gives_pyflinks_changelog(
    capfd: pytest.CaptureFixture[str],
) -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "2")
    t_env.execute_sql(
        "CREATE TABLE src (id INT, s STRING) WITH ('connector'='datagen', 'fields.id.kind'='sequence', "
        "'fields.id.start'='1', 'fields.id.end'='8', 'fields.s.kind'='sequence', 'fields.s.start'='11', "
        "'fields.s.end'='18')"
    )
    t_env.execute_sql(
        "CREATE TABLE out_t (k INT, c BIGINT, total INT, ids STRING) WITH ('connector'='print')"
    )
    t_env.execute_sql(
        "INSERT INTO out_t SELECT id % 2, COUNT(*), SUM(id), LISTAGG(s) FROM src GROUP BY id % 2"
    ).wait()
    lines = [re.sub(r"^\d+> ", "", line) for line in capfd.readouterr().out.splitlines() if line.strip()]
    by_key: dict[str, list[str]] = {}
    for line in lines:
        by_key.setdefault(line[3], []).append(line)
    assert by_key == PYFLINK_BY_KEY


# (name STRING, n INT) with 'json.ignore-parse-errors' = 'true': PyFlink 2.3.0 printed
PYFLINK_JSON = """\
+--------------------------------+-------------+
|                           name |           n |
+--------------------------------+-------------+
|                          alice |           1 |
|                            bob |           2 |
|                          carol |      <NULL> |
|                           dave |           4 |
|                           erin |      <NULL> |
+--------------------------------+-------------+
5 rows in set
"""


def test_json_ignore_parse_errors_keeps_the_row_with_the_bad_field_null(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "in.json"
    path.write_text(
        '{"name":"alice","n":1}\n{"name":"bob","n":"2"}\n{"name":"carol","n":"x3"}\nthis is not json\n'
        '{"name":"dave","n":4.5}\n{"name":"erin","n":true}\n'
    )
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(
        f"CREATE TABLE src (name STRING, n INT) WITH ('connector'='filesystem', 'path'='{path}', "
        "'format'='json', 'json.ignore-parse-errors'='true')"
    )
    capfd.readouterr()
    t_env.execute_sql("SELECT * FROM src").print()
    assert capfd.readouterr().out == PYFLINK_JSON


# PyFlink 2.3.0 printed, for this file as a one-column table with 'csv.ignore-parse-errors':
#   one two | three four | seven | nine,ten | q"uote
PYFLINK_ONE_COLUMN = [("one two",), ("three four",), ("seven",), ("nine,ten",), ('q"uote',)]


def test_a_csv_table_round_trips_as_pyflink_reads_and_writes_it(tmp_path: Path) -> None:
    """Reading keeps 'three four,' (one empty trailing field); the sink quotes as Flink's (the
    lines PyFlink 2.3.0 wrote for these values, among others: see the expected bytes)."""
    from millstream.table import DataTypes

    source = tmp_path / "words.csv"
    source.write_text('one two\nthree four,\nfive,six\nseven, \neight,,\n"nine,ten"\n"q""uote",\n')
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(
        f"CREATE TABLE words (w STRING) WITH ('connector'='filesystem', 'path'='{source}', "
        "'format'='csv', 'csv.ignore-parse-errors'='true')"
    )
    with t_env.execute_sql("SELECT * FROM words").collect() as rows:
        assert [tuple(r) for r in rows] == PYFLINK_ONE_COLUMN
    out = tmp_path / "out"
    t_env.execute_sql(
        f"CREATE TABLE out_t (s STRING, n INT) WITH ('connector'='filesystem', 'path'='{out}', "
        "'format'='csv')"
    )
    values = ["plain", "'tis", "two words", "x-y", 'say "hi"']
    schema = DataTypes.ROW([DataTypes.FIELD("s", DataTypes.STRING()), DataTypes.FIELD("n", DataTypes.INT())])
    t_env.from_elements([(v, i) for i, v in enumerate(values)], schema).execute_insert("out_t").wait()
    written = b"".join(p.read_bytes() for p in sorted(out.rglob("part-*")))
    assert written == b'plain,0\n"\'tis",1\n"two words",2\nx-y,3\n"say ""hi""",4\n'


def test_a_malformed_file_line_is_reported_once_with_its_file_and_line(tmp_path: Path) -> None:
    """PyFlink 2.3.0 failed this table ('Too many entries: expected at most 2 (value #2 (0
    chars) "")', caused in its split fetcher); millstream's one line names the file and the
    line once, with no record position (it said "on record '' at input position 0")."""
    from millstream.common.error_report import render
    from millstream.common.job_execution_result import JobExecutionException

    path = tmp_path / "two.csv"
    path.write_text("a,1\nb,2,\nc,3, \nd,4,,\n")
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(
        f"CREATE TABLE two (s STRING, n INT) WITH ('connector'='filesystem', 'path'='{path}', 'format'='csv')"
    )
    with pytest.raises(JobExecutionException) as failure:
        t_env.execute_sql("SELECT * FROM two").wait()
    text = render(failure.value, verbose=False)
    assert len(text.splitlines()) == 1 and "on record" not in text
    assert text.count(f"{path}, line 4") == 1
    assert text.endswith(f'{path}, line 4: Too many entries: expected at most 2 (value #2 (0 chars) "")')


def test_a_json_file_names_the_sink_tables_columns(tmp_path: Path) -> None:
    """INSERT writes by position; the JSON objects carry the sink table's names (PyFlink
    2.3.0 wrote {"id":1,"name":"a"} here), not the query's."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    out = tmp_path / "out"
    t_env.execute_sql(
        f"CREATE TABLE snk (id INT, name STRING) WITH ('connector'='filesystem', 'path'='{out}', "
        "'format'='json')"
    )
    from millstream.table import DataTypes

    schema = DataTypes.ROW([DataTypes.FIELD("x", DataTypes.INT()), DataTypes.FIELD("y", DataTypes.STRING())])
    t_env.from_elements([(1, "a")], schema).execute_insert("snk").wait()
    assert b"".join(p.read_bytes() for p in sorted(out.rglob("part-*"))) == b'{"id":1,"name":"a"}\n'
