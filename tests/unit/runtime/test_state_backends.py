"""The two keyed state backends (heap and RocksDB) behave alike, write the same canonical
snapshots, restore each other's snapshots, and restore at another parallelism.

The rescale test runs a keyed operator as n subtasks (keys routed by key group, as the
keyed exchange routes them), snapshots them mid-stream, rescales the snapshots to m
subtasks and feeds the rest of the input: every key's output must equal that of one
uninterrupted operator (hypothesis: random input, cut points, backends and parallelisms).
"""

from __future__ import annotations

import os
import pickle
from collections import defaultdict
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from millstream.common import Time, Types
from millstream.datastream.state import (
    AggregatingStateDescriptor,
    ListStateDescriptor,
    MapStateDescriptor,
    ReducingStateDescriptor,
    StateTtlConfig,
    ValueStateDescriptor,
)
from millstream.graph.state_backend import StateBackendSettings
from millstream.runtime.state.backends import create_keyed_state_backend
from millstream.runtime.state.key_groups import (
    KeyGroupRange,
    assign_key_to_parallel_operator,
    compute_key_group_range,
    key_group_function,
)
from millstream.runtime.state.keyed_backend import KeyedStateError
from millstream.runtime.state.rescale import RescaleError, rescale_snapshots
from millstream.runtime.state.snapshot import OperatorSnapshot
from millstream.testing import OperatorHarness
from tests.conftest import ci_examples
from tests.unit.runtime.test_operator_snapshots import STREAMS, feed

BACKENDS = ["hashmap", "rocksdb"]


def make(kind: str, key_groups: KeyGroupRange | None = None, clock: Any = None) -> Any:
    backend = create_keyed_state_backend(
        StateBackendSettings(type=kind),
        128,
        key_groups or KeyGroupRange(0, 127),
        key_group_function(128),
        name="test",
    )
    if clock is not None:
        backend._clock = clock  # the TTL clock, set by hand
    return backend


class Mean:
    def create_accumulator(self):  # type: ignore[no-untyped-def]
        return (0, 0)

    def add(self, v, acc):  # type: ignore[no-untyped-def]
        return (acc[0] + v, acc[1] + 1)

    def get_result(self, acc):  # type: ignore[no-untyped-def]
        return acc[0] / acc[1]

    def merge(self, a, b):  # type: ignore[no-untyped-def]
        return (a[0] + b[0], a[1] + b[1])


def exercise(b: Any) -> dict[str, Any]:
    """Every state kind, several keys and namespaces; returns what reads saw."""
    value = b.get_state(ValueStateDescriptor("v", Types.STRING()))
    lst = b.get_state(ListStateDescriptor("l", Types.LONG()))
    mp = b.get_state(MapStateDescriptor("m", Types.STRING(), Types.LONG()))
    red = b.get_state(ReducingStateDescriptor("r", lambda x, y: x + y))
    agg = b.get_state(AggregatingStateDescriptor("a", Mean()))
    seen: dict[str, Any] = {}
    for key in ["x", ("y", 2), 7]:
        b.set_current_key(key)
        value.update(f"{key}!")
        lst.add(1)
        lst.add_all([2, 3])
        mp.put("k", 1)
        mp.put(("t", 1), 2)
        mp.put("gone", 3)
        mp.remove("gone")
        red.add(5)
        red.add(6)
        agg.add(1)
        agg.add(4)
        for window in ("w1", "w2"):
            lst.set_current_namespace(window)
            lst.add(window)
        lst.set_current_namespace(None)
    b.set_current_key("x")
    seen["x"] = (value.value(), lst.get(), dict(mp.items()), red.get(), agg.get())
    seen["contains"] = (mp.contains("k"), mp.contains("gone"), mp.get("nope"), mp.is_empty())
    lst.set_current_namespace("w1")
    lst.merge_namespaces("w1", ["w2"])
    seen["merged"] = sorted(lst.get())
    lst.set_current_namespace("w2")
    seen["merged away"] = lst.get()
    lst.set_current_namespace(None)
    b.set_current_key(7)
    value.clear()
    mp.clear()
    lst.update([9])
    seen["7"] = (value.value(), dict(mp.items()), mp.is_empty(), lst.get())
    seen["keys"] = sorted(map(repr, b.keys("v")))
    return seen


