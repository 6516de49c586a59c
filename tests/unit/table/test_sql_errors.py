# ruff: noqa: E501 - the statements and PyFlink's messages read best on one line
"""A SQL statement that cannot be planned fails with one line in Flink's words and with the
position Flink's parser or validator gives (issue 48, point 6): before, the message was
sqlglot's, two lines with ANSI underlining and the column where the failing token ends
(``SQL parse failed: Expected table name but got <Token ...>. Line 1, Col: 13.``), or the
planner's (``Cannot resolve field [nmae], input field list:[name, age, ts].``).

Every expected message is the first line of what PyFlink 2.3.0 raised for the same statement
over the same table (``t (name STRING, age INT, ts TIMESTAMP(3))``, datagen), through
``execute_sql`` (the Java exception's message: an ``org.apache.flink.table.api.SqlParserException``,
``SqlParserEOFException`` or ``ValidationException``; the lines after the first list the tokens
Calcite expected). Calcite's "did you mean" names a column or table that differs only in case:
PyFlink 2.3.0 prints ``Column 'nmae' not found in any table`` with no suggestion for ``nmae``.
"""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.expressions import col
from millstream.table.sql.errors import SqlError, SqlTypeError
from millstream.table.sql.parser import _DIALECT
from millstream.table.sql.syntax_errors import early_failure

