"""Key groups as Flink assigns them to the keys PyFlink hands to Java (issue 13, point 4).

The expected values were computed by Flink 2.3.0 itself: a small Java program on the
classpath of the apache-flink 2.3.0 wheel's jars called ``MathUtils.murmurHash``,
``Row.hashCode`` and ``KeyGroupRangeAssignment.assignToKeyGroup`` /
``assignKeyToParallelOperator`` on ``Row``s of one field, which is how PyFlink's
``KeyByKeySelector`` wraps every key. ``PYFLINK_SUBTASKS`` are what real PyFlink 2.3
reported from ``get_index_of_this_subtask()`` for ``key_by`` at parallelism 4, with and
without ``key_type`` (an undeclared key reaches Java as its cloudpickled bytes).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from millstream.common.typeinfo import Types
from millstream.common.types import Row
from millstream.runtime.state.key_groups import (
    assign_key_to_parallel_operator,
    assign_to_key_group,
    compute_key_group_range,
    flink_key_hash,
    flink_murmur_hash,
    key_group_function,
)

# MathUtils.murmurHash(code), from Flink 2.3.0.
FLINK_MURMUR = [
    (0, 593689054),
    (1, 68075478),
    (-1, 1982413648),
    (42, 1134849565),
    (62, 979750049),
    (99162322, 1715862179),
    (-2147483648, 1718298732),
    (2147483647, 1653689534),
]

# (key, declared type, parallelism, Row(key).hashCode(), key group at max parallelism 128,
# subtask), from Flink 2.3.0.
FLINK_KEYS = [
    ("hello", Types.STRING(), 4, 99162384, 40, 1),
    ("", Types.STRING(), 4, 62, 33, 1),
    ("ü€", Types.STRING(), 4, 16238, 84, 2),
    ("flink", Types.STRING(), 3, 97521054, 43, 1),
    (7, Types.INT(), 4, 69, 17, 0),
    (-5, Types.INT(), 4, 57, 96, 3),
    (2**40, Types.LONG(), 4, 318, 83, 2),
    (-5, Types.LONG(), 4, 66, 17, 0),
    (True, Types.BOOLEAN(), 2, 1293, 67, 1),
    (1.5, Types.DOUBLE(), 4, 1073217598, 54, 1),
    (0.1, Types.FLOAT(), 4, 1036832011, 44, 1),
    (3, Types.SHORT(), 4, 65, 104, 3),
    (-2, Types.BYTE(), 4, 60, 117, 3),
    (12345678901234567890, Types.BIG_INT(), 4, -1436577020, 127, 3),
    (-7, Types.BIG_INT(), 4, 55, 115, 3),
    (Decimal("3.14"), Types.BIG_DEC(), 4, 9798, 75, 2),
    ("x", Types.CHAR(), 4, 182, 45, 1),
    (("a", 1), Types.TUPLE([Types.STRING(), Types.INT()]), 4, 3070, 44, 1),
    (Row("a", 1), Types.ROW([Types.STRING(), Types.INT()]), 4, 5023, 75, 2),
    (["a", "b"], Types.LIST(Types.STRING()), 4, 5089, 77, 2),
    ({"a": 1, "b": 2}, Types.MAP(Types.STRING(), Types.INT()), 4, 352, 101, 3),
    (["a", "b"], Types.BASIC_ARRAY(Types.STRING()), 4, 5089, 77, 2),
    ([1, 2], Types.PRIMITIVE_ARRAY(Types.INT()), 4, 1056, 29, 0),
    (None, Types.STRING(), 4, 31, 123, 3),
]

# (key, key_type given to key_by, subtask at parallelism 4), reported by real PyFlink 2.3.
PYFLINK_SUBTASKS = [
    (-5, Types.INT(), 3),
    (0, Types.INT(), 1),
    (100, Types.INT(), 2),
    (1, Types.INT(), 1),
    (2, Types.INT(), 3),
    (3, Types.INT(), 3),
    (7, Types.INT(), 0),
    (-5, Types.LONG(), 0),
    (0, Types.LONG(), 1),
    (100, Types.LONG(), 2),
    (1099511627776, Types.LONG(), 2),
    (1, Types.LONG(), 1),
    (2, Types.LONG(), 3),
    (3, Types.LONG(), 3),
    (7, Types.LONG(), 0),
    (-5, None, 3),
    (0, None, 0),
    (100, None, 2),
    (1099511627776, None, 0),
    (1, None, 1),
    (2, None, 0),
    (3, None, 2),
    (7, None, 0),
    ("", None, 3),
    ("a", None, 1),
    ("b", None, 0),
    ("flink", None, 0),
    ("hello", None, 2),
    ("key-17", None, 2),
    ("world", None, 0),
    ("ü€", None, 1),
    ("", Types.STRING(), 1),
    ("a", Types.STRING(), 2),
    ("b", Types.STRING(), 2),
    ("flink", Types.STRING(), 1),
    ("hello", Types.STRING(), 1),
    ("key-17", Types.STRING(), 1),
    ("world", Types.STRING(), 0),
    ("ü€", Types.STRING(), 2),
]


@pytest.mark.parametrize(("code", "expected"), FLINK_MURMUR)
def test_murmur_hash_is_flinks(code: int, expected: int) -> None:
    assert flink_murmur_hash(code & 0xFFFFFFFF) == expected


@pytest.mark.parametrize(("key", "key_type", "parallelism", "row_hash", "group", "subtask"), FLINK_KEYS)
def test_declared_keys_hash_and_land_as_in_flink(
    key, key_type, parallelism, row_hash, group, subtask
) -> None:
    assert flink_key_hash(key, key_type) == row_hash
    assert assign_to_key_group(key, 128, key_type) == group
    assert assign_key_to_parallel_operator(key, 128, parallelism, key_type) == subtask


def test_a_larger_max_parallelism_uses_the_same_hash() -> None:
    # Flink 2.3.0: "hello" at max parallelism 256 and parallelism 200 -> group 40, subtask 31.
    assert assign_to_key_group("hello", 256, Types.STRING()) == 40
    assert assign_key_to_parallel_operator("hello", 256, 200, Types.STRING()) == 31


@pytest.mark.parametrize(("key", "key_type", "subtask"), PYFLINK_SUBTASKS)
def test_keys_land_in_the_subtask_pyflink_puts_them_in(key, key_type, subtask) -> None:
    assert assign_key_to_parallel_operator(key, 128, 4, key_type) == subtask


def test_the_key_group_function_of_a_key_type_agrees_and_takes_unhashable_keys() -> None:
    groups = key_group_function(128, Types.LIST(Types.STRING()))
    assert groups(["a", "b"]) == 77
    typed = key_group_function(128, Types.STRING())
    assert [typed(k) for k in ("hello", "hello", "")] == [40, 40, 33]


def test_arrays_inside_a_tuple_have_no_java_hash() -> None:
    with pytest.raises(TypeError, match="cannot be keys"):
        flink_key_hash(([1],), Types.TUPLE([Types.PRIMITIVE_ARRAY(Types.INT())]))


# also hashed by fresh interpreters with other hash seeds (tests/integration/test_fresh_interpreters.py)
KEYS = ["word", "", "ünïcödé", 0, -1, 2**70, (1, "a"), b"bytes", 3.5, None, True]


@pytest.mark.parametrize("parallelism", [1, 2, 3, 5, 128])
def test_ranges_partition_the_key_groups_and_agree_with_routing(parallelism: int) -> None:
    owned = []
    for index in range(parallelism):
        r = compute_key_group_range(128, parallelism, index)
        owned.extend(range(r.start, r.end + 1))
        for group in (r.start, r.end):
            assert group * parallelism // 128 == index
    assert owned == list(range(128))
    for key in KEYS:
        index = assign_key_to_parallel_operator(key, 128, parallelism)
        assert assign_to_key_group(key, 128) in compute_key_group_range(128, parallelism, index)
