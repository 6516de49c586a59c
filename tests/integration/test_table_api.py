# ruff: noqa: E501 - PyFlink's printed tables are pasted as they are
"""The Table API on the embedded runtime against PyFlink 2.3.0's output for the same program.

``PROGRAM`` ran on PyFlink 2.3.0 (``TableEnvironment`` in streaming and in batch mode,
``parallelism.default`` 1) on 2026-11-24; its printed output is pasted below unchanged.
millstream must print the same in streaming mode (row order included: one subtask); in
batch mode the rows of an aggregation have no defined order (PyFlink's came out of a hash
aggregate), so the lines are compared as multisets.
"""

from __future__ import annotations

import ast
from collections import Counter

import pytest

from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.expressions import col

pytestmark = pytest.mark.timeout(300)


def program(settings: EnvironmentSettings) -> None:
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "1")
    t = t_env.from_elements(
        [(1, "Germany", "123"), (2, "China", "135"), (3, "USA", "124"), (4, "China", "32")],
        ["id", "country", "tel"],
    )
    t.group_by(col("country")).select(
        col("country"), col("id").count, col("tel").cast(DataTypes.BIGINT()).max
    ).execute().print()
    t.select(col("country")).distinct().execute().print()
    t.limit(3).execute().print()
    t.filter((col("id") > 1) & (col("country") != "USA")).select(
        col("id"), (col("id") * 2.5).alias("x")
    ).execute().print()
    t.select(col("id").sum.alias("total"), col("id").max).execute().print()
    r = t.group_by(col("country")).select(col("country"), col("id").sum.alias("s"))
    print([(str(row.get_row_kind()), tuple(row)) for row in r.execute().collect()])


PYFLINK_STREAMING = """\
+----+--------------------------------+----------------------+----------------------+
| op |                        country |               EXPR$0 |               EXPR$1 |
+----+--------------------------------+----------------------+----------------------+
| +I |                        Germany |                    1 |                  123 |
| +I |                          China |                    1 |                  135 |
| +I |                            USA |                    1 |                  124 |
| -U |                          China |                    1 |                  135 |
| +U |                          China |                    2 |                  135 |
+----+--------------------------------+----------------------+----------------------+
5 rows in set
+----+--------------------------------+
| op |                        country |
+----+--------------------------------+
| +I |                        Germany |
| +I |                          China |
| +I |                            USA |
+----+--------------------------------+
3 rows in set
+----+----------------------+--------------------------------+--------------------------------+
| op |                   id |                        country |                            tel |
+----+----------------------+--------------------------------+--------------------------------+
| +I |                    1 |                        Germany |                            123 |
| +I |                    2 |                          China |                            135 |
| +I |                    3 |                            USA |                            124 |
+----+----------------------+--------------------------------+--------------------------------+
3 rows in set
+----+----------------------+--------------------------------+
| op |                   id |                              x |
+----+----------------------+--------------------------------+
| +I |                    2 |                            5.0 |
| +I |                    4 |                           10.0 |
+----+----------------------+--------------------------------+
2 rows in set
+----+----------------------+----------------------+
| op |                total |               EXPR$1 |
+----+----------------------+----------------------+
| +I |                    1 |                    1 |
| -U |                    1 |                    1 |
| +U |                    3 |                    2 |
| -U |                    3 |                    2 |
| +U |                    6 |                    3 |
| -U |                    6 |                    3 |
| +U |                   10 |                    4 |
+----+----------------------+----------------------+
7 rows in set
[('+I', ('Germany', 1)), ('+I', ('China', 2)), ('+I', ('USA', 3)), ('-U', ('China', 2)), ('+U', ('China', 6))]
"""

PYFLINK_BATCH = """\
+--------------------------------+----------------------+----------------------+
|                        country |               EXPR$0 |               EXPR$1 |
+--------------------------------+----------------------+----------------------+
|                        Germany |                    1 |                  123 |
|                          China |                    2 |                  135 |
|                            USA |                    1 |                  124 |
+--------------------------------+----------------------+----------------------+
3 rows in set
+--------------------------------+
|                        country |
+--------------------------------+
|                        Germany |
|                          China |
|                            USA |
+--------------------------------+
3 rows in set
+----------------------+--------------------------------+--------------------------------+
|                   id |                        country |                            tel |
+----------------------+--------------------------------+--------------------------------+
|                    1 |                        Germany |                            123 |
|                    2 |                          China |                            135 |
|                    3 |                            USA |                            124 |
+----------------------+--------------------------------+--------------------------------+
3 rows in set
+----------------------+--------------------------------+
|                   id |                              x |
+----------------------+--------------------------------+
|                    2 |                            5.0 |
|                    4 |                           10.0 |
+----------------------+--------------------------------+
2 rows in set
+----------------------+----------------------+
|                total |               EXPR$1 |
+----------------------+----------------------+
|                   10 |                    4 |
+----------------------+----------------------+
1 row in set
[('+I', ('Germany', 1)), ('+I', ('China', 6)), ('+I', ('USA', 3))]
"""


