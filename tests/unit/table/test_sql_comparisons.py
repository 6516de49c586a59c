"""Comparisons as Flink plans and computes them. Every expectation is what PyFlink 2.3.0
printed for the same statement (batch mode, UTC): the cells ``TableResult.print()`` shows, the
column types of the result's schema, or the error it raised while planning.

Before, a FLOAT compared with a DOUBLE as FLOATs in every comparison, NaN = NaN of one
expression was FALSE, DATE '2024-01-01' = TIMESTAMP '...' and TRUE = 1 ran (FALSE, TRUE), 1 =
'1' was FALSE, DATE '2024-01-01' = '2024-01-01' was FALSE, ARRAY[1, 2] < ARRAY[1, 3] was TRUE,
ROW values failed the job when ordered, and ``(1, 2) = (1, 2)`` did not parse.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value, summary_string


@pytest.fixture
def t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    config = t_env.get_config()
    config.set("parallelism.default", "1")
    config.set("table.local-time-zone", "UTC")
    config.set("minicluster.mode", "threads")  # a unit test starts no processes
    return t_env


def _select(t_env: TableEnvironment, sql: str) -> list[tuple[str, str]]:
    """(type, printed cell) of each column of the query's one row."""
    table = t_env.sql_query(sql)
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        (row,) = list(rows)
    return [(summary_string(t), format_value(t, v)) for t, v in zip(types, row, strict=True)]


def _cells(t_env: TableEnvironment, sql: str) -> list[str]:
    return [cell for _, cell in _select(t_env, sql)]


_SIX = "x = y, x < y, x <= y, x > y, x >= y, x <> y, x IS DISTINCT FROM y, x IS NOT DISTINCT FROM y"