SYNTAX = [
    ("SELEC 1", "SQL parse failed. Non-query expression encountered in illegal context"),
    ("SELECT * FROM", 'Encountered "<EOF>" at line 1, column 13.'),
    ("SELECT a FROM t WHERE", 'Encountered "<EOF>" at line 1, column 21.'),
    ("SELECT 'abc FROM t", 'SQL parse failed. Encountered "\\\'" at line 1, column 8.'),
    (
        "SELECT name FROM t WHERE age = 'x' AND",
        "SQL parse failed. Incorrect syntax near the keyword 'AND' at line 1, column 36.",
    ),
    ("SELECT 1 +", 'SQL parse failed. Encountered "+ <EOF>" at line 1, column 10.'),
    ("SELECT (1, FROM t", "SQL parse failed. Incorrect syntax near the keyword 'FROM' at line 1, column 12."),
    ("SELECT name FROM t ORDER BY", 'Encountered "<EOF>" at line 1, column 27.'),
    ("SELECT SELECT", "SQL parse failed. Incorrect syntax near the keyword 'SELECT' at line 1, column 8."),
    (
        "SELECT name FROM t WHERE age = 'x' OR",
        "SQL parse failed. Incorrect syntax near the keyword 'OR' at line 1, column 36.",
    ),
    ("SELECT name FROM t WHERE age >", 'SQL parse failed. Encountered "> <EOF>" at line 1, column 30.'),
    ("SELECT * FROM t WHERE age IN (1, 2", 'Encountered "<EOF>" at line 1, column 34.'),
    ("SELECT * FROM t LIMIT", 'Encountered "<EOF>" at line 1, column 21.'),
    ("SELECT name FROM t GROUP", 'Encountered "<EOF>" at line 1, column 24.'),
    ("SELEC name FROM t", "SQL parse failed. Non-query expression encountered in illegal context"),
    ("SELCT * FROM t", "SQL parse failed. Non-query expression encountered in illegal context"),
    ("FOO", "SQL parse failed. Non-query expression encountered in illegal context"),
    ("INSRT INTO t VALUES (1)", "SQL parse failed. Non-query expression encountered in illegal context"),
    (
        "SELECT name FROM t WHERE age = 1 AND AND age = 2",
        "SQL parse failed. Incorrect syntax near the keyword 'AND' at line 1, column 34.",
    ),
    ("SELECT name name2 name3 FROM t", 'SQL parse failed. Encountered "name3" at line 1, column 19.'),
    ('SELECT * FROM t WHERE name = "abc"', 'SQL parse failed. Encountered "= \\"" at line 1, column 28.'),
    (
        "SELECT `name FROM t",
        'SQL parse failed. Lexical error at line 1, column 20.  Encountered: <EOF> after : "`name FROM t"',
    ),
    ("SELECT * FROM t WHERE name = 'a''", 'SQL parse failed. Encountered "\\\'" at line 1, column 33.'),
    (
        "SELECT * FROM t\nWHERE age > 1 AND\n  name =",
        'SQL parse failed. Encountered "= <EOF>" at line 3, column 8.',
    ),
    ("SELECT * FROM  ", 'Encountered "<EOF>" at line 1, column 15.'),
    ("SELECT * FROM\n", 'Encountered "<EOF>" at line 1, column 14.'),
    ("SELECT *, FROM t", "SQL parse failed. Incorrect syntax near the keyword 'FROM' at line 1, column 11."),
    ("SELECT name FROM t WHERE age BETWEEN 1", "SQL parse failed. BETWEEN operator has no terminating AND"),
    ("SELECT CASE WHEN age > 1 THEN 1 FROM t", 'SQL parse failed. Encountered "FROM" at line 1, column 33.'),
    (
        "SELECT COUNT( FROM t",
        "SQL parse failed. Incorrect syntax near the keyword 'FROM' at line 1, column 15.",
    ),
    ("SELECT name FROM t WHERE age = 1)", 'SQL parse failed. Encountered ")" at line 1, column 33.'),
    ("SELECT CAST(age AS) FROM t", 'SQL parse failed. Encountered ")" at line 1, column 19.'),
    ("SELECT name FROM t t1 JOIN t t2 ON", 'Encountered "<EOF>" at line 1, column 34.'),
    (
        "SELECT @ FROM t",
        'SQL parse failed. Lexical error at line 1, column 8.  Encountered: "@" (64), after : ""',
    ),
    (
        "SELECT # FROM t",
        'SQL parse failed. Lexical error at line 1, column 8.  Encountered: "#" (35), after : ""',
    ),
    ("SELECT name FROM t WHERE -- comment", 'Encountered "<EOF>" at line 1, column 35.'),
    ("SELECT name FROM t /* c */ WHERE", 'Encountered "<EOF>" at line 1, column 32.'),
    (
        "SELECT * FROM t WHERE name = 'a' AND",
        "SQL parse failed. Incorrect syntax near the keyword 'AND' at line 1, column 34.",
    ),
    (
        "SELECT name, FROM t",
        "SQL parse failed. Incorrect syntax near the keyword 'FROM' at line 1, column 14.",
    ),
    ("SELECT name FROM t WHERE age = 1 GROUP BY", 'Encountered "<EOF>" at line 1, column 41.'),
    (
        "SELECT name AS FROM t",
        "SQL parse failed. Incorrect syntax near the keyword 'FROM' at line 1, column 16.",
    ),
    ("SELECT 1 + * FROM t", 'SQL parse failed. Encountered "+ *" at line 1, column 10.'),
    ("SELECT * FROM t x y", 'SQL parse failed. Encountered "y" at line 1, column 19.'),
    ("SELECT * FROM t WHERE (age = 1", 'Encountered "<EOF>" at line 1, column 30.'),
    ("SELECT * FROM t WHERE age = 1 1", 'SQL parse failed. Encountered "1" at line 1, column 31.'),
    ("SELECT name FROM t UNION SELECT", 'Encountered "<EOF>" at line 1, column 31.'),
    (
        "SELECT name FROM t WHERE name LIKE",
        "SQL parse failed. Incorrect syntax near the keyword 'LIKE' at line 1, column 31.",
    ),
    ("SELECT name FROM t WHERE age IN", 'SQL parse failed. Encountered "IN <EOF>" at line 1, column 30.'),
    ("SELECT name FROM t WHERE age IS", 'SQL parse failed. Encountered "IS <EOF>" at line 1, column 30.'),
    ("SELECT t. FROM t", 'SQL parse failed. Encountered ". FROM" at line 1, column 9.'),
    ("SELECT - FROM t", "SQL parse failed. Incorrect syntax near the keyword 'FROM' at line 1, column 10."),
    ("SELECT NOT FROM t", "SQL parse failed. Incorrect syntax near the keyword 'FROM' at line 1, column 12."),
    ("SELECT name FROM t WHERE NOT", 'Encountered "<EOF>" at line 1, column 28.'),
    (
        "SELECT name FROM t WHERE age = 1 AND",
        "SQL parse failed. Incorrect syntax near the keyword 'AND' at line 1, column 34.",
    ),
    (
        "SELECT name FROM t WHERE age = 1 and",
        'SQL parse failed. Encountered "and <EOF>" at line 1, column 34.',
    ),
    (
        "SELECT name FROM t WHERE age = 1 AND )",
        "SQL parse failed. Incorrect syntax near the keyword 'AND' at line 1, column 34.",
    ),
    ("SELECT name FROM t WHERE age ||", 'SQL parse failed. Encountered "|| <EOF>" at line 1, column 30.'),
    ("FOO BAR", "SQL parse failed. Non-query expression encountered in illegal context"),
    ("foo(1)", "SQL parse failed. Non-query expression encountered in illegal context"),
    ("1", "SQL parse failed. Non-query expression encountered in illegal context"),
    ("'abc'", "SQL parse failed. Non-query expression encountered in illegal context"),
    ("(SELECT 1", 'Encountered "<EOF>" at line 1, column 9.'),
    ("x = 1", "SQL parse failed. Non-query expression encountered in illegal context"),
    (
        "SELECT ~ FROM t",
        'SQL parse failed. Lexical error at line 1, column 8.  Encountered: "~" (126), after : ""',
    ),
    ("SELECT ^ FROM t", 'SQL parse failed. Encountered "^" at line 1, column 8.'),
    (
        "SELECT & FROM t",
        'SQL parse failed. Lexical error at line 1, column 8.  Encountered: "&" (38), after : ""',
    ),
    ("SELECT | FROM t", 'SQL parse failed. Encountered "|" at line 1, column 8.'),
    (
        "SELECT ! FROM t",
        'SQL parse failed. Lexical error at line 1, column 9.  Encountered: " " (32), after : "!"',
    ),
    ("SELECT $ FROM t", 'SQL parse failed. Encountered "$" at line 1, column 8.'),
    ("SELECT { FROM t", 'SQL parse failed. Encountered "{" at line 1, column 8.'),
    ("SELECT ; FROM t", 'SQL parse failed. Encountered ";" at line 1, column 8.'),
    ("SELECT * FROM t AS", 'Encountered "<EOF>" at line 1, column 18.'),
    (
        "SELECT name FROM t WHERE age = 1 OR OR",
        "SQL parse failed. Incorrect syntax near the keyword 'OR' at line 1, column 34.",
    ),
    ("SELECT 1 - ", 'SQL parse failed. Encountered "- <EOF>" at line 1, column 10.'),
    ("SELECT 1 * ", 'SQL parse failed. Encountered "* <EOF>" at line 1, column 10.'),
    ("SELECT 'a' || ", 'SQL parse failed. Encountered "|| <EOF>" at line 1, column 12.'),
    ("SELECT 1 <> ", 'SQL parse failed. Encountered "<> <EOF>" at line 1, column 10.'),
    ("SELECT * FROM t WHERE age > = 1", 'SQL parse failed. Encountered "> =" at line 1, column 27.'),
]

