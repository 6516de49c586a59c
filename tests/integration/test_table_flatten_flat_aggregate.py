# ruff: noqa: E501 - PyFlink's printed tables are pasted as they are
"""``flat_aggregate(f).select(col('*'))`` (grouped and over the whole table) and the ``flatten``
expression, against PyFlink 2.3.0's output of the same programs (``pyflink`` in the imports,
``parallelism.default`` 1): the names of the columns, the rows, and a table aggregate's
emission once per key and bundle (PyFlink runs it in its Python operator)."""

from __future__ import annotations

import pytest

from millstream.common import Row
from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.expressions import col, row
from millstream.table.udf import TableAggregateFunction, udf, udtaf


class Top2(TableAggregateFunction):
    def emit_value(self, accumulator):
        yield Row(accumulator[0])
        yield Row(accumulator[1])

    def create_accumulator(self):
        return [None, None]

    def accumulate(self, accumulator, row):
        if row.a is not None:
            if accumulator[0] is None or row.a > accumulator[0]:
                accumulator[1] = accumulator[0]
                accumulator[0] = row.a
            elif accumulator[1] is None or row.a > accumulator[1]:
                accumulator[1] = row.a

    def get_accumulator_type(self):
        return DataTypes.ARRAY(DataTypes.BIGINT())

    def get_result_type(self):
        return DataTypes.ROW([DataTypes.FIELD("a", DataTypes.BIGINT())])


@udf(
    result_type=DataTypes.ROW(
        [DataTypes.FIELD("x", DataTypes.BIGINT()), DataTypes.FIELD("y", DataTypes.STRING())]
    )
)
def mk(a, b):
    return Row(a * 10, b + "!")


@udf(result_type=DataTypes.ROW([DataTypes.FIELD("p", DataTypes.STRING())]))
def up(b):
    return Row(b.upper())


def _t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    return t_env


def _table(t_env: TableEnvironment):
    return t_env.from_elements(
        [(1, "Hi", "Hello"), (3, "Hi", "hi"), (5, "Hi2", "hi"), (7, "Hi", "Hello"), (2, "Hi", "Hello")],
        ["a", "b", "c"],
    )


def flat_aggregate_program() -> None:
    t = _table(_t_env())
    top2 = udtaf(Top2())
    grouped = t.group_by(col("b")).flat_aggregate(top2).select(col("*"))
    grouped.print_schema()
    grouped.execute().print()
    whole = t.flat_aggregate(top2).select(col("*"))
    whole.print_schema()
    whole.execute().print()
    aliased = t.group_by(col("b")).flat_aggregate(top2.alias("x")).select(col("b"), col("x"))
    aliased.print_schema()


# PyFlink 2.3.0, the same program
FLAT_AGGREGATE_OUTPUT = """\
(
  `b` STRING,
  `a` BIGINT
)
+----+--------------------------------+----------------------+
| op |                              b |                    a |
+----+--------------------------------+----------------------+
| +I |                             Hi |                    7 |
| +I |                             Hi |                    3 |
| +I |                            Hi2 |                    5 |
| +I |                            Hi2 |               <NULL> |
+----+--------------------------------+----------------------+
4 rows in set
(
  `a` BIGINT
)
+----+----------------------+
| op |                    a |
+----+----------------------+
| +I |                    7 |
| +I |                    5 |
+----+----------------------+
2 rows in set
(
  `b` STRING,
  `x` BIGINT
)
"""


def test_flat_aggregate_select_star_prints_what_pyflink_prints(capsys):
    flat_aggregate_program()
    assert capsys.readouterr().out == FLAT_AGGREGATE_OUTPUT


def flatten_program() -> None:
    t_env = _t_env()
    t = _table(t_env)
    nested = t.select(row(col("a"), col("b")).alias("r"), col("c"))
    nested.print_schema()
    flat = nested.select(col("r").flatten, col("c"))
    flat.print_schema()
    flat.execute().print()
    called = t.select(mk(col("a"), col("b")).flatten)
    called.print_schema()
    called.execute().print()
    named = t.select(mk(col("a"), col("b")).alias("q")).select(
        col("q").flatten, col("q").get("x").alias("qx")
    )
    named.print_schema()
    t.map(mk(col("a"), col("b"))).select(col("*")).print_schema()
    two = t_env.from_elements([(1, "Hi"), (3, "Yo")], ["a", "b"])
    two.select(col("a"), mk(col("a"), col("b")).flatten, up(col("b")).flatten).execute().print()


# PyFlink 2.3.0, the same program
FLATTEN_OUTPUT = """\
(
  `r` ROW<`f0` BIGINT, `f1` STRING> NOT NULL,
  `c` STRING
)
(
  `r$f0` BIGINT,
  `r$f1` STRING,
  `c` STRING
)
+----+----------------------+--------------------------------+--------------------------------+
| op |                 r$f0 |                           r$f1 |                              c |
+----+----------------------+--------------------------------+--------------------------------+
| +I |                    1 |                             Hi |                          Hello |
| +I |                    3 |                             Hi |                             hi |
| +I |                    5 |                            Hi2 |                             hi |
| +I |                    7 |                             Hi |                          Hello |
| +I |                    2 |                             Hi |                          Hello |
+----+----------------------+--------------------------------+--------------------------------+
5 rows in set
(
  `_c0` BIGINT,
  `_c1` STRING
)
+----+----------------------+--------------------------------+
| op |                  _c0 |                            _c1 |
+----+----------------------+--------------------------------+
| +I |                   10 |                            Hi! |
| +I |                   30 |                            Hi! |
| +I |                   50 |                           Hi2! |
| +I |                   70 |                            Hi! |
| +I |                   20 |                            Hi! |
+----+----------------------+--------------------------------+
5 rows in set
(
  `q$x` BIGINT,
  `q$y` STRING,
  `qx` BIGINT
)
(
  `x` BIGINT,
  `y` STRING
)
+----+----------------------+----------------------+--------------------------------+--------------------------------+
| op |                    a |                  _c1 |                            _c2 |                            _c3 |
+----+----------------------+----------------------+--------------------------------+--------------------------------+
| +I |                    1 |                   10 |                            Hi! |                             HI |
| +I |                    3 |                   30 |                            Yo! |                             YO |
+----+----------------------+----------------------+--------------------------------+--------------------------------+
2 rows in set
"""


def test_flatten_prints_what_pyflink_prints(capsys):
    flatten_program()
    assert capsys.readouterr().out == FLATTEN_OUTPUT


def test_flatten_outside_a_select_list_says_where_it_belongs():
    t = _table(_t_env())
    with pytest.raises(ValueError, match="flatten makes columns of r's fields: use it in a select list"):
        t.select(row(col("a"), col("b")).alias("r")).filter(col("r").flatten.is_not_null)
