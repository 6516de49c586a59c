"""OVERLAPS orders each period as Calcite's convertlet does (``CASE WHEN start <= end THEN start
ELSE end``), so a NULL end leaves the start as the period's end and the result can be FALSE.

PyFlink 2.3.0 prints ``FALSE | <NULL> | TRUE | TRUE`` for the query below; before, the first
was NULL (the period was LEAST / GREATEST of its points, NULL with a NULL point).
"""

from __future__ import annotations

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value


def test_overlaps_with_a_null_end_is_calcites() -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    table = t_env.sql_query(
        "SELECT (DATE '2024-01-01', CAST(NULL AS DATE)) OVERLAPS (DATE '2024-01-05', DATE '2024-01-20'), "
        "(DATE '2024-01-10', CAST(NULL AS DATE)) OVERLAPS (DATE '2024-01-05', DATE '2024-01-20'), "
        "(DATE '2024-01-20', DATE '2024-01-01') OVERLAPS (DATE '2024-01-05', DATE '2024-01-06'), "
        "(TIMESTAMP '2024-01-01 00:00:00', INTERVAL '1' DAY) OVERLAPS "
        "(TIMESTAMP '2024-01-01 12:00:00', INTERVAL '1' HOUR)"
    )
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        (row,) = list(rows)
    assert [format_value(t, v) for t, v in zip(types, row, strict=True)] == [
        "FALSE",
        "<NULL>",
        "TRUE",
        "TRUE",
    ]