def test_a_float_equals_a_double_as_floats_and_is_ordered_as_doubles(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0 prints TRUE | FALSE | FALSE | TRUE | TRUE | FALSE | TRUE | FALSE, and with
    # the DOUBLE first FALSE | TRUE | TRUE | FALSE | FALSE | TRUE | TRUE | FALSE
    values = "(VALUES (CAST(0.1 AS FLOAT), CAST(0.1 AS DOUBLE))) AS t(x, y)"
    assert _cells(t_env, f"SELECT {_SIX} FROM {values}") == [
        "TRUE", "FALSE", "FALSE", "TRUE", "TRUE", "FALSE", "TRUE", "FALSE",
    ]  # fmt: skip
    swapped = "(VALUES (CAST(0.1 AS DOUBLE), CAST(0.1 AS FLOAT))) AS t(x, y)"
    assert _cells(t_env, f"SELECT {_SIX} FROM {swapped}") == [
        "FALSE", "TRUE", "TRUE", "FALSE", "FALSE", "TRUE", "TRUE", "FALSE",
    ]  # fmt: skip
    # with a DECIMAL, and a BIGINT with a DOUBLE, as doubles: FALSE | TRUE | TRUE
    assert _cells(
        t_env,
        "SELECT CAST(0.1 AS FLOAT) = CAST(0.1 AS DECIMAL(2, 1)), CAST(0.1 AS DOUBLE) = 0.1, "
        "x = y FROM (VALUES (CAST(9007199254740993 AS BIGINT), CAST(9007199254740992 AS DOUBLE))) AS t(x, y)",
    ) == ["FALSE", "TRUE", "TRUE"]


def test_an_expression_compared_with_itself_is_simplified_as_calcite_does(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0 prints TRUE | FALSE | TRUE | FALSE | TRUE | FALSE | FALSE for NaN columns
    # (x = y of two NaN columns is Java's FALSE), and UUID() = UUID() is TRUE
    values = "(VALUES (CAST('NaN' AS DOUBLE), CAST('NaN' AS DOUBLE))) AS t(x, y)"
    assert _cells(
        t_env,
        f"SELECT x = x, x < x, x >= x, x IS DISTINCT FROM x, x + 0 = x + 0, x = y, x <> y FROM {values}",
    ) == ["TRUE", "FALSE", "TRUE", "FALSE", "TRUE", "FALSE", "TRUE"]
    assert _cells(t_env, "SELECT UUID() = UUID(), CAST('NaN' AS DOUBLE) = CAST('NaN' AS DOUBLE)") == [
        "TRUE",
        "TRUE",
    ]
    # of a NULL: NULL, typed BOOLEAN (x IS NOT DISTINCT FROM x: TRUE, BOOLEAN NOT NULL)
    assert _select(
        t_env,
        "SELECT x = x, x < x, x <> x, x IS NOT DISTINCT FROM x FROM (VALUES (CAST(NULL AS INT))) AS t(x)",
    ) == [("BOOLEAN", "<NULL>"), ("BOOLEAN", "<NULL>"), ("BOOLEAN", "<NULL>"), ("BOOLEAN NOT NULL", "TRUE")]


def test_the_same_comparisons_on_a_columnar_scan(t_env: TableEnvironment, tmp_path: Path) -> None:
    """A json table's Calc gives the values of the plain projection (the comparisons its
    Arrow kernels do not compute as Flink run on rows)."""
    (tmp_path / "t.json").write_text(
        '{"d": "NaN", "f": 0.1, "g": 0.1, "s": "2024-1-1", "day": "2024-01-01"}\n'
    )
    t_env.execute_sql(
        "CREATE TABLE t (d DOUBLE, f FLOAT, g DOUBLE, s STRING, `day` DATE) WITH ("
        f"'connector' = 'filesystem', 'path' = '{tmp_path / 't.json'}', 'format' = 'json')"
    )
    sql = "SELECT d = d, d = d + 0, f = g, f < g, `day` = s, `day` < s, f IS DISTINCT FROM g FROM t"
    assert _cells(t_env, sql) == ["TRUE", "FALSE", "TRUE", "FALSE", "TRUE", "FALSE", "TRUE"]


def test_a_character_string_meets_a_date_time_or_number_cast_to_it(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0 prints TRUE | TRUE | TRUE | FALSE, TRUE | TRUE, TRUE | TRUE | TRUE, TRUE | TRUE
    assert _cells(
        t_env,
        "SELECT x = '2024-1-1', x < '2024-02-01', x = '2024-01-01', x <> '2024-01-01 00:00:00' "
        "FROM (VALUES (DATE '2024-01-01')) AS t(x)",
    ) == ["TRUE", "TRUE", "TRUE", "FALSE"]
    assert _cells(t_env, "SELECT x = '1:2:3', x < '1:30:00' FROM (VALUES (TIME '01:02:03')) AS t(x)") == [
        "TRUE",
        "TRUE",
    ]
    assert _cells(
        t_env,
        "SELECT x = '2024-01-01 00:00:00', x = '2024-01-01', x < '2024-1-1 1:0:0' "
        "FROM (VALUES (TIMESTAMP '2024-01-01 00:00:00')) AS t(x)",
    ) == ["TRUE", "TRUE", "TRUE"]
    assert _cells(t_env, "SELECT x < '10', x < '9' FROM (VALUES (2)) AS t(x)") == ["TRUE", "TRUE"]
    # a BOOLEAN never equals a string (Java's equals of two classes); ordered, the string is cast:
    # FALSE | FALSE | FALSE, TRUE | TRUE
    assert _cells(t_env, "SELECT x = 'true', x = 'TRUE', x < 'true' FROM (VALUES (TRUE)) AS t(x)") == [
        "FALSE",
        "FALSE",
        "FALSE",
    ]
    assert _cells(t_env, "SELECT x < '1', x < 'true' FROM (VALUES (FALSE)) AS t(x)") == ["TRUE", "TRUE"]


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        (
            "DATE '2024-01-01' = TIMESTAMP '2024-01-01 00:00:00'",
            "SQL validation failed. From line 1, column 8 to line 1, column 58: "
            "Cannot apply '=' to arguments of type '<DATE> = <TIMESTAMP(0)>'. "
            "Supported form(s): '<COMPARABLE_TYPE> = <COMPARABLE_TYPE>'",
        ),
        (
            "DATE '2024-01-01' IS DISTINCT FROM TIMESTAMP '2024-01-01 00:00:00'",
            "Cannot apply 'IS DISTINCT FROM' to arguments of type '<DATE> IS DISTINCT FROM <TIMESTAMP(0)>'. "
            "Supported form(s): '<COMPARABLE_TYPE> IS DISTINCT FROM <COMPARABLE_TYPE>'",
        ),
        (
            "TRUE = 1",
            "SQL validation failed. From line 1, column 8 to line 1, column 15: "
            "Cannot apply '=' to arguments of type '<BOOLEAN> = <INTEGER>'. "
            "Supported form(s): '<COMPARABLE_TYPE> = <COMPARABLE_TYPE>'",
        ),
        ("1 = '1'", "implicit type conversion between INTEGER and CHAR is not supported now"),
        ("ARRAY[1, 2] < ARRAY[1, 3]", "Comparable type expected, but was 'ARRAY<INT NOT NULL> NOT NULL'."),
        (
            "(1, 2) < (1, 3)",
            "Comparable type expected, but was 'ROW<`EXPR$0` INT NOT NULL, `EXPR$1` INT NOT NULL> NOT NULL'.",
        ),
    ],
)
def test_comparisons_flink_refuses_are_refused_while_planning(
    t_env: TableEnvironment, expression: str, message: str
) -> None:
    # PyFlink 2.3.0 raises these messages (the last three when the job is submitted: its code
    # generator finds them; millstream finds them while planning, before anything runs)
    with pytest.raises(Exception) as raised:
        t_env.sql_query(f"SELECT {expression}")
    assert str(raised.value).splitlines()[0] == message


def test_rows_compare_field_by_field(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0 prints TRUE | TRUE | TRUE (BOOLEAN NOT NULL), and for ROW<a INT, b STRING>
    # columns of equal values TRUE | FALSE | TRUE typed BOOLEAN (a field may be NULL)
    assert (
        _select(t_env, "SELECT (1, 2) = (1, 2), (1, 'a') IN ((1, 'a'), (2, 'b')), (1, 2) <> (1, 3)")
        == [("BOOLEAN NOT NULL", "TRUE")] * 3
    )
    row = "CAST(ROW(1, 'a') AS ROW<a INT, b STRING>)"
    assert _select(t_env, f"SELECT x = y, x < y, x <= y FROM (VALUES ({row}, {row})) AS t(x, y)") == [
        ("BOOLEAN", "TRUE"),
        ("BOOLEAN", "FALSE"),
        ("BOOLEAN", "TRUE"),
    ]
    # the same expression on both sides: simplified, typed as the comparison: FALSE | TRUE
    assert _select(t_env, f"SELECT {row} < {row}, {row} >= {row}") == [
        ("BOOLEAN", "FALSE"),
        ("BOOLEAN", "TRUE"),
    ]


def test_like_without_wildcards_is_equality_whatever_the_escape(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0 prints TRUE for 'abc' LIKE 'abc' ESCAPE ''
    assert _cells(t_env, "SELECT 'abc' LIKE 'abc' ESCAPE '', 'abc' LIKE 'ab' ESCAPE ''") == ["TRUE", "FALSE"]
