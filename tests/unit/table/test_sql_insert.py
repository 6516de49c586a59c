"""INSERT INTO as Flink plans it: VALUES and a column list (the other columns NULL), the query's
types cast implicitly to the sink's (cut and padded to its lengths, rounded to its scale), and a
query that does not fit refused while planning with Flink's message. Every expectation is what
PyFlink 2.3.0 printed or wrote for the same statements (batch mode, json files).

Before, INSERT ... VALUES and column lists were refused ("INSERT INTO needs a query"), and a
query of other types than the sink's was submitted and failed at run time (``invalid literal
for int()``) or wrote the wrong values.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.sql.parser import SqlError


def _t_env(tmp_path: Path) -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    config = t_env.get_config()
    config.set("parallelism.default", "1")
    config.set("table.local-time-zone", "UTC")
    config.set("minicluster.mode", "threads")  # a unit test starts no processes
    for name, columns in (
        ("s", "a INT, b BIGINT, c STRING, d DOUBLE NOT NULL"),
        ("k", "a INT, b STRING"),
        ("p", "a VARCHAR(3), b CHAR(5), c BINARY(3), d VARBINARY(1), e DECIMAL(5, 1)"),
    ):
        t_env.execute_sql(
            f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'filesystem', "
            f"'path' = '{tmp_path / name}', 'format' = 'json')"
        )
    return t_env


def _written(path: Path) -> list[dict[str, object]]:
    lines = [line for f in sorted(path.iterdir()) for line in f.read_text().splitlines() if line]
    return sorted((json.loads(line) for line in lines), key=json.dumps)


def test_values_column_lists_and_implicit_casts_write_what_flink_writes(tmp_path: Path) -> None:
    t_env = _t_env(tmp_path)
    for statement in (
        "INSERT INTO s VALUES (1, 2, 'x', 1.5), (2, 3, 'yy', 2.5)",
        "INSERT INTO s (a, d) VALUES (3, 1.5)",
        "INSERT INTO s (d, a) SELECT 4.5, 7",
        "INSERT INTO s SELECT 8, CAST(2 AS INT), 'z', CAST(1 AS INT)",  # INT into BIGINT and DOUBLE
        "INSERT INTO k (b, a) VALUES ('x', 1), ('yy', 2)",
        "INSERT INTO k (b) SELECT 'z'",
        "INSERT INTO p SELECT 'abcdef', 'ab', X'01', X'0102', CAST(1.26 AS DECIMAL(10, 2))",
    ):
        t_env.execute_sql(statement).wait()
    # PyFlink 2.3.0 writes these json lines
    assert _written(tmp_path / "s") == sorted(
        [
            {"a": 1, "b": 2, "c": "x", "d": 1.5},
            {"a": 2, "b": 3, "c": "yy", "d": 2.5},
            {"a": 3, "b": None, "c": None, "d": 1.5},
            {"a": 7, "b": None, "c": None, "d": 4.5},
            {"a": 8, "b": 2, "c": "z", "d": 1.0},
        ],
        key=json.dumps,
    )
    assert _written(tmp_path / "k") == sorted(
        [{"a": 1, "b": "x"}, {"a": 2, "b": "yy"}, {"a": None, "b": "z"}], key=json.dumps
    )
    # CHAR(6) cut to VARCHAR(3), CHAR(2) padded to CHAR(5), BINARY(1) padded to BINARY(3),
    # BINARY(2) cut to VARBINARY(1), 1.26 rounded to DECIMAL(5, 1)
    assert _written(tmp_path / "p") == [{"a": "abc", "b": "ab   ", "c": "AQAA", "d": "AQ==", "e": 1.3}]


def _mismatch(table: str, cause: str, query: str, sink: str) -> str:
    return (
        f"Column types of query result and sink for 'default_catalog.default_database.{table}' do not "
        f"match.\nCause: {cause}\n\nQuery schema: {query}\nSink schema:  {sink}"
    )


S_SINK = "[a: INT, b: BIGINT, c: STRING, d: DOUBLE]"


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        # PyFlink 2.3.0 raises ValidationException with each of these messages
        (
            "INSERT INTO s SELECT 1, 2, 'x'",
            _mismatch(
                "s",
                "Different number of columns.",
                "[EXPR$0: INT NOT NULL, EXPR$1: INT NOT NULL, EXPR$2: CHAR(1) NOT NULL]",
                S_SINK,
            ),
        ),
        (
            "INSERT INTO s SELECT 'x', 2, 'x', 1.0",
            _mismatch(
                "s",
                "Incompatible types for sink column 'a' at position 1.",
                "[EXPR$0: CHAR(1) NOT NULL, EXPR$1: INT NOT NULL, EXPR$2: CHAR(1) NOT NULL, "
                "EXPR$3: DECIMAL(2, 1) NOT NULL]",
                S_SINK,
            ),
        ),
        (
            "INSERT INTO s SELECT CAST(1 AS BIGINT), 2, 'x', 1.0",
            _mismatch(
                "s",
                "Incompatible types for sink column 'a' at position 1.",
                "[EXPR$0: BIGINT NOT NULL, EXPR$1: INT NOT NULL, EXPR$2: CHAR(1) NOT NULL, "
                "EXPR$3: DECIMAL(2, 1) NOT NULL]",
                S_SINK,
            ),
        ),
        (
            "INSERT INTO s VALUES (1, 2, 'x', 1.5, 7)",
            _mismatch(
                "s",
                "Different number of columns.",
                "[EXPR$0: INT NOT NULL, EXPR$1: INT NOT NULL, EXPR$2: CHAR(1) NOT NULL, "
                "EXPR$3: DECIMAL(2, 1) NOT NULL, EXPR$4: INT NOT NULL]",
                S_SINK,
            ),
        ),
        (
            "INSERT INTO s (d) SELECT 'x'",
            _mismatch(
                "s",
                "Incompatible types for sink column 'd' at position 4.",
                "[EXPR$0: INT, EXPR$1: BIGINT, EXPR$2: STRING, EXPR$3: CHAR(1) NOT NULL]",
                S_SINK,
            ),
        ),
        (
            "INSERT INTO k (b, a) SELECT 1, 'x'",
            _mismatch(
                "k",
                "Incompatible types for sink column 'a' at position 1.",
                "[EXPR$0: CHAR(1) NOT NULL, EXPR$1: INT NOT NULL]",
                "[a: INT, b: STRING]",
            ),
        ),
        (
            "INSERT INTO k SELECT 1, DATE '2024-01-01'",
            _mismatch(
                "k",
                "Incompatible types for sink column 'b' at position 2.",
                "[EXPR$0: INT NOT NULL, EXPR$1: DATE NOT NULL]",
                "[a: INT, b: STRING]",
            ),
        ),
        (
            "INSERT INTO p SELECT CAST('abcdef' AS STRING), CAST('ab' AS STRING), CAST(X'01' AS BYTES), "
            "CAST(X'0102' AS BYTES), 1.26",
            _mismatch(
                "p",
                "Incompatible types for sink column 'b' at position 2.",
                "[EXPR$0: STRING NOT NULL, EXPR$1: STRING NOT NULL, EXPR$2: BYTES NOT NULL, "
                "EXPR$3: BYTES NOT NULL, EXPR$4: DECIMAL(3, 2) NOT NULL]",
                "[a: VARCHAR(3), b: CHAR(5), c: BINARY(3), d: VARBINARY(1), e: DECIMAL(5, 1)]",
            ),
        ),
    ],
)
def test_a_query_that_does_not_fit_its_sink_is_refused_while_planning(
    tmp_path: Path, statement: str, message: str
) -> None:
    with pytest.raises(ValueError) as raised:
        _t_env(tmp_path).execute_sql(statement)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        # PyFlink 2.3.0: SQL validation failed. ... Unknown target column 'zz'
        ("INSERT INTO k (zz) VALUES ('x')", "Unknown target column 'zz'"),
        # PyFlink 2.3.0: ... Target column 'b' is assigned more than once
        ("INSERT INTO k (b, b) VALUES ('x', 'y')", "Target column 'b' is assigned more than once"),
        # PyFlink 2.3.0: ... Number of columns must match number of query columns
        ("INSERT INTO k (a) VALUES (1, 'x')", "Number of columns must match number of query columns"),
        # PyFlink 2.3.0: ... Column 'd' has no default value and does not allow NULLs
        ("INSERT INTO s (a, c) VALUES (1, 'x')", "Column 'd' has no default value and does not allow NULLs"),
    ],
)
def test_a_column_list_is_checked_as_flink_checks_it(tmp_path: Path, statement: str, message: str) -> None:
    with pytest.raises(SqlError, match=message):
        _t_env(tmp_path).execute_sql(statement)


def test_the_table_apis_insert_is_checked_the_same_way(tmp_path: Path) -> None:
    """Table.execute_insert goes through the same sink check (Flink's DynamicSinkUtils)."""
    # PyFlink 2.3.0 raises: ... Cause: Incompatible types for sink column 'a' at position 1.
    # Query schema: [b: CHAR(1) NOT NULL, a: INT NOT NULL] / Sink schema:  [a: INT, b: STRING]
    t_env = _t_env(tmp_path)
    with pytest.raises(ValueError) as raised:
        t_env.sql_query("SELECT 'x' AS b, 2 AS a").execute_insert("k")
    assert str(raised.value) == _mismatch(
        "k",
        "Incompatible types for sink column 'a' at position 1.",
        "[b: CHAR(1) NOT NULL, a: INT NOT NULL]",
        "[a: INT, b: STRING]",
    )