def test_streaming_mode_prints_what_pyflink_prints(capsys):
    program(EnvironmentSettings.in_streaming_mode())
    assert capsys.readouterr().out == PYFLINK_STREAMING


def test_batch_mode_prints_the_rows_pyflink_prints(capsys):
    program(EnvironmentSettings.in_batch_mode())
    out = capsys.readouterr().out
    *tables, collected = out.rstrip("\n").split("\n")
    *expected_tables, expected_collected = PYFLINK_BATCH.rstrip("\n").split("\n")
    assert Counter(tables) == Counter(expected_tables)
    assert sorted(ast.literal_eval(collected)) == sorted(ast.literal_eval(expected_collected))


PYFLINK_TWO_LEVELS = """\
+----+----------------------+----------------------+----------------------+----------------------+
| op |                    n |                 keys |                least |                total |
+----+----------------------+----------------------+----------------------+----------------------+
| +I |                    1 |                    1 |                    5 |                    5 |
| -U |                    1 |                    1 |                    5 |                    5 |
| +U |                    1 |                    2 |                    3 |                    8 |
| -U |                    1 |                    2 |                    3 |                    8 |
| +U |                    1 |                    1 |                    3 |                    3 |
| +I |                    2 |                    1 |                    5 |                    5 |
| -U |                    1 |                    1 |                    3 |                    3 |
| +U |                    1 |                    2 |                    3 |                   10 |
| -U |                    1 |                    2 |                    3 |                   10 |
| +U |                    1 |                    1 |                    7 |                    7 |
| -U |                    2 |                    1 |                    5 |                    5 |
| +U |                    2 |                    2 |                    5 |                   14 |
| -U |                    2 |                    2 |                    5 |                   14 |
| +U |                    2 |                    1 |                    9 |                    9 |
| +I |                    3 |                    1 |                    5 |                    5 |
+----+----------------------+----------------------+----------------------+----------------------+
15 rows in set
"""


def test_an_aggregation_over_an_updating_table_retracts_as_pyflink_does(capsys):
    """Keys counted per count of their rows: the second aggregation's input is a changelog
    (-U/+U from the first), so its count, MIN and SUM retract (PyFlink 2.3.0's output)."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t = t_env.from_elements(
        [(1, "a", 5), (2, "b", 3), (3, "a", 1), (4, "c", 7), (5, "b", 9), (6, "a", 2)], ["id", "k", "v"]
    )
    per_key = t.group_by(col("k")).select(col("k"), col("id").count.alias("n"), col("v").max.alias("mx"))
    per_key.group_by(col("n")).select(
        col("n"), col("k").count.alias("keys"), col("mx").min.alias("least"), col("mx").sum.alias("total")
    ).execute().print()
    assert capsys.readouterr().out == PYFLINK_TWO_LEVELS


PYFLINK_SQL = """\
+----+--------------------------------+----------------------+----------------------+----------------------+
| op |                        country |               EXPR$1 |                    s |               EXPR$3 |
+----+--------------------------------+----------------------+----------------------+----------------------+
| +I |                          China |                    1 |                    2 |                  135 |
| +I |                            USA |                    1 |                    3 |                  124 |
| -U |                          China |                    1 |                    2 |                  135 |
| +U |                          China |                    2 |                    6 |                  135 |
| -U |                            USA |                    1 |                    3 |                  124 |
| +U |                            USA |                    2 |                    8 |                  124 |
+----+--------------------------------+----------------------+----------------------+----------------------+
6 rows in set
+----+----------------------+-------------+----------------------+--------------------------------+--------+
| op |                   id |      EXPR$1 |                    y |                           size | EXPR$4 |
+----+----------------------+-------------+----------------------+--------------------------------+--------+
| +I |                    1 |           1 |                    4 |                          small |  FALSE |
| +I |                    2 |           0 |                    7 |                          small |   TRUE |
| +I |                    3 |           1 |                   10 |                            big |  FALSE |
| +I |                    4 |           0 |                   13 |                            big |  FALSE |
| +I |                    5 |           1 |                   16 |                            big |  FALSE |
+----+----------------------+-------------+----------------------+--------------------------------+--------+
5 rows in set
+----+--------------------------------+----------------------+----------------------+
| op |                        country |                    a |               EXPR$2 |
+----+--------------------------------+----------------------+----------------------+
| +U |                          China |                    1 |                    1 |
| +U |                            USA |                    4 |                    2 |
+----+--------------------------------+----------------------+----------------------+
2 rows in set
+----+--------------------------------+
| op |                        country |
+----+--------------------------------+
| +I |                        Germany |
| +I |                            USA |
| +I |                          China |
+----+--------------------------------+
3 rows in set
(
  `c` STRING,
  `n` BIGINT NOT NULL
)
"""


def test_sql_queries_print_what_pyflink_prints(capsys):
    """SELECT with WHERE, GROUP BY, HAVING, DISTINCT, CASE, CAST, IS NULL, a subquery; Flink's
    EXPR$<position> names (PyFlink 2.3.0's output)."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    rows = [
        (1, "Germany", "123", 5),
        (2, "China", "135", None),
        (3, "USA", "124", 7),
        (4, "China", "32", 1),
        (5, "USA", "9", 2),
    ]
    t_env.create_temporary_view("t", t_env.from_elements(rows, ["id", "country", "tel", "v"]))
    t_env.execute_sql(
        "SELECT country, COUNT(*), SUM(id) AS s, MAX(CAST(tel AS BIGINT)) FROM t "
        "WHERE id > 1 AND `country` <> 'Germany' GROUP BY country"
    ).print()
    t_env.execute_sql(
        "SELECT id, id % 2, id * 3 + 1 AS y, "
        "CASE WHEN id > 2 THEN 'big' ELSE 'small' END AS size, v IS NULL FROM t"
    ).print()
    t_env.execute_sql(
        "SELECT country, AVG(v) AS a, MIN(v) FROM t GROUP BY country HAVING COUNT(*) > 1"
    ).print()
    t_env.execute_sql("SELECT DISTINCT country FROM t WHERE v IS NOT NULL").print()
    t_env.sql_query("SELECT c, COUNT(*) AS n FROM (SELECT country AS c FROM t) GROUP BY c").print_schema()
    assert capsys.readouterr().out == PYFLINK_SQL


