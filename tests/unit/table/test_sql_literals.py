"""SQL literals lexed and typed as Flink's parser (Calcite) does. Every expectation is what
PyFlink 2.3.0 printed for the same statement (batch mode, table.local-time-zone UTC): the cell
``TableResult.print()`` shows and the column's type in the result's schema.

Before, string literals went through Spark's lexer: ``'it''s'`` was ``its``, backslashes were
escapes (``'\\d+'`` was ``d+``), ``U&'...'``, ``X'...'`` and ``LIKE ... ESCAPE`` were refused,
and ``TIMESTAMP '...'`` was a TIMESTAMP(6) whatever its digits.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value, summary_string
from millstream.table.sql.parser import SqlError


def _t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    config = t_env.get_config()
    config.set("parallelism.default", "1")
    config.set("table.local-time-zone", "UTC")
    config.set("minicluster.mode", "threads")  # a unit test starts no processes
    return t_env


def _select(sql: str, t_env: TableEnvironment | None = None) -> list[tuple[str, str]]:
    """(type, printed cell) of each column of the query's one row."""
    table = (t_env or _t_env()).sql_query(sql)
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        (row,) = list(rows)
    return [(summary_string(t), format_value(t, v)) for t, v in zip(types, row, strict=True)]


def test_a_doubled_quote_is_one_quote_and_a_backslash_an_ordinary_character() -> None:
    # PyFlink 2.3.0 prints: it's | TRUE | 123 | a#b#c (types CHAR(4) NOT NULL, BOOLEAN NOT NULL ...)
    assert _select(
        "SELECT 'it''s', 'O''Brien' = 'OBrien', REGEXP_EXTRACT('foo123bar456', '([a-z]+)(\\d+)', 2), "
        "REGEXP_REPLACE('a1b22c', '\\d+', '#'), '''', 'a\\nb', '\\', CHAR_LENGTH('C:\\temp\\new')"
    ) == [
        ("CHAR(4) NOT NULL", "it's"),
        ("BOOLEAN NOT NULL", "FALSE"),
        ("STRING", "123"),
        ("STRING NOT NULL", "a#b#c"),
        ("CHAR(1) NOT NULL", "'"),
        ("CHAR(4) NOT NULL", "a\\nb"),  # a backslash and an n
        ("CHAR(1) NOT NULL", "\\"),
        ("INT NOT NULL", "11"),
    ]


def test_a_literal_holding_comment_or_statement_marks_stays_whole() -> None:
    # PyFlink 2.3.0 prints: a -- b | x;y | /* c */
    assert [p for _, p in _select("SELECT 'a -- b', 'x;y', '/* c */', 'it''s -- ok'")] == [
        "a -- b",
        "x;y",
        "/* c */",
        "it's -- ok",
    ]


def test_a_doubled_quote_matches_in_a_filter_on_rows_and_on_arrow(tmp_path: Path) -> None:
    """The same filter over VALUES (row code) and over a CSV file (a columnar scan and Calc)."""
    data = tmp_path / "names"
    data.mkdir()
    (data / "part-0.csv").write_text("O'Brien\nOBrien\nO\\Brien\n")
    t_env = _t_env()
    t_env.execute_sql(
        "CREATE TABLE names (s STRING) "
        f"WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'csv')"
    )
    values = "(VALUES ('O''Brien'), ('OBrien'), ('O\\Brien')) AS t(s)"
    for source in ("names", values):
        for condition, expected in (("s = 'O''Brien'", ["O'Brien"]), ("s LIKE 'O\\B%'", ["O\\Brien"])):
            with t_env.sql_query(f"SELECT s FROM {source} WHERE {condition}").execute().collect() as rows:
                # PyFlink 2.3.0 prints one row: O'Brien (then O\Brien for the LIKE)
                assert [r[0] for r in rows] == expected, (source, condition)


