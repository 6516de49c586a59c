# ruff: noqa: E501 - PyFlink's printed tables and plans are pasted as they ran
"""Lookup joins (``JOIN t FOR SYSTEM_TIME AS OF o.proc_time``: ``sql/temporal_join.py`` ->
``planner/temporal_joins.py`` -> ``runtime/lookup_join.py``) against a filesystem table, the
lookup table of the common SPI (``common/lookup_source.py``) that the filesystem connector
implements as Flink's ``FileSystemLookupFunction`` (``connectors/filesystem_lookup.py``).

PyFlink 2.3.0's own filesystem connector is no lookup table (that function serves Flink's Hive
connector): the same join against its filesystem table fails with "Processing-time temporal
join is not supported yet." (with a primary key; without one, "Temporal Table Join requires
primary key in versioned table, but no primary key can be found."). The expected outputs below
are what PyFlink 2.3.0 printed for the same statements with ``side_input`` a lookup table over
the same CSV file (a ``LookupTableSource`` whose ``LookupFunction`` reads the whole file into a
cache, as ``FileSystemLookupFunction`` does), ``bid`` the same CSV table, parallelism 1: the
rows of ``TableResult.print()`` and the LookupJoin line of ``explain_sql``'s "Optimized
Execution Plan". The ``side_input`` file has Nexmark's shape (``key,value``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.lookup_source import (
    AsyncLookupFunction,
    LookupContext,
    LookupFunction,
    LookupFunctionProvider,
    LookupTableSource,
)
from millstream.table.common.types import DataTypes
from millstream.table.connectors.filesystem import FileSystemSource
from millstream.table.runtime.lookup_join import LookupJoinRunner

SIDE_INPUT = "0,zero\n1,one\n2,two\n3,three\n"
BIDS = """\
1,10,100,2024-01-01 10:00:01
2,11,200,2024-01-01 10:00:02
10001,12,300,2024-01-01 10:00:03
7,13,400,2024-01-01 10:00:04
3,14,500,2024-01-01 10:00:05
"""


def _environment(tmp_path: Path, batch: bool = False) -> TableEnvironment:
    (tmp_path / "side.csv").write_text(SIDE_INPUT)
    (tmp_path / "bids.csv").write_text(BIDS)
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(
        "CREATE TABLE side_input (`key` BIGINT, `value` STRING) "
        f"WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/side.csv', 'format' = 'csv')"
    )
    t_env.execute_sql(
        "CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3), pt AS PROCTIME()) "
        f"WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/bids.csv', 'format' = 'csv')"
    )
    return t_env


@pytest.fixture(scope="module")
def t_env(tmp_path_factory: pytest.TempPathFactory) -> TableEnvironment:
    return _environment(tmp_path_factory.mktemp("lookup"))


Q13 = "SELECT B.auction, B.bidder, B.price, B.`dateTime`, S.`value` FROM (SELECT *, PROCTIME() as p_time FROM bid) B JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S ON mod(B.auction, 10000) = S.key"
LEFT = "SELECT B.auction, B.price, S.`value` FROM bid AS B LEFT JOIN side_input FOR SYSTEM_TIME AS OF B.pt AS S ON B.auction = S.key"
Q13_JOIN = "LookupJoin(table=[default_catalog.default_database.side_input], joinType=[InnerJoin], lookup=[key=$f6], select=[auction, bidder, price, dateTime, $f6, key, value])"
LEFT_JOIN = "LookupJoin(table=[default_catalog.default_database.side_input], joinType=[LeftOuterJoin], lookup=[key=auction], select=[auction, price, key, value])"

STREAMING = [
    pytest.param(
        Q13,
        Q13_JOIN,
        """\