def test_unsupported_sql_is_refused_with_the_statement():
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.create_temporary_view("t", t_env.from_elements([(1, "a")], ["id", "s"]))
    with pytest.raises(ValueError, match="Sort on a non-time-attribute field is not supported"):
        t_env.sql_query("SELECT id FROM t ORDER BY s")
    # PyFlink 2.3.0 (issue 48): SQL validation failed. At line 1, column 8: Table 'x' not found
    with pytest.raises(ValueError, match=r"At line 1, column 8: Table 'x' not found$"):
        t_env.sql_query("SELECT x.id FROM t JOIN t AS u ON t.id = u.id")
    with pytest.raises(ValueError, match="SQL parse failed"):
        t_env.sql_query("SELEC id FROM t")
    # PyFlink 2.3.0: SQL validation failed. From line 1, column 16 to line 1, column 19: Object 'nope' not found
    with pytest.raises(
        ValueError, match=r"From line 1, column 16 to line 1, column 19: Object 'nope' not found$"
    ):
        t_env.sql_query("SELECT id FROM nope")


PYFLINK_UDFS = """\
+----+----------------------+----------------------+--------------------------------+
| op |                   id |                 plus |                            _c2 |
+----+----------------------+----------------------+--------------------------------+
| +I |                    1 |                   11 |                            AB! |
| +I |                    2 |                   12 |                           CDE! |
+----+----------------------+----------------------+--------------------------------+
2 rows in set
+----+----------------------+--------------------------------+
| op |                    d |                              q |
+----+----------------------+--------------------------------+
| +I |                    2 |                            ab? |
| +I |                    4 |                           cde? |
+----+----------------------+--------------------------------+
2 rows in set
"""


def test_scalar_udfs_in_select_and_map_print_what_pyflink_prints(capsys):
    """A lambda udf and a ScalarFunction in select; map with a ROW-typed udf (PyFlink 2.3.0)."""
    from millstream.common import Row
    from millstream.table.expressions import lit
    from millstream.table.udf import ScalarFunction, udf

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t = t_env.from_elements([(1, "ab", 2.5), (2, "cde", None)], ["id", "s", "x"])
    add = udf(lambda a, b: a + b, result_type=DataTypes.BIGINT())

    class Shout(ScalarFunction):
        def eval(self, s):  # type: ignore[no-untyped-def]
            return s.upper() + "!"

    shout = udf(Shout(), result_type=DataTypes.STRING())
    t.select(col("id"), add(col("id"), lit(10)).alias("plus"), shout(col("s"))).execute().print()
    row_type = DataTypes.ROW(
        [DataTypes.FIELD("d", DataTypes.BIGINT()), DataTypes.FIELD("q", DataTypes.STRING())]
    )
    t.map(udf(lambda r: Row(r.id * 2, r.s + "?"), result_type=row_type)).execute().print()
    assert capsys.readouterr().out == PYFLINK_UDFS


def test_tables_and_datastreams_convert_both_ways():
    """from_data_stream, to_changelog_stream (an aggregation's changes as Rows with their
    RowKind), to_data_stream (insert-only only, as Flink's), the datagen connector."""
    from millstream.common import Types
    from millstream.datastream import StreamExecutionEnvironment
    from millstream.table import Schema, StreamTableEnvironment, TableDescriptor

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    t_env = StreamTableEnvironment.create(env)
    ds = env.from_collection(
        [(1, "a"), (2, "b"), (3, "a")], Types.ROW_NAMED(["id", "k"], [Types.LONG(), Types.STRING()])
    )
    schema = Schema.new_builder().column("id", DataTypes.BIGINT()).column("k", DataTypes.STRING()).build()
    counts = t_env.from_data_stream(ds, schema).group_by(col("k")).select(col("k"), col("id").sum.alias("s"))
    changes = [
        (str(r.get_row_kind()), tuple(r)) for r in t_env.to_changelog_stream(counts).execute_and_collect()
    ]
    assert changes == [("+I", ("a", 1)), ("+I", ("b", 2)), ("-U", ("a", 1)), ("+U", ("a", 4))]
    with pytest.raises(ValueError, match="doesn't support consuming update and delete changes"):
        t_env.to_data_stream(counts)

    t_env.create_temporary_table(
        "numbers",
        TableDescriptor.for_connector("datagen")
        .schema(Schema.new_builder().column("n", DataTypes.BIGINT()).column("r", DataTypes.INT()).build())
        .option("fields.n.kind", "sequence")
        .option("fields.n.start", "1")
        .option("fields.n.end", "5")
        .option("fields.r.min", "10")
        .option("fields.r.max", "20")
        .build(),
    )
    rows = list(t_env.to_data_stream(t_env.from_path("numbers")).execute_and_collect())
    assert [row.n for row in rows] == [1, 2, 3, 4, 5]
    assert all(10 <= row.r <= 20 for row in rows) and rows[0].as_dict().keys() == {"n", "r"}


