"""Literals of a vectorized Calc are Arrow scalars built from their bytes: the same scalars
``pa.scalar`` makes (random values, hypothesis), without pyarrow's conversion of Python
values, which imports pandas (0.3 s of a TaskManager's first job). That a Calc and a
columnar scan import no pandas is checked in a fresh interpreter, by
``tests/integration/test_fresh_interpreters.py``."""

from __future__ import annotations

import decimal

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from millstream.table.expression import expression as e
from millstream.table.runtime.vectorized import _literal
from millstream.table.types import DataTypes

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    st.text(),
)


@given(value=values)
def test_a_literal_is_the_scalar_pyarrow_makes_of_it(value: object) -> None:
    made = _literal(e._Literal(value))
    expected = pa.scalar(value)
    assert made.type == expected.type and made.equals(expected)


@given(
    value=st.decimals(min_value=-(10**6), max_value=10**6, places=3, allow_nan=False, allow_infinity=False)
)
def test_a_decimal_literal_has_its_declared_precision_and_scale(value: decimal.Decimal) -> None:
    declared = DataTypes.DECIMAL(12, 3)
    made = _literal(e._Literal(value, declared))
    assert made.equals(pa.scalar(value, type=declared.to_arrow()))
