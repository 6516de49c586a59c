# ruff: noqa: E501 - PyFlink's printed tables are pasted as they are
"""Over aggregation, Top-N and deduplication in SQL against PyFlink 2.3.0's output.

``program`` ran on PyFlink 2.3.0 (``/work/pyflink-venv``, parallelism 1) on 2026-11-24; its
output is pasted unchanged and millstream prints exactly the same: ROWS and RANGE frames
(rows of the same time share a RANGE frame), UNBOUNDED frames, a WINDOW clause, Top-N with the
row number (every shifted rank updated), deduplication keeping the first and the last row per
key (a later row of the same time replaces the kept one), and a global Top-N.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(300)


def program() -> None:
    from millstream.common import Types
    from millstream.common.time import Instant
    from millstream.datastream import StreamExecutionEnvironment
    from millstream.table import DataTypes, Schema, StreamTableEnvironment

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    t_env = StreamTableEnvironment.create(env)
    data = [
        (Instant.of_epoch_milli(t), n, v)
        for t, n, v in [
            (1000, "a", 1),
            (3000, "b", 2),
            (2000, "a", 3),
            (2000, "a", 4),
            (5000, "a", 5),
            (4000, "b", 6),
            (7000, "a", 7),
            (6500, "b", 8),
            (9000, "a", 9),
            (9000, "b", 10),
            (12000, "a", 11),
        ]
    ]
    ds = env.from_collection(
        data, type_info=Types.ROW_NAMED(["t", "name", "v"], [Types.INSTANT(), Types.STRING(), Types.INT()])
    )
    table = t_env.from_data_stream(
        ds,
        Schema.new_builder()
        .column_by_expression("ts", "CAST(t AS TIMESTAMP(3))")
        .column("name", DataTypes.STRING())
        .column("v", DataTypes.INT())
        .watermark("ts", "ts - INTERVAL '5' SECOND")
        .build(),
    )
    t_env.create_temporary_view("t", table)
    t_env.execute_sql(
        """SELECT name, v, ts, SUM(v) OVER (PARTITION BY name ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s2 FROM t"""
    ).print()
    t_env.execute_sql(
        """SELECT name, v, COUNT(v) OVER (PARTITION BY name ORDER BY ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW) AS c2 FROM t"""
    ).print()
    t_env.execute_sql(
        """SELECT name, v, MAX(v) OVER (PARTITION BY name ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS mx FROM t"""
    ).print()
    t_env.execute_sql(
        """SELECT name, v, AVG(v) OVER (PARTITION BY name ORDER BY ts) AS av, SUM(v) OVER (PARTITION BY name ORDER BY ts) AS sv FROM t"""
    ).print()
    t_env.execute_sql("""SELECT name, v, SUM(v) OVER w AS s, MIN(v) OVER w AS m FROM t
      WINDOW w AS (PARTITION BY name ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)""").print()
    t_env.execute_sql(
        """SELECT * FROM (SELECT name, v, ts, ROW_NUMBER() OVER (PARTITION BY name ORDER BY v DESC) AS rn FROM t) WHERE rn <= 2"""
    ).print()
    t_env.execute_sql(
        """SELECT name, v, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY name ORDER BY ts ASC) AS rn FROM t) WHERE rn = 1"""
    ).print()
    t_env.execute_sql(
        """SELECT name, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY name ORDER BY ts DESC) AS rownum FROM t) WHERE rownum = 1"""
    ).print()
    t_env.execute_sql(
        """SELECT * FROM (SELECT v, name, ROW_NUMBER() OVER (ORDER BY v DESC) AS rn FROM t) WHERE rn <= 3"""
    ).print()


PYFLINK = """\
+----+--------------------------------+-------------+-------------------------+-------------+
| op |                           name |           v |                      ts |          s2 |
+----+--------------------------------+-------------+-------------------------+-------------+
| +I |                              a |           1 | 1970-01-01 00:00:01.000 |           1 |
| +I |                              a |           3 | 1970-01-01 00:00:02.000 |           4 |
| +I |                              a |           4 | 1970-01-01 00:00:02.000 |           7 |
| +I |                              b |           2 | 1970-01-01 00:00:03.000 |           2 |
| +I |                              b |           6 | 1970-01-01 00:00:04.000 |           8 |
| +I |                              a |           5 | 1970-01-01 00:00:05.000 |           9 |
| +I |                              b |           8 | 1970-01-01 00:00:06.500 |          14 |
| +I |                              a |           7 | 1970-01-01 00:00:07.000 |          12 |
| +I |                              a |           9 | 1970-01-01 00:00:09.000 |          16 |
| +I |                              b |          10 | 1970-01-01 00:00:09.000 |          18 |
| +I |                              a |          11 | 1970-01-01 00:00:12.000 |          20 |
+----+--------------------------------+-------------+-------------------------+-------------+
11 rows in set
+----+--------------------------------+-------------+----------------------+
| op |                           name |           v |                   c2 |
+----+--------------------------------+-------------+----------------------+
| +I |                              a |           1 |                    1 |
| +I |                              a |           3 |                    3 |
| +I |                              a |           4 |                    3 |
| +I |                              b |           2 |                    1 |
| +I |                              b |           6 |                    2 |
| +I |                              a |           5 |                    1 |
| +I |                              b |           8 |                    1 |
| +I |                              a |           7 |                    2 |
| +I |                              a |           9 |                    2 |
| +I |                              b |          10 |                    1 |
| +I |                              a |          11 |                    1 |
+----+--------------------------------+-------------+----------------------+
11 rows in set
+----+--------------------------------+-------------+-------------+
| op |                           name |           v |          mx |
+----+--------------------------------+-------------+-------------+
| +I |                              a |           1 |           1 |
| +I |                              a |           3 |           3 |
| +I |                              a |           4 |           4 |
| +I |                              b |           2 |           2 |
| +I |                              b |           6 |           6 |
| +I |                              a |           5 |           5 |
| +I |                              b |           8 |           8 |
| +I |                              a |           7 |           7 |
| +I |                              a |           9 |           9 |
| +I |                              b |          10 |          10 |
| +I |                              a |          11 |          11 |
+----+--------------------------------+-------------+-------------+
11 rows in set
+----+--------------------------------+-------------+-------------+-------------+
| op |                           name |           v |          av |          sv |
+----+--------------------------------+-------------+-------------+-------------+
| +I |                              a |           1 |           1 |           1 |
| +I |                              a |           3 |           2 |           8 |
| +I |                              a |           4 |           2 |           8 |
| +I |                              b |           2 |           2 |           2 |
| +I |                              b |           6 |           4 |           8 |
| +I |                              a |           5 |           3 |          13 |
| +I |                              b |           8 |           5 |          16 |
| +I |                              a |           7 |           4 |          20 |
| +I |                              a |           9 |           4 |          29 |
| +I |                              b |          10 |           6 |          26 |
| +I |                              a |          11 |           5 |          40 |
+----+--------------------------------+-------------+-------------+-------------+
11 rows in set
+----+--------------------------------+-------------+-------------+-------------+
| op |                           name |           v |           s |           m |
+----+--------------------------------+-------------+-------------+-------------+
| +I |                              a |           1 |           1 |           1 |
| +I |                              a |           3 |           4 |           1 |
| +I |                              a |           4 |           8 |           1 |
| +I |                              b |           2 |           2 |           2 |
| +I |                              b |           6 |           8 |           2 |
| +I |                              a |           5 |          12 |           3 |
| +I |                              b |           8 |          16 |           2 |
| +I |                              a |           7 |          16 |           4 |
| +I |                              a |           9 |          21 |           5 |
| +I |                              b |          10 |          24 |           6 |
| +I |                              a |          11 |          27 |           7 |
+----+--------------------------------+-------------+-------------+-------------+
11 rows in set
+----+--------------------------------+-------------+-------------------------+----------------------+
| op |                           name |           v |                      ts |                   rn |
+----+--------------------------------+-------------+-------------------------+----------------------+
| +I |                              a |           1 | 1970-01-01 00:00:01.000 |                    1 |
| +I |                              b |           2 | 1970-01-01 00:00:03.000 |                    1 |
| -U |                              a |           1 | 1970-01-01 00:00:01.000 |                    1 |
| +U |                              a |           3 | 1970-01-01 00:00:02.000 |                    1 |
| +I |                              a |           1 | 1970-01-01 00:00:01.000 |                    2 |
| -U |                              a |           3 | 1970-01-01 00:00:02.000 |                    1 |
| +U |                              a |           4 | 1970-01-01 00:00:02.000 |                    1 |
| -U |                              a |           1 | 1970-01-01 00:00:01.000 |                    2 |
| +U |                              a |           3 | 1970-01-01 00:00:02.000 |                    2 |
| -U |                              a |           4 | 1970-01-01 00:00:02.000 |                    1 |
| +U |                              a |           5 | 1970-01-01 00:00:05.000 |                    1 |
| -U |                              a |           3 | 1970-01-01 00:00:02.000 |                    2 |
| +U |                              a |           4 | 1970-01-01 00:00:02.000 |                    2 |
| -U |                              b |           2 | 1970-01-01 00:00:03.000 |                    1 |
| +U |                              b |           6 | 1970-01-01 00:00:04.000 |                    1 |
| +I |                              b |           2 | 1970-01-01 00:00:03.000 |                    2 |
| -U |                              a |           5 | 1970-01-01 00:00:05.000 |                    1 |
| +U |                              a |           7 | 1970-01-01 00:00:07.000 |                    1 |
| -U |                              a |           4 | 1970-01-01 00:00:02.000 |                    2 |
| +U |                              a |           5 | 1970-01-01 00:00:05.000 |                    2 |
| -U |                              b |           6 | 1970-01-01 00:00:04.000 |                    1 |
| +U |                              b |           8 | 1970-01-01 00:00:06.500 |                    1 |
| -U |                              b |           2 | 1970-01-01 00:00:03.000 |                    2 |
| +U |                              b |           6 | 1970-01-01 00:00:04.000 |                    2 |
| -U |                              a |           7 | 1970-01-01 00:00:07.000 |                    1 |
| +U |                              a |           9 | 1970-01-01 00:00:09.000 |                    1 |
| -U |                              a |           5 | 1970-01-01 00:00:05.000 |                    2 |
| +U |                              a |           7 | 1970-01-01 00:00:07.000 |                    2 |
| -U |                              b |           8 | 1970-01-01 00:00:06.500 |                    1 |
| +U |                              b |          10 | 1970-01-01 00:00:09.000 |                    1 |
| -U |                              b |           6 | 1970-01-01 00:00:04.000 |                    2 |
| +U |                              b |           8 | 1970-01-01 00:00:06.500 |                    2 |
| -U |                              a |           9 | 1970-01-01 00:00:09.000 |                    1 |
| +U |                              a |          11 | 1970-01-01 00:00:12.000 |                    1 |
| -U |                              a |           7 | 1970-01-01 00:00:07.000 |                    2 |
| +U |                              a |           9 | 1970-01-01 00:00:09.000 |                    2 |
+----+--------------------------------+-------------+-------------------------+----------------------+
36 rows in set
+----+--------------------------------+-------------+-------------------------+
| op |                           name |           v |                      ts |
+----+--------------------------------+-------------+-------------------------+
| +I |                              a |           1 | 1970-01-01 00:00:01.000 |
| +I |                              b |           2 | 1970-01-01 00:00:03.000 |
+----+--------------------------------+-------------+-------------------------+
2 rows in set
+----+--------------------------------+-------------+
| op |                           name |           v |
+----+--------------------------------+-------------+
| +I |                              a |           1 |
| +I |                              b |           2 |
| -U |                              a |           1 |
| +U |                              a |           3 |
| -U |                              a |           3 |
| +U |                              a |           4 |
| -U |                              a |           4 |
| +U |                              a |           5 |
| -U |                              b |           2 |
| +U |                              b |           6 |
| -U |                              a |           5 |
| +U |                              a |           7 |
| -U |                              b |           6 |
| +U |                              b |           8 |
| -U |                              a |           7 |
| +U |                              a |           9 |
| -U |                              b |           8 |
| +U |                              b |          10 |
| -U |                              a |           9 |
| +U |                              a |          11 |
+----+--------------------------------+-------------+
20 rows in set
+----+-------------+--------------------------------+----------------------+
| op |           v |                           name |                   rn |
+----+-------------+--------------------------------+----------------------+
| +I |           1 |                              a |                    1 |
| -U |           1 |                              a |                    1 |
| +U |           2 |                              b |                    1 |
| +I |           1 |                              a |                    2 |
| -U |           2 |                              b |                    1 |
| +U |           3 |                              a |                    1 |
| -U |           1 |                              a |                    2 |
| +U |           2 |                              b |                    2 |
| +I |           1 |                              a |                    3 |
| -U |           3 |                              a |                    1 |
| +U |           4 |                              a |                    1 |
| -U |           2 |                              b |                    2 |
| +U |           3 |                              a |                    2 |
| -U |           1 |                              a |                    3 |
| +U |           2 |                              b |                    3 |
| -U |           4 |                              a |                    1 |
| +U |           5 |                              a |                    1 |
| -U |           3 |                              a |                    2 |
| +U |           4 |                              a |                    2 |
| -U |           2 |                              b |                    3 |
| +U |           3 |                              a |                    3 |
| -U |           5 |                              a |                    1 |
| +U |           6 |                              b |                    1 |
| -U |           4 |                              a |                    2 |
| +U |           5 |                              a |                    2 |
| -U |           3 |                              a |                    3 |
| +U |           4 |                              a |                    3 |
| -U |           6 |                              b |                    1 |
| +U |           7 |                              a |                    1 |
| -U |           5 |                              a |                    2 |
| +U |           6 |                              b |                    2 |
| -U |           4 |                              a |                    3 |
| +U |           5 |                              a |                    3 |
| -U |           7 |                              a |                    1 |
| +U |           8 |                              b |                    1 |
| -U |           6 |                              b |                    2 |
| +U |           7 |                              a |                    2 |
| -U |           5 |                              a |                    3 |
| +U |           6 |                              b |                    3 |
| -U |           8 |                              b |                    1 |
| +U |           9 |                              a |                    1 |
| -U |           7 |                              a |                    2 |
| +U |           8 |                              b |                    2 |
| -U |           6 |                              b |                    3 |
| +U |           7 |                              a |                    3 |
| -U |           9 |                              a |                    1 |
| +U |          10 |                              b |                    1 |
| -U |           8 |                              b |                    2 |
| +U |           9 |                              a |                    2 |
| -U |           7 |                              a |                    3 |
| +U |           8 |                              b |                    3 |
| -U |          10 |                              b |                    1 |
| +U |          11 |                              a |                    1 |
| -U |           9 |                              a |                    2 |
| +U |          10 |                              b |                    2 |
| -U |           8 |                              b |                    3 |
| +U |           9 |                              a |                    3 |
+----+-------------+--------------------------------+----------------------+
57 rows in set
"""


def test_over_aggregates_top_n_and_deduplication_print_what_pyflink_prints(
    capfd: pytest.CaptureFixture[str],
) -> None:
    program()
    assert capfd.readouterr().out == PYFLINK


def window_top_n_program() -> None:
    from millstream.common import Types
    from millstream.common.time import Instant
    from millstream.datastream import StreamExecutionEnvironment
    from millstream.table import DataTypes, Schema, StreamTableEnvironment

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    t_env = StreamTableEnvironment.create(env)
    bids = [
        (1000, "A", 4),
        (2000, "B", 2),
        (3000, "C", 5),
        (4000, "A", 1),
        (6000, "C", 3),
        (7000, "B", 6),
        (8000, "A", 2),
        (9000, "D", 7),
        (12000, "B", 1),
    ]
    ds = env.from_collection(
        [(Instant.of_epoch_milli(t), s, p) for t, s, p in bids],
        type_info=Types.ROW_NAMED(["t", "supplier", "price"], [Types.INSTANT(), Types.STRING(), Types.INT()]),
    )
    t_env.create_temporary_view(
        "bid",
        t_env.from_data_stream(
            ds,
            Schema.new_builder()
            .column_by_expression("ts", "CAST(t AS TIMESTAMP(3))")
            .column("supplier", DataTypes.STRING())
            .column("price", DataTypes.INT())
            .watermark("ts", "ts - INTERVAL '1' SECOND")
            .build(),
        ),
    )
    t_env.execute_sql("""SELECT * FROM (
      SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rownum
      FROM (SELECT window_start, window_end, supplier, SUM(price) AS price, COUNT(*) AS cnt
            FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, supplier)
    ) WHERE rownum <= 2""").print()
    t_env.execute_sql("""SELECT window_start, supplier, price FROM (
      SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price ASC) AS rownum
      FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '5' SECOND))
    ) WHERE rownum <= 1""").print()


# PyFlink 2.3.0 (parallelism 1), 2026-11-24: window Top-N over a window aggregate and over a
# window TVF, each window ranked once when it ends (insert-only)
PYFLINK_WINDOW_TOP_N = """\
+----+-------------------------+-------------------------+--------------------------------+-------------+----------------------+----------------------+
| op |            window_start |              window_end |                       supplier |       price |                  cnt |               rownum |
+----+-------------------------+-------------------------+--------------------------------+-------------+----------------------+----------------------+
| +I | 1970-01-01 00:00:00.000 | 1970-01-01 00:00:05.000 |                              A |           5 |                    2 |                    1 |
| +I | 1970-01-01 00:00:00.000 | 1970-01-01 00:00:05.000 |                              C |           5 |                    1 |                    2 |
| +I | 1970-01-01 00:00:05.000 | 1970-01-01 00:00:10.000 |                              D |           7 |                    1 |                    1 |
| +I | 1970-01-01 00:00:05.000 | 1970-01-01 00:00:10.000 |                              B |           6 |                    1 |                    2 |
| +I | 1970-01-01 00:00:10.000 | 1970-01-01 00:00:15.000 |                              B |           1 |                    1 |                    1 |
+----+-------------------------+-------------------------+--------------------------------+-------------+----------------------+----------------------+
5 rows in set
+----+-------------------------+--------------------------------+-------------+
| op |            window_start |                       supplier |       price |
+----+-------------------------+--------------------------------+-------------+
| +I | 1970-01-01 00:00:00.000 |                              A |           1 |
| +I | 1970-01-01 00:00:05.000 |                              A |           2 |
| +I | 1970-01-01 00:00:10.000 |                              B |           1 |
+----+-------------------------+--------------------------------+-------------+
3 rows in set
"""


def test_window_top_n_prints_what_pyflink_prints(capfd: pytest.CaptureFixture[str]) -> None:
    window_top_n_program()
    assert capfd.readouterr().out == PYFLINK_WINDOW_TOP_N


TOP_N_OVER_UPDATES = """
SELECT region, item, total{rank} FROM (
  SELECT region, item, total, ROW_NUMBER() OVER (PARTITION BY region ORDER BY total DESC) AS rn
  FROM (SELECT region, item, SUM(amount) AS total FROM sales GROUP BY region, item))
