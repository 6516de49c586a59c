"""A GROUP BY over the window the rows carry, on Arrow (``arrow_attached.py``), against the row
path (``AttachedWindowAggregate``, one KeyedProcessFunction call per row and group): fed the
same rows and watermarks they emit the same rows with the same timestamps, in the same order,
and a snapshot of either, restored into either at another parallelism, continues as the
uninterrupted operator would (random input, hypothesis)."""

from __future__ import annotations

import datetime
import operator
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from millstream.datastream import StreamExecutionEnvironment
from millstream.graph.operator_specs import KeyedProcessSpec
from millstream.runtime.operators.columnar import ColumnarKeyedOperator
from millstream.table.common.binary_row import BinaryRowKeyType
from millstream.table.runtime.arrow_attached import ArrowAttachedAggregate
from millstream.table.runtime.window_operators import AttachedWindowAggregate
from millstream.table.types import DataTypes
from millstream.testing import OperatorHarness
from tests.conftest import ci_examples
from tests.unit.table.columnar_feed import check_restore, feed

EPOCH = datetime.datetime(1970, 1, 1)
BIGINT, TIMESTAMP = DataTypes.BIGINT(), DataTypes.TIMESTAMP(3)
# rows: (k, window_start, window_end, x, label); GROUP BY k, window_start, window_end
KEYS = [operator.itemgetter(0), operator.itemgetter(1), operator.itemgetter(2)]
CALLS = [
    ("COUNT", operator.itemgetter(3), BIGINT),
    ("SUM", operator.itemgetter(3), BIGINT),
    ("MAX", operator.itemgetter(3), BIGINT),
    ("MIN", operator.itemgetter(4), DataTypes.STRING()),
]
KEY_TYPE = BinaryRowKeyType.of([DataTypes.STRING(), TIMESTAMP, TIMESTAMP], [0])


def group_of(change: Any) -> tuple[Any, ...]:
    return tuple(k(change[1]) for k in KEYS)


def attached_stream(columnar: bool) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    keyed = env.from_collection([]).key_by(group_of, KEY_TYPE)
    function = AttachedWindowAggregate(CALLS, 2, "TIMESTAMP")
    if not columnar:
        return keyed.process(function)
    spec = KeyedProcessSpec(
        function, "process_element", columnar=ArrowAttachedAggregate(KEYS, CALLS, 2, "TIMESTAMP")
    )
    return keyed._one_input("WindowAggregate", spec, None, keyed.get_key_selector())


def row(key: str, window: int, value: int | None) -> Any:
    start = EPOCH + datetime.timedelta(seconds=window)
    label = None if value is None else f"v{value}"
    return ("+I", (key, start, start + datetime.timedelta(seconds=1), value, label))


steps = st.lists(
    st.one_of(
        st.tuples(
            st.just("r"), st.sampled_from("abcd"), st.integers(0, 8), st.one_of(st.none(), st.integers(-5, 5))
        ),
        st.tuples(st.just("w"), st.integers(0, 9000)),
        st.tuples(st.just("c")),
    ),
    max_size=50,
)


def run(harnesses: list[OperatorHarness], script: list[Any], watermark: list[int]) -> None:
    feed(harnesses, script, watermark, lambda step: row(*step[1:]), group_of, KEY_TYPE)


@ci_examples(80)
@given(script=steps)
def test_arrow_attached_window_aggregate_emits_what_the_row_path_emits(script: Any) -> None:
    arrow, rows = OperatorHarness.of(attached_stream(True)), OperatorHarness.of(attached_stream(False))
    assert isinstance(arrow.operator, ColumnarKeyedOperator)
    assert not isinstance(rows.operator, ColumnarKeyedOperator)
    for h in (arrow, rows):
        run([h], script, [-(2**63)])
        h.end_input()
    assert arrow.output == rows.output


@ci_examples(60)
@given(
    script=steps,
    cut=st.integers(0, 50),
    paths=st.tuples(st.booleans(), st.booleans()),  # columnar before, after
    parallelism=st.tuples(st.integers(1, 3), st.integers(1, 3)),  # before, after
)
def test_a_snapshot_of_either_path_restores_into_either_at_any_parallelism(
    script: Any, cut: int, paths: tuple[bool, bool], parallelism: tuple[int, int]
) -> None:
    def make(columnar: bool, **options: Any) -> OperatorHarness:
        return OperatorHarness.of(attached_stream(columnar), **options)

    check_restore(make, run, script, cut, paths, parallelism)
