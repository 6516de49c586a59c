"""Built-in aggregate functions typed and computed as Flink's. Every expectation is what
PyFlink 2.3.0 printed for the same statement (batch mode, UTC): the result schema's types and
the cells ``TableResult.print()`` shows, or the error it raised while planning.

Before, SUM ... of NOT NULL values were nullable in a GROUP BY, ARRAY_AGG and LISTAGG were
nullable (and LISTAGG a STRING), COLLECT was a MAP in insertion order, ARRAY_AGG(DISTINCT x)
kept arrival order, RESPECT / IGNORE NULLS did not parse, PERCENTILE took no ARRAY, VAR_POP of
integers was not cast to their type, a STRING's variance failed the job, AVG of TINYINTs
wrapped its sum, and a DECIMAL sum past 38 digits printed 39.
"""

from __future__ import annotations

import datetime
import decimal

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.java_hashes import hash_map_order
from millstream.table.common.printing import format_value, summary_string
from millstream.table.common.types import DataType, DataTypes
from millstream.table.functions.aggregate_calls import accumulator_for


@pytest.fixture
def t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    config = t_env.get_config()
    config.set("parallelism.default", "1")
    config.set("table.local-time-zone", "UTC")
    config.set("minicluster.mode", "threads")  # a unit test starts no processes
    return t_env


def _rows(t_env: TableEnvironment, sql: str) -> tuple[list[str], list[list[str]]]:
    """The column types and each row's printed cells."""
    table = t_env.sql_query(sql)
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        cells = [[format_value(t, v) for t, v in zip(types, row, strict=True)] for row in rows]
    return [summary_string(t) for t in types], cells


_CALLS = (
    "SUM(x) AS s, MIN(x) AS mi, AVG(x) AS a, COUNT(x) AS c, ARRAY_AGG(x) AS aa, "
    "LISTAGG(CAST(x AS STRING)) AS l, FIRST_VALUE(x) AS f, STDDEV_POP(x) AS sd, VAR_SAMP(x) AS vs, "
    "COLLECT(x) AS co, PERCENTILE(x, 0.5) AS p"
)
_INPUT = "(VALUES ('a', 1), ('a', 2), ('b', 3)) AS t(k, x)"