VALIDATION = [
    (
        "SELECT CAST(age AS STRNG) FROM t",
        "SQL validation failed. From line 1, column 20 to line 1, column 24: Unknown identifier 'STRNG'",
    ),
    (
        "CREATE TABLE x (a STRNG) WITH ('connector'='datagen')",
        "From line 1, column 19 to line 1, column 23: Unknown identifier 'STRNG'",
    ),
    (
        "SELECT nmae FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 11: Column 'nmae' not found in any table",
    ),
    (
        "SELECT zzz FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 10: Column 'zzz' not found in any table",
    ),
    (
        "SELECT name FROM tt",
        "SQL validation failed. From line 1, column 18 to line 1, column 19: Object 'tt' not found",
    ),
    (
        "SELECT name FROM qqqqq",
        "SQL validation failed. From line 1, column 18 to line 1, column 22: Object 'qqqqq' not found",
    ),
    (
        "SELECT t.nmae FROM t",
        "SQL validation failed. From line 1, column 10 to line 1, column 13: Column 'nmae' not found in table 't'",
    ),
    (
        "SELECT UPPR(name) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 17: No match found for function signature UPPR(<CHARACTER>)",
    ),
    (
        "SELECT FOOBAR(name) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 19: No match found for function signature FOOBAR(<CHARACTER>)",
    ),
    (
        "SELECT name,\n  nmae\nFROM t",
        "SQL validation failed. From line 2, column 3 to line 2, column 6: Column 'nmae' not found in any table",
    ),
    (
        "SELECT name FROM t GROUP BY age",
        "SQL validation failed. From line 1, column 8 to line 1, column 11: Expression 'name' is not being grouped",
    ),
    (
        "SELECT name FROM t WHERE nme = 1",
        "SQL validation failed. From line 1, column 26 to line 1, column 28: Column 'nme' not found in any table",
    ),
    (
        "SELECT Name FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 11: Column 'Name' not found in any table; did you mean 'name'?",
    ),
    (
        "INSERT INTO nosuch SELECT name FROM t",
        "Cannot find table '`default_catalog`.`default_database`.`nosuch`' in any of the catalogs [default_catalog], nor as a temporary table.",
    ),
    ("SELECT a.name FROM t AS b", "SQL validation failed. At line 1, column 8: Table 'a' not found"),
    ("SELECT x FROM t", "SQL validation failed. At line 1, column 8: Column 'x' not found in any table"),
    ("SELECT name FROM q", "SQL validation failed. At line 1, column 18: Object 'q' not found"),
    (
        "SELECT name FROM T",
        "SQL validation failed. At line 1, column 18: Object 'T' not found within 'default_catalog.default_database'; did you mean 't'?",
    ),
    (
        "SELECT t.Name FROM t",
        "SQL validation failed. From line 1, column 10 to line 1, column 13: Column 'Name' not found in table 't'; did you mean 'name'?",
    ),
    (
        "SELECT T.name FROM t",
        "SQL validation failed. At line 1, column 8: Table 'T' not found; did you mean 't'?",
    ),
    (
        "SELECT name FROM t WHERE nmae = 'a' AND agee > 1",
        "SQL validation failed. From line 1, column 26 to line 1, column 29: Column 'nmae' not found in any table",
    ),
    (
        "SELECT nmae FROM t WHERE agee > 1",
        "SQL validation failed. From line 1, column 26 to line 1, column 29: Column 'agee' not found in any table",
    ),
    (
        "SELECT x FROM (SELECT name AS x FROM t) WHERE name = 'a'",
        "SQL validation failed. From line 1, column 47 to line 1, column 50: Column 'name' not found in any table",
    ),
    (
        "SELECT name, COUNT(*) FROM t GROUP BY nmae",
        "SQL validation failed. From line 1, column 39 to line 1, column 42: Column 'nmae' not found in any table",
    ),
    (
        "SELECT name FROM t GROUP BY name HAVING COUNT(agee) > 1",
        "SQL validation failed. From line 1, column 47 to line 1, column 50: Column 'agee' not found in any table",
    ),
    (
        "SELECT UPPR(age) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 16: No match found for function signature UPPR(<NUMERIC>)",
    ),
    (
        "SELECT UPPR(ts) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 15: No match found for function signature UPPR(<TIMESTAMP>)",
    ),
    (
        "SELECT UPPR() FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 13: No match found for function signature UPPR()",
    ),
    (
        "SELECT UPPR(ARRAY[1], MAP['a', 1], ROW(1, 'a'), CAST(1 AS BIGINT), CAST(1.5 AS DOUBLE), CAST(1 AS DECIMAL(5,2)), CAST(ts AS TIMESTAMP_LTZ(3))) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 142: No match found for function signature UPPR(<INTEGER ARRAY>, <(CHAR(1), INTEGER) MAP>, <RecordType:peek_no_expand(INTEGER EXPR$0, CHAR(1) EXPR$1)>, <NUMERIC>, <NUMERIC>, <NUMERIC>, <TIMESTAMP>)",
    ),
    (
        "SELECT upper(name, name) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 24: Invalid number of arguments to function 'UPPER'. Was expecting 1 arguments",
    ),
    (
        "SELECT name FROM default_database.tt",
        "SQL validation failed. From line 1, column 18 to line 1, column 36: Object 'tt' not found within 'default_catalog.default_database'",
    ),
    (
        "SELECT name FROM nocat.nodb.tt",
        "SQL validation failed. From line 1, column 18 to line 1, column 30: Object 'nocat' not found",
    ),
    (
        "SELECT * FROM t JOIN tt ON t.name = tt.name",
        "SQL validation failed. From line 1, column 22 to line 1, column 23: Object 'tt' not found",
    ),
    (
        "SELECT CAST(age AS INTEGERR) FROM t",
        "SQL validation failed. From line 1, column 20 to line 1, column 27: Unknown identifier 'INTEGERR'",
    ),
    (
        "SELECT `nmae` FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 13: Column 'nmae' not found in any table",
    ),
    (
        "SELECT `Name` FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 13: Column 'Name' not found in any table; did you mean 'name'?",
    ),
    (
        "SELECT name FROM `tt`",
        "SQL validation failed. From line 1, column 18 to line 1, column 21: Object 'tt' not found",
    ),
    (
        "SELECT SUM(name) FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 16: Cannot apply 'SUM' to arguments of type 'SUM(<VARCHAR(2147483647)>)'. Supported form(s): 'SUM(<NUMERIC>)'",
    ),
    (
        "SELECT name FROM t\n  WHERE agee > 1",
        "SQL validation failed. From line 2, column 9 to line 2, column 12: Column 'agee' not found in any table",
    ),
    (
        "  SELECT nmae FROM t",
        "SQL validation failed. From line 1, column 10 to line 1, column 13: Column 'nmae' not found in any table",
    ),
    (
        "SELECT max(age), nmae FROM t GROUP BY name",
        "SQL validation failed. From line 1, column 18 to line 1, column 21: Column 'nmae' not found in any table",
    ),
    (
        "SELECT * FROM (SELECT nmae FROM t)",
        "SQL validation failed. From line 1, column 23 to line 1, column 26: Column 'nmae' not found in any table",
    ),
    (
        "SELECT * FROM t WHERE name IN (SELECT nmae FROM t)",
        "SQL validation failed. From line 1, column 39 to line 1, column 42: Column 'nmae' not found in any table",
    ),
    (
        "SELECT name FROM t UNION ALL SELECT nmae FROM t",
        "SQL validation failed. From line 1, column 37 to line 1, column 40: Column 'nmae' not found in any table",
    ),
    (
        "SELECT UPPR(nmae) FROM t",
        "SQL validation failed. From line 1, column 13 to line 1, column 16: Column 'nmae' not found in any table",
    ),
    (
        "SELECT t2.name FROM t",
        "SQL validation failed. From line 1, column 8 to line 1, column 9: Table 't2' not found",
    ),
    (
        "SELECT name FROM t, tt",
        "SQL validation failed. From line 1, column 21 to line 1, column 22: Object 'tt' not found",
    ),
    (
        "SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(tss), INTERVAL '1' MINUTE))",
        "SQL validation failed. From line 1, column 48 to line 1, column 50: Unknown identifier 'tss'",
    ),
]