def test_collect_is_a_closeable_iterator_of_rows_with_kinds():
    # the rows carry no field names, as PyFlink's (tests/integration/test_table_collected_rows.py)
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t = t_env.from_elements([(i, i % 3) for i in range(1000)], ["id", "k"])
    with t.select(col("id"), col("k")).execute().collect() as rows:
        first = next(rows)  # leaving the block early releases the job
    assert len(first) == 2 and str(first.get_row_kind()) == "+I"
    totals = t.group_by(col("k")).select(col("k"), col("id").count.alias("n")).execute().collect()
    final: dict[int, int] = {}
    for row in totals:
        if str(row.get_row_kind()) in ("+I", "+U"):
            final[row[0]] = row[1]
    assert final == {0: 334, 1: 333, 2: 333}


PYFLINK_DDL = """\
OK
+I[1, 1, 1]
-U[1, 1, 1]
+U[1, 2, 3]
-U[1, 2, 3]
+U[1, 3, 6]
-U[1, 3, 6]
+U[1, 4, 10]
-U[1, 4, 10]
+U[1, 5, 15]
-U[1, 5, 15]
+U[1, 6, 21]
"""


def test_create_table_and_insert_into_print_what_pyflink_prints(capfd):
    """CREATE TABLE ... WITH (datagen / print), INSERT INTO ... SELECT ... GROUP BY: the DDL
    prints OK, the print table the aggregation's changelog (PyFlink 2.3.0's output; the print
    connector writes from the TaskManager, so the test reads the process's output)."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(
        "CREATE TABLE src (id BIGINT, grp INT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', "
        "'fields.id.start' = '1', 'fields.id.end' = '6', 'fields.grp.min' = '1', 'fields.grp.max' = '1')"
    ).print()
    t_env.execute_sql("CREATE TABLE sink_t (grp INT, n BIGINT, s BIGINT) WITH ('connector' = 'print')")
    t_env.execute_sql("INSERT INTO sink_t SELECT grp, COUNT(*), SUM(id) FROM src GROUP BY grp").wait()
    assert capfd.readouterr().out == PYFLINK_DDL
    # an unknown connector fails at CREATE TABLE, naming the ones there are (Flink's FactoryUtil)
    with pytest.raises(
        ValueError, match=r"factory for identifier 'hbase-2.2'.*available: blackhole, datagen"
    ):
        t_env.execute_sql("CREATE TABLE k (a INT) WITH ('connector' = 'hbase-2.2')")


SORT_PROGRAM = [
    "SELECT id, s FROM t ORDER BY s DESC, id LIMIT 4",
    "SELECT id, s FROM t ORDER BY s, id DESC",
    "SELECT s, COUNT(*) AS c FROM t GROUP BY s ORDER BY c DESC, s LIMIT 3",
    "SELECT id FROM t ORDER BY id LIMIT 2 OFFSET 3",
]

# PyFlink 2.3.0, batch mode, default parallelism (2 here), 2026-11-24: NULLs first ascending,
# last descending
PYFLINK_SORTED = """\
+----------------------+--------------------------------+
|                   id |                              s |
+----------------------+--------------------------------+
|                    3 |                              c |
|                    2 |                              b |
|                    6 |                              b |
|                    5 |                              a |
+----------------------+--------------------------------+
4 rows in set
+----------------------+--------------------------------+
|                   id |                              s |
+----------------------+--------------------------------+
|                    4 |                         <NULL> |
|                    1 |                         <NULL> |
|                    5 |                              a |
|                    6 |                              b |
|                    2 |                              b |
|                    3 |                              c |
+----------------------+--------------------------------+
6 rows in set
+--------------------------------+----------------------+
|                              s |                    c |
+--------------------------------+----------------------+
|                         <NULL> |                    2 |
|                              b |                    2 |
|                              a |                    1 |
+--------------------------------+----------------------+
3 rows in set
+----------------------+
|                   id |
+----------------------+
|                    4 |
|                    5 |
+----------------------+
2 rows in set
"""


@pytest.mark.parametrize("parallelism", ["1", "2"])
def test_batch_order_by_and_limit_print_what_pyflink_prints(capsys, parallelism):
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", parallelism)
    rows = [(3, "c"), (1, None), (2, "b"), (5, "a"), (4, None), (6, "b")]
    t_env.create_temporary_view("t", t_env.from_elements(rows, ["id", "s"]))
    for query in SORT_PROGRAM:
        t_env.execute_sql(query).print()
    assert capsys.readouterr().out == PYFLINK_SORTED


def test_table_api_order_by_fetch_and_offset_sort_as_sql_does():
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t = t_env.from_elements([(3, "c"), (1, None), (2, "b"), (5, "a"), (4, None), (6, "b")], ["id", "s"])
    first = t.order_by(col("s").desc, col("id")).fetch(4)
    assert [tuple(r) for r in first.execute().collect()] == [(3, "c"), (2, "b"), (6, "b"), (5, "a")]
    page = t.order_by(col("id")).offset(3).fetch(2)
    assert [tuple(r) for r in page.execute().collect()] == [(4, None), (5, "a")]
    streaming = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    with pytest.raises(ValueError, match="Sort on a non-time-attribute field"):
        streaming.from_elements([(1,)], ["id"]).order_by(col("id"))


def test_pandas_scalar_udfs_take_and_return_series():
    """``udf(func_type="pandas")``: the function gets pandas Series (of the argument types
    when ``input_types`` are given) and returns a Series; each row gets its value."""
    from millstream.table.udf import udf

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")

    def add(a, b):
        assert str(a.dtype) == "int64", a.dtype  # the declared BIGINT input type
        return a + b * 2

    plus = udf(
        add,
        input_types=[DataTypes.BIGINT(), DataTypes.BIGINT()],
        result_type=DataTypes.BIGINT(),
        func_type="pandas",
    )
    shout = udf(lambda s: s.str.upper() + "!", result_type=DataTypes.STRING(), func_type="pandas")
    t = t_env.from_elements([(1, 2, "a"), (3, 4, "bc")], ["x", "y", "s"])
    rows = [tuple(r) for r in t.select(plus(col("x"), col("y")), shout(col("s"))).execute().collect()]
    assert rows == [(5, "A!"), (11, "BC!")]
    with pytest.raises(ValueError, match="func_type must be"):
        udf(add, result_type=DataTypes.BIGINT(), func_type="arrow")


def pandas_program():
    """A batch job calling pandas UDFs from the Table API, ``map`` and SQL."""
    import pandas as pd

    from millstream.table.udf import udf

    @udf(result_type=DataTypes.BIGINT(), func_type="pandas")
    def add_one(s):
        return s + 1

    @udf(result_type=DataTypes.STRING(), func_type="pandas")
    def describe(a, b):  # the values and the Series' dtype: a NULL makes a BIGINT Series float
        return a.astype(str) + "/" + b.astype(str) + ":" + str(a.dtype)

    fields = [DataTypes.FIELD("x", DataTypes.BIGINT()), DataTypes.FIELD("y", DataTypes.STRING())]

    @udf(result_type=DataTypes.ROW(fields), func_type="pandas")
    def both(df):  # map: the rows as a DataFrame, a DataFrame back
        return pd.DataFrame({"x": df["a"] * 2, "y": df["s"].str.upper()})

    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    schema = DataTypes.ROW(
        [
            DataTypes.FIELD("a", DataTypes.BIGINT()),
            DataTypes.FIELD("s", DataTypes.STRING()),
            DataTypes.FIELD("d", DataTypes.DOUBLE()),
        ]
    )
    t = t_env.from_elements([(1, "a", 2.5), (None, "b", 1.0), (3, None, None), (4, "d", 7.25)], schema)
    t.select(
        col("a"), add_one(col("a")), describe(col("a"), col("d")), describe(col("s"), col("a"))
    ).execute().print()
    t.where(add_one(col("a")) > 2).select(col("s"), add_one(add_one(col("a")))).execute().print()
    t.map(both).execute().print()
    t_env.create_temporary_function("add_one", add_one)
    t_env.create_temporary_view("t", t)
    t_env.execute_sql("SELECT s, add_one(a) AS b FROM t WHERE a > 1").print()
    t_env.execute_sql("SELECT add_one(s2) FROM (SELECT SUM(a) AS s2 FROM t)").print()
    t_env.execute_sql("SELECT s, add_one(SUM(a)) AS total FROM t GROUP BY s").print()


# PyFlink 2.3.0, 2026-11-24, the same program: each function is called once with all four rows
# (dtypes float64 for the column with a NULL), the map gets a DataFrame
PYFLINK_PANDAS = """\
+----------------------+----------------------+--------------------------------+--------------------------------+
|                    a |                  _c1 |                            _c2 |                            _c3 |
+----------------------+----------------------+--------------------------------+--------------------------------+
|                    1 |                    2 |                1.0/2.5:float64 |                   a/1.0:object |
|               <NULL> |               <NULL> |                nan/1.0:float64 |                   b/nan:object |
|                    3 |                    4 |                3.0/nan:float64 |                None/3.0:object |
|                    4 |                    5 |               4.0/7.25:float64 |                   d/4.0:object |
+----------------------+----------------------+--------------------------------+--------------------------------+
4 rows in set
+--------------------------------+----------------------+
|                              s |                  _c1 |
+--------------------------------+----------------------+
|                         <NULL> |                    5 |
|                              d |                    6 |
+--------------------------------+----------------------+
2 rows in set
+----------------------+--------------------------------+
|                    x |                              y |
+----------------------+--------------------------------+
|                    2 |                              A |
|               <NULL> |                              B |
|                    6 |                         <NULL> |
|                    8 |                              D |
+----------------------+--------------------------------+
4 rows in set
+--------------------------------+----------------------+
|                              s |                    b |
+--------------------------------+----------------------+
|                         <NULL> |                    4 |
|                              d |                    5 |
+--------------------------------+----------------------+
2 rows in set
+----------------------+
|               EXPR$0 |
+----------------------+
|                    9 |
+----------------------+
1 row in set
+--------------------------------+----------------------+
|                              s |                total |
+--------------------------------+----------------------+
|                              a |                    2 |
|                              b |               <NULL> |
|                         <NULL> |                    4 |
|                              d |                    5 |
+--------------------------------+----------------------+
4 rows in set
"""


def test_pandas_udfs_run_on_whole_batches_as_pyflink_does(capsys):
    from millstream.testing.tables import printed_parts

    pandas_program()
    ours, theirs = printed_parts(capsys.readouterr().out), printed_parts(PYFLINK_PANDAS)
    assert ours[:-1] == theirs[:-1]
    assert sorted(ours[-1]) == sorted(theirs[-1])  # a batch GROUP BY's rows come in no set order


@pytest.mark.parametrize("batch_size", [None, 300])
def test_a_pandas_udf_is_called_once_per_arrow_batch(batch_size):
    """Each call gets up to ``python.fn-execution.arrow.batch.size`` rows (default 1000): the
    function returns its Series' length for every row, so the rows show the calls."""
    from millstream.table.udf import udf

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    if batch_size is not None:
        t_env.get_config().set("python.fn-execution.arrow.batch.size", str(batch_size))
    length = udf(lambda s: s * 0 + len(s), result_type=DataTypes.BIGINT(), func_type="pandas")
    t = t_env.from_elements([(i,) for i in range(2500)], ["a"])
    sizes = [r[0] for r in t.select(length(col("a"))).execute().collect()]
    assert len(sizes) == 2500
    calls = sum(1 / n for n in sizes)  # a call of n rows gave n rows the value n
    assert max(sizes) == (batch_size or 1000)
    # chunks also end where the source's and the task's batches end (Flink's Arrow operator
    # fills a batch across them): at most about two calls per full batch, not one per row
    assert round(calls) <= 2 * 2500 / (batch_size or 1000) + 5


