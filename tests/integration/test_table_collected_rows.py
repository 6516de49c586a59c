# ruff: noqa: E501 - PyFlink's printed output is pasted as it is
"""Rows collected from a TableResult (``execute_sql(...).collect()``, ``Table.execute().collect()``)
and ``to_pandas`` / ``from_pandas``, against PyFlink 2.3.0 running the same program
(``pyflink`` in the imports, ``parallelism.default`` 1): PyFlink's ``CloseableIterator`` builds
each row as ``Row(*fields)`` with its RowKind and no field names, nested ROW values too, so a
ported program that prints collected rows prints ``<Row(...)>``; ``to_pandas`` applies an
updating table's changes and types the columns through Arrow; ``from_pandas`` keeps the
DataFrame's column order."""

from __future__ import annotations

import datetime
import decimal

import pandas as pd
import pytest

from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.expressions import col, row

VIEW = """CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES
  (TIMESTAMP '2024-01-01 10:00:00', 'alice', 6, CAST(420.37 AS DOUBLE)),
  (TIMESTAMP '2024-01-01 10:05:00', 'bob', 2, CAST(1.5 AS DOUBLE))) AS t(window_start, user_name, cnt, total)"""


@pytest.fixture
def t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(VIEW)
    return t_env


def test_collected_rows_print_and_behave_as_pyflinks(t_env: TableEnvironment, capsys) -> None:
    with t_env.execute_sql("SELECT * FROM v").collect() as results:
        for r in results:
            print(r)
            print(repr(r), r[0], r[1], r.get_row_kind(), len(r), list(r))
            with pytest.raises(AttributeError):
                _ = r.user_name  # PyFlink 2.3.0: AttributeError (the row has no names)
            with pytest.raises(TypeError, match="Cannot convert a Row class into dict"):
                r.as_dict()
    t = t_env.from_path("v")
    with t.execute().collect() as results:
        for r in results:
            print("exec", r)
    grouped = t_env.sql_query("SELECT user_name, SUM(cnt) AS s FROM v GROUP BY user_name")
    with grouped.execute().collect() as results:
        for r in results:
            print("agg", r, r.get_row_kind())
    nested = t.select(row(col("user_name"), col("cnt")).alias("nested"), col("cnt"))
    with nested.execute().collect() as results:
        for r in results:
            print("nested", r, repr(r[0]))
    batch = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    print("batch", list(batch.from_elements([(1, "a")], ["x", "y"]).execute().collect()))
    # PyFlink 2.3.0, the same program
    assert capsys.readouterr().out == (
        "<Row(datetime.datetime(2024, 1, 1, 10, 0), 'alice', 6, 420.37)>\n"
        "<Row(datetime.datetime(2024, 1, 1, 10, 0), 'alice', 6, 420.37)> 2024-01-01 10:00:00 alice +I 4 "
        "[datetime.datetime(2024, 1, 1, 10, 0), 'alice', 6, 420.37]\n"
        "<Row(datetime.datetime(2024, 1, 1, 10, 5), 'bob', 2, 1.5)>\n"
        "<Row(datetime.datetime(2024, 1, 1, 10, 5), 'bob', 2, 1.5)> 2024-01-01 10:05:00 bob +I 4 "
        "[datetime.datetime(2024, 1, 1, 10, 5), 'bob', 2, 1.5]\n"
        "exec <Row(datetime.datetime(2024, 1, 1, 10, 0), 'alice', 6, 420.37)>\n"
        "exec <Row(datetime.datetime(2024, 1, 1, 10, 5), 'bob', 2, 1.5)>\n"
        "agg <Row('alice', 6)> +I\n"
        "agg <Row('bob', 2)> +I\n"
        "nested <Row(<Row('alice', 6)>, 6)> <Row('alice', 6)>\n"
        "nested <Row(<Row('bob', 2)>, 2)> <Row('bob', 2)>\n"
        "batch [<Row(1, 'a')>]\n"
    )


def test_to_pandas_applies_the_changes_and_types_columns_as_pyflink(capsys) -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t = t_env.from_elements([(1, "a", 1.5), (2, "b", 2.5), (3, "a", 3.0)], ["id", "name", "v"])
    grouped = t.group_by(col("name")).select(col("name"), col("v").sum.alias("s"), col("id").count.alias("c"))
    frame = grouped.to_pandas()
    print(frame)
    print(frame.dtypes.tolist())
    typed = t_env.from_elements(
        [
            (
                1,
                "a",
                1.5,
                datetime.datetime(2024, 1, 1, 1, 2, 3, 456000),
                decimal.Decimal("1.25"),
                True,
                datetime.date(2024, 1, 2),
            )
        ],
        DataTypes.ROW(
            [
                DataTypes.FIELD("i", DataTypes.INT()),
                DataTypes.FIELD("s", DataTypes.STRING()),
                DataTypes.FIELD("f", DataTypes.FLOAT()),
                DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3)),
                DataTypes.FIELD("d", DataTypes.DECIMAL(10, 2)),
                DataTypes.FIELD("b", DataTypes.BOOLEAN()),
                DataTypes.FIELD("dt", DataTypes.DATE()),
            ]
        ),
    ).to_pandas()
    print(typed)
    print(typed.dtypes.tolist())
    print(repr(typed.iloc[0].tolist()))
    # PyFlink 2.3.0, the same program: the -U of group a removed its first row, so b comes first
    assert capsys.readouterr().out == (
        "  name    s  c\n"
        "0    b  2.5  1\n"
        "1    a  4.5  2\n"
        "[dtype('O'), dtype('float64'), dtype('int64')]\n"
        "   i  s    f                      ts     d     b          dt\n"
        "0  1  a  1.5 2024-01-01 01:02:03.456  1.25  True  2024-01-02\n"
        "[dtype('int32'), dtype('O'), dtype('float32'), dtype('<M8[ms]'), dtype('O'), dtype('bool'), dtype('O')]\n"
        "[np.int32(1), 'a', np.float32(1.5), Timestamp('2024-01-01 01:02:03.456000'), Decimal('1.25'), "
        "np.True_, datetime.date(2024, 1, 2)]\n"
    )


