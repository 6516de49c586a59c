"""BatchedCallCalc: a Calc whose expressions call pandas UDFs evaluates each call once per chunk
of rows, on Series converted through Arrow as PyFlink's (NULLs in a BIGINT column make a
float Series), and keeps SQL's meaning of the filter and projection."""

from __future__ import annotations

import pandas as pd
import pytest

from millstream.table import DataTypes
from millstream.table.expressions import col, lit
from millstream.table.runtime.pandas_calc import BatchedCallCalc, has_batched_call
from millstream.table.udf import udf

NAMES = ["a", "s"]
TYPES = [DataTypes.BIGINT(), DataTypes.STRING()]


def changes(rows):
    return [("+I", r) for r in rows]


class Recorder:
    """A pandas function recording the Series it was called with (same process)."""

    def __init__(self, body):
        self.body, self.calls = body, []

    def __call__(self, *series):
        self.calls.append([s.tolist() for s in series])
        return self.body(*series)


def test_each_call_sees_a_chunk_of_rows_and_nulls_as_arrow_hands_them():
    seen = Recorder(lambda a: a * 10)
    times_ten = udf(seen, result_type=DataTypes.BIGINT(), func_type="pandas")
    calc = BatchedCallCalc(NAMES, TYPES, None, [col("s"), times_ten(col("a"))], batch_size=2)
    out, kept = calc(changes([(1, "x"), (None, "y"), (3, "z")]))
    assert out == [("+I", ("x", 10)), ("+I", ("y", None)), ("+I", ("z", 30))]
    assert kept is None
    # chunks of at most batch_size rows; a NULL BIGINT is NaN in a float Series (Arrow's to_pandas)
    assert len(seen.calls) == 2
    assert seen.calls[0][0][0] == 1.0 and pd.isna(seen.calls[0][0][1])
    assert seen.calls[1] == [[3]]


def test_a_condition_without_pandas_calls_filters_before_the_functions_run():
    seen = Recorder(lambda s: s.str.upper())
    upper = udf(seen, result_type=DataTypes.STRING(), func_type="pandas")
    calc = BatchedCallCalc(NAMES, TYPES, col("a") > 1, [upper(col("s"))])
    out, kept = calc(changes([(1, "x"), (2, "y"), (None, "n"), (3, "z")]))
    assert out == [("+I", ("Y",)), ("+I", ("Z",))]
    assert kept == [1, 3]  # indexes into the input batch (the timestamps follow them)
    assert seen.calls == [[["y", "z"]]]


def test_a_condition_calling_pandas_functions_and_nested_calls():
    plus_one = udf(lambda a: a + 1, result_type=DataTypes.BIGINT(), func_type="pandas")
    projection = [col("a"), plus_one(plus_one(col("a")))]
    calc = BatchedCallCalc(NAMES, TYPES, plus_one(col("a")) > lit(2), projection)
    out, kept = calc(changes([(1, "x"), (2, "y"), (None, "n"), (5, "z")]))
    assert out == [("+I", (2, 4)), ("+I", (5, 7))]
    assert kept == [1, 3]
    assert has_batched_call(plus_one(col("a")) > lit(2)) and not has_batched_call(col("a") > lit(2))


def test_a_row_result_comes_back_from_a_data_frame():
    row = DataTypes.ROW([DataTypes.FIELD("n", DataTypes.BIGINT()), DataTypes.FIELD("t", DataTypes.STRING())])
    both = udf(lambda a, s: pd.DataFrame({"n": a * 2, "t": s + "!"}), result_type=row, func_type="pandas")
    calc = BatchedCallCalc(NAMES, TYPES, None, [both(col("a"), col("s"))])
    out, _ = calc(changes([(1, "x"), (2, None)]))
    assert out == [("+I", ((2, "x!"),)), ("+I", ((4, None),))]


def test_a_result_of_the_wrong_length_or_type_is_refused_as_pyflink_does():
    short = udf(lambda a: a.head(1), result_type=DataTypes.BIGINT(), func_type="pandas", name="short")
    calc = BatchedCallCalc(NAMES, TYPES, None, [short(col("a"))])
    message = "The result length '1' of Pandas UDF 'short' is not equal to the input length '2'"
    with pytest.raises(ValueError, match=message):
        calc(changes([(1, "x"), (2, "y")]))
    scalar = udf(lambda a: 3, result_type=DataTypes.BIGINT(), func_type="pandas", name="scalar")
    with pytest.raises(TypeError, match=r"must be pandas\.Series or pandas\.DataFrame"):
        BatchedCallCalc(NAMES, TYPES, None, [scalar(col("a"))])(changes([(1, "x")]))
    with pytest.raises(ValueError, match="must be positive"):
        BatchedCallCalc(NAMES, TYPES, None, [short(col("a"))], batch_size=0)


def test_outside_a_calc_a_call_gets_series_of_one_row():
    plus_one = udf(lambda a: a + 1, result_type=DataTypes.BIGINT(), func_type="pandas")
    compiled = plus_one(col("a")).resolve(NAMES, TYPES)
    assert compiled.fn((41, "x")) == 42
    assert compiled.fn((None, "x")) is None
