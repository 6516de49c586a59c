"""from_changelog_stream (all and upsert changelog modes), Python UDAFs with ListView / MapView
accumulators, and PyFlink's module paths, against PyFlink 2.3.0's output of the same program."""

from __future__ import annotations

import pytest

from millstream.common import Row, Types
from millstream.common.types import RowKind
from millstream.datastream import StreamExecutionEnvironment
from millstream.table import (
    AggregateFunction,
    ChangelogMode,
    DataTypes,
    ListView,
    MapView,
    Schema,
    StreamTableEnvironment,
)
from millstream.table.expressions import col
from millstream.table.udf import udaf

NAMED = Types.ROW_NAMED(["name", "score"], [Types.STRING(), Types.INT()])


class ConcatAgg(AggregateFunction):
    """Joins the strings it saw with the separator; a ListView and a MapView accumulate."""

    def get_value(self, accumulator):
        return accumulator[1].join(accumulator[0]) + "|" + ",".join(sorted(accumulator[2].keys()))

    def create_accumulator(self):
        return Row(ListView(), "", MapView())

    def accumulate(self, accumulator, *args):
        accumulator[1] = args[1]
        accumulator[0].add(args[0])
        accumulator[2].put(args[0], 1)

    def retract(self, accumulator, *args):
        raise NotImplementedError

    def get_accumulator_type(self):
        return DataTypes.ROW(
            [
                DataTypes.FIELD("f0", DataTypes.LIST_VIEW(DataTypes.STRING())),
                DataTypes.FIELD("f1", DataTypes.STRING()),
                DataTypes.FIELD("f2", DataTypes.MAP_VIEW(DataTypes.STRING(), DataTypes.BIGINT())),
            ]
        )

    def get_result_type(self):
        return DataTypes.STRING()


def program() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    t_env = StreamTableEnvironment.create(env)
    changes = [
        Row.of_kind(RowKind.INSERT, "alice", 12),
        Row.of_kind(RowKind.INSERT, "bob", 5),
        Row.of_kind(RowKind.UPDATE_BEFORE, "alice", 12),
        Row.of_kind(RowKind.UPDATE_AFTER, "alice", 100),
        Row.of_kind(RowKind.DELETE, "bob", 5),
    ]
    t_env.create_temporary_view(
        "InputTable", t_env.from_changelog_stream(env.from_collection(changes, NAMED))
    )
    t_env.execute_sql("SELECT name, SUM(score) FROM InputTable GROUP BY name").print()

    upserts = [
        Row.of_kind(RowKind.INSERT, "alice", 12),
        Row.of_kind(RowKind.INSERT, "bob", 5),
        Row.of_kind(RowKind.UPDATE_AFTER, "alice", 100),
        Row.of_kind(RowKind.UPDATE_AFTER, "alice", 100),
        Row.of_kind(RowKind.DELETE, "bob", 5),
    ]
    schema = (
        Schema.new_builder()
        .primary_key("name")
        .column("name", DataTypes.STRING().not_null())
        .column("score", DataTypes.INT())
        .build()
    )
    upsert_table = t_env.from_changelog_stream(
        env.from_collection(upserts, NAMED), schema, ChangelogMode.upsert()
    )
    t_env.create_temporary_view("UpsertTable", upsert_table)
    t_env.execute_sql("SELECT name, SUM(score) FROM UpsertTable GROUP BY name").print()

    concat = udaf(ConcatAgg())
    t = t_env.from_elements([("a", "x", 1), ("b", "y", 1), ("a", "z", 2), ("c", "x", 1)], ["s", "w", "k"])
    t.group_by(col("k")).select(col("k"), concat(col("s"), ";")).execute().print()


# PyFlink 2.3.0, 2026-11-24, the same program: a full changelog's -U/+U reach the aggregation
# (its group empties: -D, then +I); an upsert stream is normalized (a repeated row changes
# nothing) and, grouped by its primary key, the aggregation is removed (Flink's
# FlinkAggregateRemoveRule): -U/+U pass through; the udaf's string argument is a literal and
# its group aggregation emits once per key and bundle
PYFLINK_OUTPUT = """\
+----+--------------------------------+-------------+
| op |                           name |      EXPR$1 |
+----+--------------------------------+-------------+
| +I |                          alice |          12 |
| +I |                            bob |           5 |
| -D |                          alice |          12 |
| +I |                          alice |         100 |
| -D |                            bob |           5 |
+----+--------------------------------+-------------+
5 rows in set
+----+--------------------------------+-------------+
| op |                           name |      EXPR$1 |
+----+--------------------------------+-------------+
| +I |                          alice |          12 |
| +I |                            bob |           5 |
| -U |                          alice |          12 |
| +U |                          alice |         100 |
| -D |                            bob |           5 |
+----+--------------------------------+-------------+
5 rows in set
+----+----------------------+--------------------------------+
| op |                    k |                         EXPR$0 |
+----+----------------------+--------------------------------+
| +I |                    1 |                    a;b;c|a,b,c |
| +I |                    2 |                            a|a |
+----+----------------------+--------------------------------+
2 rows in set
"""


def test_changelog_streams_and_data_view_udafs_print_what_pyflink_prints(capsys):
    program()
    assert capsys.readouterr().out == PYFLINK_OUTPUT


def test_changelog_modes_are_checked():
    env = StreamExecutionEnvironment.get_execution_environment()
    t_env = StreamTableEnvironment.create(env)
    stream = env.from_collection([Row.of_kind(RowKind.INSERT, "a", 1)], NAMED)
    with pytest.raises(ValueError, match="upsert changelog mode need a primary key"):
        t_env.from_changelog_stream(stream, None, ChangelogMode.upsert())
    inserts = t_env.from_changelog_stream(stream, None, ChangelogMode.insert_only())
    assert not inserts._plan.updating
    grouped = t_env.from_changelog_stream(stream).group_by(col("name")).select(col("name"), col("score").sum)
    with pytest.raises(ValueError, match="insert_only"):
        t_env.to_changelog_stream(grouped, None, ChangelogMode.insert_only())


def test_upsert_changelog_out_leaves_out_update_befores():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    t_env = StreamTableEnvironment.create(env)
    t = t_env.from_elements([("a", 1), ("a", 2), ("b", 3)], ["k", "v"])
    summed = t.group_by(col("k")).select(col("k"), col("v").sum.alias("s"))
    rows = list(t_env.to_changelog_stream(summed, None, ChangelogMode.upsert()).execute_and_collect())
    assert [(str(r.get_row_kind()), tuple(r)) for r in rows] == [
        ("+I", ("a", 1)),
        ("+U", ("a", 3)),
        ("+I", ("b", 3)),
    ]


def test_pyflink_module_paths_import():
    from millstream.table.changelog_mode import ChangelogMode as A
    from millstream.table.data_view import ListView as B
    from millstream.table.environment_settings import EnvironmentSettings
    from millstream.table.explain_detail import ExplainDetail
    from millstream.table.expression import Expression
    from millstream.table.result_kind import ResultKind
    from millstream.table.sql_dialect import SqlDialect
    from millstream.table.statement_set import StatementSet
    from millstream.table.table_config import TableConfig
    from millstream.table.table_schema import TableSchema

    assert A is ChangelogMode and B is ListView
    assert EnvironmentSettings.in_batch_mode() is not None and ExplainDetail.CHANGELOG_MODE
    assert Expression and ResultKind.SUCCESS and SqlDialect.DEFAULT == 0 and StatementSet and TableConfig
    assert TableSchema
