# ruff: noqa: E501 - PyFlink's printed tables and plans are pasted as they ran
"""Event-time temporal joins (``sql/temporal_join.py`` -> ``planner/temporal_joins.py`` ->
``runtime/temporal_join.py``) against PyFlink 2.3.0.

Every statement below ran on PyFlink 2.3.0 in streaming mode at parallelism 1 over the same
files: ``orders`` (a CSV table), ``rates`` (a filesystem table of debezium-json changes with a
primary key: inserts, updates and a delete), ``rates_history`` (the same versions as an
insert-only CSV log, one of them late: EUR 115 at 10:00:03 after the 10:00:10 version) with a
deduplicating view ``versioned_rates`` over it, and ``rates_pk`` (that log with a primary key).
Both sides' watermarks lag 15 seconds, so no timer fires before the end of the input: the
result is each order with the version valid at its time (PyFlink's rows then come out in the
same order on every run). The expected text is what ``TableResult.print()`` printed, or the
message of the error it raised; each TemporalJoin line is the one of its
``explain_sql(...)`` "Optimized Execution Plan". The rows of different keys come out in the
order their timers fire, which both engines derive from the arrival of the rows: the tests
compare each key's rows in order and the keys as a set.

What the watermark does while rows arrive (rows held until it passes, versions cleaned as it
passes, late rows) is checked on the operator itself, with Flink's
``TemporalRowTimeJoinOperator`` semantics, below.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from millstream.datastream import StreamExecutionEnvironment
from millstream.table import EnvironmentSettings, ExplainDetail, TableEnvironment
from millstream.table.common.factories import DynamicTableFactory, TableContext, register_table_factory
from millstream.table.common.table_source import TableSource
from millstream.table.runtime.temporal_join import TemporalRowTimeJoinFunction
from millstream.testing.operator_harness import OperatorHarness

ORDERS = """\
o1,EUR,2,2024-01-01 10:00:01
o2,USD,1,2024-01-01 10:00:02
o3,EUR,3,2024-01-01 10:00:05
o4,JPY,4,2024-01-01 10:00:06
o5,EUR,5,2024-01-01 10:00:11
o6,USD,6,2024-01-01 10:00:12
o7,GBP,7,2024-01-01 10:00:13
o8,USD,8,2024-01-01 09:59:59
o9,EUR,9,2024-01-01 10:00:04
"""
RATES_CHANGES = """\
{"before":null,"after":{"currency":"EUR","rate":114,"update_time":"2024-01-01 10:00:00"},"op":"c"}
{"before":null,"after":{"currency":"USD","rate":100,"update_time":"2024-01-01 10:00:00"},"op":"c"}
{"before":null,"after":{"currency":"GBP","rate":130,"update_time":"2024-01-01 10:00:00"},"op":"c"}
{"before":{"currency":"EUR","rate":114,"update_time":"2024-01-01 10:00:00"},"after":{"currency":"EUR","rate":116,"update_time":"2024-01-01 10:00:05"},"op":"u"}
{"before":{"currency":"EUR","rate":116,"update_time":"2024-01-01 10:00:05"},"after":{"currency":"EUR","rate":119,"update_time":"2024-01-01 10:00:10"},"op":"u"}
{"before":{"currency":"USD","rate":100,"update_time":"2024-01-01 10:00:00"},"after":{"currency":"USD","rate":102,"update_time":"2024-01-01 10:00:12"},"op":"u"}
{"before":{"currency":"GBP","rate":130,"update_time":"2024-01-01 10:00:00"},"after":null,"op":"d"}
{"before":null,"after":{"currency":"JPY","rate":1,"update_time":"2024-01-01 10:00:07"},"op":"c"}
"""
RATES_LOG = """\
EUR,114,2024-01-01 10:00:00
USD,100,2024-01-01 10:00:00
EUR,116,2024-01-01 10:00:05
EUR,119,2024-01-01 10:00:10
USD,102,2024-01-01 10:00:12
JPY,1,2024-01-01 10:00:07
EUR,115,2024-01-01 10:00:03
"""
_LAG = "INTERVAL '15' SECOND"


def _environment(tmp_path: Path, batch: bool = False) -> TableEnvironment:
    (tmp_path / "orders.csv").write_text(ORDERS)
    (tmp_path / "rates.json").write_text(RATES_CHANGES)
    (tmp_path / "rates.csv").write_text(RATES_LOG)
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "1")
    for statement in [
        f"""CREATE TABLE orders (order_id STRING, currency STRING, amount INT, order_time TIMESTAMP(3),
            WATERMARK FOR order_time AS order_time - {_LAG})
            WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/orders.csv', 'format' = 'csv')""",
        f"""CREATE TABLE rates (currency STRING, rate INT, update_time TIMESTAMP(3),
            WATERMARK FOR update_time AS update_time - {_LAG}, PRIMARY KEY (currency) NOT ENFORCED)
            WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/rates.json', 'format' = 'debezium-json')""",
        f"""CREATE TABLE rates_history (currency STRING, rate INT, update_time TIMESTAMP(3),
            WATERMARK FOR update_time AS update_time - {_LAG})
            WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/rates.csv', 'format' = 'csv')""",
        f"""CREATE TABLE rates_pk (currency STRING, rate INT, update_time TIMESTAMP(3),
            WATERMARK FOR update_time AS update_time - {_LAG}, PRIMARY KEY (currency) NOT ENFORCED)
            WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/rates.csv', 'format' = 'csv')""",
        "CREATE TABLE generated_rates (currency STRING, rate INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3')",
        """CREATE TABLE generated_keyed_rates (currency STRING NOT NULL, rate INT, PRIMARY KEY (currency) NOT ENFORCED)
            WITH ('connector' = 'datagen', 'number-of-rows' = '3')""",
        """CREATE VIEW versioned_rates AS SELECT currency, rate, update_time FROM (
            SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY update_time DESC) AS rownum
            FROM rates_history) WHERE rownum = 1""",
    ]:
        t_env.execute_sql(statement)
    return t_env


