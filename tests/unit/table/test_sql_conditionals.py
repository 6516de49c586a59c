"""IF, CASE, COALESCE, GREATEST / LEAST, IS_ALPHA / IS_DIGIT / IS_DECIMAL and the logical
operators typed and computed as Flink's. Every expectation is what PyFlink 2.3.0 printed for
the same statement (batch mode, UTC): the result schema's types and the cells, or the error it
raised while planning.

Before, IF was typed as its THEN branch (IF(FALSE, 1, 2.5e0) printed 2 as an INT), CASE and
COALESCE of types without a common one ran, GREATEST(7) failed the job, LEAST(NaN, 1.0) was
NaN, IS_DECIMAL('NaN') FALSE, IS_DIGIT(NULL) NULL, and 1 AND TRUE ran.
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


def test_if_is_typed_as_its_branches_common_type(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: VARCHAR(2) NOT NULL a | DOUBLE NOT NULL 2.5 | DECIMAL(11, 1) NOT NULL 1.5 |
    # INT NOT NULL 5; and with a NULL condition INT (2), a NULL branch STRING
    assert _select(
        t_env,
        "SELECT IF(TRUE, 'a', 'bb'), IF(FALSE, 1, CAST(2.5 AS DOUBLE)), IF(TRUE, 1.5, 7), IF(5 > 3, 5, 3)",
    ) == [
        ("VARCHAR(2) NOT NULL", "a"),
        ("DOUBLE NOT NULL", "2.5"),
        ("DECIMAL(11, 1) NOT NULL", "1.5"),
        ("INT NOT NULL", "5"),
    ]
    assert _select(
        t_env,
        "SELECT IF(x > 1, 'a', CAST(NULL AS STRING)), IF(CAST(NULL AS BOOLEAN), 1, 2) "
        "FROM (VALUES (2)) AS t(x)",
    ) == [("STRING", "a"), ("INT", "2")]


def test_case_coalesce_greatest_and_least_convert_to_the_common_type(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: DECIMAL(11, 1) NOT NULL 1.0 | 2.5 | 2.5, DOUBLE NOT NULL 1.0 | NaN | 0.0,
    # INT NOT NULL 7
    assert _select(
        t_env,
        "SELECT CASE WHEN x > 1 THEN 1 ELSE 2.5 END, COALESCE(CAST(NULL AS INT), 2.5), GREATEST(1, 2.5), "
        "LEAST(CAST('NaN' AS DOUBLE), 1.0e0), GREATEST(CAST('NaN' AS DOUBLE), 1.0e0), "
        "GREATEST(-0.0e0, 0.0e0), GREATEST(7) FROM (VALUES (2)) AS t(x)",
    ) == [
        ("DECIMAL(11, 1) NOT NULL", "1.0"),
        ("DECIMAL(11, 1) NOT NULL", "2.5"),
        ("DECIMAL(11, 1) NOT NULL", "2.5"),
        ("DOUBLE NOT NULL", "1.0"),
        ("DOUBLE NOT NULL", "NaN"),
        ("DOUBLE NOT NULL", "0.0"),
        ("INT NOT NULL", "7"),
    ]


def test_a_case_converts_on_a_columnar_scan_too(t_env: TableEnvironment, tmp_path: Path) -> None:
    """A json table's Calc gives the plain projection's values (a CASE whose branches need a
    conversion runs on rows)."""
    (tmp_path / "t.json").write_text('{"x": 2}\n{"x": 0}\n')
    t_env.execute_sql(
        f"CREATE TABLE t (x INT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path / 't.json'}', "
        "'format' = 'json')"
    )
    table = t_env.sql_query("SELECT CASE WHEN x > 1 THEN 1 ELSE 2.5 END, IF(x > 1, 'a', 'bb') FROM t")
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        cells = [[format_value(t, v) for t, v in zip(types, row, strict=True)] for row in rows]
    assert cells == [["1.0", "a"], ["2.5", "bb"]]


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        (
            "IF(1, 'a', 'b')",  # with the call's position, as PyFlink 2.3.0's ValidationException
            "SQL validation failed. From line 1, column 8 to line 1, column 22: "
            "Cannot apply 'IF' to arguments of type 'IF(<INTEGER>, <CHAR(1)>, <CHAR(1)>)'. "
            "Supported form(s): 'IF(<ANY_TYPE>, <NUMERIC_TYPE>, <NUMERIC_TYPE>)'",
        ),
        ("CASE WHEN TRUE THEN 1 ELSE 'a' END", "Illegal mixing of types in CASE or COALESCE statement"),
        (
            "CASE WHEN TRUE THEN DATE '2024-01-01' ELSE TIMESTAMP '2024-01-01 10:00:00' END",
            "Illegal mixing of types in CASE or COALESCE statement",
        ),
        ("COALESCE(1, 'a')", "Invalid input arguments."),
        (
            "GREATEST(1, 'a')",
            "All types in a comparison should support both 'EQUALS' and 'ORDER' comparison with each other. "
            "Can not compare INT NOT NULL with CHAR(1) NOT NULL",
        ),
        (
            "1 AND TRUE",  # with its position, as PyFlink 2.3.0's ValidationException
            "SQL validation failed. From line 1, column 8 to line 1, column 17: "
            "Cannot apply 'AND' to arguments of type '<INTEGER> AND <BOOLEAN>'. "
            "Supported form(s): '<BOOLEAN> AND <BOOLEAN>'",
        ),
        ("FALSE OR NULL", "Illegal use of 'NULL'"),
        ("NOT NULL", "Illegal use of 'NULL'"),
    ],
)
def test_what_flink_refuses_while_planning(t_env: TableEnvironment, expression: str, message: str) -> None:
    # PyFlink 2.3.0 refuses each with this message (SqlValidatorException / ValidationException)
    with pytest.raises(Exception) as raised:
        t_env.sql_query(f"SELECT {expression}")
    assert str(raised.value).splitlines()[0] == message


def test_is_alpha_digit_and_decimal(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: FALSE for NULL; IS_DECIMAL reads as Java's Double.parseDouble: 'NaN', '1.5f',
    # ' 1 ', 'Infinity' and '0x1p3' are TRUE
    assert [
        cell
        for _, cell in _select(
            t_env,
            "SELECT IS_ALPHA(CAST(NULL AS STRING)), IS_DIGIT(CAST(NULL AS STRING)), "
            "IS_DECIMAL(CAST(NULL AS STRING)), IS_DECIMAL('NaN'), IS_DECIMAL('1.5f'), IS_DECIMAL(' 1 '), "
            "IS_DECIMAL('Infinity'), IS_DECIMAL('0x1p3'), IS_DECIMAL('x')",
        )
    ] == ["FALSE", "FALSE", "FALSE", "TRUE", "TRUE", "TRUE", "TRUE", "TRUE", "FALSE"]
