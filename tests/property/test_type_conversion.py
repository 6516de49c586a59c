"""Property: a declared type's batch conversion equals converting each value (``from_python``).

The batch converters take fast paths for well-typed batches (type and range checks, one
float32 array pass, column-wise tuples); whatever the batch, the result must be what
converting value by value gives, and a batch that needs no change comes back as itself.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from millstream.common import Types

TYPES = {
    "INT": (Types.INT(), st.integers(-(2**31), 2**31 - 1)),
    "BYTE": (Types.BYTE(), st.integers(-128, 127)),
    "LONG": (Types.LONG(), st.integers(-(2**63), 2**63 - 1)),
    "FLOAT": (Types.FLOAT(), st.floats(allow_nan=False) | st.integers(-(2**24), 2**24)),
    "DOUBLE": (Types.DOUBLE(), st.floats(allow_nan=False) | st.integers(-(2**53), 2**53)),
    "STRING": (Types.STRING(), st.text(max_size=5)),
    "BOOLEAN": (Types.BOOLEAN(), st.booleans()),
}
names = st.sampled_from(sorted(TYPES))


def convert_each(type_info: Any, values: list[Any]) -> list[Any]:
    return [type_info.from_python(v) for v in values]


def batch_converter(type_info: Any) -> Any:
    """The type's batch converter (None means values pass as they are)."""
    return type_info.batch_converter() or (lambda values: values)


def outcome(function: Any, values: list[Any]) -> Any:
    try:
        return ("ok", list(function(values)))
    except (TypeError, ValueError, OverflowError) as err:
        return ("error", type(err))


@given(st.data(), names, st.integers(0, 30))
def test_basic_batches_convert_as_value_by_value(data: Any, name: str, n: int) -> None:
    type_info, values = TYPES[name]
    batch = data.draw(st.lists(values | st.none() | st.integers(-(2**70), 2**70), min_size=n, max_size=n))
    convert = batch_converter(type_info)
    assert outcome(convert, batch) == outcome(lambda v: convert_each(type_info, v), batch)


@given(st.data(), st.lists(names, min_size=1, max_size=4), st.integers(0, 20))
def test_tuple_batches_convert_as_value_by_value(data: Any, fields: list[str], n: int) -> None:
    type_info = Types.TUPLE([TYPES[f][0] for f in fields])
    row = st.tuples(*(TYPES[f][1] for f in fields))
    batch = data.draw(st.lists(row, min_size=n, max_size=n))
    converted = batch_converter(type_info)(batch)
    assert list(converted) == convert_each(type_info, batch)
    if all(f not in ("FLOAT", "DOUBLE") for f in fields):
        assert converted is batch  # well typed: nothing allocated, nothing changed
