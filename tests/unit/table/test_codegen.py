"""Generated calc code means what the expression closures mean: for random expression trees
(arithmetic, comparisons, three-valued AND/OR/NOT, IS NULL, CASE, CAST, built-in functions)
over random rows with NULLs, the generated function and the closures agree on every row."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from millstream.table.expressions import Expression, and_, col, if_then_else, lit, not_, or_
from millstream.table.functions.builtins import call_builtin
from millstream.table.runtime.codegen import calc_function, predicate_function
from millstream.table.types import DataTypes
from tests.conftest import ci_examples

NAMES = ["a", "b", "s"]
TYPES = [DataTypes.INT(), DataTypes.DOUBLE(), DataTypes.STRING()]

numbers = st.deferred(
    lambda: st.one_of(
        st.sampled_from([col("a"), col("b")]),
        st.integers(-5, 5).map(lit),
        st.tuples(numbers, numbers, st.sampled_from(["+", "-", "*"])).map(lambda t: _arith(*t)),
        numbers.map(lambda e: call_builtin("ABS", e)),
        st.tuples(booleans, numbers, numbers).map(lambda t: if_then_else(*t)),
    )
)
booleans = st.deferred(
    lambda: st.one_of(
        st.tuples(numbers, numbers, st.sampled_from(["=", "<>", "<", ">="])).map(lambda t: _compare(*t)),
        st.tuples(booleans, booleans).map(lambda t: and_(*t)),
        st.tuples(booleans, booleans).map(lambda t: or_(*t)),
        booleans.map(not_),
        numbers.map(lambda e: e.is_null),
        st.just(col("s").like("x%")),
        st.just(call_builtin("UPPER", col("s")) == "XY"),
    )
)


def _arith(left: Expression, right: Expression, op: str) -> Expression:
    return left + right if op == "+" else left - right if op == "-" else left * right


def _compare(left: Expression, right: Expression, op: str) -> Expression:
    return {"=": left == right, "<>": left != right, "<": left < right, ">=": left >= right}[op]


rows = st.lists(
    st.tuples(
        st.one_of(st.none(), st.integers(-3, 3)),
        st.one_of(st.none(), st.floats(-3, 3, allow_nan=False)),
        st.one_of(st.none(), st.sampled_from(["xy", "ab", "x"])),
    ),
    min_size=1,
    max_size=8,
)


@ci_examples(300)
@given(booleans, st.lists(numbers, min_size=1, max_size=3), rows)
def test_generated_calc_agrees_with_the_closures(
    condition: Any, projection: list[Any], data: list[Any]
) -> None:
    keep = condition.resolve(NAMES, TYPES).fn
    fns = [p.resolve(NAMES, TYPES).fn for p in projection]
    expected = [("+I", tuple(f(r) for f in fns)) for r in data if keep(r) is True]
    calc = calc_function(NAMES, TYPES, condition, projection)
    assert [out for r in data for out in calc(("+I", r))] == expected
    only_filter = calc_function(NAMES, TYPES, condition, None)
    assert [out for r in data for out in only_filter(("-U", r))] == [
        ("-U", r) for r in data if keep(r) is True
    ]


@ci_examples(200)
@given(booleans, rows)
def test_a_generated_predicate_gives_the_closures_value(condition: Any, data: list[Any]) -> None:
    """A join's residual condition is generated: TRUE, FALSE and NULL as its closure says."""
    closure = condition.resolve(NAMES, TYPES).fn
    predicate = predicate_function(NAMES, TYPES, condition)
    assert [predicate(r) for r in data] == [closure(r) for r in data]


def test_a_failing_generated_predicate_names_the_expression() -> None:
    predicate = predicate_function(NAMES, TYPES, call_builtin("MOD", col("a"), lit(0)) > 1)
    with pytest.raises(Exception, match="MOD") as failure:
        predicate((7, None, None))
    assert "7" in str(failure.value)


def test_a_single_false_operand_decides_and() -> None:
    """AND of one FALSE operand is FALSE, not NULL (the operands are evaluated as a tuple)."""
    calc = calc_function(NAMES, TYPES, None, [and_(col("a") > 5), or_(col("a") > 5), not_(col("a") > 5)])
    assert calc(("+I", (1, None, None))) == (("+I", (False, False, True)),)
    assert calc(("+I", (None, None, None))) == (("+I", (None, None, None)),)


@ci_examples(300)
@given(booleans, st.lists(numbers, min_size=1, max_size=3), rows)
def test_the_vectorized_calc_agrees_with_the_closures(
    condition: Any, projection: list[Any], data: list[Any]
) -> None:
    """The Arrow path (or its per-batch fallback) gives the closures' rows and kept indexes."""
    from millstream.table.runtime.vectorized import VectorizedCalc, vectorizable

    keep = condition.resolve(NAMES, TYPES).fn
    fns = [p.resolve(NAMES, TYPES).fn for p in projection]
    kept = [i for i, r in enumerate(data) if keep(r) is True]
    expected = [("+I", tuple(f(data[i]) for f in fns)) for i in kept]
    if not all(vectorizable(e, NAMES, TYPES) for e in [condition, *projection]):
        return  # the planner runs the generated row code for these (tested above)
    fallback = calc_function(NAMES, TYPES, condition, projection)
    calc = VectorizedCalc(NAMES, TYPES, condition, projection, fallback)
    out, indexes = calc([("+I", r) for r in data])
    assert out == expected
    assert (list(range(len(data))) if indexes is None else indexes) == kept


def test_vectorizable_expressions_run_on_arrow() -> None:
    """Comparisons, arithmetic, Kleene logic, CASE and string functions are vectorized; a
    user function or Java's integer division is not (the generated code runs those)."""
    from millstream.table.runtime.vectorized import VectorizedCalc, vectorizable

    condition = and_(col("a") > 0, or_(col("s").is_null, call_builtin("UPPER", col("s")) == "XY"))
    projection = [col("a") * 2 + col("b"), if_then_else(col("b") > 1.0, lit("big"), lit("small"))]
    assert all(vectorizable(e, NAMES, TYPES) for e in [condition, *projection])
    assert not vectorizable(col("a") / 2, NAMES, TYPES)

    def no_fallback(change: Any) -> tuple[Any, ...]:
        raise AssertionError("the batch should have run on Arrow")

    calc = VectorizedCalc(NAMES, TYPES, condition, projection, no_fallback)
    data = [("+I", (1, 2.0, "xy")), ("+I", (-1, 0.5, None)), ("+I", (3, None, None)), ("-D", (2, 0.5, "ab"))]
    assert calc(data) == ([("+I", (4.0, "big")), ("+I", (None, "small"))], [0, 2])