+----+----------------------+----------------------+----------------------+-------------------------+--------------------------------+
| op |              auction |               bidder |                price |                dateTime |                          value |
+----+----------------------+----------------------+----------------------+-------------------------+--------------------------------+
| +I |                    1 |                   10 |                  100 | 2024-01-01 10:00:01.000 |                            one |
| +I |                    2 |                   11 |                  200 | 2024-01-01 10:00:02.000 |                            two |
| +I |                10001 |                   12 |                  300 | 2024-01-01 10:00:03.000 |                            one |
| +I |                    3 |                   14 |                  500 | 2024-01-01 10:00:05.000 |                          three |
+----+----------------------+----------------------+----------------------+-------------------------+--------------------------------+
4 rows in set
""",
        id="nexmark-q13-computed-key",
    ),
    pytest.param(
        LEFT,
        LEFT_JOIN,
        """\
+----+----------------------+----------------------+--------------------------------+
| op |              auction |                price |                          value |
+----+----------------------+----------------------+--------------------------------+
| +I |                    1 |                  100 |                            one |
| +I |                    2 |                  200 |                            two |
| +I |                10001 |                  300 |                         <NULL> |
| +I |                    7 |                  400 |                         <NULL> |
| +I |                    3 |                  500 |                          three |
+----+----------------------+----------------------+--------------------------------+
5 rows in set
""",
        id="left",
    ),
    pytest.param(
        "SELECT B.auction, B.price, S.`value`, S.key FROM bid AS B JOIN side_input FOR SYSTEM_TIME AS OF B.pt AS S ON B.auction = S.key AND S.`value` <> 'two' AND B.price > 100",
        "LookupJoin(table=[default_catalog.default_database.side_input], joinType=[InnerJoin], lookup=[key=auction], where=[(value <> 'two')], select=[auction, price, key, value])",
        """\
+----+----------------------+----------------------+--------------------------------+----------------------+
| op |              auction |                price |                          value |                  key |
+----+----------------------+----------------------+--------------------------------+----------------------+
| +I |                    3 |                  500 |                          three |                    3 |
+----+----------------------+----------------------+--------------------------------+----------------------+
1 row in set
""",
        id="condition-on-the-table-and-the-input",
    ),
    pytest.param(
        "SELECT B.auction, B.price, S.`value` FROM bid AS B LEFT JOIN side_input FOR SYSTEM_TIME AS OF B.pt AS S ON B.auction = S.key AND S.`value` <> 'two' AND B.price > 100",
        "LookupJoin(table=[default_catalog.default_database.side_input], joinType=[LeftOuterJoin], lookup=[key=auction], where=[(value <> 'two')], joinCondition=[(price > 100)], select=[auction, price, key, value])",
        """\
+----+----------------------+----------------------+--------------------------------+
| op |              auction |                price |                          value |
+----+----------------------+----------------------+--------------------------------+
| +I |                    1 |                  100 |                         <NULL> |
| +I |                    2 |                  200 |                         <NULL> |
| +I |                10001 |                  300 |                         <NULL> |
| +I |                    7 |                  400 |                         <NULL> |
| +I |                    3 |                  500 |                          three |
+----+----------------------+----------------------+--------------------------------+
5 rows in set
""",
        id="left-join-condition",
    ),
    pytest.param(
        "SELECT B.auction, S.`value` FROM bid AS B JOIN side_input FOR SYSTEM_TIME AS OF B.pt AS S ON S.key = 2",
        "LookupJoin(table=[default_catalog.default_database.side_input], joinType=[InnerJoin], lookup=[key=2], where=[(key = 2)], select=[auction, value])",
        """\
+----+----------------------+--------------------------------+
| op |              auction |                          value |
+----+----------------------+--------------------------------+
| +I |                    1 |                            two |
| +I |                    2 |                            two |
| +I |                10001 |                            two |
| +I |                    7 |                            two |
| +I |                    3 |                            two |
+----+----------------------+--------------------------------+
5 rows in set
""",
        id="constant-key",
    ),
    pytest.param(
        "SELECT B.auction, S.`value` FROM bid AS B JOIN side_input FOR SYSTEM_TIME AS OF B.pt AS S ON CAST(B.auction AS INT) = S.key",
        "LookupJoin(table=[default_catalog.default_database.side_input], joinType=[InnerJoin], lookup=[key=auction0], select=[auction, auction0, key, value])",
        """\
