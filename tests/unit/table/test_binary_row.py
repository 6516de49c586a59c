"""``binary_row_hash`` equals Flink's ``BinaryRowData.hashCode()``.

The expected values were printed on 2026-11-27 by a Java program built against PyFlink
2.3.0's ``flink-table-runtime-2.3.0.jar`` and ``flink-table-api-java-uber-2.3.0.jar``: each
row written with ``BinaryRowWriter`` (``writeString``, ``writeLong``, ``setNullAt``,
``writeDecimal``, ``writeTimestamp`` ...), then ``complete()`` and ``hashCode()``. GROUP BY
keys reach the subtask of ``MathUtils.murmurHash(hashCode) % maxParallelism``.
"""

from __future__ import annotations

import datetime
import decimal

import pytest

from millstream.table import DataTypes
from millstream.table.common.binary_row import BinaryRowKeyType, binary_row_hash

S, L, INT = DataTypes.STRING(), DataTypes.BIGINT(), DataTypes.INT()

CASES = [
    ([""], [S], 302122119),
    (["a"], [S], 943281246),
    (["hello"], [S], 243722546),
    (["1234567"], [S], 199144172),  # the longest inline string
    (["12345678"], [S], -391021801),  # the shortest in the variable part
    (["a somewhat longer word"], [S], -2144541047),
    (["héllo wörld ünïcode"], [S], 1668905945),  # UTF-8 bytes
    (["flink"], [S], 36939213),
    ([0], [L], -300363099),
    ([1], [L], 1465514398),
    ([-1], [L], -821098432),
    ([42], [L], 907821237),
    ([1234567890123], [L], -1873221036),
    ([-(2**63)], [L], 302122119),
    ([0], [INT], -300363099),
    ([1], [INT], 1465514398),
    ([-1], [INT], 1133687267),  # four bytes, the slot's others zero
    ([7], [INT], -348168691),
    ([2**31 - 1], [INT], -1125657321),
    ([None], [S], -1748325344),
    (["key-number-one", 99, None], [S, L, L], 1834933823),
    ([2.5, True], [DataTypes.DOUBLE(), DataTypes.BOOLEAN()], -476833123),
    ([2.5, -3], [DataTypes.FLOAT(), DataTypes.SMALLINT()], -1112620610),
    ([decimal.Decimal("12.34")], [DataTypes.DECIMAL(10, 2)], -1096042293),
    ([decimal.Decimal("12.34")], [DataTypes.DECIMAL(20, 2)], -531788649),
    ([decimal.Decimal("-1.28")], [DataTypes.DECIMAL(20, 2)], 1196242097),
    ([datetime.datetime(2023, 11, 14, 22, 13, 20, 123000)], [DataTypes.TIMESTAMP(3)], -1285420957),
    ([datetime.datetime(2023, 11, 14, 22, 13, 20, 123456)], [DataTypes.TIMESTAMP(6)], 1196670069),
    ([bytes(range(1, 10))], [DataTypes.BYTES()], -171399545),
    ([None, None], [DataTypes.DECIMAL(20, 2), DataTypes.TIMESTAMP(6)], -2077331864),
    (
        [datetime.date(2023, 12, 9), datetime.time(1, 2, 3, 4000)],
        [DataTypes.DATE(), DataTypes.TIME(3)],
        983692795,
    ),
    ([None if i % 3 == 0 else i for i in range(70)], [INT] * 70, -200445330),  # two words of null bits
]


@pytest.mark.parametrize(("values", "types", "expected"), CASES, ids=[str(c[0])[:30] for c in CASES])
def test_the_hash_of_a_key_row_is_flinks(values: list[object], types: list[object], expected: int) -> None:
    assert binary_row_hash(values, types) == expected


def test_keys_without_a_layout_have_no_key_type() -> None:
    assert BinaryRowKeyType.of([S, DataTypes.ARRAY(INT)]) is None
    with pytest.raises(TypeError, match="no binary row layout"):
        binary_row_hash([[1]], [DataTypes.ARRAY(INT)])


def test_numeric_keys_packed_in_one_step_hash_as_the_field_by_field_row() -> None:
    """Keys of numbers without NULLs are packed as a whole row in one step; the hash is the
    one the field-by-field writer (pinned to Flink's values above) gives."""
    import random

    from millstream.table.common.binary_row import _field_writer, _row_hash

    rng = random.Random(7)
    numeric = [
        (DataTypes.BIGINT(), lambda: rng.randrange(-(2**63), 2**63)),
        (DataTypes.INT(), lambda: rng.randrange(-(2**31), 2**31)),
        (DataTypes.SMALLINT(), lambda: rng.randrange(-(2**15), 2**15)),
        (DataTypes.TINYINT(), lambda: rng.randrange(-128, 128)),
        (DataTypes.BOOLEAN(), lambda: rng.random() < 0.5),
        (DataTypes.DOUBLE(), lambda: rng.uniform(-1e9, 1e9)),
        (DataTypes.FLOAT(), lambda: 2.5 * rng.randrange(-1000, 1000)),
    ]
    for arity in (1, 2, 3, 56, 57, 70):
        for _ in range(20):
            chosen = [rng.choice(numeric) for _ in range(arity)]
            types = [t for t, _ in chosen]
            key = tuple(make() for _, make in chosen)
            key_type = BinaryRowKeyType.of(types)
            assert key_type is not None
            writers = [_field_writer(t) for t in types]
            assert key_type.key_hash(key) == _row_hash(writers, key)  # type: ignore[arg-type]