@pytest.mark.parametrize("kind", BACKENDS)
def test_every_state_kind_reads_what_was_written(kind: str) -> None:
    b = make(kind)
    try:
        seen = exercise(b)
        assert seen["x"] == ("x!", [1, 2, 3], {"k": 1, ("t", 1): 2}, 11, 2.5)
        assert seen["contains"] == (True, False, None, False)
        assert seen["merged"] == ["w1", "w2"]
        assert seen["merged away"] == []
        assert seen["7"] == (None, {}, True, [9])
        assert seen["keys"] == ["'x'", "('y', 2)"]
        with pytest.raises(KeyedStateError, match="registered as value state"):
            b.get_state(ListStateDescriptor("v"))
    finally:
        b.dispose()


def normalized(snapshot: Any) -> Any:
    """A snapshot with each key group's entries in one order (backends iterate differently)."""
    return (
        snapshot.states,
        {group: sorted(entries, key=repr) for group, entries in snapshot.groups.items() if entries},
    )


def test_both_backends_write_the_same_snapshot_and_restore_each_others() -> None:
    heap, rocks = make("hashmap"), make("rocksdb")
    try:
        exercise(heap)
        exercise(rocks)
        assert normalized(heap.snapshot()) == normalized(rocks.snapshot())
        for source, target_kind in ((heap, "rocksdb"), (rocks, "hashmap")):
            target = make(target_kind)
            try:
                target.restore([pickle.loads(pickle.dumps(source.snapshot()))])
                assert normalized(target.snapshot()) == normalized(source.snapshot())
                lst = target.get_state(ListStateDescriptor("l", Types.LONG()))
                target.set_current_key("x")
                assert lst.get() == [1, 2, 3]
            finally:
                target.dispose()
    finally:
        heap.dispose()
        rocks.dispose()


@pytest.mark.parametrize("kind", BACKENDS)
def test_a_subtask_restores_only_its_own_key_groups(kind: str) -> None:
    whole = make(kind)
    keys = [f"k{i}" for i in range(200)]
    try:
        state = whole.get_state(ValueStateDescriptor("v"))
        for key in keys:
            whole.set_current_key(key)
            state.update(key.upper())
        snapshot = whole.snapshot()
    finally:
        whole.dispose()
    for index in range(3):
        own = compute_key_group_range(128, 3, index)
        part = make(kind, own)
        try:
            part.restore([snapshot])
            mine = [k for k in keys if assign_key_to_parallel_operator(k, 128, 3) == index]
            assert sorted(part.keys("v")) == sorted(mine)
            assert set(part.snapshot().groups) <= set(range(own.start, own.end + 1))
        finally:
            part.dispose()


@pytest.mark.parametrize("kind", BACKENDS)
def test_ttl_expires_on_read_and_is_cleaned_in_the_background(kind: str) -> None:
    now = [0.0]
    b = make(kind, clock=lambda: now[0])
    try:
        on_read = ValueStateDescriptor("on_read")
        on_read.enable_time_to_live(
            StateTtlConfig.new_builder(Time.seconds(10)).update_ttl_on_read_and_write().build()
        )
        cleaned = MapStateDescriptor("cleaned")
        cleaned.enable_time_to_live(
            StateTtlConfig.new_builder(Time.seconds(10)).cleanup_incrementally(10, False).build()
        )
        full = ListStateDescriptor("full")
        full.enable_time_to_live(StateTtlConfig.new_builder(Time.seconds(10)).cleanup_full_snapshot().build())
        s1, s2, s3 = b.get_state(on_read), b.get_state(cleaned), b.get_state(full)
        for key in range(5):
            b.set_current_key(key)
            s1.update(key)
            s2.put("a", key)
            s3.add(key)
        now[0] = 8.0
        b.set_current_key(0)
        assert s1.value() == 0  # refreshed
        now[0] = 12.0
        assert s1.value() == 0
        b.set_current_key(1)
        assert s1.value() is None
        assert s2.get("a") is None and s2.is_empty()
        # full-snapshot cleanup: the expired list elements are not in the snapshot
        assert not [e for e in b.snapshot().groups.values() for e in e if e[0] == "full"]
        # incremental cleanup: accesses removed every expired map entry without reading them
        for _ in range(3):
            b.set_current_key(0)
            s1.value()
            s2.get("b")
        assert not [e for e in b.snapshot().groups.values() for e in e if e[0] == "cleaned"]
    finally:
        b.dispose()


def test_rocksdb_files_are_deleted_when_the_backend_is_disposed() -> None:
    b = make("rocksdb")
    path = b.path
    state = b.get_state(ValueStateDescriptor("v"))
    for key in range(1000):
        b.set_current_key(key)
        state.update(key)
    assert os.path.isdir(path)
    b.dispose()
    assert not os.path.exists(path)


# -- operators: switching backends and rescaling --------------------------------------------


def route(key: str, parallelism: int) -> int:
    return assign_key_to_parallel_operator(key, 128, parallelism)