def test_unicode_escapes_take_four_hex_digits_and_a_chosen_escape_character() -> None:
    # PyFlink 2.3.0 prints: A | Ab | a\b | été | x!y and CHAR(n) NOT NULL of their UTF-16 lengths;
    # \+01F600 is parsed as Java's Integer.parseInt("+01F", 16): U+001F, then 600
    assert _select(
        "SELECT U&'\\0041', U&'!0041b' UESCAPE '!', U&'a\\\\b', U&'\\00e9t\\00e9', U&'x!!y' UESCAPE '!', "
        "U&'\\+01F600', U&'\\d83d\\de00'"
    ) == [
        ("CHAR(1) NOT NULL", "A"),
        ("CHAR(2) NOT NULL", "Ab"),
        ("CHAR(3) NOT NULL", "a\\b"),
        ("CHAR(3) NOT NULL", "été"),
        ("CHAR(3) NOT NULL", "x!y"),
        ("CHAR(4) NOT NULL", "\x1f600"),
        ("CHAR(2) NOT NULL", "😀"),
    ]


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        # PyFlink 2.3.0: SQL parse failed. Unicode escape sequence starting at character 0 is not
        # exactly four hex digits
        ("SELECT U&'\\00'", "Unicode escape sequence starting at character 0 is not exactly four hex digits"),
        # PyFlink 2.3.0: SQL parse failed. UESCAPE '+' may not be hex digit, whitespace, plus
        # sign, or double quote
        (
            "SELECT U&'a' UESCAPE '+'",
            "UESCAPE '\\+' may not be hex digit, whitespace, plus sign, or double quote",
        ),
        # PyFlink 2.3.0: SQL parse failed. UESCAPE 'ab' must be exactly one character
        ("SELECT U&'a' UESCAPE 'ab'", "UESCAPE 'ab' must be exactly one character"),
        # PyFlink 2.3.0: SQL parse failed. UESCAPE cannot be specified without Unicode literal introducer
        ("SELECT 'a' UESCAPE '!'", "UESCAPE cannot be specified without Unicode literal introducer"),
        # PyFlink 2.3.0: ... String literal continued on same line
        ("SELECT 'multi' 'part'", "String literal continued on same line"),
        ("SELECT 'a' /* comment */ 'b'", "String literal continued on same line"),
        # PyFlink 2.3.0: SQL parse failed. Encountered "\"" at line 1, column 8.
        ('SELECT "abc"', "SQL parse failed"),
        # PyFlink 2.3.0: Binary literal string must contain an even number of hexits
        ("SELECT X'0'", "Binary literal string must contain an even number of hexits"),
        # PyFlink 2.3.0: Binary literal string must contain only characters '0' - '9', 'A' - 'F'
        ("SELECT X'GG'", "Binary literal string must contain only characters"),
        ("SELECT X'01' '02'", "String literal continued on same line"),
    ],
)
def test_malformed_literals_are_refused_while_planning(sql: str, message: str) -> None:
    with pytest.raises(SqlError, match=message):
        _t_env().sql_query(sql)


def test_fragments_on_separate_lines_are_one_literal() -> None:
    # PyFlink 2.3.0 prints: ab | x'0006' | AB | AB | ab (CHAR(2), BINARY(2) ...): a continued
    # binary literal concatenates the fragments' bits without their leading zeros (Calcite's
    # BitString.concat), so X'01' newline '02' is x'0006'
    assert _select(
        "SELECT 'a'\n'b', X'01'\n'02', U&'\\0041'\n'\\0042', U&'!0041'\n'!0042' UESCAPE '!', 'a' -- note\n'b'"
    ) == [
        ("CHAR(2) NOT NULL", "ab"),
        ("BINARY(2) NOT NULL", "x'0006'"),
        ("CHAR(2) NOT NULL", "AB"),
        ("CHAR(2) NOT NULL", "AB"),
        ("CHAR(2) NOT NULL", "ab"),
    ]