WHERE rn <= 2"""

# PyFlink 2.3.0, 2026-11-24: Top-N over a GROUP BY's updates (Flink's RetractableTopNFunction;
# SUM of amounts that may be negative is not monotonic, so not the updatable variant), with and
# without the row number
PYFLINK_TOP_N_OVER_UPDATES = """\
+----+--------------------------------+--------------------------------+----------------------+----------------------+
| op |                         region |                           item |                total |                   rn |
+----+--------------------------------+--------------------------------+----------------------+----------------------+
| +I |                              n |                              a |                    5 |                    1 |
| +I |                              n |                              b |                    3 |                    2 |
| +I |                              s |                              c |                    4 |                    1 |
| -U |                              n |                              b |                    3 |                    2 |
| +U |                              n |                              c |                    4 |                    2 |
| -U |                              n |                              a |                    5 |                    1 |
| +U |                              n |                              b |                    7 |                    1 |
| -U |                              n |                              c |                    4 |                    2 |
| +U |                              n |                              a |                    5 |                    2 |
| +I |                              s |                              d |                    1 |                    2 |
| -U |                              n |                              a |                    5 |                    2 |
| +U |                              n |                              c |                    4 |                    2 |
| -D |                              s |                              d |                    1 |                    2 |
| -U |                              s |                              c |                    4 |                    1 |
| +U |                              s |                              d |                   10 |                    1 |
| +I |                              s |                              c |                    4 |                    2 |
+----+--------------------------------+--------------------------------+----------------------+----------------------+
16 rows in set
+----+--------------------------------+--------------------------------+----------------------+
| op |                         region |                           item |                total |
+----+--------------------------------+--------------------------------+----------------------+
| +I |                              n |                              a |                    5 |
| +I |                              n |                              b |                    3 |
| +I |                              s |                              c |                    4 |
| -D |                              n |                              b |                    3 |
| +I |                              n |                              c |                    4 |
| -D |                              n |                              c |                    4 |
| +I |                              n |                              b |                    7 |
| +I |                              s |                              d |                    1 |
| -D |                              n |                              a |                    5 |
| +I |                              n |                              c |                    4 |
| -D |                              s |                              d |                    1 |
| +I |                              s |                              d |                   10 |
+----+--------------------------------+--------------------------------+----------------------+
12 rows in set
"""


def test_top_n_over_an_updating_input_prints_what_pyflink_prints(capsys: pytest.CaptureFixture[str]) -> None:
    from millstream.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    rows = [("n", "a", 5), ("n", "b", 3), ("s", "c", 4), ("n", "c", 4), ("n", "b", 4), ("s", "d", 1),
            ("n", "a", -3), ("s", "d", 9)]  # fmt: skip
    t_env.create_temporary_view("sales", t_env.from_elements(rows, ["region", "item", "amount"]))
    t_env.execute_sql(TOP_N_OVER_UPDATES.format(rank=", rn")).print()
    t_env.execute_sql(TOP_N_OVER_UPDATES.format(rank="")).print()
    assert capsys.readouterr().out == PYFLINK_TOP_N_OVER_UPDATES


def test_an_over_aggregate_reused_in_two_queries_reads_its_own_column_in_each() -> None:
    """The Table API expression ``v.sum.over(w)`` used in two over-window queries: each plan's
    projection reads the column its own over aggregation computes, and the user's expression
    is left unchanged. Before, planning set the column on the expression object itself, so the
    second query's plan renamed it under the first one's."""
    from millstream.table import EnvironmentSettings, TableEnvironment
    from millstream.table.expressions import col, row_interval
    from millstream.table.window import Over

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql(
        "CREATE TABLE c (k STRING, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ("
        "'connector' = 'datagen', 'number-of-rows' = '8', 'fields.v.kind' = 'sequence', "
        "'fields.v.start' = '1', 'fields.v.end' = '8', 'fields.k.length' = '1')"
    )
    table = t_env.from_path("c")
    total = col("v").sum.over(col("w"))
    window = Over.partition_by(col("k")).order_by(col("ts")).preceding(row_interval(1)).alias("w")
    first = table.over_window(window).select(col("v"), total.alias("s"))
    second = table.select(col("k"), col("ts"), col("v") * 10).alias("k", "ts", "v")
    second = second.over_window(window).select(col("v"), col("v").count.over(col("w")), total.alias("s"))
    assert not hasattr(total, "slot")
    assert first._plan.names == ["v", "s"] and second._plan.names == ["v", "EXPR$1", "s"]
    for plan in (first._plan, second._plan):  # each reads the sum its own aggregation computes
        assert plan.expressions[-1].operand.name in plan.input.names
