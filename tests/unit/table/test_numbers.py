"""Numbers as Flink computes them: integers in their type's width (wrapping as Java's), the
result types of mixed operations, DECIMAL precision and scale, and the same values on every
path a Calc may take (the expressions' closures, the generated code, the Arrow kernels). Every
expected value and type is what PyFlink 2.3.0 printed for the same SQL (batch mode)."""

from __future__ import annotations

import decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.java_numbers import INTEGER_RANGES, wrap
from millstream.table.common.printing import format_value, summary_string
from millstream.table.expressions import Expression, col, lit
from millstream.table.functions.builtins import call_builtin
from millstream.table.runtime.codegen import calc_function
from millstream.table.runtime.vectorized import VectorizedCalc, vectorizable
from millstream.table.types import DataTypes
from tests.conftest import ci_examples


@pytest.fixture(scope="module")
def t_env() -> TableEnvironment:
    env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    env.get_config().set("parallelism.default", "1")
    env.get_config().set("table.local-time-zone", "UTC")
    env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    return env


def printed(t_env: TableEnvironment, sql: str) -> list[tuple[str, str]]:
    """The cells of the query's one row as ``TableResult.print()`` writes them, and the types."""
    table = t_env.sql_query(sql)
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        (row,) = list(rows)
    return [(format_value(t, v), summary_string(t)) for t, v in zip(types, row, strict=True)]


# (expression, what PyFlink 2.3.0 printed, its type)
FLINK_ARITHMETIC = [
    ("2147483647 + 1", "-2147483648", "INT NOT NULL"),
    ("(-2147483648) / (-1)", "-2147483648", "INT NOT NULL"),
    ("-(-2147483648)", "2147483648", "BIGINT NOT NULL"),  # the literal 2147483648, folded as Calcite's
    ("CAST(127 AS TINYINT) + CAST(1 AS TINYINT)", "-128", "TINYINT NOT NULL"),
    ("-CAST(-128 AS TINYINT)", "-128", "TINYINT NOT NULL"),
    ("ABS(CAST(-128 AS TINYINT))", "-128", "TINYINT NOT NULL"),
    ("CAST(9223372036854775807 AS BIGINT) * CAST(2 AS BIGINT)", "-2", "BIGINT NOT NULL"),
    ("-7 / 2", "-3", "INT NOT NULL"),
    ("-7 % 2", "-1", "INT NOT NULL"),
    ("1.5 + CAST(1.5 AS FLOAT)", "3.0", "DOUBLE NOT NULL"),
    ("CAST(1 AS DECIMAL(38, 37)) * 10", "10.00000000000000000000000000", "DECIMAL(38, 26) NOT NULL"),
    (
        "CAST(123.456 AS DECIMAL(38, 18)) * CAST(2 AS DECIMAL(38, 18))",
        "246.912000",
        "DECIMAL(38, 6) NOT NULL",
    ),
    ("CAST(1 AS DECIMAL(38, 10)) / CAST(3 AS DECIMAL(38, 10))", "0.333333", "DECIMAL(38, 6) NOT NULL"),
    ("CAST(NULLIF(12345.678, 0) AS DECIMAL(5, 2))", "<NULL>", "DECIMAL(5, 2)"),
    (
        "NULLIF(CAST('99999999999999999999999999999999999999' AS DECIMAL(38, 0)), 0) + 1",
        "<NULL>",
        "DECIMAL(38, 0)",
    ),
    (
        "COALESCE(CAST(NULL AS DECIMAL(5, 2)), CAST(1.2345 AS DECIMAL(10, 4)))",
        "1.2345",
        "DECIMAL(10, 4) NOT NULL",
    ),
    (
        "CASE WHEN TRUE THEN CAST(1.5 AS DECIMAL(5, 2)) ELSE CAST(1 AS DECIMAL(10, 4)) END",
        "1.5000",
        "DECIMAL(10, 4) NOT NULL",
    ),
    ("IFNULL('a', 'bbb')", "a", "CHAR(1) NOT NULL"),
]


def test_arithmetic_gives_flinks_values_and_types(t_env: TableEnvironment) -> None:
    columns = ", ".join(f"{e} AS c{i}" for i, (e, _, _) in enumerate(FLINK_ARITHMETIC))
    assert printed(t_env, f"SELECT {columns}") == [(cell, kind) for _, cell, kind in FLINK_ARITHMETIC]