GROUP_BY_EXPRESSIONS = [
    "SELECT s IS NULL AS n, SUM(x) FROM t GROUP BY s IS NULL",
    "SELECT UPPER(s), COUNT(*) AS c, MAX(x) + 1 FROM t GROUP BY UPPER(s)",
    "SELECT UPPER(s) || '!' AS u, SUM(x) FROM t GROUP BY UPPER(s) HAVING COUNT(*) > 1",
    "SELECT x % 2 AS parity, SUM(x % 2) AS ones FROM t GROUP BY x % 2",
]

# PyFlink 2.3.0, 2026-11-24: a select item equal to a GROUP BY expression reads the group's key
# (an aggregate's argument of the same text is still evaluated per row)
PYFLINK_GROUP_BY_EXPRESSIONS = """\
+----+--------+----------------------+
| op |      n |               EXPR$1 |
+----+--------+----------------------+
| +I |  FALSE |                    1 |
| -U |  FALSE |                    1 |
| +U |  FALSE |                    3 |
| +I |   TRUE |                    3 |
| -U |  FALSE |                    3 |
| +U |  FALSE |                    7 |
| -U |  FALSE |                    7 |
| +U |  FALSE |                   12 |
+----+--------+----------------------+
8 rows in set
+----+--------------------------------+----------------------+----------------------+
| op |                         EXPR$0 |                    c |               EXPR$2 |
+----+--------------------------------+----------------------+----------------------+
| +I |                              A |                    1 |                    2 |
| +I |                              B |                    1 |                    3 |
| +I |                         <NULL> |                    1 |                    4 |
| -U |                              A |                    1 |                    2 |
| +U |                              A |                    2 |                    5 |
| -U |                              B |                    1 |                    3 |
| +U |                              B |                    2 |                    6 |
+----+--------------------------------+----------------------+----------------------+
7 rows in set
+----+--------------------------------+----------------------+
| op |                              u |               EXPR$1 |
+----+--------------------------------+----------------------+
| +U |                             A! |                    5 |
| +U |                             B! |                    7 |
+----+--------------------------------+----------------------+
2 rows in set
+----+-------------+-------------+
| op |      parity |        ones |
+----+-------------+-------------+
| +I |           1 |           1 |
| +I |           0 |           0 |
| -U |           1 |           1 |
| +U |           1 |           2 |
| -U |           1 |           2 |
| +U |           1 |           3 |
+----+-------------+-------------+
6 rows in set
"""


