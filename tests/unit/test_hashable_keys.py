"""Unhashable keys in the keyed runtime: hashable forms, key groups, routing, state (issue 46, point 10)."""

from __future__ import annotations

import pickle

import pytest

from millstream.common import Types
from millstream.common.hashable_keys import (
    HashableDict,
    HashableList,
    HashableTuple,
    PickledKey,
    hashable_key,
    hashing_key_selector,
    plain_key,
)
from millstream.datastream.state import MapStateDescriptor, ValueStateDescriptor
from millstream.graph.partitioning import KeyGroupStreamPartitioner
from millstream.runtime.partitioning import create_channel_selector
from millstream.runtime.state.key_groups import (
    KeyGroupRange,
    assign_key_to_parallel_operator,
    assign_to_key_group,
)
from tests.unit.runtime.test_state_backends import BACKENDS, make


class Point:
    """An object without a hash (it defines __eq__ only)."""

    def __init__(self, x: int) -> None:
        self.x = x

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and other.x == self.x

    __hash__ = None  # type: ignore[assignment]


def test_a_hashable_form_equals_its_key_and_keeps_its_type():
    key = hashable_key(["a", [1, {"x": 2}]])
    assert isinstance(key, list) and type(key) is HashableList
    assert key == ["a", [1, {"x": 2}]]
    assert ["a", [1, {"x": 2}]].__eq__(key)  # the plain list sees its equal too
    assert hash(key) == hash(hashable_key(["a", [1, {"x": 2}]]))
    assert repr(key) == "['a', [1, {'x': 2}]]" and plain_key(key) == ["a", [1, {"x": 2}]]
    assert type(hashable_key({"k": "a"})) is HashableDict and type(hashable_key((1, [2]))) is HashableTuple
    copy = pickle.loads(pickle.dumps(key))
    assert type(copy) is HashableList and copy == key and hash(copy) == hash(key)
    point = hashable_key(Point(3))
    assert type(point) is PickledKey and point.x == 3 and point == hashable_key(Point(3))


def test_two_forms_are_one_key_when_their_keys_pickle_alike_as_in_pyflink():
    # PyFlink 2.3.0 keeps {'a': 1, 'b': 2} and {'b': 2, 'a': 1}, and [1] and [True], apart
    # (its state is keyed by the pickled key; a reduce over them printed separate sums)
    assert hashable_key({"a": 1, "b": 2}) != hashable_key({"b": 2, "a": 1})
    assert hashable_key([1]) != hashable_key([True])
    assert hashable_key({"a": 1, "b": 2}) == {"b": 2, "a": 1}  # compared with a dict: a dict


@pytest.mark.parametrize("key", [["a"], {"k": "a"}, ("t", [1]), {1, 2}, bytearray(b"x"), Point(1)])
def test_a_hashable_form_is_in_its_keys_key_group(key):
    assert assign_to_key_group(hashable_key(key), 128) == assign_to_key_group(key, 128)


def test_list_and_dict_keys_land_in_the_subtasks_pyflink_puts_them_in():
    # PyFlink 2.3.0, parallelism 2: ['a'] and ['c'] in subtask 2, ['b'] in 1; {'k': 'a'},
    # {'k': 'c'} in 2, {'k': 'b'} in 1; ['a', 1], ['c', 1] in 1, ['b', 1] in 2
    subtask = {
        repr(k): assign_key_to_parallel_operator(k, 128, 2) + 1
        for k in (["a"], ["b"], ["c"], {"k": "a"}, {"k": "b"}, {"k": "c"}, ["a", 1], ["b", 1], ["c", 1])
    }
    assert subtask == {
        "['a']": 2,
        "['b']": 1,
        "['c']": 2,
        "{'k': 'a'}": 2,
        "{'k': 'b'}": 1,
        "{'k': 'c'}": 2,
        "['a', 1]": 1,
        "['b', 1]": 2,
        "['c', 1]": 1,
    }


def test_the_keyed_exchange_routes_list_keys_by_their_key_group():
    selector = create_channel_selector(KeyGroupStreamPartitioner(lambda v: [v[0]], 128), 2)
    values = [("a", 1), ("b", 2), ("a", 3), ("c", 4)]
    for _ in range(2):  # the second batch is routed from the cache of hashable forms
        routed = {c: vals for c, vals, _ in selector.route(values, None)}
        assert routed == {1: [("a", 1), ("a", 3), ("c", 4)], 0: [("b", 2)]}


@pytest.mark.parametrize("kind", BACKENDS)
def test_keyed_state_of_list_keys_survives_a_snapshot(kind):
    backend = make(kind)
    restored = make(kind)
    try:
        count = backend.get_state(ValueStateDescriptor("count", Types.INT()))
        seen = backend.get_state(MapStateDescriptor("seen", Types.INT(), Types.INT()))
        for key, value in [(["a"], 1), ({"k": "b"}, 2), (["a"], 3)]:
            stored = backend.set_current_key(key)
            assert stored == key and hash(stored) == hash(hashable_key(key))
            count.update((count.value() or 0) + 1)
            seen.put(value, 1)
        restored.restore([backend.snapshot()])
        restored_count = restored.get_state(ValueStateDescriptor("count", Types.INT()))
        restored_seen = restored.get_state(MapStateDescriptor("seen", Types.INT(), Types.INT()))
        restored.set_current_key(["a"])
        assert restored_count.value() == 2 and sorted(restored_seen.keys()) == [1, 3]
        restored.set_current_key({"k": "b"})
        assert restored_count.value() == 1
        assert sorted(map(repr, restored.keys("count"))) == ["['a']", "{'k': 'b'}"]
        half = make(kind, KeyGroupRange(0, 63))
        try:  # only the key groups of a rescaled subtask's range
            half.restore([backend.snapshot()])
            owned = [k for k in (["a"], {"k": "b"}) if assign_to_key_group(k, 128) <= 63]
            assert sorted(map(repr, half.keys("count"))) == sorted(map(repr, owned))
        finally:
            half.dispose()
    finally:
        backend.dispose()
        restored.dispose()


def test_an_ordinary_key_is_stored_as_it_is():
    backend = make("hashmap")
    key = ("a", 1)
    assert backend.set_current_key(key) is key


def test_the_hashing_key_selector_leaves_hashable_keys_alone():
    key = hashing_key_selector(lambda v: v[0])
    plain = ("x",)
    assert key([plain]) is plain
    assert type(key([["x"]])) is HashableList