def test_a_group_by_keeps_not_null_and_a_global_aggregation_does_not(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: k CHAR(1) NOT NULL, s INT NOT NULL, mi INT NOT NULL, a INT NOT NULL, c BIGINT
    # NOT NULL, aa ARRAY<INT NOT NULL> NOT NULL, l STRING NOT NULL, f INT NOT NULL, sd INT NOT NULL,
    # vs INT NOT NULL, co MULTISET<INT NOT NULL> NOT NULL, p DOUBLE; rows a | 3 | 1 | 1 | 2 | [1, 2]
    # | 1,2 | 1 | 0 | 0 | {1=1, 2=1} | 1.5 and b | 3 | 3 | 3 | 1 | [3] | 3 | 3 | 0 | -1 | {3=1} | 3.0
    # (VAR_SAMP of one value in a NOT NULL column: Java's default -1)
    types, rows = _rows(t_env, f"SELECT k, {_CALLS} FROM {_INPUT} GROUP BY k")
    assert types == [
        "CHAR(1) NOT NULL", "INT NOT NULL", "INT NOT NULL", "INT NOT NULL", "BIGINT NOT NULL",
        "ARRAY<INT NOT NULL> NOT NULL", "STRING NOT NULL", "INT NOT NULL", "INT NOT NULL", "INT NOT NULL",
        "MULTISET<INT NOT NULL> NOT NULL", "DOUBLE",
    ]  # fmt: skip
    assert sorted(rows) == [
        ["a", "3", "1", "1", "2", "[1, 2]", "1,2", "1", "0", "0", "{1=1, 2=1}", "1.5"],
        ["b", "3", "3", "3", "1", "[3]", "3", "3", "0", "-1", "{3=1}", "3.0"],
    ]
    # without GROUP BY: s INT, mi INT, a INT, c BIGINT NOT NULL, aa ARRAY<INT NOT NULL> NOT NULL,
    # l STRING NOT NULL, f INT, sd INT, vs INT, co MULTISET<INT NOT NULL> NOT NULL, p DOUBLE
    types, rows = _rows(t_env, f"SELECT {_CALLS} FROM {_INPUT}")
    assert types == [
        "INT", "INT", "INT", "BIGINT NOT NULL", "ARRAY<INT NOT NULL> NOT NULL", "STRING NOT NULL", "INT",
        "INT", "INT", "MULTISET<INT NOT NULL> NOT NULL", "DOUBLE",
    ]  # fmt: skip
    assert rows == [["6", "1", "2", "3", "[1, 2, 3]", "1,2,3", "1", "0", "1", "{1=1, 2=1, 3=1}", "2.0"]]
    # a FILTER makes SUM nullable, not ARRAY_AGG: s INT, aa ARRAY<INT NOT NULL> NOT NULL
    types, _ = _rows(
        t_env,
        "SELECT k, SUM(x) FILTER (WHERE x > 1) AS s, ARRAY_AGG(x) FILTER (WHERE x > 1) AS aa "
        f"FROM {_INPUT} GROUP BY k",
    )
    assert types == ["CHAR(1) NOT NULL", "INT", "ARRAY<INT NOT NULL> NOT NULL"]


def test_listagg_takes_its_operands_type_and_a_literal_separator(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: CHAR(1) NOT NULL a-b-c; LISTAGG(x, y) and LISTAGG(x, NULL) are refused
    assert _rows(t_env, "SELECT LISTAGG(x, '-') FROM (VALUES ('a'), ('b'), ('c')) AS t(x)") == (
        ["CHAR(1) NOT NULL"],
        [["a-b-c"]],
    )
    with pytest.raises(Exception, match="Argument to function 'LISTAGG' must be a literal"):
        t_env.sql_query("SELECT LISTAGG(x, y) FROM (VALUES ('a', '-'), ('b', '-')) AS t(x, y)")
    with pytest.raises(Exception, match="Argument to function 'LISTAGG' must not be NULL"):
        t_env.sql_query("SELECT LISTAGG(x, CAST(NULL AS STRING)) FROM (VALUES ('a')) AS t(x)")


def test_collect_is_a_multiset_in_the_order_of_flinks_hash_map(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: MULTISET<CHAR(1) NOT NULL> NOT NULL {a=2, c=1, b=1}, and over doubles
    # MULTISET<DOUBLE NOT NULL> NOT NULL {4.0=1, 2.0=1, 1.5=1}
    assert _rows(t_env, "SELECT COLLECT(v) FROM (VALUES ('b'), ('a'), ('c'), ('a')) AS t(v)") == (
        ["MULTISET<CHAR(1) NOT NULL> NOT NULL"],
        [["{a=2, c=1, b=1}"]],
    )
    doubles = "(VALUES (CAST(1.5 AS DOUBLE)), (CAST(4.0 AS DOUBLE)), (CAST(2.0 AS DOUBLE))) AS t(v)"
    assert _rows(t_env, f"SELECT COLLECT(v) FROM {doubles}")[1] == [["{4.0=1, 2.0=1, 1.5=1}"]]


def test_hash_map_order_is_javas() -> None:
    # the orders PyFlink 2.3.0 prints COLLECT's multisets in
    words = ["hello", "world", "foo", "bar", "baz", "qux", "x", "yy", "zzz"]
    assert hash_map_order(words, DataTypes.STRING())[:4] == ["qux", "x", "baz", "world"]
    ints = [1, 17, 33, 2, 18, 100, -5, 1000000, 7, 8, 9, 10, 11, 12, 13, 14]
    assert hash_map_order(ints, DataTypes.INT())[:5] == [1, 33, 2, 100, -5]
    assert hash_map_order([5, -1, 2**32], DataTypes.BIGINT()) == [-1, 2**32, 5]
    assert hash_map_order([1.5, 0.1, -2.0], DataTypes.FLOAT()) == [1.5, -2.0, 0.1]
    decimals = [decimal.Decimal(v) for v in ("1.10", "2.20", "4.05", "-3.50")]
    assert hash_map_order(decimals, DataTypes.DECIMAL(5, 2)) == decimals
    dates = [datetime.date(2024, 1, 1), datetime.date(2023, 6, 1), datetime.date(1960, 1, 1)]
    assert hash_map_order(dates, DataTypes.DATE()) == dates[::-1]
    times = [datetime.time(10), datetime.time(1, 2, 3)]
    assert hash_map_order(times, DataTypes.TIME()) == times[::-1]
    stamps = [datetime.datetime(2024, 1, 1, 0, 0, 0, 500000), datetime.datetime(2023, 1, 1)]
    assert hash_map_order(stamps, DataTypes.TIMESTAMP(3))[0] == stamps[1]
    assert hash_map_order([True, False], DataTypes.BOOLEAN()) == [False, True]


def test_array_agg_distinct_sorts_and_nulls_are_respected_or_ignored(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: [NULL, 1, 2, 3]; [3, 1, 2, 1] and [3, 1, NULL, 2, 1], typed ARRAY<INT>; the
    # distinct values of LISTAGG(DISTINCT v) alone: a,b,c
    values = "(VALUES (3), (1), (CAST(NULL AS INT)), (2), (1)) AS t(v)"
    assert _rows(t_env, f"SELECT ARRAY_AGG(DISTINCT v) FROM {values}") == (
        ["ARRAY<INT>"],
        [["[NULL, 1, 2, 3]"]],
    )
    assert _rows(t_env, f"SELECT ARRAY_AGG(v IGNORE NULLS), ARRAY_AGG(v RESPECT NULLS) FROM {values}") == (
        ["ARRAY<INT>", "ARRAY<INT>"],
        [["[3, 1, 2, 1]", "[3, 1, NULL, 2, 1]"]],
    )
    assert _rows(t_env, "SELECT LISTAGG(DISTINCT v) FROM (VALUES ('b'), ('a'), ('c'), ('a')) AS t(v)")[1] == [
        ["a,b,c"]
    ]


def test_percentile_of_an_array_of_percentages(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: ARRAY<DOUBLE> [2.0, 3.0]; a percentage outside [0, 1] or of a STRING is refused
    assert _rows(t_env, "SELECT PERCENTILE(x, ARRAY[0.5, 1.0]) FROM (VALUES (1), (2), (3)) AS t(x)") == (
        ["ARRAY<DOUBLE>"],
        [["[2.0, 3.0]"]],
    )
    for sql in (
        "SELECT PERCENTILE(x, 1.5) FROM (VALUES (1), (2), (3)) AS t(x)",
        "SELECT PERCENTILE(x, 0.5) FROM (VALUES ('a')) AS t(x)",
    ):
        with pytest.raises(Exception, match="Invalid input arguments"):
            t_env.sql_query(sql)


def test_variances_of_integers_are_cast_to_their_type_as_java_casts(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: VAR_POP of the TINYINTs 127, 1 is -127 (3969 narrowed), VAR_SAMP 2 (7938);
    # of the INTs 2147483647, 1 it is 2147483647 (the double saturates), STDDEV_SAMP 1518500248
    tinyints = "(VALUES (CAST(127 AS TINYINT)), (CAST(1 AS TINYINT))) AS t(x)"
    assert _rows(t_env, f"SELECT VAR_POP(x), VAR_SAMP(x), STDDEV_SAMP(x) FROM {tinyints}")[1] == [
        ["-127", "2", "89"]
    ]
    ints = "(VALUES (2147483647), (1)) AS t(x)"
    assert _rows(t_env, f"SELECT VAR_POP(x), VAR_SAMP(x), STDDEV_SAMP(x) FROM {ints}")[1] == [
        ["2147483647", "2147483647", "1518500248"]
    ]
    # of one value: NULL in a global aggregation (INT), -1 / -1.0 in a GROUP BY's NOT NULL column
    assert _rows(t_env, "SELECT VAR_SAMP(x), STDDEV_SAMP(x) FROM (VALUES (3)) AS t(x)")[1] == [
        ["<NULL>", "<NULL>"]
    ]
    assert _rows(
        t_env, "SELECT k, VAR_SAMP(x) FROM (VALUES ('b', CAST(3.0 AS DOUBLE))) AS t(k, x) GROUP BY k"
    ) == (["CHAR(1) NOT NULL", "DOUBLE NOT NULL"], [["b", "-1.0"]])
    with pytest.raises(
        Exception, match=r"Cannot apply 'VARIANCE' to arguments of type 'VARIANCE\(<CHAR\(1\)>\)'"
    ):
        t_env.sql_query("SELECT VARIANCE(x) FROM (VALUES ('a')) AS t(x)")


def test_avg_of_integers_sums_in_a_bigint_unless_a_variance_reduces_it(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: AVG of the TINYINTs 127, 1 is 64 (SUM -128); beside VAR_POP, Calcite's
    # AggregateReduceFunctionsRule makes it SUM / COUNT in TINYINT: -64 (VAR_POP -127)
    tinyints = "(VALUES (CAST(127 AS TINYINT)), (CAST(1 AS TINYINT))) AS t(v)"
    assert _rows(t_env, f"SELECT AVG(v), SUM(v) FROM {tinyints}")[1] == [["64", "-128"]]
    assert _rows(t_env, f"SELECT AVG(v), VAR_POP(v) FROM {tinyints}")[1] == [["-64", "-127"]]


def test_a_decimal_sum_past_38_digits_is_null_and_starts_again(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: SUM and AVG of 10^38 - 1 and 1 are NULL; with -5 after them, SUM is -5
    wide = "CAST('99999999999999999999999999999999999999' AS DECIMAL(38, 0))"
    one, minus_five = "CAST(1 AS DECIMAL(38, 0))", "CAST(-5 AS DECIMAL(38, 0))"
    assert _rows(t_env, f"SELECT SUM(x), AVG(x) FROM (VALUES ({wide}), ({one})) AS t(x)") == (
        ["DECIMAL(38, 0)", "DECIMAL(38, 6)"],
        [["<NULL>", "<NULL>"]],
    )
    assert _rows(t_env, f"SELECT SUM(x) FROM (VALUES ({wide}), ({one}), ({minus_five})) AS t(x)")[1] == [
        ["-5"]
    ]


def test_count_of_several_values_counts_the_rows_where_none_is_null(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0 prints 1 for COUNT(v0, v1) of (1, NULL), (2, 3)
    values = "(VALUES (1, CAST(NULL AS INT)), (2, 3)) AS t(v0, v1)"
    assert _rows(t_env, f"SELECT COUNT(v0, v1) FROM {values}") == (["BIGINT NOT NULL"], [["1"]])


@pytest.mark.parametrize(
    ("root", "values"),
    [
        (DataTypes.INT(), [1, 2, 4, 7]),
        (DataTypes.DECIMAL(5, 2), [decimal.Decimal(v) for v in ("1.10", "2.20", "4.05", "0.01")]),
    ],
)
def test_variance_accumulators_merge_as_they_add(root: DataType, values: list[object]) -> None:
    """A window's partial accumulators merge into what adding every value gives (a merged
    integer variance failed in Fraction before)."""
    for function in ("VAR_POP", "VAR_SAMP", "STDDEV_POP", "STDDEV_SAMP"):
        accumulator = accumulator_for(function, root, False)
        left, right, whole = accumulator.create(), accumulator.create(), accumulator.create()
        for i, value in enumerate(values):
            whole = accumulator.add(whole, value)
            if i < 2:
                left = accumulator.add(left, value)
            else:
                right = accumulator.add(right, value)
        assert accumulator.result(accumulator.merge(left, right)) == accumulator.result(whole)


def test_nan_keys_meet_in_one_group(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0 prints 0.0 | 2, 1.0 | 1, NaN | 2 (the literal -0.0e0 is 0.0: Calcite's
    # BigDecimal has no negative zero)
    values = "(VALUES (1.0e0), (CAST('NaN' AS DOUBLE)), (CAST('NaN' AS DOUBLE)), (-0.0e0), (0.0e0)) AS t(x)"
    _, rows = _rows(t_env, f"SELECT x, COUNT(*) FROM {values} GROUP BY x")
    assert sorted(rows) == [["0.0", "2"], ["1.0", "1"], ["NaN", "2"]]
