"""Property: the built-in rolling aggregations compiled for a declared tuple layout (the
keyed reduce's STREAMING fold with the reduce inline) emit exactly what folding with the
generic reduce functions emits, element by element: for keys by field (``itemgetter``) and
by function, and for elements of another arity than declared (which fall back)."""

from __future__ import annotations

from operator import itemgetter

from hypothesis import given
from hypothesis import strategies as st

from millstream.common import Types
from millstream.datastream.aggregations import (
    ComparableAggregator,
    SumAggregator,
    _comparable_function,
    _sum_function,
)
from tests.conftest import ci_examples

ROW = Types.TUPLE([Types.STRING(), Types.LONG(), Types.LONG()])

element = st.one_of(
    st.tuples(st.sampled_from("abc"), st.integers(-50, 50), st.integers(-50, 50)),
    # another arity: the generic path
    st.tuples(st.sampled_from("abc"), st.integers(-50, 50), st.integers(-50, 50), st.just(7)),
)


def _aggregators(position: int) -> list[tuple[object, object]]:
    """(compiled aggregator, the generic reduce it must equal)."""
    made = [(SumAggregator(position, ROW), _sum_function(position))]
    for kind in ("min", "max"):
        for by in (False, True):
            compiled = ComparableAggregator(position, kind, by, ROW)
            made.append((compiled, _comparable_function(position, kind == "min", by)))
    return made


def _fold(values: list[tuple], reduce, key) -> list[tuple]:  # type: ignore[no-untyped-def]
    reduced: dict = {}
    out = []
    for v in values:
        k = key(v)
        if k in reduced:
            v = reduce(reduced[k], v)
        reduced[k] = v
        out.append(v)
    return out


@ci_examples(60)
@given(
    batches=st.lists(st.lists(element, max_size=20), min_size=1, max_size=4),
    position=st.sampled_from([1, 2]),
    by_field=st.booleans(),
)
def test_the_compiled_rolling_fold_emits_what_the_generic_reduce_does(batches, position, by_field):  # type: ignore[no-untyped-def]
    key = itemgetter(0) if by_field else (lambda v: v[0])
    for aggregator, generic in _aggregators(position):
        assert aggregator.rolling is not None
        reduced: dict = {}
        out: list = []
        for batch in batches:
            aggregator.rolling(batch, reduced, out.append, None if by_field else key, 0)
        expected = _fold([v for batch in batches for v in batch], generic, itemgetter(0))
        assert out == expected
        assert reduced == {v[0]: v for v in expected}


def test_undeclared_or_named_fields_have_no_compiled_fold():
    assert SumAggregator(1).rolling is None
    assert SumAggregator("f1", ROW).rolling is None
    assert ComparableAggregator(5, "min", False, ROW).rolling is None
