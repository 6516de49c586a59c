"""The global phase of a window aggregation on Arrow (``arrow_slicing.py``) against the row
path's (``SlicingAggregate(partial=True)``, one KeyedProcessFunction call per key and window):
fed the same partials and watermarks they emit the same rows with the same timestamps, in the
same order, and a snapshot of either, restored into either at another parallelism, continues
as the uninterrupted operator would (random input, hypothesis)."""

from __future__ import annotations

import pickle
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from millstream.datastream import StreamExecutionEnvironment
from millstream.graph.operator_specs import KeyedProcessSpec
from millstream.runtime.operators.columnar import ColumnarKeyedOperator
from millstream.runtime.state.key_groups import assign_key_to_parallel_operator
from millstream.table.arrow_slicing import ArrowSlicingAggregate
from millstream.table.binary_row import BinaryRowKeyType
from millstream.table.types import DataTypes
from millstream.table.window_operators import SlicingAggregate
from millstream.table.window_spec import WindowSpec
from millstream.testing import OperatorHarness

BIGINT = DataTypes.BIGINT()
CALLS = [
    ("COUNT", None, BIGINT),
    ("SUM", None, BIGINT),
    ("MAX", None, BIGINT),
    ("MIN", None, DataTypes.STRING()),
]
SPECS = {
    "tumble": WindowSpec("TUMBLE", 1000),
    "hop": WindowSpec("HOP", 3000, 1000),
    "hop with offset": WindowSpec("HOP", 2000, 500, offset=250),
    "cumulate": WindowSpec("CUMULATE", 3000, 1000),
}
KEY_TYPE = BinaryRowKeyType.of([DataTypes.STRING()])


def window_stream(spec: WindowSpec, columnar: bool) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    keyed = env.from_collection([]).key_by(lambda change: change[1][0], KEY_TYPE)
    merge = SlicingAggregate(spec, 0, "TIMESTAMP", CALLS, partial=True)
    if not columnar:
        return keyed.process(merge)
    columnar = ArrowSlicingAggregate(spec, "TIMESTAMP", [f for f, _, _ in CALLS], [t for _, _, t in CALLS])
    spec = KeyedProcessSpec(merge, "process_element", columnar=columnar)
    return keyed._one_input("GlobalWindowAggregate", spec, None, keyed.get_key_selector())


def partial(spec: WindowSpec, key: str, slice_index: int, rows: int, value: int | None) -> Any:
    """A local phase's partial: rows, COUNT(x), SUM(x), MAX(x), MIN(label)."""
    counted = rows if value is not None else 0
    accumulators = [
        counted,
        (value * counted if counted else 0, counted),
        value,
        None if value is None else f"v{value}",
    ]
    slice_end = spec.offset + slice_index * spec.slice_size
    return ("+I", ((key,), slice_end, rows, accumulators))


steps = st.lists(
    st.one_of(
        st.tuples(
            st.just("p"),
            st.sampled_from("abcdef"),
            st.integers(1, 9),
            st.integers(1, 3),
            st.one_of(st.none(), st.integers(-5, 5)),
        ),
        st.tuples(st.just("w"), st.integers(0, 9000)),
        st.tuples(
            st.just("c"),
        ),
    ),
    max_size=50,
)


def harness(spec: WindowSpec, columnar: bool, **kwargs: Any) -> OperatorHarness:
    return OperatorHarness.of(window_stream(spec, columnar), **kwargs)


def run(harnesses: list[OperatorHarness], spec: WindowSpec, script: list[Any], watermark: list[int]) -> None:
    """Partials to the subtask owning their key, as a batch between two steps that are not
    partials; watermarks that advance to every subtask."""
    batches: list[list[Any]] = [[] for _ in harnesses]

    def flush() -> None:
        for h, batch in zip(harnesses, batches, strict=True):
            if batch:
                h.process_elements([(p, None) for p in batch])
                batch.clear()

    for step in script:
        if step[0] == "p":
            _, key, index, rows, value = step
            owner = assign_key_to_parallel_operator((key,), 128, len(harnesses), KEY_TYPE)
            batches[owner].append(partial(spec, key, index, rows, value))
        else:
            flush()
            if step[0] == "w" and step[1] > watermark[0]:
                watermark[0] = step[1]
                for h in harnesses:
                    h.process_watermark(step[1])
    flush()


@settings(max_examples=80, deadline=None)
@given(name=st.sampled_from(sorted(SPECS)), script=steps)
def test_arrow_global_phase_emits_what_the_row_path_emits(name: str, script: Any) -> None:
    spec = SPECS[name]
    arrow, rows = harness(spec, True), harness(spec, False)
    assert isinstance(arrow.operator, ColumnarKeyedOperator)
    assert not isinstance(rows.operator, ColumnarKeyedOperator)
    for h in (arrow, rows):
        run([h], spec, script, [-(2**63)])
        h.end_input()
    assert arrow.output == rows.output


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(SPECS)),
    script=steps,
    cut=st.integers(0, 50),
    before=st.sampled_from(["arrow", "rows"]),
    after=st.sampled_from(["arrow", "rows"]),
    old_parallelism=st.integers(1, 3),
    new_parallelism=st.integers(1, 3),
)
def test_a_snapshot_of_either_path_restores_into_either_at_any_parallelism(
    name: str, script: Any, cut: int, before: str, after: str, old_parallelism: int, new_parallelism: int
) -> None:
    spec = SPECS[name]
    first, rest = script[:cut], script[cut:]
    uninterrupted = harness(spec, True)
    watermark = [-(2**63)]
    run([uninterrupted], spec, first, watermark)
    emitted_before = len(uninterrupted.output)
    run([uninterrupted], spec, rest, list(watermark))
    uninterrupted.end_input()
    expected = Counter(o for o in uninterrupted.output[emitted_before:] if o[0] == "record")

    old = [
        harness(spec, before == "arrow", parallelism=old_parallelism, subtask_index=i)
        for i in range(old_parallelism)
    ]
    saved = list(watermark := [-(2**63)])
    run(old, spec, first, saved)
    snapshots = [pickle.loads(pickle.dumps(h.snapshot())) for h in old]  # as a checkpoint stores them
    restored = []
    for i in range(new_parallelism):
        merged = snapshots[0]._replace(
            keyed=[s.keyed for s in snapshots],
            event_timers=[t for s in snapshots for t in s.event_timers],
        )
        restored.append(
            harness(
                spec, after == "arrow", parallelism=new_parallelism, subtask_index=i, restored_state=merged
            )
        )
    if saved[0] > -(2**63):  # the watermark is not in a snapshot: the sources send it again
        for h in restored:
            h.process_watermark(saved[0])
    run(restored, spec, rest, saved)
    outputs: Counter[Any] = Counter()
    for h in restored:
        h.end_input()
        outputs.update(o for o in h.output if o[0] == "record")
    assert outputs == expected
