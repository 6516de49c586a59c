"""Python aggregate functions (``udaf``) called from SQL, with ``FILTER (WHERE ...)`` too, in a
group aggregation and a window aggregation. The expected tables are what PyFlink 2.3.0 printed
for the same programs (imports swapped to pyflink, parallelism 1, 2026-11-27); before this, a
UDAF in SQL failed with "is an aggregate: use it in group_by(...).select(...)"."""

from __future__ import annotations

from pathlib import Path

import pytest

from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.udf import AggregateFunction, udaf

pytestmark = pytest.mark.timeout(300)


class WeightedAvg(AggregateFunction):
    def create_accumulator(self):  # type: ignore[no-untyped-def]
        return [0, 0]

    def get_value(self, acc):  # type: ignore[no-untyped-def]
        return None if acc[1] == 0 else acc[0] / acc[1]

    def accumulate(self, acc, value, weight):  # type: ignore[no-untyped-def]
        acc[0] += value * weight
        acc[1] += weight

    def retract(self, acc, value, weight):  # type: ignore[no-untyped-def]
        acc[0] -= value * weight
        acc[1] -= weight

    def merge(self, acc, accs):  # type: ignore[no-untyped-def]
        for other in accs:
            acc[0] += other[0]
            acc[1] += other[1]

    def get_result_type(self):  # type: ignore[no-untyped-def]
        return DataTypes.DOUBLE()

    def get_accumulator_type(self):  # type: ignore[no-untyped-def]
        return DataTypes.ARRAY(DataTypes.BIGINT())


def _environment() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.create_temporary_function("wavg", udaf(WeightedAvg()))
    return t_env


GROUPED = """\
+----+--------------------------------+--------------------------------+----------------------+
| op |                              k |                              a |                    c |
+----+--------------------------------+--------------------------------+----------------------+
| +I |                              a |             1.6666666666666667 |                    2 |
| +I |                              b |                            2.5 |                    2 |
+----+--------------------------------+--------------------------------+----------------------+
2 rows in set
+----+--------------------------------+----------------------+
| op |                             fa |               EXPR$1 |
+----+--------------------------------+----------------------+
| +I |             1.6666666666666667 |                    4 |
+----+--------------------------------+----------------------+
1 row in set
"""


def test_a_udaf_in_a_group_aggregation_with_and_without_filter(capsys: pytest.CaptureFixture[str]) -> None:
    t_env = _environment()
    rows = [("a", 1, 2), ("b", 2, 3), ("a", 3, 1), ("b", 4, 1)]
    t_env.create_temporary_view("src", t_env.from_elements(rows, ["k", "v", "w"]))
    t_env.execute_sql("SELECT k, wavg(v, w) AS a, COUNT(*) AS c FROM src GROUP BY k").print()
    t_env.execute_sql("SELECT wavg(v, w) FILTER (WHERE k = 'a') AS fa, MAX(v) FROM src").print()
    assert capsys.readouterr().out == GROUPED


WINDOWED = """\
+----+--------------------------------+-------------------------+--------------------------------+--------------------------------+----------------------+
| op |                              k |            window_start |                              a |                              b |                    c |
+----+--------------------------------+-------------------------+--------------------------------+--------------------------------+----------------------+
| +I |                             k0 | 2024-01-01 00:00:00.000 |                            2.4 |                          2.875 |                    5 |
| +I |                             k1 | 2024-01-01 00:00:00.000 |             1.4444444444444444 |                           2.75 |                    5 |
| +I |                             k0 | 2024-01-01 00:00:05.000 |              2.111111111111111 |                            3.4 |                    5 |
| +I |                             k1 | 2024-01-01 00:00:05.000 |              2.090909090909091 |              2.857142857142857 |                    5 |
| +I |                             k0 | 2024-01-01 00:00:10.000 |             1.5454545454545454 |                            2.8 |                    5 |
| +I |                             k1 | 2024-01-01 00:00:10.000 |                            2.4 |             3.2857142857142856 |                    5 |
| +I |                             k0 | 2024-01-01 00:00:15.000 |                            2.4 |                          2.875 |                    5 |
| +I |                             k1 | 2024-01-01 00:00:15.000 |             1.4444444444444444 |                           2.75 |                    5 |
+----+--------------------------------+-------------------------+--------------------------------+--------------------------------+----------------------+
8 rows in set
"""  # noqa: E501


def test_a_udaf_in_a_window_aggregation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "e.csv").write_text(
        "".join(f"k{i % 2},{i % 5},{1 + i % 3},2024-01-01 00:00:{i * 0.5:06.3f}\n" for i in range(40))
    )
    t_env = _environment()
    t_env.execute_sql(
        "CREATE TABLE ev (k STRING, v INT, w INT, ts TIMESTAMP(3), "
        "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
        f"WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/e.csv', 'format' = 'csv')"
    )
    t_env.execute_sql(
        "SELECT k, window_start, wavg(v, w) AS a, wavg(v, w) FILTER (WHERE v > 1) AS b, COUNT(*) AS c "
        "FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND)) "
        "GROUP BY k, window_start, window_end"
    ).print()
    assert capsys.readouterr().out == WINDOWED


def test_filter_follows_an_aggregate_call() -> None:
    t_env = _environment()
    t_env.create_temporary_view("src", t_env.from_elements([(1,)], ["v"]))
    with pytest.raises(ValueError, match=r"FILTER \(WHERE \.\.\.\) follows an aggregate function's call"):
        t_env.execute_sql("SELECT UPPER('x') FILTER (WHERE v > 1) FROM src")
