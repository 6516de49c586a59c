"""OVER windows in BATCH mode as Flink's batch over aggregation: ordered by any keys (ASC or
DESC, NULLs placed), frames of ROWS or RANGE around the current row, and the window functions
of the partition's order (ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LEAD,
LAG). Every expectation is what PyFlink 2.3.0 printed for the same statement (batch mode,
UTC). Before, an OVER window had to be ordered by the event-time attribute, in batch too, and
LEAD, NTILE and the ranking functions were refused outside Top-N queries.
"""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value, summary_string


def _t_env(batch: bool = True) -> TableEnvironment:
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    config = t_env.get_config()
    config.set("parallelism.default", "1")
    config.set("table.local-time-zone", "UTC")
    config.set("minicluster.mode", "threads")  # a unit test starts no processes
    return t_env


def _rows(sql: str) -> tuple[list[str], list[list[str]]]:
    """The column types and the rows' printed cells, sorted."""
    table = _t_env().sql_query(sql)
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        cells = [[format_value(t, v) for t, v in zip(types, row, strict=True)] for row in rows]
    return [summary_string(t) for t in types], sorted(cells, key=lambda r: [(c == "<NULL>", c) for c in r])


_INPUT = (
    "(VALUES ('a', 3), ('a', CAST(NULL AS INT)), ('a', 1), ('a', 1), (CAST(NULL AS STRING), 2)) AS t(k, x)"
)


def test_window_functions_of_the_partitions_order() -> None:
    # PyFlink 2.3.0 prints (k, x: ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE(3),
    # LEAD(x), LAG(x, 2)): a | NULL: 1 1 1 0.0 0.25 1 1 NULL; a | 1: 2 2 2 0.3333333333333333 0.75
    # 1 1 NULL and 3 2 2 0.3333333333333333 0.75 2 3 NULL; a | 3: 4 4 3 1.0 1.0 3 NULL 1
    calls = (
        "ROW_NUMBER() OVER w, RANK() OVER w, DENSE_RANK() OVER w, PERCENT_RANK() OVER w, CUME_DIST() OVER w, "
        "NTILE(3) OVER w, LEAD(x) OVER w, LAG(x, 2) OVER w"
    )
    types, rows = _rows(f"SELECT k, x, {calls} FROM {_INPUT} WINDOW w AS (PARTITION BY k ORDER BY x)")
    assert types == [
        "STRING", "INT", "BIGINT NOT NULL", "BIGINT NOT NULL", "BIGINT NOT NULL", "DOUBLE NOT NULL",
        "DOUBLE NOT NULL", "BIGINT NOT NULL", "INT", "INT",
    ]  # fmt: skip
    assert [r for r in rows if r[0] == "a"] == [
        ["a", "1", "2", "2", "2", "0.3333333333333333", "0.75", "1", "1", "<NULL>"],
        ["a", "1", "3", "2", "2", "0.3333333333333333", "0.75", "2", "3", "<NULL>"],
        ["a", "3", "4", "4", "3", "1.0", "1.0", "3", "<NULL>", "1"],
        ["a", "<NULL>", "1", "1", "1", "0.0", "0.25", "1", "1", "<NULL>"],
    ]


def test_frames_of_rows_and_ranges_around_the_current_row() -> None:
    # PyFlink 2.3.0 prints (x: ROWS 1 PRECEDING..1 FOLLOWING, RANGE 1 PRECEDING..CURRENT ROW,
    # the whole partition, RANGE CURRENT ROW..UNBOUNDED FOLLOWING): 1 | 3 | 1 | 14 | 5,
    # 2 | 5 | 5 | 14 | 4, 2 | 8 | 5 | 14 | 4, 4 | 11 | 4 | 14 | 2, 5 | 9 | 9 | 14 | 1, typed
    # INT NOT NULL, INT, INT, INT NOT NULL, BIGINT NOT NULL
    sql = (
        "SELECT x, SUM(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), "
        "SUM(x) OVER (ORDER BY x RANGE BETWEEN 1 PRECEDING AND CURRENT ROW), SUM(x) OVER (), "
        "COUNT(*) OVER (ORDER BY x RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) "
        "FROM (VALUES (1), (2), (2), (4), (5)) AS t(x)"
    )
    assert _rows(sql) == (
        ["INT NOT NULL", "INT", "INT", "INT NOT NULL", "BIGINT NOT NULL"],
        [
            ["1", "3", "1", "14", "5"],
            ["2", "5", "5", "14", "4"],
            ["2", "8", "5", "14", "4"],
            ["4", "11", "4", "14", "2"],
            ["5", "9", "9", "14", "1"],
        ],
    )


def test_descending_orders_and_their_nulls() -> None:
    # PyFlink 2.3.0 prints (x: ROW_NUMBER() OVER (ORDER BY x DESC), RANK() OVER (ORDER BY x DESC
    # NULLS FIRST), NTILE(3) OVER (ORDER BY x)): 6 1 2 3, 5 2 3 3, 4 3 4 2, 2 4 5 1, 2 5 5 2,
    # 1 6 7 1, NULL 7 1 1
    sql = (
        "SELECT x, ROW_NUMBER() OVER (ORDER BY x DESC), RANK() OVER (ORDER BY x DESC NULLS FIRST), "
        "NTILE(3) OVER (ORDER BY x) FROM (VALUES (1), (CAST(NULL AS INT)), (2), (2), (4), (5), (6)) AS t(x)"
    )
    assert _rows(sql)[1] == [
        ["1", "6", "7", "1"],
        ["2", "4", "5", "1"],
        ["2", "5", "5", "2"],
        ["4", "3", "4", "2"],
        ["5", "2", "3", "3"],
        ["6", "1", "2", "3"],
        ["<NULL>", "7", "1", "1"],
    ]
    # a RANGE frame descending reaches the larger values: 1 | 5, 2 | 4, 2 | 4, 4 | 9, 5 | 5
    descending = "SELECT x, SUM(x) OVER (ORDER BY x DESC RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)"
    assert _rows(f"{descending} FROM (VALUES (1), (2), (2), (4), (5)) AS t(x)")[1] == [
        ["1", "5"],
        ["2", "4"],
        ["2", "4"],
        ["4", "9"],
        ["5", "5"],
    ]


def test_streaming_over_windows_keep_flinks_limits() -> None:
    # Flink's streaming over aggregation has no LEAD; ordered by a column that is no time
    # attribute it takes an unbounded frame only (PyFlink 2.3.0's messages; the unbounded one
    # runs: tests/unit/table/test_over_non_time.py)
    t_env = _t_env(batch=False)
    with pytest.raises(Exception, match="LEAD Function is not supported in stream mode"):
        t_env.sql_query("SELECT LEAD(x) OVER (ORDER BY x) FROM (VALUES (1), (2)) AS t(x)")
    with pytest.raises(
        Exception, match=r"^Non-time attribute sort is not supported for bounded OVER window\.$"
    ):
        t_env.sql_query(
            "SELECT SUM(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) "
            "FROM (VALUES (1), (2)) AS t(x)"
        )
