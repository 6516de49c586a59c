"""TIMESTAMP_LTZ values, TO_TIMESTAMP_LTZ and CAST on Arrow give the row path's values: a
Calc of them is vectorized (the columnar scan of a table with ``ts AS TO_TIMESTAMP_LTZ(ms, 3)``
runs on Arrow), and a vectorized Calc's rows equal the generated row code's, value by value."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from millstream.table.common.types import DataTypes
from millstream.table.functions.arrow_temporal import session_zone
from millstream.table.runtime.codegen import calc_function
from millstream.table.runtime.vectorized import VectorizedCalc, vectorizable
from millstream.table.sql.expressions import parse_expression

_NAMES = ["ms", "s", "i", "b", "ts", "ts0", "ltz"]
_TYPES = [
    DataTypes.BIGINT(),
    DataTypes.INT(),
    DataTypes.INT(),
    DataTypes.TINYINT(),
    DataTypes.TIMESTAMP(3),
    DataTypes.TIMESTAMP(0),
    DataTypes.TIMESTAMP_LTZ(3),
]
_MILLIS = [0, 1, -1, 1704067200123, -62135596790000, 253402300799999, 253402300800000, 1700000000999]
_ROWS = [
    (
        ms,
        ms // 1000 if ms is not None and abs(ms) < 2**31 * 1000 else None,
        None if i % 3 == 0 else i * 7 - 11,
        None if i % 4 == 1 else i - 3,
        datetime.datetime(2024, 1, 1, 0, 0, i, 123000 * (i % 8)),
        datetime.datetime(2024, 1, 1, 0, i),
        datetime.datetime(2023, 12, 31, 23, 59, i, 5000),  # a session wall-clock time
    )
    for i, ms in enumerate([*_MILLIS, None])
]
_CALCS = [
    "TO_TIMESTAMP_LTZ(ms, 3)",
    "TO_TIMESTAMP_LTZ(ms)",
    "TO_TIMESTAMP_LTZ(s, 0)",
    "TO_TIMESTAMP_LTZ(ms, 3) - INTERVAL '4' SECOND",
    "CAST(TO_TIMESTAMP_LTZ(ms, 3) AS TIMESTAMP(3))",
    "CAST(ltz AS TIMESTAMP(3))",
    "CAST(ltz AS TIMESTAMP(0))",
    "CAST(ts AS TIMESTAMP(0))",
    "CAST(ts AS TIMESTAMP_LTZ(3))",
    "CAST(ts0 AS TIMESTAMP(3))",
    "CAST(i AS BIGINT)",
    "CAST(b AS INT)",
    "CAST(i AS DOUBLE)",
    "CAST(i AS DECIMAL(12, 2))",
    "CAST(ms AS DECIMAL(5, 0))",  # NULL where a value has more digits, as Flink's DecimalData
    "CAST(CAST(i AS DECIMAL(12, 2)) AS DECIMAL(4, 3))",
    "CAST(CAST(ms AS DECIMAL(19, 0)) * 0.908 AS DECIMAL(23, 3))",  # Nexmark q1's sink column
    "ltz",
    "ltz > TO_TIMESTAMP_LTZ(ms, 3)",
]


def _rows(values: list[Any]) -> list[tuple[Any, ...]]:
    return [("+I", row) for row in values]


@pytest.mark.skipif(session_zone() != "UTC", reason="a cast to TIMESTAMP_LTZ runs on Arrow in UTC only")
@pytest.mark.parametrize("sql", _CALCS)
def test_a_vectorized_calc_of_instants_and_casts_gives_the_row_codes_values(sql: str) -> None:
    expression = parse_expression(sql)
    assert vectorizable(expression, _NAMES, _TYPES)
    rows = _rows(_ROWS)
    row_code = calc_function(_NAMES, _TYPES, None, [expression])
    calc = VectorizedCalc(_NAMES, _TYPES, None, [expression], row_code)
    vectorized, kept = calc._vectorized(rows)
    assert kept is None
    assert [row for _, row in vectorized] == [row_code(r)[0][1] for r in rows]


@pytest.mark.parametrize(
    "sql",
    [
        "TO_TIMESTAMP_LTZ(ms, 6)",  # a precision the kernel does not take: microseconds
        "TO_TIMESTAMP_LTZ(ms, i)",  # a precision that is not a literal
        "CAST(i AS TINYINT)",  # narrowing wraps as Java does: the row code's
        "CAST(CAST(i AS DECIMAL(12, 2)) AS DECIMAL(12, 1))",  # fewer fraction digits: rounding
        "CAST(ms AS STRING)",
    ],
)
def test_calls_and_casts_arrow_would_compute_otherwise_stay_on_the_row_code(sql: str) -> None:
    assert not vectorizable(parse_expression(sql), _NAMES, _TYPES)


def test_a_timestamp_ltz_column_is_held_as_the_rows_session_wall_clock() -> None:
    """A TIMESTAMP_LTZ column leaves Arrow as the row path holds it (no zone, the session's
    wall clock), and enters Arrow from it as its instant."""
    import pyarrow as pa

    from millstream.table.runtime.vectorized import _arrow_input, arrow_output, arrow_type_exact

    ltz = DataTypes.TIMESTAMP_LTZ(3)
    assert arrow_type_exact(ltz) and not arrow_type_exact(DataTypes.TIMESTAMP_LTZ(6))
    assert not arrow_type_exact(DataTypes.ROW([DataTypes.FIELD("t", ltz)]))  # a ROW field keeps its zone
    convert, back = arrow_output(ltz), _arrow_input(ltz)
    assert convert is not None and back is not None
    wall = datetime.datetime(2024, 1, 1, 12, 30, 0, 250000)
    array = pa.array([back(wall), None], type=ltz.to_arrow())
    assert convert(array.to_pylist()) == [wall, None]


@given(
    millis=st.lists(st.one_of(st.none(), st.integers(-62135596800000, 253402300799999)), max_size=40),
    ltz=st.booleans(),
)
def test_timestamps_leave_arrow_as_pyarrow_gives_them(millis: list[int | None], ltz: bool) -> None:
    """``python_values`` makes a millisecond timestamp column's ``datetime`` objects with numpy
    (pyarrow's ``to_pylist`` takes twenty times as long): the same values, NULLs included."""
    import pyarrow as pa

    from millstream.table.runtime.vectorized import arrow_output, python_values

    data_type = DataTypes.TIMESTAMP_LTZ(3) if ltz else DataTypes.TIMESTAMP(3)
    array = pa.array(millis, pa.int64()).cast(data_type.to_arrow())
    expected = array.to_pylist()
    convert = arrow_output(data_type)
    assert python_values(array, data_type) == (expected if convert is None else convert(expected))


@given(moment=st.datetimes(min_value=datetime.datetime(1900, 1, 1), max_value=datetime.datetime(2200, 1, 1)))
def test_a_timestamp_ltz_value_is_the_epoch_of_the_session_wall_clock(moment: datetime.datetime) -> None:
    """``to_epoch_millis`` of a TIMESTAMP_LTZ value skips the zone lookup in a UTC zone (most
    of a session window's cost per row over a computed TO_TIMESTAMP_LTZ time): the same
    epoch as the local zone's."""
    from millstream.table.common.timestamps import to_epoch_millis

    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
    assert to_epoch_millis(moment, "TIMESTAMP_LTZ") == (moment.astimezone() - epoch) // datetime.timedelta(
        milliseconds=1
    )


def test_a_calc_that_only_picks_columns_hands_them_on_without_arrow() -> None:
    """A projection of columns alone (the Calc after a Nexmark join) picks each row's values
    with one C call, as the generated row code's result; a Calc that computes keeps Arrow."""
    from millstream.table.api.expressions import col

    names, types = ["a", "b", "c"], [DataTypes.BIGINT(), DataTypes.STRING(), DataTypes.TIMESTAMP_LTZ(3)]
    rows = _rows([(1, "x", datetime.datetime(2024, 1, 1)), (None, None, None)])
    for projection in ([col("c"), col("a").alias("z")], [col("b")], []):
        row_code = calc_function(names, types, None, projection)
        calc = VectorizedCalc(names, types, None, projection, row_code)
        assert calc.select is not None
        assert calc(rows) == ([row_code(r)[0] for r in rows], None)
    assert (
        VectorizedCalc(
            names, types, None, [col("a") + 1], calc_function(names, types, None, [col("a") + 1])
        ).select
        is None
    )