@pytest.fixture(scope="module")
def t_env(tmp_path_factory: pytest.TempPathFactory) -> TableEnvironment:
    return _environment(tmp_path_factory.mktemp("temporal"))


_SELECT = "SELECT o.order_id, o.currency, o.amount, o.order_time, r.rate, r.update_time FROM orders AS o "
_HEADER = """\
+----+--------------------------------+--------------------------------+-------------+-------------------------+-------------+-------------------------+
| op |                       order_id |                       currency |      amount |              order_time |        rate |             update_time |
+----+--------------------------------+--------------------------------+-------------+-------------------------+-------------+-------------------------+
"""
_FOOTER = "+----+--------------------------------+--------------------------------+-------------+-------------------------+-------------+-------------------------+\n"
_INNER_JOIN = "TemporalJoin(joinType=[InnerJoin], where=[((currency = currency0) AND __TEMPORAL_JOIN_CONDITION(order_time, update_time, __TEMPORAL_JOIN_CONDITION_PRIMARY_KEY(currency0), __TEMPORAL_JOIN_LEFT_KEY(currency), __TEMPORAL_JOIN_RIGHT_KEY(currency0)))], select=[order_id, currency, amount, order_time, currency0, rate, update_time])"

_INNER_SQL = _SELECT + "JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency"
CASES = [
    pytest.param(
        _INNER_SQL,
        _INNER_JOIN,
        _HEADER
        + """\
| +I |                             o2 |                            USD |           1 | 2024-01-01 10:00:02.000 |         100 | 2024-01-01 10:00:00.000 |
| +I |                             o6 |                            USD |           6 | 2024-01-01 10:00:12.000 |         102 | 2024-01-01 10:00:12.000 |
| +I |                             o1 |                            EUR |           2 | 2024-01-01 10:00:01.000 |         114 | 2024-01-01 10:00:00.000 |
| +I |                             o3 |                            EUR |           3 | 2024-01-01 10:00:05.000 |         116 | 2024-01-01 10:00:05.000 |
| +I |                             o5 |                            EUR |           5 | 2024-01-01 10:00:11.000 |         119 | 2024-01-01 10:00:10.000 |
| +I |                             o9 |                            EUR |           9 | 2024-01-01 10:00:04.000 |         114 | 2024-01-01 10:00:00.000 |
"""
        + _FOOTER
        + "6 rows in set\n",
        id="inner-changelog-source",
    ),
    pytest.param(
        _SELECT + "LEFT JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency",
        "TemporalJoin(joinType=[LeftOuterJoin], where=[((currency = currency0) AND __TEMPORAL_JOIN_CONDITION(order_time, update_time, __TEMPORAL_JOIN_CONDITION_PRIMARY_KEY(currency0), __TEMPORAL_JOIN_LEFT_KEY(currency), __TEMPORAL_JOIN_RIGHT_KEY(currency0)))], select=[order_id, currency, amount, order_time, currency0, rate, update_time])",
        _HEADER
        + """\
| +I |                             o2 |                            USD |           1 | 2024-01-01 10:00:02.000 |         100 | 2024-01-01 10:00:00.000 |
| +I |                             o6 |                            USD |           6 | 2024-01-01 10:00:12.000 |         102 | 2024-01-01 10:00:12.000 |
| +I |                             o8 |                            USD |           8 | 2024-01-01 09:59:59.000 |      <NULL> |                  <NULL> |
| +I |                             o1 |                            EUR |           2 | 2024-01-01 10:00:01.000 |         114 | 2024-01-01 10:00:00.000 |
| +I |                             o3 |                            EUR |           3 | 2024-01-01 10:00:05.000 |         116 | 2024-01-01 10:00:05.000 |
| +I |                             o5 |                            EUR |           5 | 2024-01-01 10:00:11.000 |         119 | 2024-01-01 10:00:10.000 |
| +I |                             o9 |                            EUR |           9 | 2024-01-01 10:00:04.000 |         114 | 2024-01-01 10:00:00.000 |
| +I |                             o7 |                            GBP |           7 | 2024-01-01 10:00:13.000 |      <NULL> |                  <NULL> |
| +I |                             o4 |                            JPY |           4 | 2024-01-01 10:00:06.000 |      <NULL> |                  <NULL> |
"""
        + _FOOTER
        + "9 rows in set\n",
        id="left-changelog-source-delete",
    ),
    pytest.param(
        _SELECT + "JOIN rates_pk FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency",
        _INNER_JOIN,
        _HEADER
        + """\
| +I |                             o2 |                            USD |           1 | 2024-01-01 10:00:02.000 |         100 | 2024-01-01 10:00:00.000 |
| +I |                             o6 |                            USD |           6 | 2024-01-01 10:00:12.000 |         102 | 2024-01-01 10:00:12.000 |
| +I |                             o1 |                            EUR |           2 | 2024-01-01 10:00:01.000 |         114 | 2024-01-01 10:00:00.000 |
| +I |                             o3 |                            EUR |           3 | 2024-01-01 10:00:05.000 |         116 | 2024-01-01 10:00:05.000 |
| +I |                             o5 |                            EUR |           5 | 2024-01-01 10:00:11.000 |         119 | 2024-01-01 10:00:10.000 |
| +I |                             o9 |                            EUR |           9 | 2024-01-01 10:00:04.000 |         115 | 2024-01-01 10:00:03.000 |
"""
        + _FOOTER
        + "6 rows in set\n",
        id="insert-only-table-with-key-late-version",
    ),
    pytest.param(
        _SELECT + "JOIN versioned_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency",
        _INNER_JOIN,
        _HEADER
        + """\
| +I |                             o2 |                            USD |           1 | 2024-01-01 10:00:02.000 |         100 | 2024-01-01 10:00:00.000 |
| +I |                             o6 |                            USD |           6 | 2024-01-01 10:00:12.000 |         102 | 2024-01-01 10:00:12.000 |
| +I |                             o1 |                            EUR |           2 | 2024-01-01 10:00:01.000 |         114 | 2024-01-01 10:00:00.000 |
| +I |                             o3 |                            EUR |           3 | 2024-01-01 10:00:05.000 |         116 | 2024-01-01 10:00:05.000 |
| +I |                             o5 |                            EUR |           5 | 2024-01-01 10:00:11.000 |         119 | 2024-01-01 10:00:10.000 |
| +I |                             o9 |                            EUR |           9 | 2024-01-01 10:00:04.000 |         114 | 2024-01-01 10:00:00.000 |
"""
        + _FOOTER
        + "6 rows in set\n",
        id="deduplicated-view",  # the late 115 never leaves the deduplication: o9 keeps 114
    ),
    pytest.param(
        _SELECT
        + "LEFT JOIN versioned_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency AND r.rate < 116 AND o.amount > 1",
        "TemporalJoin(joinType=[LeftOuterJoin], where=[((currency = currency0) AND (rate < 116) AND (amount > 1) AND __TEMPORAL_JOIN_CONDITION(order_time, update_time, __TEMPORAL_JOIN_CONDITION_PRIMARY_KEY(currency0), __TEMPORAL_JOIN_LEFT_KEY(currency), __TEMPORAL_JOIN_RIGHT_KEY(currency0)))], select=[order_id, currency, amount, order_time, currency0, rate, update_time])",
        _HEADER
        + """\
| +I |                             o2 |                            USD |           1 | 2024-01-01 10:00:02.000 |      <NULL> |                  <NULL> |
| +I |                             o6 |                            USD |           6 | 2024-01-01 10:00:12.000 |         102 | 2024-01-01 10:00:12.000 |
| +I |                             o8 |                            USD |           8 | 2024-01-01 09:59:59.000 |      <NULL> |                  <NULL> |
| +I |                             o1 |                            EUR |           2 | 2024-01-01 10:00:01.000 |         114 | 2024-01-01 10:00:00.000 |
| +I |                             o3 |                            EUR |           3 | 2024-01-01 10:00:05.000 |      <NULL> |                  <NULL> |
| +I |                             o5 |                            EUR |           5 | 2024-01-01 10:00:11.000 |      <NULL> |                  <NULL> |
| +I |                             o9 |                            EUR |           9 | 2024-01-01 10:00:04.000 |         114 | 2024-01-01 10:00:00.000 |
| +I |                             o4 |                            JPY |           4 | 2024-01-01 10:00:06.000 |      <NULL> |                  <NULL> |
| +I |                             o7 |                            GBP |           7 | 2024-01-01 10:00:13.000 |      <NULL> |                  <NULL> |
"""
        + _FOOTER
        + "9 rows in set\n",
        id="left-deduplicated-view-condition",  # the condition on the version valid then: no fallback to an older one
    ),
    pytest.param(
        "SELECT o.order_id, r.currency, r.rate FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON UPPER(o.currency) = r.currency",
        "TemporalJoin(joinType=[InnerJoin], where=[(($f4 = currency) AND __TEMPORAL_JOIN_CONDITION(order_time, update_time, __TEMPORAL_JOIN_CONDITION_PRIMARY_KEY(currency), __TEMPORAL_JOIN_LEFT_KEY($f4), __TEMPORAL_JOIN_RIGHT_KEY(currency)))], select=[order_id, order_time, $f4, currency, rate, update_time])",
        """\
+----+--------------------------------+--------------------------------+-------------+
| op |                       order_id |                       currency |        rate |
+----+--------------------------------+--------------------------------+-------------+
| +I |                             o2 |                            USD |         100 |
| +I |                             o6 |                            USD |         102 |
| +I |                             o1 |                            EUR |         114 |
| +I |                             o3 |                            EUR |         116 |
| +I |                             o5 |                            EUR |         119 |
| +I |                             o9 |                            EUR |         114 |
+----+--------------------------------+--------------------------------+-------------+
6 rows in set
""",
        id="computed-key",
    ),
    pytest.param(
        "SELECT r.currency, COUNT(*) AS n, SUM(o.amount * r.rate) AS total FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency GROUP BY r.currency",
        "TemporalJoin(joinType=[InnerJoin], where=[((currency = currency0) AND __TEMPORAL_JOIN_CONDITION(order_time, update_time, __TEMPORAL_JOIN_CONDITION_PRIMARY_KEY(currency0), __TEMPORAL_JOIN_LEFT_KEY(currency), __TEMPORAL_JOIN_RIGHT_KEY(currency0)))], select=[currency, amount, order_time, currency0, rate, update_time])",
        """\
+----+--------------------------------+----------------------+-------------+
| op |                       currency |                    n |       total |
+----+--------------------------------+----------------------+-------------+
| +I |                            USD |                    1 |         100 |
| -U |                            USD |                    1 |         100 |
| +U |                            USD |                    2 |         712 |
| +I |                            EUR |                    1 |         228 |
| -U |                            EUR |                    1 |         228 |
| +U |                            EUR |                    2 |         576 |
| -U |                            EUR |                    2 |         576 |
| +U |                            EUR |                    3 |        1171 |
| -U |                            EUR |                    3 |        1171 |
| +U |                            EUR |                    4 |        2197 |
+----+--------------------------------+----------------------+-------------+
10 rows in set
""",
        id="aggregated",
    ),
]