def test_mixed_types_widen_as_flinks_type_inference(t_env: TableEnvironment) -> None:
    """PyFlink 2.3.0's result types over columns: TINYINT + SMALLINT is SMALLINT, INT + BIGINT
    BIGINT, INT % BIGINT the divisor's BIGINT, BIGINT % INT INT, INT + DECIMAL(3, 2)
    DECIMAL(13, 2), INT / DECIMAL(3, 2) DECIMAL(18, 6), FLOAT + DOUBLE FLOAT but DOUBLE + FLOAT
    DOUBLE (the first approximate type), DECIMAL(10, 0) + DECIMAL(5, 5) DECIMAL(16, 5)."""
    t_env.execute_sql(
        "CREATE TEMPORARY VIEW numbers AS SELECT * FROM (VALUES (CAST(1 AS TINYINT), CAST(2 AS SMALLINT), 3, "
        "CAST(4 AS BIGINT), CAST(0.5 AS DECIMAL(3, 2)), CAST(0.1 AS FLOAT), CAST(0.2 AS DOUBLE), "
        "CAST(7 AS DECIMAL(10, 0)), CAST(0.5 AS DECIMAL(5, 5)))) AS t(ti, si, i, bi, dc, f, d, d10, d5)"
    )
    table = t_env.sql_query(
        "SELECT ti + si, i + bi, i % bi, bi % i, i + dc, i / dc, f + d, d + f, d10 + d5 FROM numbers"
    )
    types = [summary_string(t) for t in table.get_resolved_schema().get_column_data_types()]
    assert types == [
        "SMALLINT NOT NULL",
        "BIGINT NOT NULL",
        "BIGINT NOT NULL",
        "INT NOT NULL",
        "DECIMAL(13, 2) NOT NULL",
        "DECIMAL(18, 6) NOT NULL",
        "FLOAT NOT NULL",
        "DOUBLE NOT NULL",
        "DECIMAL(16, 5) NOT NULL",
    ]


def test_sums_and_averages_wrap_in_their_type(t_env: TableEnvironment) -> None:
    """PyFlink 2.3.0: SUM of the INTs 2147483647 and 1 is -2147483648 (INT), AVG and
    AVG(DISTINCT) 1073741824 (Flink's AVG sums integers in a BIGINT; beside a variance it is
    SUM / COUNT, wrapping: test_sql_aggregates.py); SUM of TINYINTs 127 and 1 -128; SUM(BOOLEAN)
    fails: "Cannot apply 'SUM' to arguments of type 'SUM(<BOOLEAN>)'"."""
    sql = "SELECT SUM(i), AVG(i), AVG(DISTINCT i) FROM (VALUES (2147483647), (1)) AS t(i)"
    assert printed(t_env, sql) == [("-2147483648", "INT"), ("1073741824", "INT"), ("1073741824", "INT")]
    assert printed(
        t_env, "SELECT SUM(v) FROM (VALUES (CAST(127 AS TINYINT)), (CAST(1 AS TINYINT))) AS t(v)"
    ) == [("-128", "TINYINT")]
    with pytest.raises(TypeError, match=r"Cannot apply 'SUM' to arguments of type 'SUM\(<BOOLEAN>\)'"):
        t_env.sql_query("SELECT SUM(b) FROM (VALUES (TRUE)) AS t(b)")


def test_a_failing_expression_is_named_with_its_calc_and_row(t_env: TableEnvironment) -> None:
    """Flink fails with "java.lang.NumberFormatException: For input string: 'abc'. Invalid
    character found." under its Calc; the failure names the expression, the Calc and the row."""
    sql = "SELECT CAST(s AS INT) + 1 AS i FROM (VALUES ('1'), ('abc')) AS t(s)"
    with pytest.raises(Exception) as failure:
        printed(t_env, sql)
    message = str(failure.value)
    assert "Could not evaluate CAST(s AS INT) in Calc(select=[(CAST(s AS INT) + 1) AS i])" in message
    assert "on row +I[abc]: For input string: 'abc'. Invalid character found." in message
    assert "user function raised" not in message


# -- every path of a Calc computes the same numbers -----------------------------------------------------

NAMES = ["t", "s", "i", "b"]
TYPES = [DataTypes.TINYINT(), DataTypes.SMALLINT(), DataTypes.INT(), DataTypes.BIGINT()]
_EDGES = {root: [low, low + 1, -1, 0, 1, high - 1, high] for root, (low, high) in INTEGER_RANGES.items()}


def _value(root: str) -> Any:
    low, high = INTEGER_RANGES[root]
    return st.one_of(st.none(), st.sampled_from(_EDGES[root]), st.integers(low, high))