def test_character_set_prefixes_and_binary_literals() -> None:
    # PyFlink 2.3.0 prints: abc | abc | abc (CHAR(3) NOT NULL) | x'0102' | x'' | x'abcd'
    assert _select("SELECT _UTF16'abc', N'abc', _ISO-8859-1'abc', X'0102', X'', x'abCD'") == [
        ("CHAR(3) NOT NULL", "abc"),
        ("CHAR(3) NOT NULL", "abc"),
        ("CHAR(3) NOT NULL", "abc"),
        ("BINARY(2) NOT NULL", "x'0102'"),
        ("BINARY(0) NOT NULL", "x''"),
        ("BINARY(2) NOT NULL", "x'abcd'"),
    ]


def test_like_and_similar_to_take_an_escape_character_and_no_default_one() -> None:
    # PyFlink 2.3.0 prints: FALSE TRUE TRUE | TRUE FALSE | TRUE FALSE TRUE | TRUE FALSE TRUE |
    # FALSE TRUE (a backslash escapes nothing without ESCAPE)
    cells = _select(
        "SELECT 'ab' LIKE 'a!_' ESCAPE '!', 'a_' LIKE 'a!_' ESCAPE '!', 'a%b' LIKE '%!%%' ESCAPE '!', "
        "'abc' NOT LIKE 'a!%' ESCAPE '!', 'a%' NOT LIKE 'a!%' ESCAPE '!', "
        "'a_' SIMILAR TO 'a!_' ESCAPE '!', 'ab' SIMILAR TO 'a!_' ESCAPE '!', 'abc' SIMILAR TO 'a(b|c)+', "
        "'a\\_b' LIKE 'a\\_b', 'a_b' LIKE 'a\\_b', 'a\\b' LIKE 'a\\b', "
        "'a.c' LIKE 'a.c', 'abc' LIKE 'a.c', 'a+' SIMILAR TO 'a!+' ESCAPE '!', 'b' SIMILAR TO '[a-c]'"
    )
    expected = "FALSE TRUE TRUE TRUE FALSE TRUE FALSE TRUE TRUE FALSE TRUE TRUE FALSE TRUE TRUE"
    assert " ".join(p for _, p in cells) == expected


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 'a' LIKE 'a!' ESCAPE '!'",  # PyFlink 2.3.0: Invalid escape sequence 'a!', 1
        "SELECT 'a' LIKE 'a' ESCAPE 'ab'",  # PyFlink 2.3.0: Invalid escape character 'ab'
    ],
)
def test_an_invalid_escape_fails_the_query(sql: str) -> None:
    with pytest.raises(Exception) as raised:  # the job's error, caused by the pattern's
        _select(sql)
    causes = []
    error: BaseException | None = raised.value
    while error is not None:
        causes.append(str(error))
        error = error.__cause__
    assert any(c.startswith("Invalid escape") for c in causes), causes


def test_numeric_literals_are_typed_as_calcite_types_them() -> None:
    # PyFlink 2.3.0 prints each with its type: 1.5 DECIMAL(2, 1), 0.5 DECIMAL(1, 1), 5 INT,
    # 0.000 DECIMAL(4, 3), 0.0 DECIMAL(2, 1), 2147483648 BIGINT, -2147483648 INT, 100.0 DOUBLE,
    # 0.1234567890123456789 DECIMAL(20, 19)
    assert _select(
        "SELECT 1.5, .5, 5., 0.000, -0.0, 2147483648, -2147483648, 1e2, 0.1234567890123456789, UNKNOWN"
    ) == [
        ("DECIMAL(2, 1) NOT NULL", "1.5"),
        ("DECIMAL(1, 1) NOT NULL", "0.5"),
        ("INT NOT NULL", "5"),
        ("DECIMAL(4, 3) NOT NULL", "0.000"),
        ("DECIMAL(2, 1) NOT NULL", "0.0"),
        ("BIGINT NOT NULL", "2147483648"),
        ("INT NOT NULL", "-2147483648"),
        ("DOUBLE NOT NULL", "100.0"),
        ("DECIMAL(20, 19) NOT NULL", "0.1234567890123456789"),
        ("BOOLEAN", "<NULL>"),  # UNKNOWN
    ]


