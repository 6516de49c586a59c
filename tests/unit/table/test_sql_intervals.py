"""INTERVAL literals, types and arithmetic as Flink's. Every expectation is what PyFlink 2.3.0
printed for the same statement (batch mode, table.local-time-zone UTC): the cell
``TableResult.print()`` shows and the column's type in the result's schema.

Before, only single-unit day-time intervals parsed (``INTERVAL '1' MONTH``, ``'2-3' YEAR TO
MONTH`` and ``'1 02:03' DAY TO MINUTE`` were refused), they printed as Python's timedelta
(``1 day, 2:03:00``) and typed as ``INTERVAL_DAY_TIME``; a DATE minus an hour went back a day.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value, summary_string
from millstream.table.sql.parser import SqlError

YM = "INTERVAL MONTH NOT NULL"
DT = "INTERVAL SECOND(3) NOT NULL"


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


def _select_items(items: list[str]) -> list[tuple[str, str]]:
    return _select("SELECT " + ", ".join(items))


def test_every_interval_form_parses_types_and_prints_as_flink() -> None:
    # PyFlink 2.3.0 prints: +0-01 | +2-03 | +1 02:03:00.000 | +10 00:00:00.004 |
    # +100 00:00:00.000 | -1 02:03:00.000 | -2-03 | +8-04 | +1 02:03:04.500 | +0 00:00:15.123 |
    # +7 00:00:00.000 | +0-03 | +2 00:00:00.000 | +2 00:00:00.000 | +1-00 | +0 00:00:05.000 |
    # +1 01:00:00.000 | -0-01 (plural unit names are Flink's too)
    assert _select_items(
        [
            "INTERVAL '1' MONTH",
            "INTERVAL '2-3' YEAR TO MONTH",
            "INTERVAL '1 02:03' DAY TO MINUTE",
            "INTERVAL '10 00:00:00.004' DAY TO SECOND",
            "INTERVAL '100' DAY(3)",
            "INTERVAL '-1 02:03' DAY TO MINUTE",
            "- INTERVAL '2-3' YEAR TO MONTH",
            "INTERVAL '100' MONTH(3)",
            "INTERVAL '1 2:3:4.5' DAY TO SECOND",
            "INTERVAL '15.123456' SECOND(2",
            "6)",
            "INTERVAL '1' WEEK",
            "INTERVAL '1' QUARTER",
            "INTERVAL 2 DAY",
            "INTERVAL '2' DAYS",
            "INTERVAL '1' YEARS",
            "INTERVAL '5' SECONDS",
            "INTERVAL '25:00' HOUR TO MINUTE",
            "INTERVAL '-0-1' YEAR TO MONTH",
        ]
    ) == [
        (YM, "+0-01"),
        (YM, "+2-03"),
        (DT, "+1 02:03:00.000"),
        (DT, "+10 00:00:00.004"),
        (DT, "+100 00:00:00.000"),
        (DT, "-1 02:03:00.000"),
        (YM, "-2-03"),
        (YM, "+8-04"),
        (DT, "+1 02:03:04.500"),
        (DT, "+0 00:00:15.123"),
        (DT, "+7 00:00:00.000"),
        (YM, "+0-03"),
        (DT, "+2 00:00:00.000"),
        (DT, "+2 00:00:00.000"),
        (YM, "+1-00"),
        (DT, "+0 00:00:05.000"),
        (DT, "+1 01:00:00.000"),
        (YM, "-0-01"),
    ]


@pytest.mark.parametrize(
    ("literal", "message"),
    [
        # PyFlink 2.3.0: Interval field value 100 exceeds precision of DAY(2) field
        ("INTERVAL '100' DAY", "Interval field value 100 exceeds precision of DAY\\(2\\) field"),
        ("INTERVAL '10' DAY(1)", "Interval field value 10 exceeds precision of DAY\\(1\\) field"),
        # PyFlink 2.3.0: Illegal interval literal format '1-13' for INTERVAL YEAR TO MONTH
        (
            "INTERVAL '1-13' YEAR TO MONTH",
            "Illegal interval literal format '1-13' for INTERVAL YEAR TO MONTH",
        ),
        ("INTERVAL '1 25' DAY TO HOUR", "Illegal interval literal format '1 25' for INTERVAL DAY TO HOUR"),
        ("INTERVAL 'abc' DAY", "Illegal interval literal format 'abc' for INTERVAL DAY"),
        # PyFlink 2.3.0: SQL parse failed. Encountered "MILLISECOND" at line 1, column 23.
        ("INTERVAL '500' MILLISECOND", 'Encountered "MILLISECOND"'),
        # PyFlink 2.3.0: ... '10 00:00:00.123456789' for INTERVAL DAY TO SECOND (6 fraction digits)
        ("INTERVAL '10 00:00:00.123456789' DAY TO SECOND", "Illegal interval literal format"),
    ],
)
def test_malformed_intervals_are_refused_while_planning(literal: str, message: str) -> None:
    with pytest.raises(SqlError, match=message):
        _t_env().sql_query(f"SELECT {literal}")


def test_intervals_move_dates_times_and_timestamps_as_flink() -> None:
    # PyFlink 2.3.0 prints: 2024-02-29 | 2024-02-29 10:00:00 | 2024-02-29 | 2025-02-28 |
    # 2024-02-29 | 2024-02-01 | 2024-02-01 12:03:00.5 | 11:00:00 | 01:00:00 |
    # 2021-10-31 10:00:00 | 2024-01-31 (a DATE moves by whole days, toward zero) | 2024-01-31 |
    # 10:00:00 (months do not move a TIME) | 2025-02-28 10:00:00.123
    assert _select_items(
        [
            "DATE '2024-01-31' + INTERVAL '1' MONTH",
            "TIMESTAMP '2024-01-31 10:00:00' + INTERVAL '1' MONTH",
            "DATE '2024-03-31' - INTERVAL '1' MONTH",
            "DATE '2024-02-29' + INTERVAL '1' YEAR",
            "INTERVAL '1' MONTH + DATE '2024-01-31'",
            "DATE '2024-01-31' + INTERVAL '1 02:03' DAY TO MINUTE",
            "TIMESTAMP '2024-01-31 10:00:00.5' + INTERVAL '1 02:03' DAY TO MINUTE",
            "TIME '10:00:00' + INTERVAL '1' HOUR",
            "TIME '23:00:00' + INTERVAL '2' HOUR",
            "TIMESTAMP '2024-01-31 10:00:00' - INTERVAL '2-3' YEAR TO MONTH",
            "DATE '2024-01-31' - INTERVAL '1' HOUR",
            "DATE '2024-01-31' + INTERVAL '23:59' HOUR TO MINUTE",
            "TIME '10:00:00' + INTERVAL '1' MONTH",
            "TIMESTAMP '2024-01-31 10:00:00.123' + INTERVAL '1-1' YEAR TO MONTH",
        ]
    ) == [
        ("DATE NOT NULL", "2024-02-29"),
        ("TIMESTAMP(0) NOT NULL", "2024-02-29 10:00:00"),
        ("DATE NOT NULL", "2024-02-29"),
        ("DATE NOT NULL", "2025-02-28"),
        ("DATE NOT NULL", "2024-02-29"),
        ("DATE NOT NULL", "2024-02-01"),
        ("TIMESTAMP(1) NOT NULL", "2024-02-01 12:03:00.5"),
        ("TIME(0) NOT NULL", "11:00:00"),
        ("TIME(0) NOT NULL", "01:00:00"),
        ("TIMESTAMP(0) NOT NULL", "2021-10-31 10:00:00"),
        ("DATE NOT NULL", "2024-01-31"),
        ("DATE NOT NULL", "2024-01-31"),
        ("TIME(0) NOT NULL", "10:00:00"),
        ("TIMESTAMP(3) NOT NULL", "2025-02-28 10:00:00.123"),
    ]


def test_interval_arithmetic_comparisons_and_casts() -> None:
    # PyFlink 2.3.0 prints: +0-03 | -1-11 | +0 22:00:00.000 | TRUE | TRUE | +1 02:00:00.000 |
    # +3 00:00:00.000 | +0 03:00:00.000 | -1 00:00:00.000 | +2-03 | +1 02:03:00.000 |
    # -1 02:03:04.500 | -1-02 | -0-05 | +5-00 | +0 03:00:00.000 | +1 12:00:00.000 |
    # +0 00:00:00.003 (a number that is not a literal is the interval's milliseconds) | +0-03
    assert _select_items(
        [
            "INTERVAL '1' MONTH + INTERVAL '2' MONTH",
            "INTERVAL '1' MONTH - INTERVAL '2' YEAR",
            "INTERVAL '1' DAY - INTERVAL '2' HOUR",
            "INTERVAL '13' MONTH > INTERVAL '1' YEAR",
            "INTERVAL '24' HOUR = INTERVAL '1' DAY",
            "INTERVAL '1' DAY + INTERVAL '2' HOUR",
            "INTERVAL '1' DAY * 3",
            "3 * INTERVAL '1' HOUR",
            "-INTERVAL '1' DAY",
            "CAST(INTERVAL '2-3' YEAR TO MONTH AS STRING)",
            "CAST(INTERVAL '1 02:03' DAY TO MINUTE AS STRING)",
            "CAST(INTERVAL '-1 02:03:04.5' DAY TO SECOND AS STRING)",
            "CAST(INTERVAL '-1-2' YEAR TO MONTH AS STRING)",
            "CAST(-5 AS INTERVAL MONTH)",
            "CAST(5 AS INTERVAL YEAR)",
            "CAST(3 AS INTERVAL HOUR)",
            "CAST(1.5 AS INTERVAL DAY)",
            "CAST(CAST(3 AS BIGINT) AS INTERVAL HOUR)",
            "CAST(CAST(3 AS BIGINT) AS INTERVAL MONTH)",
        ]
    ) == [
        (YM, "+0-03"),
        (YM, "-1-11"),
        (DT, "+0 22:00:00.000"),
        ("BOOLEAN NOT NULL", "TRUE"),
        ("BOOLEAN NOT NULL", "TRUE"),
        (DT, "+1 02:00:00.000"),
        (DT, "+3 00:00:00.000"),
        (DT, "+0 03:00:00.000"),
        (DT, "-1 00:00:00.000"),
        ("STRING NOT NULL", "+2-03"),
        ("STRING NOT NULL", "+1 02:03:00.000"),
        ("STRING NOT NULL", "-1 02:03:04.500"),
        ("STRING NOT NULL", "-1-02"),
        (YM, "-0-05"),
        (YM, "+5-00"),
        (DT, "+0 03:00:00.000"),
        (DT, "+1 12:00:00.000"),
        (DT, "+0 00:00:00.003"),
        (YM, "+0-03"),
    ]


def test_interval_types_and_nulls() -> None:
    # PyFlink 2.3.0 prints: INTERVAL SECOND(3) NOT NULL | INTERVAL MONTH NOT NULL (TYPEOF's
    # text), and for CAST(NULL AS INTERVAL ...) <NULL> typed INTERVAL MONTH / INTERVAL SECOND(3)
    cells = _select_items(
        [
            "TYPEOF(INTERVAL '10 00:00:00.004' DAY TO SECOND)",
            "TYPEOF(INTERVAL '2-10' YEAR TO MONTH)",
            "CAST(NULL AS INTERVAL MONTH)",
            "CAST(NULL AS INTERVAL HOUR TO SECOND(6))",
            "CAST(INTERVAL '1' DAY AS INTERVAL DAY TO SECOND(3))",
        ]
    )
    assert [p for _, p in cells[:2]] == [DT, YM]
    assert cells[2:] == [
        ("INTERVAL MONTH", "<NULL>"),
        ("INTERVAL SECOND(3)", "<NULL>"),
        (DT, "+1 00:00:00.000"),
    ]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT INTERVAL '1' YEAR + INTERVAL '2' DAY",  # PyFlink 2.3.0: Cannot apply '+' to ...
        "SELECT INTERVAL '2' YEAR / 2",  # PyFlink 2.3.0: Unsupported call: /(INTERVAL MONTH NOT NULL, ...)
        "SELECT INTERVAL '1' MONTH * 2.5",  # PyFlink 2.3.0: Unsupported casting from DECIMAL(2, 1) ...
    ],
)
def test_interval_operations_flink_refuses_are_refused(sql: str) -> None:
    with pytest.raises(TypeError, match="Cannot apply"):
        _t_env().sql_query(sql)


@pytest.mark.parametrize(
    "sql",
    [
        # PyFlink 2.3.0, while planning: Cast function cannot convert value of type INTERVAL DAY
        # to type BIGINT
        "SELECT CAST(INTERVAL '1' DAY AS BIGINT)",
        # PyFlink 2.3.0, while planning: Unsupported cast from 'CHAR(1) NOT NULL' to
        # 'INTERVAL SECOND(3) NOT NULL'.
        "SELECT CAST('1' AS INTERVAL DAY)",
    ],
)
def test_casts_between_intervals_and_numbers_or_strings_flink_refuses_are_refused(sql: str) -> None:
    with pytest.raises(ValueError, match="Cast function cannot convert value of type"):
        _t_env().sql_query(sql)


def test_date_interval_arithmetic_is_the_same_on_arrow_and_on_rows(tmp_path: Path) -> None:
    """A Calc over a CSV file runs on Arrow where it can; DATE arithmetic must still give
    Flink's dates (Arrow's date + duration is a timestamp)."""
    data = tmp_path / "days"
    data.mkdir()
    (data / "part-0.csv").write_text("2024-01-31,2024-01-31 10:00:00\n2024-03-31,2024-03-31 23:30:00\n")
    t_env = _t_env()
    t_env.execute_sql(
        "CREATE TABLE days (d DATE, ts TIMESTAMP(3)) "
        f"WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'csv')"
    )
    query = (
        "SELECT d - INTERVAL '1' HOUR, d + INTERVAL '25' HOUR, d + INTERVAL '1' MONTH, "
        "ts + INTERVAL '1' HOUR, ts - INTERVAL '1' MONTH FROM {}"
    )
    values = "(VALUES (DATE '2024-01-31', TIMESTAMP '2024-01-31 10:00:00.000'), "
    values += "(DATE '2024-03-31', TIMESTAMP '2024-03-31 23:30:00.000')) AS t(d, ts)"
    # PyFlink 2.3.0 prints, for each source (the file's columns typed DATE, TIMESTAMP(3)):
    # 2024-01-31 | 2024-02-01 | 2024-02-29 | 2024-01-31 11:00:00.000 | 2023-12-31 10:00:00.000
    # 2024-03-31 | 2024-04-01 | 2024-04-30 | 2024-04-01 00:30:00.000 | 2024-02-29 23:30:00.000
    expected = [
        ["2024-01-31", "2024-02-01", "2024-02-29", "2024-01-31 11:00:00.000", "2023-12-31 10:00:00.000"],
        ["2024-03-31", "2024-04-01", "2024-04-30", "2024-04-01 00:30:00.000", "2024-02-29 23:30:00.000"],
    ]
    for source in ("days", values):
        table = t_env.sql_query(query.format(source))
        types = table.get_resolved_schema().get_column_data_types()
        with table.execute().collect() as rows:
            printed = [[format_value(t, v) for t, v in zip(types, row, strict=True)] for row in rows]
        assert sorted(printed) == expected, source