+----+----------------------+--------------------------------+
| op |              auction |                          value |
+----+----------------------+--------------------------------+
| +I |                    1 |                            one |
| +I |                    2 |                            two |
| +I |                    3 |                          three |
+----+----------------------+--------------------------------+
3 rows in set
""",
        id="key-cast-to-the-column-type",
    ),
    pytest.param(
        "SELECT S.`value`, COUNT(*) AS bids, SUM(B.price) AS total FROM bid AS B JOIN side_input FOR SYSTEM_TIME AS OF B.pt AS S ON B.auction = S.key GROUP BY S.`value`",
        "LookupJoin(table=[default_catalog.default_database.side_input], joinType=[InnerJoin], lookup=[key=auction], select=[auction, price, key, value])",
        """\
+----+--------------------------------+----------------------+----------------------+
| op |                          value |                 bids |                total |
+----+--------------------------------+----------------------+----------------------+
| +I |                            one |                    1 |                  100 |
| +I |                            two |                    1 |                  200 |
| +I |                          three |                    1 |                  500 |
+----+--------------------------------+----------------------+----------------------+
3 rows in set
""",
        id="aggregated",
    ),
]


def _join_line(t_env: TableEnvironment, sql: str) -> str:
    plan = t_env.explain_sql(sql).split("== Optimized Execution Plan ==")[1]
    return next(line.strip().lstrip(":+- ") for line in plan.splitlines() if "LookupJoin(" in line)


@pytest.mark.parametrize(("sql", "join", "expected"), STREAMING)
def test_lookup_join_gives_pyflinks_rows_and_plan(
    t_env: TableEnvironment, sql: str, join: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _join_line(t_env, sql) == join
    capsys.readouterr()
    t_env.execute_sql(sql).print()
    assert capsys.readouterr().out == expected


def test_nexmark_q13_plans_as_pyflink(t_env: TableEnvironment) -> None:
    """The whole execution plan of q13 as PyFlink 2.3.0 printed it (with ``columnar=[arrow]``
    where millstream reads Arrow batches): the key computed below the join, no exchange."""
    plan = t_env.explain_sql(Q13).split("== Optimized Execution Plan ==")[1].strip()
    assert plan.splitlines() == [
        "Calc(select=[auction, bidder, price, dateTime, value])",
        f"+- {Q13_JOIN}",
        "   +- Calc(select=[auction, bidder, price, dateTime, CAST(MOD(auction, 10000) AS BIGINT) AS $f6], columnar=[arrow])",
        "      +- TableSourceScan(table=[[default_catalog, default_database, bid]], fields=[auction, bidder, price, dateTime], columnar=[arrow])",
    ]


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        (
            Q13,
            """\
+----------------------+----------------------+----------------------+-------------------------+--------------------------------+
|              auction |               bidder |                price |                dateTime |                          value |
+----------------------+----------------------+----------------------+-------------------------+--------------------------------+
|                    1 |                   10 |                  100 | 2024-01-01 10:00:01.000 |                            one |
|                    2 |                   11 |                  200 | 2024-01-01 10:00:02.000 |                            two |
|                10001 |                   12 |                  300 | 2024-01-01 10:00:03.000 |                            one |
|                    3 |                   14 |                  500 | 2024-01-01 10:00:05.000 |                          three |
+----------------------+----------------------+----------------------+-------------------------+--------------------------------+
4 rows in set
""",
        ),
        (
            LEFT,
            """\
