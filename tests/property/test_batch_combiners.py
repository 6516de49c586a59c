"""Property: BATCH keyed reductions give the same results with combiners before the shuffle
as without (``execution.batch.combine.max-keys`` 0), for every built-in aggregation and a
user reduce, with combine tables small enough to flush many times; and the combiner is in
the plan.

The producer has parallelism 1 (``from_collection``), so each key's elements and partial
results reach the reducer in input order, which keeps even the order-dependent parts (the
fields ``sum``/``min``/``max`` take from a key's first element, ``min_by``'s first on ties,
string concatenation) equal."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from millstream.common import Configuration, Types
from millstream.datastream import RuntimeExecutionMode, StreamExecutionEnvironment

ROW = Types.TUPLE([Types.STRING(), Types.LONG(), Types.STRING()])

rows = st.lists(
    st.tuples(st.sampled_from("abcdefg"), st.integers(-1000, 1000), st.sampled_from(["x", "y", "z"])),
    min_size=1,
    max_size=150,
)


def _concat(a, b):  # type: ignore[no-untyped-def]
    return (a[0], a[1] + b[1], a[2] + b[2])


AGGREGATIONS = {
    "sum": lambda keyed: keyed.sum(1),
    "min": lambda keyed: keyed.min(1),
    "max": lambda keyed: keyed.max(1),
    "min_by": lambda keyed: keyed.min_by(1),
    "max_by": lambda keyed: keyed.max_by(1),
    "reduce": lambda keyed: keyed.reduce(_concat),
}


def _env(max_keys: int) -> StreamExecutionEnvironment:
    conf = Configuration()
    conf.set_string("minicluster.mode", "threads")
    conf.set_string("execution.batch.combine.max-keys", str(max_keys))
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    env.set_parallelism(2)
    return env


def _run(data: list[tuple[str, int, str]], name: str, max_keys: int) -> list[tuple[str, int, str]]:
    env = _env(max_keys)
    keyed = env.from_collection(data, type_info=ROW).key_by(lambda r: r[0])
    with AGGREGATIONS[name](keyed).execute_and_collect() as results:
        return sorted(results)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=rows, name=st.sampled_from(sorted(AGGREGATIONS)), max_keys=st.integers(1, 4))
def test_combiners_give_the_results_of_no_combiners(data, name, max_keys):  # type: ignore[no-untyped-def]
    assert _run(data, name, max_keys) == _run(data, name, 0)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(numbers=st.lists(st.integers(-10_000, 10_000), min_size=1, max_size=200), max_keys=st.integers(1, 3))
def test_a_reduce_that_changes_the_key_fields_still_reaches_its_key(numbers, max_keys):  # type: ignore[no-untyped-def]
    """Keyed by ``v % 5``, summed: a partial sum has another remainder than its elements, so
    the combiners send each partial with its key, not re-keyed."""

    def run(limit: int) -> list[int]:
        env = _env(limit)
        keyed = env.from_collection(numbers, type_info=Types.LONG()).key_by(lambda v: v % 5, Types.LONG())
        with keyed.reduce(lambda a, b: a + b).execute_and_collect() as results:
            return sorted(results)

    expected = sorted(sum(v for v in numbers if v % 5 == k) for k in {v % 5 for v in numbers})
    assert run(max_keys) == run(0) == expected


def test_elements_with_timestamps_pass_the_combiner_and_fold_in_time_order():
    """BATCH folds a key's timestamped elements in timestamp order: the combiner leaves them
    to the reduce (a concatenation shows the order)."""
    from millstream.common import WatermarkStrategy

    data = [("a", 1, "x", 30), ("a", 2, "y", 10), ("b", 3, "z", 5), ("a", 4, "w", 20)]

    def run(limit: int) -> list[tuple[str, int, str]]:
        env = _env(limit)
        stamped = env.from_collection(data).assign_timestamps_and_watermarks(
            WatermarkStrategy.no_watermarks().with_timestamp_assigner(lambda r, _: r[3])
        )
        # one producer subtask: without the timestamps, the combiner would fold x, y, w
        rows = (
            stamped.set_parallelism(1)
            .map(lambda r: (r[0], r[1], r[2]), output_type=ROW)
            .set_parallelism(1)
            .key_by(lambda r: r[0])
        )
        with rows.reduce(_concat).execute_and_collect() as results:
            return sorted(results)

    assert run(4) == run(0) == [("a", 7, "ywx"), ("b", 3, "z")]


def test_the_combiner_is_chained_to_the_producer_in_batch_only():
    def vertices(mode: RuntimeExecutionMode, max_keys: int) -> list[str]:
        env = _env(max_keys)
        env.set_runtime_mode(mode)
        env.from_collection([("a", 1, "x")], type_info=ROW).key_by(lambda r: r[0]).sum(1).print()
        return [v.name for v in env._job_graph(None).vertices]

    assert vertices(RuntimeExecutionMode.BATCH, 10) == [
        "Source: Collection Source -> Combine(Reduce)",
        "Reduce -> Print to Std. Out",
    ]
    expected = ["Source: Collection Source", "Reduce -> Print to Std. Out"]
    assert vertices(RuntimeExecutionMode.BATCH, 0) == expected
    assert vertices(RuntimeExecutionMode.STREAMING, 10) == expected
