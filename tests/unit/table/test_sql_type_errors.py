# ruff: noqa: E501 - the statements and PyFlink's messages read best on one line
"""A statement whose types do not fit, or whose lists end in a ',', fails with the first line
of what PyFlink 2.3.0 raises for it, position included (issue 48, point 6): an operator's or a
function's arguments of types it does not take (``Cannot apply '+' to arguments of type
'<VARCHAR(2147483647)> + <INTEGER>'``, Calcite's type names and first supported form, at the
operation or call as written), ``WHERE age`` / ``HAVING COUNT(*)`` ("... clause must be a
condition"), a CAST between types that do not convert, a bare NULL among an unknown function's
arguments, ``SUBSTRING(s)``, an ORDER BY naming no column in streaming mode, and a list with a
',' before no item. Before, these read "arithmetic needs numbers, got STRING and INT", "a
filter's condition must be BOOLEAN, got INT", had no position, or ran: ``UPPER(1)``,
``ABS(name)``, ``SQRT(name)``, ``SUBSTRING(name)``, ``CONCAT(s, )`` and ``ARRAY[1, ]`` were
taken. An aggregate's FILTER (WHERE ...) now applies to LISTAGG, COLLECT and the other
built-ins sqlglot parses as calls of their own (it was refused).

Every expected message is the first line of what PyFlink 2.3.0 raised (``sql_query`` for a
query, else ``execute_sql``) over ``t (name STRING, age INT, ts TIMESTAMP(3))`` (datagen) and
the view ``v (s STRING, n INT, g STRING)``, streaming mode.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

TYPES = [
    (
        "SELECT name + 1 FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 15: Cannot apply '+' to arguments of type '<VARCHAR(2147483647)> + <INTEGER>'. Supported form(s): '<NUMERIC> + <NUMERIC>'",
    ),
    (
        "SELECT name - 1 FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 15: Cannot apply '-' to arguments of type '<VARCHAR(2147483647)> - <INTEGER>'. Supported form(s): '<NUMERIC> - <NUMERIC>'",
    ),
    (
        "SELECT name * age FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 17: Cannot apply '*' to arguments of type '<VARCHAR(2147483647)> * <INTEGER>'. Supported form(s): '<NUMERIC> * <NUMERIC>'",
    ),
    (
        "SELECT age / name FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 17: Cannot apply '/' to arguments of type '<INTEGER> / <VARCHAR(2147483647)>'. Supported form(s): '<NUMERIC> / <NUMERIC>'",
    ),
    (
        "SELECT CAST(name AS INT) + 'x' FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 30: Cannot apply '+' to arguments of type '<INTEGER> + <CHAR(1)>'. Supported form(s): '<NUMERIC> + <NUMERIC>'",
    ),
    (
        "SELECT name + 1.5 FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 17: Cannot apply '+' to arguments of type '<VARCHAR(2147483647)> + <DECIMAL(2, 1)>'. Supported form(s): '<NUMERIC> + <NUMERIC>'",
    ),
    (
        "SELECT ts + 1 FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 13: Cannot apply '+' to arguments of type '<TIMESTAMP(3)> + <INTEGER>'. Supported form(s): '<NUMERIC> + <NUMERIC>'",
    ),
    (
        "SELECT UPPER(1) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 15: Cannot apply 'UPPER' to arguments of type 'UPPER(<INTEGER>)'. Supported form(s): 'UPPER(<CHARACTER>)'",
    ),
    (
        "SELECT LOWER(age) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 17: Cannot apply 'LOWER' to arguments of type 'LOWER(<INTEGER>)'. Supported form(s): 'LOWER(<CHARACTER>)'",
    ),
    (
        "SELECT ABS(name) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 16: Cannot apply 'ABS' to arguments of type 'ABS(<VARCHAR(2147483647)>)'. Supported form(s): 'ABS(<NUMERIC>)'",
    ),
    (
        "SELECT SQRT(name) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 17: Cannot apply 'SQRT' to arguments of type 'SQRT(<VARCHAR(2147483647)>)'. Supported form(s): 'SQRT(<NUMERIC>)'",
    ),
    (
        "SELECT CHAR_LENGTH(age) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 23: Cannot apply 'CHAR_LENGTH' to arguments of type 'CHAR_LENGTH(<INTEGER>)'. Supported form(s): 'CHAR_LENGTH(<CHARACTER>)'",
    ),
    (
        "SELECT -name FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 12: Cannot apply '-' to arguments of type '-<VARCHAR(2147483647)>'. Supported form(s): '-<NUMERIC>'",
    ),
    (
        "SELECT name FROM t WHERE age",
        "SQL validation failed. From line 1, column 26 to line 1, column 28: WHERE clause must be a condition",
    ),
    (
        "SELECT name FROM t WHERE name",
        "SQL validation failed. From line 1, column 26 to line 1, column 29: WHERE clause must be a condition",
    ),
    (
        "SELECT name, COUNT(*) FROM t GROUP BY name HAVING COUNT(*)",
        "SQL validation failed. From line 1, column 51 to line 1, column 58: HAVING clause must be a condition",
    ),
    (
        "SELECT name FROM t WHERE age + 1",
        "SQL validation failed. From line 1, column 26 to line 1, column 32: WHERE clause must be a condition",
    ),
    ("SELECT SUBSTRING(name) FROM t", 'SQL parse failed. Encountered ")" at line 1, column 22.'),
    (
        "SELECT name FROM t ORDER BY nmae",
        "SQL validation failed. From line 1, column 29 to line 1, column 32: Column 'nmae' not found in any table",
    ),
    (
        "SELECT CAST(age AS BYTES), nmae FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 25: Cast function cannot convert value of type INTEGER to type VARBINARY(2147483647)",
    ),
    (
        "SELECT CAST(ts AS BOOLEAN) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 26: Cast function cannot convert value of type TIMESTAMP(3) to type BOOLEAN",
    ),
    (
        "SELECT UPPR(name, age, ts, TRUE, 1.5, NULL, DATE '2020-01-01') FROM t",
        "SQL validation failed. From line 1, column 39 to line 1, column 42: Illegal use of 'NULL'",
    ),
    (
        "SELECT UPPR(NULL) FROM t",
        "SQL validation failed. From line 1, column 13 to line 1, column 16: Illegal use of 'NULL'",
    ),
    (
        "SELECT 1 AND TRUE",
        "SQL validation failed. From line 1, column 8 to line 1, column 17: Cannot apply 'AND' to arguments of type '<INTEGER> AND <BOOLEAN>'. Supported form(s): '<BOOLEAN> AND <BOOLEAN>'",
    ),
    (
        "SELECT name AND TRUE FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 20: Cannot apply 'AND' to arguments of type '<VARCHAR(2147483647)> AND <BOOLEAN>'. Supported form(s): '<BOOLEAN> AND <BOOLEAN>'",
    ),
    (
        "SELECT name || age FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 18: Cannot apply '||' to arguments of type '<VARCHAR(2147483647)> || <INTEGER>'. Supported form(s): '<STRING> || <STRING>'",
    ),
    (
        "SELECT MOD(name, 2) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 19: Cannot apply 'MOD' to arguments of type 'MOD(<VARCHAR(2147483647)>, <INTEGER>)'. Supported form(s): 'MOD(<EXACT_NUMERIC>, <EXACT_NUMERIC>)'",
    ),
    (
        "SELECT name % 2 FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 15: Cannot apply '%' to arguments of type '<VARCHAR(2147483647)> % <INTEGER>'. Supported form(s): '<EXACT_NUMERIC> % <EXACT_NUMERIC>'",
    ),
    (
        "SELECT POWER(name, 2) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 21: Cannot apply 'POWER' to arguments of type 'POWER(<VARCHAR(2147483647)>, <INTEGER>)'. Supported form(s): 'POWER(<NUMERIC>, <NUMERIC>)'",
    ),
    (
        "SELECT ROUND(name, 1) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 21: Cannot apply 'ROUND' to arguments of type 'ROUND(<VARCHAR(2147483647)>, <INTEGER>)'. Supported form(s): 'ROUND(<NUMERIC>, <INTEGER>)'",
    ),
    (
        "SELECT LOG10(name) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 18: Cannot apply 'LOG10' to arguments of type 'LOG10(<VARCHAR(2147483647)>)'. Supported form(s): 'LOG10(<NUMERIC>)'",
    ),
]

TRAILING_COMMAS = [
    ("SELECT CONCAT(s, ) FROM v", 'SQL parse failed. Encountered ")" at line 1, column 18.'),
    (
        "CREATE TABLE t2 (a INT, ) WITH ('connector'='datagen')",
        'SQL parse failed. Encountered ")" at line 1, column 25.',
    ),
    ("SELECT * FROM v WHERE n IN (1, )", 'SQL parse failed. Encountered ")" at line 1, column 32.'),
    ("SELECT ARRAY[1, ] FROM v", 'SQL parse failed. Encountered ", ]" at line 1, column 15.'),
    ("SELECT JSON_ARRAY(s, ) FROM v", 'SQL parse failed. Encountered ")" at line 1, column 22.'),
    (
        "SELECT COUNT(*) OVER (PARTITION BY s, ORDER BY n) FROM v",
        'SQL parse failed. Encountered ", ORDER" at line 1, column 37.',
    ),
    (
        "SELECT JSON_ARRAYAGG(s ORDER BY n, s, ) FROM v",
        'SQL parse failed. Encountered ", )" at line 1, column 37.',
    ),
    ("SELECT * FROM (VALUES (1, )) AS x(a)", 'SQL parse failed. Encountered ")" at line 1, column 27.'),
    (
        "SELECT JSON_OBJECT(KEY 'a' VALUE 1, ) FROM v",
        'SQL parse failed. Encountered ")" at line 1, column 37.',
    ),
]


@pytest.fixture(scope="module")
def t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.execute_sql(
        "CREATE TABLE t (name STRING, age INT, ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '3')"
    )
    t_env.execute_sql(
        "CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES ('b', 2, 'x'), ('a', 1, 'y'), ('c', 3, 'x')) AS x(s, n, g)"
    )
    return t_env


def _refusal(t_env: TableEnvironment, statement: str) -> str:
    with pytest.raises(ValueError) as info:  # a SqlError (SqlTypeError), or the CastError a program catches
        t_env.sql_query(statement) if statement.startswith("SELECT") else t_env.execute_sql(statement)
    return str(info.value)


@pytest.mark.parametrize(("statement", "flink"), TYPES, ids=[s for s, _ in TYPES])
def test_a_type_error_reads_as_pyflinks(t_env: TableEnvironment, statement: str, flink: str) -> None:
    assert _refusal(t_env, statement) == flink


@pytest.mark.parametrize(("statement", "flink"), TRAILING_COMMAS, ids=[s for s, _ in TRAILING_COMMAS])
def test_a_comma_before_no_item_is_where_flinks_parser_stops(
    t_env: TableEnvironment, statement: str, flink: str
) -> None:
    assert _refusal(t_env, statement) == flink


def test_a_streaming_order_by_of_an_input_column_is_still_the_sort_refusal(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0 plans it and fails when it runs: "Sort on a non-time-attribute field is not supported."
    assert _refusal(t_env, "SELECT name FROM t ORDER BY age").startswith(
        "Sort on a non-time-attribute field is not supported"
    )


def test_filter_applies_to_every_built_in_aggregate(tmp_path: Path) -> None:
    # PyFlink 2.3.0 over the same CSV file: | b,c,c | b,c |, | {c=2, b=1} |, | [b, c, c] |
    (tmp_path / "v.csv").write_text("b,2,x\na,1,y\nc,3,x\nc,4,x\n")
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(
        f"CREATE TABLE v (s STRING, n INT, g STRING) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/v.csv', 'format' = 'csv')"
    )
    query = (
        "SELECT LISTAGG(s) FILTER (WHERE n > 1), LISTAGG(DISTINCT s) FILTER (WHERE n > 1), "
        "COLLECT(s) FILTER (WHERE n > 1), ARRAY_AGG(s) FILTER (WHERE n > 1) FROM v"
    )
    with t_env.execute_sql(query).collect() as rows:
        (row,) = list(rows)
    assert (row[0], row[1], row[2], row[3]) == ("b,c,c", "b,c", {"c": 2, "b": 1}, ["b", "c", "c"])