def test_select_items_equal_to_group_by_expressions_read_the_keys(capsys):
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t = t_env.from_elements([(1, "a"), (2, "B"), (3, None), (4, "A"), (5, "b")], ["x", "s"])
    t_env.create_temporary_view("t", t)
    for query in GROUP_BY_EXPRESSIONS:
        t_env.execute_sql(query).print()
    assert capsys.readouterr().out == PYFLINK_GROUP_BY_EXPRESSIONS


DECIMAL_QUERIES = [
    "SELECT id, ROUND(id / 3.0, 2), id / 3.0, id * 1.5, 2.5 + id, 0.1 + 0.2, d * 1.1, id % 2.0, "
    "CAST(id AS DECIMAL(5,2)) * 0.5 FROM j",
    "SELECT SUM(id * 1.5), AVG(id * 1.5), MAX(id / 3.0), SUM(d) FROM j",
]

# PyFlink 2.3.0, 2026-11-24: exact literals are DECIMAL(digits, scale); + - * / % ROUND SUM AVG
# follow Flink's DECIMAL typing (column widths show the precision), DECIMAL op DOUBLE is DOUBLE
PYFLINK_DECIMALS = """\
+----+----------------------+---------------------------+------------------------------+--------------------------+-------------------------+--------+--------------------------------+--------+------------+
| op |                   id |                    EXPR$1 |                       EXPR$2 |                   EXPR$3 |                  EXPR$4 | EXPR$5 |                         EXPR$6 | EXPR$7 |     EXPR$8 |
+----+----------------------+---------------------------+------------------------------+--------------------------+-------------------------+--------+--------------------------------+--------+------------+
| +I |                    1 |                      0.33 |                     0.333333 |                      1.5 |                     3.5 |    0.3 |                           2.75 |    1.0 |      0.500 |
| +I |                    2 |                      0.67 |                     0.666667 |                      3.0 |                     4.5 |    0.3 |            0.11000000000000001 |    0.0 |      1.000 |
| +I |                    3 |                      1.00 |                     1.000000 |                      4.5 |                     5.5 |    0.3 |                         <NULL> |    1.0 |      1.500 |
+----+----------------------+---------------------------+------------------------------+--------------------------+-------------------------+--------+--------------------------------+--------+------------+
3 rows in set
+----+------------------------------------------+------------------------------------------+------------------------------+--------------------------------+
| op |                                   EXPR$0 |                                   EXPR$1 |                       EXPR$2 |                         EXPR$3 |
+----+------------------------------------------+------------------------------------------+------------------------------+--------------------------------+
| +I |                                      1.5 |                                 1.500000 |                     0.333333 |                            2.5 |
| -U |                                      1.5 |                                 1.500000 |                     0.333333 |                            2.5 |
| +U |                                      4.5 |                                 2.250000 |                     0.666667 |                            2.6 |
| -U |                                      4.5 |                                 2.250000 |                     0.666667 |                            2.6 |
| +U |                                      9.0 |                                 3.000000 |                     1.000000 |                            2.6 |
+----+------------------------------------------+------------------------------------------+------------------------------+--------------------------------+
5 rows in set
"""