def make_subtasks(
    name: str, parallelism: int, backend: str, restored: list[Any] | None = None
) -> list[OperatorHarness]:
    return [
        OperatorHarness.of(
            STREAMS[name](),
            parallelism=parallelism,
            subtask_index=index,
            state_backend=backend,
            restored_state=restored[index] if restored else None,
        )
        for index in range(parallelism)
    ]


def feed_subtasks(harnesses: list[OperatorHarness], script: list[Any], watermark: list[int]) -> None:
    """Elements to the subtask owning their key, watermarks (that advance) to every subtask."""
    for kind, key, ts in script:
        if kind == "e":
            harnesses[route(key, len(harnesses))].process_element((key, 1), ts)
        elif ts > watermark[0]:
            watermark[0] = ts
            for h in harnesses:
                h.process_watermark(ts)


def by_key(outputs: list[Any]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = defaultdict(list)
    for kind, value, ts in outputs:
        if kind == "record":
            out[value[0]].append((value, ts))
    return dict(out)


steps = st.lists(
    st.one_of(
        st.tuples(st.just("e"), st.sampled_from("abcdefgh"), st.integers(0, 6000)),
        st.tuples(st.just("w"), st.just(""), st.integers(0, 6000)),
    ),
    max_size=40,
)


@ci_examples(60)
@given(
    name=st.sampled_from(sorted(STREAMS)),
    script=steps,
    cut=st.integers(0, 40),
    old_parallelism=st.integers(1, 3),
    new_parallelism=st.integers(1, 3),
    backends=st.sampled_from([(a, b) for a in BACKENDS for b in BACKENDS]),
)
def test_an_operator_restored_at_another_parallelism_or_backend_continues_per_key(
    name: str, script: Any, cut: int, old_parallelism: int, new_parallelism: int, backends: Any
) -> None:
    first, rest = script[:cut], script[cut:]
    uninterrupted = OperatorHarness.of(STREAMS[name]())
    feed(uninterrupted, script, [-(2**63)])
    uninterrupted.end_input()
    uninterrupted.close()

    before = make_subtasks(name, old_parallelism, backends[0])
    watermark = [-(2**63)]
    feed_subtasks(before, first, watermark)
    snapshots = {i: pickle.loads(pickle.dumps(h.snapshot())) for i, h in enumerate(before)}
    produced = [o for h in before for o in h.output]
    for h in before:
        h.close()
    rescaled = rescale_snapshots(snapshots, old_parallelism, new_parallelism, 128)
    after = make_subtasks(name, new_parallelism, backends[1], rescaled)
    if watermark[0] > -(2**63):  # what the operators had seen (a snapshot holds no watermark)
        for h in after:
            h.process_watermark(watermark[0])
    feed_subtasks(after, rest, watermark)
    for h in after:
        h.end_input()
        produced.extend(h.output)
        h.close()
    assert by_key(produced) == by_key(uninterrupted.output)


def test_state_particular_to_an_operator_needs_its_connector_to_rescale() -> None:
    snapshots = {0: OperatorSnapshot(extra={"position": 3}), 1: OperatorSnapshot(extra={"position": 5})}
    with pytest.raises(RescaleError, match="'src' keeps state of its own"):
        rescale_snapshots(snapshots, 2, 3, 128, None, "src")
    split = rescale_snapshots(snapshots, 2, 1, 128, lambda states, p: [states], "src")
    assert split[0].extra == [{"position": 3}, {"position": 5}]


@pytest.mark.parametrize("kind", BACKENDS)
def test_add_all_appends_a_batch_with_one_access_time_and_refuses_null(kind: str) -> None:
    """``add_all`` (a join's batch of rows for one key) appends in order; with TTL each
    element expires on its own; a null element is refused as Flink's ListState refuses it."""
    now = [0.0]
    b = make(kind, clock=lambda: now[0])
    try:
        timed = ListStateDescriptor("timed")
        timed.enable_time_to_live(StateTtlConfig.new_builder(Time.seconds(10)).build())
        plain, expiring = b.get_state(ListStateDescriptor("plain")), b.get_state(timed)
        b.set_current_key("k")
        plain.add_all([])
        assert plain.get() in ([], None)
        plain.add_all([1, 2])
        plain.add_all(x for x in (3, 4))
        assert plain.get() == [1, 2, 3, 4]
        expiring.add_all(["old"])
        now[0] = 8.0
        expiring.add_all(["new", "newer"])
        now[0] = 12.0
        assert expiring.get() == ["new", "newer"]
        with pytest.raises(ValueError, match="null"):
            plain.add_all([5, None])
    finally:
        b.dispose()
