"""The ``datagen`` table connector generates values as Flink's (DataGenTableSource with
RandomGeneratorVisitor / SequenceGeneratorVisitor), and deals a sequence to the subtasks as
Flink's SequenceGenerator does.

PyFlink 2.3.0 printed, for ``d DECIMAL(32, 2), d2 DECIMAL(6, 4) ('fields.d2.min' = '1.5',
'fields.d2.max' = '2.5'), d4 DECIMAL(4, 1) (min -100, max 100000), ts TIMESTAMP(3), ltz
TIMESTAMP_LTZ(3) ('fields.ltz.max-past' = '10 s'), dt DATE, tm TIME, s VARCHAR(8), f FLOAT
(0 .. 10)`` at 05:10:49 UTC (its CURRENT_TIMESTAMP)::

    | 432434113755542303528580022272.00 | 2.3387 | 574.6 | 2026-11-29 05:10:56.671 |
      2026-11-29 05:10:51.485 | 2026-11-29 | 05:10:56 | e55c69d6 | 6.2814007 | ...
    | 654247565694338010098721357824.00 | 1.5895 | 481.9 | 2026-11-29 05:10:56.683 |
      2026-11-29 05:10:46.945 | ...
"""

from __future__ import annotations

import datetime
import decimal
import re
import time
from typing import Any

import pytest

from millstream.common.connector import ReaderContext
from millstream.connectors.datagen import InterleavedDataGeneratorSource
from millstream.connectors.datagen_table import datagen_rows
from millstream.table import DataTypes
from millstream.table.types import DataType


def _column(data_type: DataType, count: int = 50, **options: str) -> list[Any]:
    row, _ = datagen_rows(
        ["f"], [data_type], {f"fields.f.{k.replace('_', '-')}": v for k, v in options.items()}
    )
    return [row(i)[0] for i in range(count)]


def test_decimal_values_are_decimals_of_the_declared_precision_and_scale() -> None:
    wide = _column(DataTypes.DECIMAL(32, 2))
    assert all(type(v) is decimal.Decimal and v.as_tuple().exponent == -2 for v in wide)
    assert all(0 < v < 10**30 for v in wide)  # 'min' defaults to Double.MIN_VALUE, as Flink's
    assert max(len(v.as_tuple().digits) for v in wide) == 32  # e.g. 432434113755542303528580022272.00
    bounded = _column(DataTypes.DECIMAL(6, 4), min="1.5", max="2.5")
    assert all(
        decimal.Decimal("1.5") <= v <= decimal.Decimal("2.5") and v.as_tuple().exponent == -4 for v in bounded
    )
    clipped = _column(DataTypes.DECIMAL(4, 1), min="-100", max="100000")  # the type's largest: 999.9
    assert all(decimal.Decimal("-100") <= v <= decimal.Decimal("999.9") for v in clipped)
    assert max(clipped) > 500  # spread over the clipped range, as 574.6, 481.9, 750.2, 958.6 above


def test_sequence_decimals_have_the_declared_scale() -> None:
    """Flink's SequenceGenerator.bigDecimalGenerator: new BigDecimal(value, MathContext(p))
    .setScale(s, DOWN). (PyFlink 2.3.0 itself fails on such a column: 'java.math.BigDecimal
    cannot be cast to class org.apache.flink.table.data.DecimalData'.)"""
    values = _column(DataTypes.DECIMAL(5, 2), count=3, kind="sequence", start="1", end="10")
    assert values == [decimal.Decimal("1.00"), decimal.Decimal("2.00"), decimal.Decimal("3.00")]
    assert [str(v) for v in values] == ["1.00", "2.00", "3.00"]


def test_timestamps_are_now_minus_a_random_part_of_max_past() -> None:
    before = time.time()
    plain = _column(DataTypes.TIMESTAMP(3))
    local = _column(DataTypes.TIMESTAMP_LTZ(3), max_past="10 s")
    after = time.time()
    utc = datetime.datetime(1970, 1, 1)
    for value in plain:  # TimestampData.fromEpochMillis(now): the UTC wall-clock time
        assert before - 0.001 <= (value - utc).total_seconds() <= after and value.microsecond % 1000 == 0
    spread = [after - value.timestamp() for value in local]  # local wall-clock time of the instant
    assert all(-0.001 <= s <= 10.001 for s in spread) and max(spread) > 1
    assert _column(DataTypes.DATE(), count=1) == [datetime.date.today()]
    assert isinstance(_column(DataTypes.TIME(), count=1)[0], datetime.time)


def test_strings_are_hexadecimal_and_numbers_uniform_in_flinks_default_ranges() -> None:
    assert all(re.fullmatch("[0-9a-f]{100}", s) for s in _column(DataTypes.STRING()))  # nextHexString
    assert all(re.fullmatch("[0-9a-f]{8}", s) for s in _column(DataTypes.VARCHAR(8)))
    assert all(
        re.fullmatch("[0-9a-f]{1,4}", s) for s in _column(DataTypes.STRING(), length="5", var_len="true")
    )
    doubles = _column(DataTypes.DOUBLE())
    assert all(d > 0 for d in doubles) and max(doubles) > 1e300  # Double.MIN_VALUE .. MAX_VALUE
    nulls = _column(DataTypes.INT(), count=200, null_rate="0.5")
    assert 40 < nulls.count(None) < 160


def test_sequences_of_every_type_and_the_options_flink_checks() -> None:
    assert _column(DataTypes.STRING(), count=2, kind="sequence", start="11", end="18") == ["11", "12"]
    assert _column(DataTypes.BYTES(), count=1, kind="sequence", start="1", end="2") == [b"\0" * 7 + b"\1"]
    assert _column(DataTypes.DOUBLE(), count=1, kind="sequence", start="3", end="4") == [3.0]
    row, count = datagen_rows(
        ["a", "b"],
        [DataTypes.INT(), DataTypes.INT()],
        {"fields.a.kind": "sequence", "fields.a.start": "1", "fields.a.end": "8", "number-of-rows": "5"},
    )
    assert count == 5 and row(0)[0] == 1
    with pytest.raises(ValueError, match=r"Could not find required property 'fields.f.end' for sequence"):
        _column(DataTypes.INT(), kind="sequence", start="1")
    with pytest.raises(ValueError, match=r"Custom length for fixed-length type \(CHAR/BINARY\) field 'f'"):
        _column(DataTypes.CHAR(3), length="2")
    with pytest.raises(ValueError, match=r"Custom length '9' .* should be shorter than '8'"):
        _column(DataTypes.VARCHAR(8), length="9")


def _indexes(source: InterleavedDataGeneratorSource, subtask: int, parallelism: int) -> list[int]:
    reader = source.create_reader(ReaderContext(subtask, parallelism))
    out: list[int] = []
    while (batch := reader.poll(3)) is not None:
        out.extend(batch)
    return out


def test_subtasks_get_interleaved_indexes_as_flinks_sequence_generator() -> None:
    """SequenceGenerator.open: subtask k of p emits start + k, start + k + p, ...; each subtask's
    share of number-of-rows is n // p, one more for the first n % p."""
    sequence = InterleavedDataGeneratorSource(lambda i: i, 8)
    assert [_indexes(sequence, k, 2) for k in range(2)] == [[0, 2, 4, 6], [1, 3, 5, 7]]
    five = InterleavedDataGeneratorSource(lambda i: i, 5)
    assert [_indexes(five, k, 2) for k in range(2)] == [[0, 2, 4], [1, 3]]
    assert [_indexes(five, k, 3) for k in range(3)] == [[0, 3], [1, 4], [2]]