+----------------------+----------------------+--------------------------------+
|              auction |                price |                          value |
+----------------------+----------------------+--------------------------------+
|                    1 |                  100 |                            one |
|                    2 |                  200 |                            two |
|                10001 |                  300 |                         <NULL> |
|                    7 |                  400 |                         <NULL> |
|                    3 |                  500 |                          three |
+----------------------+----------------------+--------------------------------+
5 rows in set
""",
        ),
    ],
    ids=["nexmark-q13", "left"],
)
def test_batch_mode_runs_a_lookup_join_as_pyflink(
    tmp_path: Path, sql: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = _environment(tmp_path, batch=True)
    assert _join_line(batch, sql) in (Q13_JOIN, LEFT_JOIN)
    capsys.readouterr()
    batch.execute_sql(sql).print()
    assert capsys.readouterr().out == expected


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        (  # PyFlink 2.3.0's message
            "SELECT B.auction, S.`value` FROM bid AS B JOIN side_input FOR SYSTEM_TIME AS OF B.pt AS S ON B.auction = S.key + 1",
            "Temporal table join requires an equality condition on fields of table [default_catalog.default_database.side_input].",
        ),
        (
            "SELECT B.auction, S.`value` FROM bid AS B JOIN side_input FOR SYSTEM_TIME AS OF B.pt AS S ON B.price > S.key",
            "Temporal table join requires an equality condition on fields of table [default_catalog.default_database.side_input].",
        ),
        (
            "SELECT B.auction, S.`value` FROM bid AS B JOIN side_input FOR SYSTEM_TIME AS OF B.`dateTime` AS S ON B.auction = S.key",
            "Temporal table join currently only supports 'FOR SYSTEM_TIME AS OF' left table's time attribute field",
        ),
        (
            "SELECT B.auction, S.`value` FROM bid AS B RIGHT JOIN side_input FOR SYSTEM_TIME AS OF B.pt AS S ON B.auction = S.key",
            "Unknown join type RIGHT",
        ),
    ],
)
def test_refusals_carry_pyflinks_message(t_env: TableEnvironment, sql: str, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        t_env.explain_sql(sql)
    assert str(refused.value) == message


def test_the_spark_target_refuses_a_lookup_join_in_one_line(tmp_path: Path) -> None:
    t_env = _environment(tmp_path)
    t_env.get_config().set("execution.target", "spark")
    with pytest.raises(
        ValueError,
        match=r"^A lookup join \(FOR SYSTEM_TIME AS OF a processing-time attribute\) cannot run on --target spark",
    ):
        t_env.execute_sql(LEFT).collect()


# -- the filesystem connector's lookup function ---------------------------------------------------------


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _filesystem_function(path: Path, options: dict[str, str]) -> Any:
    source = FileSystemSource(
        ["key", "value"],
        [DataTypes.BIGINT(), DataTypes.STRING()],
        options={"path": str(path), "format": "csv", **options},
    )
    assert isinstance(source, LookupTableSource)
    provider = source.get_lookup_runtime_provider(LookupContext(((0,),)))
    assert isinstance(provider, LookupFunctionProvider)
    return provider.function


def test_the_filesystem_lookup_reads_the_file_again_once_the_ttl_passed(tmp_path: Path) -> None:
    """As Flink's FileSystemLookupFunction: the whole table is read into the cache at the first
    lookup and again at the first lookup after ``lookup.join.cache.ttl``; in between the file's
    edits are not seen."""
    side = tmp_path / "side.csv"
    side.write_text(SIDE_INPUT)
    function = _filesystem_function(side, {"lookup.join.cache.ttl": "10 s"})
    clock = _Clock()
    function._clock = clock
    function.open(None)
    assert list(function.lookup((1,))) == [(1, "one")]
    side.write_text("1,uno\n4,four\n")
    clock.now += 9.9
    assert list(function.lookup((1,))) == [(1, "one")] and list(function.lookup((4,))) == []
    assert function.loads == 1
    clock.now += 0.1
    assert list(function.lookup((1,))) == [(1, "uno")] and list(function.lookup((4,))) == [(4, "four")]
    assert function.loads == 2


def test_the_filesystem_lookup_keeps_a_table_for_60_minutes_by_default(tmp_path: Path) -> None:
    (tmp_path / "side.csv").write_text(SIDE_INPUT)
    function = _filesystem_function(tmp_path / "side.csv", {})
    assert function._ttl_s == 3600.0
    function.open(None)
    assert list(function.lookup((9,))) == []


def test_a_changelog_file_is_folded_into_the_rows_it_leaves(tmp_path: Path) -> None:
    path = tmp_path / "side.json"
    path.write_text(
        '{"before":null,"after":{"key":1,"value":"one"},"op":"c"}\n'
        '{"before":{"key":1,"value":"one"},"after":{"key":1,"value":"uno"},"op":"u"}\n'
        '{"before":null,"after":{"key":2,"value":"two"},"op":"c"}\n'
        '{"before":{"key":2,"value":"two"},"after":null,"op":"d"}\n'
    )
    source = FileSystemSource(
        ["key", "value"],
        [DataTypes.BIGINT(), DataTypes.STRING()],
        "all",
        options={"path": str(path), "format": "debezium-json"},
    )
    function = source.get_lookup_runtime_provider(LookupContext(((0,),))).function
    function.open(None)
    assert list(function.lookup((1,))) == [(1, "uno")]
    assert list(function.lookup((2,))) == []


# -- the runner: keys, NULLs, and an asynchronous lookup function -------------------------------------------


class _Table(LookupFunction):
    def __init__(self) -> None:
        self.keys: list[tuple[Any, ...]] = []

    def lookup(self, key_row: tuple[Any, ...]) -> Collection[tuple[Any, ...]]:
        self.keys.append(key_row)
        return [(key_row[0], f"v{key_row[0]}"), (key_row[0], "again")] if key_row[0] < 3 else []


def test_a_null_key_looks_nothing_up_and_a_left_join_pads_it() -> None:
    table = _Table()
    runner = LookupJoinRunner(table, [lambda row: row[0]], (None, (0, 1), None), True, "t")
    runner.open(None)
    out, kept = runner([("+I", (1,)), ("-U", (None,)), ("+U", (5,))])
    assert out == [
        ("+I", (1, 1, "v1")),
        ("+I", (1, 1, "again")),
        ("-U", (None, None, None)),
        ("+U", (5, None, None)),
    ]
    assert kept == [0, 0, 1, 2]
    assert table.keys == [(1,), (5,)]  # no lookup of NULL


class _Slow(AsyncLookupFunction):
    """Answers the first keys last: the join must still emit in its input's order."""

    def __init__(self) -> None:
        self.running = 0
        self.most = 0

    async def async_lookup(self, key_row: tuple[Any, ...]) -> Collection[tuple[Any, ...]]:
        self.running += 1
        self.most = max(self.most, self.running)
        await asyncio.sleep(0.01 * (5 - key_row[0]))
        self.running -= 1
        return [(key_row[0], str(key_row[0]))]


def test_an_async_lookup_function_runs_a_batch_concurrently_and_keeps_its_order() -> None:
    function = _Slow()
    runner = LookupJoinRunner(function, [lambda row: row[0]], (None, (0, 1), None), False, "t")
    runner.open(None)
    try:
        out, _ = runner([("+I", (k,)) for k in range(5)])
    finally:
        runner.close()
    assert out == [("+I", (k, k, str(k))) for k in range(5)]
    assert function.most > 1  # the lookups overlapped


def test_the_proctime_the_join_ran_at_is_not_needed_after_it(t_env: TableEnvironment) -> None:
    """q13's ``p_time`` is read by the join's period only: the join's input drops it, as
    PyFlink 2.3.0's plan (``select=[auction, bidder, price, dateTime, $f6, key, value]``)."""
    assert "p_time" not in _join_line(t_env, Q13)