def test_decimal_literals_and_arithmetic_type_as_flink_does(capsys):
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.create_temporary_view("j", t_env.from_elements([(1, 2.5), (2, 0.1), (3, None)], ["id", "d"]))
    for query in DECIMAL_QUERIES:
        t_env.execute_sql(query).print()
    assert capsys.readouterr().out == PYFLINK_DECIMALS


def test_mini_batch_aggregation_emits_fewer_updates_for_the_same_final_table():
    """``table.exec.mini-batch.*``: one update per key and mini-batch instead of one per row;
    the table the changelog folds into is the same."""
    from millstream.testing.tables import fold_changelog

    rows = [(i % 7, i) for i in range(3000)]
    changelogs = {}
    for enabled in (False, True):
        t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
        t_env.get_config().set("parallelism.default", "2")
        if enabled:
            t_env.get_config().set("table.exec.mini-batch.enabled", "true")
            t_env.get_config().set("table.exec.mini-batch.allow-latency", "1 s")
            t_env.get_config().set("table.exec.mini-batch.size", "5000")
        t_env.create_temporary_view("t", t_env.from_elements(rows, ["k", "v"]))
        result = t_env.execute_sql("SELECT k, SUM(v) AS s, COUNT(*) AS c FROM t GROUP BY k")
        changelogs[enabled] = [(str(r.get_row_kind()), tuple(r)) for r in result.collect()]
    expected = {(k, sum(v for kk, v in rows if kk == k), 429 if k < 4 else 428) for k in range(7)}
    for changes in changelogs.values():
        assert set(fold_changelog(changes)) == expected
    assert len(changelogs[False]) == 7 + 2 * (3000 - 7)  # +I per key, then -U/+U per row
    assert len(changelogs[True]) < len(changelogs[False]) / 10