@pytest.fixture(scope="module")
def t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql(
        "CREATE TABLE t (name STRING, age INT, ts TIMESTAMP(3)) "
        "WITH ('connector' = 'datagen', 'number-of-rows' = '3')"
    )
    return t_env


def _refusal(t_env: TableEnvironment, statement: str) -> SqlError:
    """What planning ``statement`` raises (``sql_query`` for a query, else ``execute_sql``)."""
    query = statement.lstrip().upper().startswith(("SELECT", "("))
    with pytest.raises(SqlError) as info:
        t_env.sql_query(statement) if query else t_env.execute_sql(statement)
    return info.value


@pytest.mark.parametrize(("statement", "flink"), SYNTAX)
def test_a_statement_that_does_not_parse_says_what_flinks_parser_says(
    t_env: TableEnvironment, statement: str, flink: str
) -> None:
    assert str(_refusal(t_env, statement)) == flink


@pytest.mark.parametrize(("statement", "flink"), VALIDATION)
def test_a_name_that_names_nothing_is_said_where_it_stands(
    t_env: TableEnvironment, statement: str, flink: str
) -> None:
    assert str(_refusal(t_env, statement)) == flink


def test_the_error_is_one_line_without_terminal_escapes_and_a_value_error(t_env: TableEnvironment) -> None:
    for statement, _ in SYNTAX + VALIDATION:
        error = _refusal(t_env, statement)
        assert isinstance(error, ValueError)
        assert "\n" not in str(error) and "\x1b" not in str(error), statement


