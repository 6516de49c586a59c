"""An OVERLAPS period given by a year-month length ends calendar months later, the day clamped
to the month's last (Java's ``plusMonths``), as every DATE/TIMESTAMP plus an INTERVAL YEAR TO
MONTH does; the length is recognized by its type, so ``n * INTERVAL '1' MONTH`` is a length too.
Before, the period's end added the months as milliseconds.

PyFlink 2.3.0 prints, for the query below::

    +-------------+--------+--------+--------+--------+
    |           n | EXPR$1 | EXPR$2 | EXPR$3 | EXPR$4 |
    +-------------+--------+--------+--------+--------+
    |           1 |  FALSE |  FALSE |  FALSE |  FALSE |
    |          13 |   TRUE |  FALSE |   TRUE |   TRUE |
    +-------------+--------+--------+--------+--------+
"""

from __future__ import annotations

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value

_QUERY = (
    "SELECT n, "
    "(d, INTERVAL '1' MONTH) OVERLAPS (DATE '2024-03-01', DATE '2024-03-02'), "
    "(ts, INTERVAL '1' MONTH) OVERLAPS (TIMESTAMP '2024-02-29 10:00:01', TIMESTAMP '2024-03-01 00:00:00'), "
    "(d, n * INTERVAL '1' MONTH) OVERLAPS (DATE '2025-03-29', DATE '2025-04-01'), "
    "(ts, INTERVAL '-1' YEAR) OVERLAPS (TIMESTAMP '2022-03-31 00:00:00', TIMESTAMP '2022-03-31 00:00:00') "
    "FROM (VALUES (DATE '2024-01-31', TIMESTAMP '2024-01-31 10:00:00', 1), "
    "(DATE '2024-02-29', TIMESTAMP '2023-03-31 00:00:00', 13)) AS x(d, ts, n)"
)


def test_overlaps_with_a_year_month_length_moves_by_calendar_months() -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    table = t_env.sql_query(_QUERY)
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        printed = [[format_value(t, v) for t, v in zip(types, row, strict=True)] for row in rows]
    assert sorted(printed) == [
        ["1", "FALSE", "FALSE", "FALSE", "FALSE"],
        ["13", "TRUE", "FALSE", "TRUE", "TRUE"],
    ]