# PyFlink 2.3.0, 2026-11-27: print_schema() and print(get_schema()) of KAFKA_DDL's table
KAFKA_DDL = """CREATE TABLE k (
  a INT, b STRING,
  `offset` BIGINT METADATA FROM 'offset',
  `partition` INT METADATA,
  topic STRING METADATA VIRTUAL,
  PRIMARY KEY (a, b) NOT ENFORCED
) WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'x:1', 'format' = 'json')"""
PYFLINK_KAFKA_SCHEMA = """(
  `a` INT NOT NULL,
  `b` STRING NOT NULL,
  `offset` BIGINT METADATA FROM 'offset',
  `partition` INT METADATA,
  `topic` STRING METADATA VIRTUAL,
  CONSTRAINT `PK_a_b` PRIMARY KEY (`a`, `b`) NOT ENFORCED
)
"""
PYFLINK_KAFKA_TABLE_SCHEMA = """root
 |-- a: INT NOT NULL
 |-- b: STRING NOT NULL
 |-- offset: BIGINT METADATA FROM 'offset'
 |-- partition: INT METADATA
 |-- topic: STRING METADATA VIRTUAL
 |-- CONSTRAINT PK_a_b PRIMARY KEY (a, b)

"""


def test_metadata_columns_and_the_primary_key_print_as_pyflink_prints_them(capsys):
    """Before, the metadata columns printed as plain columns, the key's columns nullable and
    without its constraint line."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql(KAFKA_DDL)
    table = t_env.from_path("k")
    table.print_schema()
    print(table.get_schema())
    assert capsys.readouterr().out == PYFLINK_KAFKA_SCHEMA + PYFLINK_KAFKA_TABLE_SCHEMA


def test_create_table_forms_parse_in_the_sql_dialect():
    """WATERMARK FOR and METADATA are parsed by millstream's sqlglot dialect (its column
    constraint parsers), not cut out of the text before parsing: a watermark expression with
    nested parentheses and commas, a column named ``metadata``, a computed column after them;
    a watermark without AS fails naming what is missing."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql(
        "CREATE TABLE w (metadata INT, ts TIMESTAMP(3), m STRING METADATA FROM 'topic' VIRTUAL, "
        "WATERMARK FOR ts AS COALESCE(ts, TIMESTAMP '2020-01-01 00:00:00') - INTERVAL '5' SECOND, "
        "doubled AS metadata * 2) WITH ('connector' = 'kafka', 'topic' = 't', "
        "'properties.bootstrap.servers' = 'x:1', 'format' = 'json')"
    )
    schema = str(t_env.from_path("w").get_schema())
    assert " |-- metadata: INT\n" in schema and " |-- m: STRING METADATA FROM 'topic' VIRTUAL\n" in schema
    assert " |-- doubled: INT AS `metadata` * 2\n" in schema
    assert "WATERMARK FOR ts: TIMESTAMP(3) AS COALESCE(" in schema
    with pytest.raises(ValueError, match="expected AS after WATERMARK FOR <column>"):
        t_env.execute_sql(
            "CREATE TABLE bad (ts TIMESTAMP(3), WATERMARK FOR ts ts) WITH ('connector' = 'datagen')"
        )


def test_an_aggregate_reused_in_two_queries_reads_its_own_column_in_each() -> None:
    """The Table API expression ``v.sum`` used in two grouped queries where its column differs
    ($agg0 in the first, $agg1 in the second): each plan reads its own aggregation's column,
    and the user's expression is left unchanged. Before, planning set the column on the
    expression object, so the second query moved the first one's to a column it has not."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    table = t_env.from_elements([("a", 1), ("b", 2), ("a", 3)], ["k", "v"])
    total = col("v").sum
    first = table.group_by(col("k")).select(col("k"), total.alias("s"))
    second = table.group_by(col("k")).select(col("k"), col("v").max, total.alias("s"))
    assert total.slot is None
    for plan in (first._plan, second._plan):
        assert plan.expressions[-1].operand.slot in plan.input.names
    with first.execute().collect() as rows:
        assert sorted(tuple(r) for r in rows) == [("a", 4), ("b", 2)]
    with second.execute().collect() as rows:
        assert sorted(tuple(r) for r in rows) == [("a", 3, 4), ("b", 2, 2)]


def test_an_aggregate_called_twice_is_computed_once_as_pyflink_does() -> None:
    """``SUM(v)`` in the SELECT and the HAVING is one accumulator: PyFlink 2.3's plan for this
    query computes ``Final_SUM(sum$0) AS $f1`` once and reads ``$f1`` in both places."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.create_temporary_view("t", t_env.from_elements([(1, 5), (1, -1), (2, 1), (3, 7)], ["k", "v"]))
    sql = "SELECT k, SUM(v) + 1, COUNT(*) FROM t GROUP BY k HAVING SUM(v) > 2"
    plan = t_env.explain_sql(sql).split("== Optimized Execution Plan ==")[1]
    aggregate = next(line for line in plan.splitlines() if "Aggregate(" in line)
    assert aggregate.count("SUM(v)") == 1 and "$agg2" not in aggregate, aggregate
    with t_env.execute_sql(sql).collect() as rows:
        assert sorted(tuple(r) for r in rows) == [(1, 5, 2), (3, 8, 1)]