def test_a_bare_null_column_is_refused_as_flink_refuses_it() -> None:
    # PyFlink 2.3.0: SQL validation failed. From line 1, column 8 to line 1, column 11: Illegal use of 'NULL'
    with pytest.raises(SqlError, match="Illegal use of 'NULL'"):
        _t_env().sql_query("SELECT NULL")
    # PyFlink 2.3.0 prints <NULL> typed STRING, and TRUE typed BOOLEAN NOT NULL
    assert _select("SELECT CAST(NULL AS STRING), NULL IS NULL") == [
        ("STRING", "<NULL>"),
        ("BOOLEAN NOT NULL", "TRUE"),
    ]


@pytest.mark.parametrize(
    "literal",
    # PyFlink 2.3.0: Numeric literal '...' out of range (a DECIMAL's unscaled value must fit a BIGINT)
    ["9223372036854775808", "1234567890123456789.5", "123456789012345678901234567890.123456789", "1e309"],
)
def test_numeric_literals_out_of_range_are_refused(literal: str) -> None:
    with pytest.raises(SqlError, match="out of range"):
        _t_env().sql_query(f"SELECT {literal}")


def test_date_time_and_timestamp_literals_take_the_precision_written() -> None:
    # PyFlink 2.3.0 prints: 2024-01-01 10:00:00 TIMESTAMP(0) | ...00.12 TIMESTAMP(2) |
    # 2024-01-01 00:00:00 TIMESTAMP(0) | 10:00:00.5 TIME(1) | 10:00:00.123 TIME(3) |
    # 01:02:03.4 TIME(1) | 2024-01-05 DATE | 2024-01-01 10:20:30.5 TIMESTAMP_LTZ(1)
    assert _select(
        "SELECT TIMESTAMP '2024-01-01 10:00:00', TIMESTAMP '2024-01-01 10:00:00.12', TIMESTAMP '2024-01-01', "
        "TIME '10:00:00.5', TIME '10:00:00.12345', TIME '1:2:3.4', DATE '2024-1-5', "
        "TIMESTAMP WITH LOCAL TIME ZONE '2024-01-01 10:20:30.5'"
    ) == [
        ("TIMESTAMP(0) NOT NULL", "2024-01-01 10:00:00"),
        ("TIMESTAMP(2) NOT NULL", "2024-01-01 10:00:00.12"),
        ("TIMESTAMP(0) NOT NULL", "2024-01-01 00:00:00"),
        ("TIME(1) NOT NULL", "10:00:00.5"),
        ("TIME(3) NOT NULL", "10:00:00.123"),
        ("TIME(1) NOT NULL", "01:02:03.4"),
        ("DATE NOT NULL", "2024-01-05"),
        ("TIMESTAMP_LTZ(1) NOT NULL", "2024-01-01 10:20:30.5"),
    ]


@pytest.mark.parametrize(
    ("literal", "message"),
    [
        # PyFlink 2.3.0: Illegal TIMESTAMP literal '2024-01-01T10:00:00': not in format 'yyyy-MM-dd HH:mm:ss'
        ("TIMESTAMP '2024-01-01T10:00:00'", "Illegal TIMESTAMP literal '2024-01-01T10:00:00'"),
        ("TIMESTAMP '2024-13-01 00:00:00'", "Illegal TIMESTAMP literal"),
        # PyFlink 2.3.0: Illegal DATE literal '2023-02-29': not in format 'yyyy-MM-dd'
        ("DATE '2023-02-29'", "Illegal DATE literal '2023-02-29': not in format 'yyyy-MM-dd'"),
        # PyFlink 2.3.0: Illegal TIME literal '24:00:00': not in format 'HH:mm:ss'
        ("TIME '24:00:00'", "Illegal TIME literal '24:00:00': not in format 'HH:mm:ss'"),
        # PyFlink 2.3.0: Incorrect syntax near the keyword 'TIMESTAMP_LTZ'
        ("TIMESTAMP_LTZ '2024-01-01 10:20:30.5'", "TIMESTAMP_LTZ"),
    ],
)
def test_malformed_date_time_literals_are_refused(literal: str, message: str) -> None:
    with pytest.raises(SqlError, match=message):
        _t_env().sql_query(f"SELECT {literal}")