def test_from_pandas_keeps_the_frames_column_order(capsys) -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    df = pd.DataFrame({"z": [1, 2], "a": ["x", "y"], "m": [0.5, 1.5]})
    t_env.from_pandas(df).print_schema()
    t_env.from_pandas(df, ["c1", "c2", "c3"]).print_schema()
    schema = DataTypes.ROW(
        [
            DataTypes.FIELD("q", DataTypes.BIGINT()),
            DataTypes.FIELD("r", DataTypes.STRING()),
            DataTypes.FIELD("s", DataTypes.DOUBLE()),
        ]
    )
    t_env.from_pandas(df, schema).execute().print()
    # PyFlink 2.3.0, the same program
    assert capsys.readouterr().out == (
        "(\n  `z` BIGINT,\n  `a` STRING,\n  `m` DOUBLE\n)\n"
        "(\n  `c1` BIGINT,\n  `c2` STRING,\n  `c3` DOUBLE\n)\n"
        "+----+----------------------+--------------------------------+--------------------------------+\n"
        "| op |                    q |                              r |                              s |\n"
        "+----+----------------------+--------------------------------+--------------------------------+\n"
        "| +I |                    1 |                              x |                            0.5 |\n"
        "| +I |                    2 |                              y |                            1.5 |\n"
        "+----+----------------------+--------------------------------+--------------------------------+\n"
        "2 rows in set\n"
    )


NUMBER_TOTAL = DataTypes.ROW(
    [DataTypes.FIELD("number", DataTypes.BIGINT()), DataTypes.FIELD("total", DataTypes.BIGINT())]
)


def test_named_rows_and_dicts_reach_their_columns_by_name_as_on_pyflink(capsys) -> None:
    from millstream.common import Row
    from millstream.table.udf import AggregateFunction, udaf, udf

    class CountSum(AggregateFunction):
        def create_accumulator(self):
            return [0, 0]

        def accumulate(self, acc, a):
            acc[0] += 1
            acc[1] += a

        def get_value(self, acc):
            return Row(total=acc[1], number=acc[0])

        def get_result_type(self):
            return NUMBER_TOTAL

        def get_accumulator_type(self):
            return DataTypes.ARRAY(DataTypes.BIGINT())

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t = t_env.from_elements([(1, "x"), (2, "x"), (5, "y")], ["a", "k"])
    count_sum = udaf(CountSum())
    t.group_by(col("k")).aggregate(count_sum(col("a")).alias("number", "total")).select(
        col("k"), col("number"), col("total")
    ).execute().print()
    ten = udf(lambda a: Row(total=a * 10, number=a), result_type=NUMBER_TOTAL)
    t.select(ten(col("a")).alias("r")).select(col("r").get("number"), col("r").get("total")).execute().print()
    t_env.from_elements([{"total": 140, "number": 2}, {"total": 1}], NUMBER_TOTAL).execute().print()
    t_env.from_elements([Row(total=140, number=2)], NUMBER_TOTAL).execute().print()
    t_env.from_elements([{"total": 140, "number": 2}]).execute().print()
    # PyFlink 2.3.0, the same program: a function's named Row result and a dict or named Row
    # element are read by the ROW type's field names (Row(total=.., number=..) is not reordered
    # by position); a dict's columns, with no schema, are its keys sorted
    table = (
        "+----+----------------------+----------------------+\n"
        "| op |               number |                total |\n"
        "+----+----------------------+----------------------+\n"
        "| +I |                    2 |                  140 |\n"
        "+----+----------------------+----------------------+\n"
        "1 row in set\n"
    )
    assert capsys.readouterr().out == (
        "+----+--------------------------------+----------------------+----------------------+\n"
        "| op |                              k |               number |                total |\n"
        "+----+--------------------------------+----------------------+----------------------+\n"
        "| +I |                              x |                    2 |                    3 |\n"
        "| +I |                              y |                    1 |                    5 |\n"
        "+----+--------------------------------+----------------------+----------------------+\n"
        "2 rows in set\n"
        "+----+----------------------+----------------------+\n"
        "| op |             r$number |              r$total |\n"
        "+----+----------------------+----------------------+\n"
        "| +I |                    1 |                   10 |\n"
        "| +I |                    2 |                   20 |\n"
        "| +I |                    5 |                   50 |\n"
        "+----+----------------------+----------------------+\n"
        "3 rows in set\n"
        "+----+----------------------+----------------------+\n"
        "| op |               number |                total |\n"
        "+----+----------------------+----------------------+\n"
        "| +I |                    2 |                  140 |\n"
        "| +I |               <NULL> |                    1 |\n"
        "+----+----------------------+----------------------+\n"
        "2 rows in set\n" + table + table
    )


def test_a_named_row_without_the_schemas_field_is_refused() -> None:
    from millstream.common import Row

    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    # PyFlink 2.3.0: ValueError: number
    with pytest.raises(ValueError, match=r"has no field 'number' of the schema's \['number', 'total'\]"):
        t_env.from_elements([Row(total=140, other=2)], NUMBER_TOTAL)