def _java(op: str, a: int, b: int, root: str) -> int:
    """What Java computes for ``a op b`` in ``root``'s width."""
    if op == "/":
        quotient = abs(a) // abs(b)
        return wrap(-quotient if (a < 0) != (b < 0) else quotient, root)
    if op == "%":
        return wrap(-(abs(a) % abs(b)) if a < 0 else abs(a) % abs(b), root)
    return wrap({"+": a + b, "-": a - b, "*": a * b}[op], root)


def _expression(op: str, left: Expression, right: Expression) -> Expression:
    return {"+": left + right, "-": left - right, "*": left * right, "%": left % right}[op]


rows = st.lists(st.tuples(*(_value(t.root) for t in TYPES)), min_size=1, max_size=6)
pairs = st.tuples(st.sampled_from(range(4)), st.sampled_from(range(4)), st.sampled_from(["+", "-", "*", "%"]))


@ci_examples(200)
@given(st.lists(pairs, min_size=1, max_size=4), rows)
def test_the_closures_the_generated_code_and_arrow_wrap_alike(projection: list[Any], data: list[Any]) -> None:
    expressions: list[Expression] = []
    for left, right, op in projection:
        expressions.append(_expression(op, col(NAMES[left]), col(NAMES[right])))
    expressions += [
        -col("i"),
        call_builtin("ABS", col("t")),
        col("b") + lit(1),
        col("t").cast(DataTypes.BIGINT()) * col("b"),
    ]
    data = [r for r in data if all(v != 0 for v in r if v is not None)]  # % by zero fails
    if not data:
        return
    closures = [e.resolve(NAMES, TYPES) for e in expressions]
    expected = [tuple(c.fn(r) for c in closures) for r in data]
    for k, (left, right, op) in enumerate(projection):  # the closures are Java's arithmetic
        root = closures[k].data_type.root
        for row, out in zip(data, expected, strict=True):
            a, b = row[left], row[right]
            assert out[k] == (None if a is None or b is None else _java(op, a, b, root))
    calc = calc_function(NAMES, TYPES, None, expressions)
    assert [out[1] for r in data for out in calc(("+I", r))] == expected
    assert all(vectorizable(e, NAMES, TYPES) for e in expressions)
    vectorized = VectorizedCalc(NAMES, TYPES, None, expressions, calc)
    outputs, _ = vectorized._vectorized([("+I", r) for r in data])  # Arrow only, no fallback
    assert [o[1] for o in outputs] == expected


def test_a_columnar_scan_wraps_as_the_row_path(t_env: TableEnvironment, tmp_path: Path) -> None:
    """A json table's Calc on Arrow (``columnar=[arrow]``) gives PyFlink 2.3.0's values:
    2147483647 + 1 on INT is -2147483648, -(-2147483648) on INT is -2147483648, a TINYINT 127
    plus itself -2, ``ABS`` of the least INT that INT, and a BIGINT does not wrap at 2^31."""
    (tmp_path / "ints.json").write_text('{"i": 2147483647, "m": -2147483648, "t": 127}\n')
    t_env.execute_sql(
        f"CREATE TABLE ints (i INT, m INT, t TINYINT) WITH ('connector' = 'filesystem', "
        f"'path' = '{tmp_path / 'ints.json'}', 'format' = 'json')"
    )
    sql = "SELECT i + 1, -m, t + t, i * i, ABS(m), CAST(i AS BIGINT) + 1 FROM ints"
    assert "columnar=[arrow]" in t_env.sql_query(sql).explain()
    cells = ["-2147483648", "-2147483648", "-2", "1", "-2147483648", "2147483648"]
    assert [cell for cell, _ in printed(t_env, sql)] == cells


def test_decimals_of_38_digits_compute_exactly() -> None:
    """Python's default decimal context keeps 28 digits; DECIMAL(38, 0) keeps 38 (PyFlink
    2.3.0 prints 99999999999999999999999999999999999998 for v0 - v1 of
    99999999999999999999999999999999999999 and 1)."""
    wide = DataTypes.DECIMAL(38, 0, False)
    minus = (col("a") - col("b")).resolve(["a", "b"], [wide, DataTypes.DECIMAL(1, 0, False)])
    nines = decimal.Decimal("9" * 38)
    assert minus.fn((nines, decimal.Decimal(1))) == decimal.Decimal("9" * 37 + "8")
    assert summary_string(minus.data_type) == "DECIMAL(38, 0) NOT NULL"
