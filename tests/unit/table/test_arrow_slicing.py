"""The global phase of a window aggregation on Arrow (``arrow_slicing.py``) against the row
path's (``SlicingAggregate(partial=True)``, one KeyedProcessFunction call per key and window):
fed the same partials and watermarks they emit the same rows with the same timestamps, in the
same order, and a snapshot of either, restored into either at another parallelism, continues
as the uninterrupted operator would (random input, hypothesis)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from millstream.datastream import StreamExecutionEnvironment
from millstream.graph.operator_specs import KeyedProcessSpec
from millstream.runtime.operators.columnar import ColumnarKeyedOperator
from millstream.table.common.binary_row import BinaryRowKeyType
from millstream.table.common.window_spec import WindowSpec
from millstream.table.runtime.arrow_slicing import ArrowSlicingAggregate
from millstream.table.runtime.window_operators import SlicingAggregate
from millstream.table.types import DataTypes
from millstream.testing import OperatorHarness
from tests.conftest import ci_examples
from tests.unit.table.columnar_feed import check_restore, feed

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
            st.just("p"),  # a partial: key, slice, rows, value
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


def run(harnesses: list[OperatorHarness], spec: WindowSpec, script: list[Any], watermark: list[int]) -> None:
    feed(
        harnesses,
        script,
        watermark,
        lambda step: partial(spec, *step[1:]),
        lambda change: change[1][0],
        KEY_TYPE,
    )


def harness(spec: WindowSpec, columnar: bool, **kwargs: Any) -> OperatorHarness:
    return OperatorHarness.of(window_stream(spec, columnar), **kwargs)


@ci_examples(80)
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


@ci_examples(60)
@given(
    name=st.sampled_from(sorted(SPECS)),
    script=steps,
    cut=st.integers(0, 50),
    paths=st.tuples(st.booleans(), st.booleans()),  # columnar before, after
    parallelism=st.tuples(st.integers(1, 3), st.integers(1, 3)),  # before, after
)
def test_a_snapshot_of_either_path_restores_into_either_at_any_parallelism(
    name: str, script: Any, cut: int, paths: tuple[bool, bool], parallelism: tuple[int, int]
) -> None:
    spec = SPECS[name]

    def make(columnar: bool, **options: Any) -> OperatorHarness:
        return harness(spec, columnar, **options)

    def run_spec(harnesses: list[OperatorHarness], steps: list[Any], watermark: list[int]) -> None:
        run(harnesses, spec, steps, watermark)

    check_restore(make, run_spec, script, cut, paths, parallelism)