def test_explain_and_every_entry_point_give_the_same_position(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: explain_sql("SELECT nmae FROM t") and sql_query of it: SQL validation failed. From
    # line 1, column 8 to line 1, column 11: Column 'nmae' not found in any table;
    # execute_sql("EXPLAIN SELECT nmae FROM t"): ... From line 1, column 16 to line 1, column 19 ...
    # (Flink writes "SQL validation failed. " twice there: millstream once);
    # execute_sql("EXPLAIN PLAN FOR SELECT name FROM t WHERE"): Encountered "<EOF>" at line 1, column 41.
    at_8 = "SQL validation failed. From line 1, column 8 to line 1, column 11: Column 'nmae' not found in any table"
    for plan in (t_env.explain_sql, t_env.sql_query):
        with pytest.raises(SqlError) as info:
            plan("SELECT nmae FROM t")
        assert str(info.value) == at_8
    with pytest.raises(SqlError) as info:
        t_env.execute_sql("EXPLAIN SELECT nmae FROM t")
    assert str(info.value) == at_8.replace("column 8 to line 1, column 11", "column 16 to line 1, column 19")
    with pytest.raises(SqlError) as info:
        t_env.execute_sql("EXPLAIN PLAN FOR SELECT name FROM t WHERE")
    assert str(info.value) == 'Encountered "<EOF>" at line 1, column 41.'
    # PyFlink 2.3.0: SQL validation failed. From line 1, column 22 to line 1, column 25: Column
    # 'nmae' not found in any table (its prefix twice, as for EXPLAIN)
    with pytest.raises(SqlError) as info:
        t_env.execute_sql("INSERT INTO t SELECT nmae, age, ts FROM t")
    assert str(info.value).endswith(
        "From line 1, column 22 to line 1, column 25: Column 'nmae' not found in any table"
    )
    # PyFlink 2.3.0: ... From line 1, column 26 to line 1, column 35: No match found for function
    # signature UPPR(<CHARACTER>)
    with pytest.raises(SqlError) as info:
        t_env.sql_query("SELECT name FROM t WHERE UPPR(name) = 'A'")
    assert str(info.value).endswith(
        "From line 1, column 26 to line 1, column 35: No match found for function signature UPPR(<CHARACTER>)"
    )


def test_a_type_error_stays_a_type_error(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: SQL validation failed. From line 1, column 8 to line 1, column 16: Cannot apply
    # 'SUM' to arguments of type 'SUM(<VARCHAR(2147483647)>)'. Supported form(s): 'SUM(<NUMERIC>)'
    with pytest.raises(TypeError) as info:
        t_env.sql_query("SELECT SUM(name) FROM t")
    assert isinstance(info.value, SqlTypeError)
    assert str(info.value) == (
        "SQL validation failed. From line 1, column 8 to line 1, column 16: Cannot apply 'SUM' to arguments "
        "of type 'SUM(<VARCHAR(2147483647)>)'. Supported form(s): 'SUM(<NUMERIC>)'"
    )


def test_a_byte_type_name_keeps_the_positions_after_it(t_env: TableEnvironment) -> None:
    """BYTES is rewritten before sqlglot parses the statement: the positions are the text's."""
    with pytest.raises(SqlError) as info:
        t_env.sql_query("SELECT CAST(name AS BYTES), nmae FROM t")
    assert str(info.value) == (
        "SQL validation failed. From line 1, column 29 to line 1, column 32: Column 'nmae' not found in any table"
    )


def test_the_table_api_keeps_flinks_table_api_message(t_env: TableEnvironment) -> None:
    # Flink's Table API: Cannot resolve field [nmae], input field list:[name, age, ts].
    with pytest.raises(
        ValueError, match=r"^Cannot resolve field \[nmae\], input field list:\[name, age, ts\]\.$"
    ):
        t_env.from_path("t").select(col("nmae"))


def test_a_statement_set_keeps_its_semicolons() -> None:
    """``;`` inside a query is Flink's ``Encountered ";"``; between the statements of a set it
    is the set's own syntax, left to the statement's translation."""
    statement = "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; INSERT INTO b SELECT 2; END;"
    assert early_failure(statement, _DIALECT().tokenize(statement)) is None
    query = "SELECT ; FROM t"
    assert early_failure(query, _DIALECT().tokenize(query)) == 1