def _by_key(printed: str) -> tuple[list[str], dict[str, list[str]]]:
    """The lines of a printed table but its rows, and its rows by currency, in order."""
    lines = printed.splitlines()
    header = lines[1].split("|")
    column = next(i for i, name in enumerate(header) if name.strip() == "currency")
    frame = [line for line in lines if not line.startswith("| +") and not line.startswith("| -")]
    rows: dict[str, list[str]] = {}
    for line in lines:
        if line.startswith(("| +", "| -")):
            rows.setdefault(line.split("|")[column].strip(), []).append(line)
    return frame, rows


@pytest.mark.parametrize(("sql", "join", "expected"), CASES)
def test_temporal_join_gives_pyflinks_rows_and_plan(
    t_env: TableEnvironment, sql: str, join: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = t_env.explain_sql(sql).split("== Optimized Execution Plan ==")[1]
    assert join in [line.strip().lstrip(":+- ") for line in plan.splitlines()]
    capsys.readouterr()
    t_env.execute_sql(sql).print()
    assert _by_key(capsys.readouterr().out) == _by_key(expected)


def test_the_versioned_side_drops_update_befores_below_its_watermark_assigner(
    t_env: TableEnvironment,
) -> None:
    """PyFlink 2.3.0's execution plan of the inner join on ``rates`` (debezium-json)."""
    plan = t_env.explain_sql(_INNER_SQL).split("== Optimized Execution Plan ==")[1].strip()
    assert (
        plan.splitlines()[2:]
        == [
            "   :- Exchange(distribution=[hash[currency]])",
            "   :  +- WatermarkAssigner(rowtime=[order_time], watermark=[(order_time - 15000:INTERVAL SECOND)], columnar=[arrow])",
            "   :     +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[order_id, currency, amount, order_time], columnar=[arrow])",
            "   +- Exchange(distribution=[hash[currency]])",
            "      +- WatermarkAssigner(rowtime=[update_time], watermark=[(update_time - 15000:INTERVAL SECOND)])",
            "         +- DropUpdateBefore",
            "            +- TableSourceScan(table=[[default_catalog, default_database, rates]], fields=[currency, rate, update_time])",
        ]
    )  # PyFlink 2.3.0 prints the same lines (its watermark as ``-(order_time, 15000:INTERVAL SECOND)``, no columnar marks)
    physical = t_env.explain_sql(_INNER_SQL, ExplainDetail.CHANGELOG_MODE).split(
        "== Optimized Physical Plan =="
    )[1]
    assert "         +- DropUpdateBefore(changelogMode=[I,UA,D])" in physical.splitlines()


REFUSED = [
    # (statement, the message PyFlink 2.3.0 raised)
    (
        _SELECT + "JOIN rates_history FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency",
        "Temporal Table Join requires primary key in versioned table, but no primary key can be found.",
    ),
    (
        _SELECT + "JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.amount < r.rate",
        "Currently the join key in Temporal Table Join can not be empty.",
    ),
    (
        "SELECT o.order_id, r.rate FROM orders AS o, rates FOR SYSTEM_TIME AS OF o.order_time AS r WHERE o.currency = r.currency",
        "Currently the join key in Temporal Table Join can not be empty.",
    ),
    (
        _SELECT + "JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON r.currency = 'EUR'",
        "Currently the join key in Temporal Table Join can not be empty.",
    ),
    (
        "SELECT o.order_id, r.currency, r.rate FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.amount = r.rate",
        "Temporal table's primary key [currency] must be included in the equivalence condition of temporal join, but current temporal join condition is [amount=rate].",
    ),
    (
        _SELECT + "RIGHT JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency",
        "Unknown join type RIGHT",
    ),
    (
        _SELECT + "FULL JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency",
        "Unknown join type FULL",
    ),
    (
        _SELECT + "JOIN rates FOR SYSTEM_TIME AS OF o.amount AS r ON o.currency = r.currency",
        "The system time period specification expects Timestamp type but is 'INTEGER'",  # after "From line 1, column 128 to line 1, column 135: "
    ),
    (
        _SELECT
        + "JOIN rates FOR SYSTEM_TIME AS OF o.order_time + INTERVAL '1' SECOND AS r ON o.currency = r.currency",
        "Temporal table join currently only supports 'FOR SYSTEM_TIME AS OF' left table's time attribute field",
    ),
    (
        "SELECT o.order_id, r.rate FROM (SELECT order_id, currency, CAST(order_time AS TIMESTAMP(3)) AS t FROM orders) AS o JOIN rates FOR SYSTEM_TIME AS OF o.t AS r ON o.currency = r.currency",
        "Temporal table join currently only supports 'FOR SYSTEM_TIME AS OF' left table's time attribute field",
    ),
    (
        # a processing-time temporal join against a table that is no lookup table
        "SELECT o.order_id, r.rate FROM (SELECT *, PROCTIME() AS pt FROM orders) AS o JOIN versioned_rates FOR SYSTEM_TIME AS OF o.pt AS r ON o.currency = r.currency",
        "Processing-time temporal join is not supported yet.",
    ),
    (
        "SELECT o.order_id, r.rate FROM (SELECT *, PROCTIME() AS pt FROM orders) AS o JOIN generated_rates FOR SYSTEM_TIME AS OF o.pt AS r ON o.currency = r.currency",
        "Temporal Table Join requires primary key in versioned table, but no primary key can be found.",
    ),
    (
        "SELECT o.order_id, r.rate FROM (SELECT *, PROCTIME() AS pt FROM orders) AS o JOIN generated_keyed_rates FOR SYSTEM_TIME AS OF o.pt AS r ON o.currency = r.currency",
        "Processing-time temporal join is not supported yet.",
    ),
    (
        _SELECT
        + "JOIN rates FOR SYSTEM_TIME AS OF TIMESTAMP '2024-01-01 10:00:00' AS r ON o.currency = r.currency",
        "getTable(ObjectPath, long) is not implemented for class org.apache.flink.table.catalog.GenericInMemoryCatalog",
    ),
]


@pytest.mark.parametrize(("sql", "message"), REFUSED)
def test_refusals_carry_pyflinks_message_on_one_line(t_env: TableEnvironment, sql: str, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        t_env.explain_sql(sql)
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


def test_a_versioned_table_without_rowtime_is_refused(tmp_path: Path) -> None:
    """PyFlink 2.3.0 on ``rates`` declared without its watermark: "Event-Time Temporal Table Join
    requires both primary key and row time attribute in versioned table, but no row time
    attribute can be found."."""
    t_env = _environment(tmp_path)
    t_env.execute_sql(
        f"""CREATE TABLE rates_no_time (currency STRING, rate INT, update_time TIMESTAMP(3),
            PRIMARY KEY (currency) NOT ENFORCED)
            WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/rates.csv', 'format' = 'csv')"""
    )
    with pytest.raises(
        ValueError, match=r"^Event-Time Temporal Table Join requires both primary key and row time attribute"
    ):
        t_env.explain_sql(
            _SELECT + "JOIN rates_no_time FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency"
        )


def test_batch_mode_refuses_an_event_time_temporal_join(tmp_path: Path) -> None:
    """PyFlink 2.3.0 in batch mode fails to plan it: "unexpected correlate variable $cor0 in the plan"."""
    t_env = _environment(tmp_path, batch=True)
    with pytest.raises(ValueError, match=r"an event-time temporal join\) is not supported in batch mode"):
        t_env.execute_sql(_INNER_SQL)


def test_the_spark_target_refuses_a_temporal_join_in_one_line(tmp_path: Path) -> None:
    t_env = _environment(tmp_path)
    t_env.get_config().set("execution.target", "spark")
    with pytest.raises(
        ValueError,
        match=r"^A temporal join \(FOR SYSTEM_TIME AS OF a rowtime attribute\) cannot run on --target spark",
    ):
        t_env.execute_sql(_INNER_SQL).collect()


# -- the operator: the watermark, late rows, state, snapshot and restore ------------------------------------

_BASE = datetime.datetime(2024, 1, 1, 10, 0, 0)
LEFT, RIGHT = 0, 1


def _at(seconds: int) -> datetime.datetime:
    return _BASE + datetime.timedelta(seconds=seconds)


def _ms(seconds: int) -> int:
    return int((_at(seconds) - datetime.datetime(1970, 1, 1)).total_seconds() * 1000)


def _harness(outer: bool = False, **kwargs: Any) -> OperatorHarness:
    """The operator over (side, kind, row): left rows (id, currency, time), right rows
    (currency, rate, time), keyed by currency."""
    function = TemporalRowTimeJoinFunction(outer, (3, 3), None, (2, 2), ("TIMESTAMP", "TIMESTAMP"))
    stream = (
        StreamExecutionEnvironment()
        .from_collection([])
        .key_by(lambda v: (v[2][1] if v[0] == LEFT else v[2][0],))
    )
    return OperatorHarness.of(stream.process(function), **kwargs)


def _order(harness: OperatorHarness, order_id: str, seconds: int, currency: str = "EUR") -> None:
    harness.process_element((LEFT, "+I", (order_id, currency, _at(seconds))))


def _rate(harness: OperatorHarness, rate: int, seconds: int, kind: str = "+I", currency: str = "EUR") -> None:
    harness.process_element((RIGHT, kind, (currency, rate, _at(seconds))))


def _joined(harness: OperatorHarness) -> list[tuple[str, int | None]]:
    return [(row[0], row[4]) for _, row in harness.values()]


def test_rows_wait_for_the_watermark_and_leave_in_arrival_order() -> None:
    h = _harness()
    _rate(h, 114, 0)
    _order(h, "a", 5)
    _order(h, "b", 1)
    _rate(h, 116, 4)
    h.process_watermark(_ms(3))  # b's time passed: joined with the version valid at 1 s
    assert _joined(h) == [("b", 114)]
    h.process_watermark(_ms(5))  # a's: the version of 4 s, which came after a
    assert _joined(h) == [("a", 116)]


def test_versions_are_cleaned_as_the_watermark_passes_keeping_the_latest_before_it() -> None:
    """As Flink's TemporalRowTimeJoinOperator: at each timer the versions older than the newest
    one at or before the watermark go; a late order then finds only what is kept."""
    h = _harness(outer=True)
    for rate, seconds in [(114, 0), (116, 5), (119, 10)]:
        _rate(h, rate, seconds)
    _order(h, "a", 7)
    h.process_watermark(_ms(8))
    assert _joined(h) == [("a", 116)]
    _order(h, "late", 2)  # behind the watermark: 114 is gone
    _order(h, "late-but-kept", 6)
    h.process_watermark(_ms(9))
    assert _joined(h) == [("late", None), ("late-but-kept", 116)]


def test_a_late_version_still_serves_the_orders_after_it() -> None:
    h = _harness()
    _rate(h, 114, 0)
    _rate(h, 119, 10)
    h.process_watermark(_ms(2))
    _rate(h, 115, 3)  # behind the watermark of the key's versions: kept all the same
    _order(h, "a", 4)
    h.process_watermark(_ms(5))
    assert _joined(h) == [("a", 115)]


def test_a_deleted_version_joins_nothing_and_update_befores_are_ignored() -> None:
    h = _harness(outer=True)
    _rate(h, 130, 0, currency="GBP")
    _rate(h, 130, 0, kind="-U", currency="GBP")  # never replaces the version it retracts
    _order(h, "a", 1, currency="GBP")
    _rate(h, 130, 2, kind="-D", currency="GBP")
    _order(h, "b", 3, currency="GBP")
    h.process_watermark(_ms(4))
    assert _joined(h) == [("a", 130), ("b", None)]


def test_a_snapshot_restores_the_waiting_rows_and_the_versions() -> None:
    first = _harness()
    _rate(first, 114, 0)
    _order(first, "a", 2)
    _rate(first, 116, 1)
    snapshot = first.snapshot()
    first.close()
    second = _harness(restored_state=snapshot)
    _order(second, "b", 3)
    second.process_watermark(_ms(5))
    assert _joined(second) == [("a", 116), ("b", 116)]


# -- an upsert source as the versioned table -------------------------------------------------------------

_UPSERTS = [  # as upsert-kafka reads them: the new row of a key, a tombstone (the key alone)
    ("+I", ("EUR", 114, _at(0))),
    ("+I", ("USD", 100, _at(0))),
    ("+I", ("GBP", 130, _at(0))),
    ("+U", ("EUR", 116, _at(5))),
    ("+U", ("EUR", 119, _at(10))),
    ("+U", ("USD", 102, _at(12))),
    ("-D", ("GBP", None, None)),
    ("+I", ("JPY", 1, _at(7))),
]


@dataclass(frozen=True)
class _UpsertRates(TableSource):
    def produce(self, env: Any, watermarks: Any) -> Any:
        return env.from_collection(list(_UPSERTS))


class _UpsertFactory(DynamicTableFactory):
    identifier = "test-upsert-rates"

    def create_source(self, context: TableContext) -> TableSource:
        names = [n for n, _ in context.physical]
        types = [t for _, t in context.physical]
        return _UpsertRates(names, types, "upsert", [names.index(k) for k in context.primary_key])


def test_an_upsert_source_is_a_versioned_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An upsert source (``upsert-kafka``'s changelog: the new row of a key, a tombstone with
    the key alone) normalized by its key (Flink's ChangelogNormalize, which gives the tombstone
    the row it deletes, so GBP's version of 10:00:00 is a delete) joins as the debezium-json
    changelog of the same versions: PyFlink 2.3.0's rows of the LEFT join above."""
    register_table_factory(_UpsertFactory())
    t_env = _environment(tmp_path)
    t_env.execute_sql(
        f"""CREATE TABLE upsert_rates (currency STRING, rate INT, update_time TIMESTAMP(3),
            WATERMARK FOR update_time AS update_time - {_LAG}, PRIMARY KEY (currency) NOT ENFORCED)
            WITH ('connector' = 'test-upsert-rates')"""
    )
    sql = (
        _SELECT + "LEFT JOIN upsert_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency"
    )
    capsys.readouterr()
    t_env.execute_sql(sql).print()
    assert _by_key(capsys.readouterr().out) == _by_key(CASES[1].values[2])  # type: ignore[arg-type]


def test_a_canal_json_changelog_is_a_versioned_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PyFlink 2.3.0 printed this table for the same statements (an insert and an update of
    EUR in canal-json)."""
    (tmp_path / "canal.json").write_text(
        '{"data":[{"currency":"EUR","rate":114,"update_time":"2024-01-01 10:00:00"}],"old":null,"type":"INSERT"}\n'
        '{"data":[{"currency":"EUR","rate":116,"update_time":"2024-01-01 10:00:05"}],'
        '"old":[{"rate":114,"update_time":"2024-01-01 10:00:00"}],"type":"UPDATE"}\n'
    )
    t_env = _environment(tmp_path)
    t_env.execute_sql(
        f"""CREATE TABLE canal_rates (currency STRING, rate INT, update_time TIMESTAMP(3),
            WATERMARK FOR update_time AS update_time - {_LAG}, PRIMARY KEY (currency) NOT ENFORCED)
            WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/canal.json', 'format' = 'canal-json')"""
    )
    capsys.readouterr()
    t_env.execute_sql(
        "SELECT o.order_id, o.order_time, r.rate FROM orders AS o "
        "JOIN canal_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency"
    ).print()
    assert capsys.readouterr().out == (
        """\
+----+--------------------------------+-------------------------+-------------+
| op |                       order_id |              order_time |        rate |
+----+--------------------------------+-------------------------+-------------+
| +I |                             o1 | 2024-01-01 10:00:01.000 |         114 |
| +I |                             o3 | 2024-01-01 10:00:05.000 |         116 |
| +I |                             o5 | 2024-01-01 10:00:11.000 |         116 |
| +I |                             o9 | 2024-01-01 10:00:04.000 |         114 |
+----+--------------------------------+-------------------------+-------------+
4 rows in set
"""
    )
