"""Unbounded jobs on Spark Structured Streaming against the embedded runtime.

Files are appended to a watched directory while the query runs (each only after the
results of the previous one arrived), then the query is stopped; the final results equal
the embedded runtime's on the same files. What Spark cannot express is rejected before
the query starts; the per-micro-batch watermark is a documented difference with its own
test.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from millstream.common import Duration, Time, Types, WatermarkStrategy
from millstream.common.watermark_strategy import Watermark, WatermarkGenerator
from millstream.datastream import KeyedProcessFunction, OutputTag
from millstream.datastream.functions import KeyedCoProcessFunction
from millstream.datastream.state import ValueStateDescriptor
from millstream.datastream.window import TumblingEventTimeWindows, TumblingProcessingTimeWindows
from millstream.spark.support import UnsupportedStreamingError
from tests.conformance.streaming_support import WORDS, env_for, final_counts, publish, run_with_files, watched

pytestmark = pytest.mark.usefixtures("spark")


def test_streaming_word_count_equals_the_embedded_runtime(tmp_path):
    counts_after: list[dict[str, int]] = []  # the counts once file i was read
    running: dict[str, int] = {}
    for lines in WORDS:
        for word in " ".join(lines).split():
            running[word] = running.get(word, 0) + 1
        counts_after.append(dict(running))
    results = {}
    for target in ("embedded", "spark"):
        out = run_with_files(
            target,
            tmp_path / target,
            lambda s: (
                s.flat_map(lambda line: line.split()).map(lambda w: (w, 1)).key_by(lambda p: p[0]).sum(1)
            ),
            WORDS,
            lambda out, i: final_counts(out) == counts_after[i],
        )
        results[target] = final_counts(out)
        assert len(out) == sum(counts_after[-1].values())  # STREAMING: one rolling update per word
    assert results["spark"] == results["embedded"] == counts_after[-1]


READINGS = [
    ["s1 1 100", "s2 2 200", "s1 3 900"],
    ["s1 4 1100", "s2 5 1500", "s1 6 1700"],
    ["s1 7 3000", "s2 8 3100"],
    ["flush 0 9000"],  # moves every watermark past the windows above
]


def parse(line: str) -> tuple[str, int, int]:
    sensor, value, ts = line.split()
    return sensor, int(value), int(ts)


def windowed(stream: Any) -> Any:
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(500)
    ).with_timestamp_assigner(lambda v, ts: v[2])
    return (
        stream.map(parse)
        .assign_timestamps_and_watermarks(strategy)
        .key_by(lambda v: v[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(1)))
        .reduce(lambda a, b: (a[0], a[1] + b[1], max(a[2], b[2])))
    )


EXPECTED_WINDOWS = {
    ("s1", 4, 900),
    ("s2", 2, 200),
    ("s1", 10, 1700),
    ("s2", 5, 1500),
    ("s1", 7, 3000),
    ("s2", 8, 3100),
}


def test_event_time_windows_equal_the_embedded_runtime(tmp_path):
    results = {}
    for target in ("embedded", "spark"):
        out = run_with_files(
            target,
            tmp_path / target,
            windowed,
            [[line for lines in READINGS for line in lines]],  # one file: in Spark, one micro-batch
            lambda out, i: set(out) >= EXPECTED_WINDOWS,
            # one reader: a second, idle one would hold the watermark back (in Flink too,
            # without with_idleness, which Spark cannot express)
            parallelism=1,
        )
        results[target] = set(out)
    assert results["spark"] == results["embedded"] == EXPECTED_WINDOWS


def test_event_times_at_and_before_the_epoch_are_not_late(tmp_path):
    """Spark's watermark starts at 0 and drops rows at or before it; Flink's starts at
    Long.MIN_VALUE. Event times 0 and negative ones count as on the embedded runtime."""
    lines = ["s1 1 -1500", "s1 2 -200", "s1 4 0", "s2 8 999", "s1 16 1000", "flush 0 9000"]
    expected = {("s1", 1, -1500), ("s1", 2, -200), ("s1", 4, 0), ("s2", 8, 999), ("s1", 16, 1000)}
    results = {}
    for target in ("embedded", "spark"):
        out = run_with_files(
            target, tmp_path / target, windowed, [lines], lambda out, i: set(out) >= expected, parallelism=1
        )
        results[target] = sorted(out)
    assert results["spark"] == results["embedded"] == sorted(expected)


def test_chained_event_time_windows_equal_the_embedded_runtime(tmp_path):
    """A window behind a window: the second keyed operator gets the first one's results
    before its watermark moves past them, as in Flink."""
    expected = {("all", 6, 900), ("all", 15, 1700), ("all", 15, 3100)}
    results = {}
    for target in ("embedded", "spark"):
        out = run_with_files(
            target,
            tmp_path / target,
            lambda s: (
                windowed(s)
                .key_by(lambda v: "all")
                .window(TumblingEventTimeWindows.of(Time.seconds(1)))
                .reduce(lambda a, b: ("all", a[1] + b[1], max(a[2], b[2])))
            ),
            [[line for lines in READINGS for line in lines]],
            lambda out, i: set(out) >= expected,
            parallelism=1,
        )
        results[target] = sorted(out)
    assert results["spark"] == results["embedded"] == sorted(expected)


def test_chained_keyed_reductions_equal_the_embedded_runtime(tmp_path):
    """Word counts, then how many words have each count: two keyed operators, rolling updates."""
    words_after = [" ".join(lines).split() for lines in WORDS]

    def histogram(upto: int) -> dict[int, int]:
        counts = Counter(w for stage in words_after[: upto + 1] for w in stage)
        return dict(Counter(counts.values()))

    def updates(upto: int) -> int:
        """One rolling update of the second reduction per record it gets: a word's first
        occurrence sends one record (+1 at count 1), each later one two (+1, -1)."""
        occurrences = [w for stage in words_after[: upto + 1] for w in stage]
        return 2 * len(occurrences) - len(set(occurrences))

    def latest(out: list[tuple[int, int]]) -> dict[int, int]:
        current: dict[int, int] = {}
        for count, n in out:
            current[count] = n  # rolling updates of one key arrive in order
        return {c: n for c, n in current.items() if n}

    results = {}
    for target in ("embedded", "spark"):
        out = run_with_files(
            target,
            tmp_path / target,
            lambda s: (
                s.flat_map(lambda line: line.split())
                .map(lambda w: (w, 1))
                .key_by(lambda p: p[0])
                .reduce(lambda a, b: (a[0], a[1] + b[1]))
                .flat_map(lambda p: [(p[1], 1)] + ([(p[1] - 1, -1)] if p[1] > 1 else []))
                .key_by(lambda p: p[0])
                .reduce(lambda a, b: (a[0], a[1] + b[1]))
            ),
            WORDS,
            lambda out, i: len(out) == updates(i),
        )
        assert latest(out) == histogram(len(WORDS) - 1)
        # intermediate values depend on the order records of one count meet (as between two
        # Flink runs at p=2); each count gets the same number of rolling updates
        results[target] = Counter(count for count, _ in out)
    assert results["spark"] == results["embedded"]


def test_difference_the_watermark_advances_once_per_micro_batch(tmp_path):
    """Documented difference: Spark's watermark stays put during a micro-batch, so an element
    behind a newer element of the same batch is not late; Flink's (per-record here) is."""
    lines = ["s1 1 100", "s1 1 5000", "s1 1 200", "flush 0 9000"]

    def per_record(stream: Any) -> Any:
        return (
            stream.map(parse)
            .assign_timestamps_and_watermarks(
                WatermarkStrategy.for_generator(lambda ctx: Punctuated()).with_timestamp_assigner(
                    lambda v, ts: v[2]
                )
            )
            .key_by(lambda v: v[0])
            .window(TumblingEventTimeWindows.of(Time.seconds(1)))
            .reduce(lambda a, b: (a[0], a[1] + b[1], max(a[2], b[2])))
        )

    def has_last_window(out: list[Any], stage: int) -> bool:
        return ("s1", 1, 5000) in out

    embedded = run_with_files("embedded", tmp_path / "e", per_record, [lines], has_last_window, 1)
    assert ("s1", 1, 100) in embedded  # the 200 element came after watermark 4499: late, dropped
    on_spark = run_with_files("spark", tmp_path / "s", windowed, [lines], has_last_window, 1)
    assert ("s1", 2, 200) in on_spark  # same batch: not late on Spark


def _held_until(release: str) -> Callable[[str], str]:
    """A map that holds the element "held" until the file ``release`` exists."""

    def hold(value: str) -> str:
        if value == "held":
            deadline = time.monotonic() + 60
            while not os.path.exists(release) and time.monotonic() < deadline:
                time.sleep(0.02)  # the element waits on the test, which waits on the results
        return value

    return hold


def test_difference_results_arrive_per_micro_batch(tmp_path):
    """Documented difference: Spark hands out a result once the task of its micro-batch that
    computed it is done, so one slow element holds back the results of the elements read
    with it; on the embedded runtime the other element's result arrives while that one is
    still held (round robin puts the two on different subtasks)."""
    from millstream.common import JobExecutionException

    for target in ("embedded", "spark"):
        directory = tmp_path / target
        os.makedirs(directory)
        release = str(tmp_path / f"release-{target}")
        env = env_for(target, parallelism=2)
        stream = watched(env, directory).rebalance().map(_held_until(release))
        results: queue.Queue[Any] = queue.Queue()

        def drain(collected: Any) -> None:
            try:
                for value in collected:
                    results.put(value)
            except JobExecutionException:
                pass  # cancelled by close() at the end

        with stream.execute_and_collect() as collected:
            reader = threading.Thread(target=drain, args=(collected,), daemon=True)
            reader.start()
            publish(directory, "one-batch.txt", ["free", "held"])
            if target == "embedded":
                assert results.get(timeout=60) == "free"  # while "held" is still held
            else:
                with pytest.raises(queue.Empty):
                    results.get(timeout=8)  # nothing: the task holding both is not done
            open(release, "w").close()
            got = [results.get(timeout=60) for _ in range(1 if target == "embedded" else 2)]
            assert sorted(got) == (["held"] if target == "embedded" else ["free", "held"])
            collected.close()
        reader.join(timeout=30)


class Punctuated(WatermarkGenerator):
    def __init__(self) -> None:
        self.highest = -(2**63)

    def on_event(self, event, event_timestamp, output):  # type: ignore[no-untyped-def]
        self.highest = max(self.highest, event_timestamp)
        output.emit_watermark(Watermark(self.highest - 501))

    def on_periodic_emit(self, output):  # type: ignore[no-untyped-def]
        pass


PROCESSING_TIME = TumblingProcessingTimeWindows.of(Time.seconds(1))


class Timers(KeyedProcessFunction):
    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        ctx.timer_service().register_processing_time_timer(1)
        return []


@pytest.mark.parametrize(
    ("build", "reason"),
    [
        (
            lambda s: s.assign_timestamps_and_watermarks(
                WatermarkStrategy.for_generator(lambda ctx: Punctuated())
            ).print(),
            "custom WatermarkGenerator",
        ),
        (
            lambda s: s.assign_timestamps_and_watermarks(
                WatermarkStrategy.for_monotonous_timestamps().with_idleness(Duration.of_seconds(1))
            ).print(),
            "with_idleness",
        ),
        (
            lambda s: (
                s.key_by(lambda v: v)
                .window(TumblingProcessingTimeWindows.of(Time.seconds(1)))
                .reduce(max)
                .print()
            ),
            "processing-time windows",
        ),
        (
            lambda s: (
                s.key_by(lambda v: v)
                .window(TumblingEventTimeWindows.of(Time.seconds(1)))
                .side_output_late_data(OutputTag("late", Types.STRING()))
                .reduce(max)
                .print()
            ),
            "late-data side output",
        ),
    ],
    ids=["generator", "idleness", "processing-time-window", "late-side-output"],
)
def test_what_spark_cannot_express_is_rejected_before_the_query_starts(tmp_path, build, reason):  # type: ignore[no-untyped-def]
    env = env_for("spark")
    build(watched(env, tmp_path))
    with pytest.raises(UnsupportedStreamingError, match=reason):
        env.execute()


def test_a_processing_time_timer_in_an_event_time_job_fails_the_query_naming_the_operator(tmp_path):
    from millstream.common import JobExecutionException

    env = env_for("spark")
    stamped = watched(env, tmp_path).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(lambda v, ts: 5_000)
    )
    stream = stamped.key_by(lambda v: v).process(Timers()).name("Timers")
    publish(tmp_path, "a.txt", ["x"])
    with (
        pytest.raises(JobExecutionException, match="operator 'Timers' registered a processing-time timer"),
        stream.execute_and_collect() as results,
    ):
        list(results)


class CountThenReport(KeyedProcessFunction):
    """Counts a key's elements; a processing-time timer 300 ms after its first reports the count."""

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.count = runtime_context.get_state(ValueStateDescriptor("count"))

    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        if self.count.value() is None:
            ctx.timer_service().register_processing_time_timer(
                ctx.timer_service().current_processing_time() + 300
            )
        self.count.update((self.count.value() or 0) + 1)
        return []

    def on_timer(self, timestamp, ctx):  # type: ignore[no-untyped-def]
        yield ctx.get_current_key(), self.count.value()
        self.count.clear()


def test_processing_time_timers_fire_as_on_the_embedded_runtime(tmp_path):
    """Without a watermark, a KeyedProcessFunction runs in Spark's ProcessingTime mode: its
    processing-time timers become Spark timers and fire with the key's state."""
    files = [["a b a", "c a"], ["b d"]]  # the second file is published once the first is reported
    results = {}
    for target in ("embedded", "spark"):
        out = run_with_files(
            target,
            tmp_path / target,
            lambda s: s.flat_map(lambda line: line.split()).key_by(lambda w: w).process(CountThenReport()),
            files,
            lambda out, i: len(out) == [3, 5][i],
        )
        results[target] = sorted(out)
    expected = sorted([("a", 3), ("b", 1), ("c", 1), ("b", 1), ("d", 1)])
    assert results["spark"] == results["embedded"] == expected


class Net(KeyedCoProcessFunction):
    """Orders add, payments subtract; every change is reported."""

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.net = runtime_context.get_state(ValueStateDescriptor("net"))

    def _add(self, amount):  # type: ignore[no-untyped-def]
        self.net.update((self.net.value() or 0) + amount)
        return [(self.net.value(),)]

    def process_element1(self, value, ctx):  # type: ignore[no-untyped-def]
        yield ctx.get_current_key(), self._add(value[2])[0][0]

    def process_element2(self, value, ctx):  # type: ignore[no-untyped-def]
        yield ctx.get_current_key(), self._add(-value[2])[0][0]


LEDGER = [["o alice 10", "o bob 5", "p alice 3"], ["p bob 5", "o alice 1", "o carol 7"], ["p carol 2"]]


def test_keyed_connect_and_union_equal_the_embedded_runtime(tmp_path):
    def build(lines):  # type: ignore[no-untyped-def]
        rows = lines.map(lambda line: (line.split()[0], line.split()[1], int(line.split()[2])))
        orders = rows.filter(lambda r: r[0] == "o")
        payments = rows.filter(lambda r: r[0] == "p")
        nets = orders.connect(payments).key_by(lambda r: r[1], lambda r: r[1]).process(Net())
        return nets.union(nets.map(lambda kv: (kv[0].upper(), kv[1])))

    expected_after = []
    net: dict[str, int] = {}
    for lines in LEDGER:
        for line in lines:
            kind, who, amount = line.split()
            net[who] = net.get(who, 0) + (int(amount) if kind == "o" else -int(amount))
        expected_after.append({**net, **{k.upper(): v for k, v in net.items()}})

    def latest(out: list[Any]) -> dict[str, int]:
        seen: dict[str, list[int]] = {}
        for who, value in out:
            seen.setdefault(who, []).append(value)
        return {who: values[-1] for who, values in seen.items()}

    results = {}
    for target in ("embedded", "spark"):
        out = run_with_files(
            target, tmp_path / target, build, LEDGER, lambda out, i: latest(out) == expected_after[i], 1
        )
        results[target] = sorted(out)
    assert results["spark"] == results["embedded"]


def test_the_checkpoint_interval_is_the_micro_batch_trigger_interval():
    """Structured Streaming checkpoints every micro-batch (offsets and state to the checkpoint
    location): enable_checkpointing(ms) sets the trigger; without it, every 100 ms."""
    from millstream.common import Configuration
    from millstream.datastream import StreamExecutionEnvironment
    from millstream.graph.job_graph_generator import create_job_graph
    from millstream.spark.streaming.query import micro_batch_interval_ms

    env = StreamExecutionEnvironment.get_execution_environment(Configuration())
    env.from_collection([1]).print()
    assert (
        micro_batch_interval_ms(
            create_job_graph(env.get_stream_graph(clear_transformations=False)).job_config
        )
        == 100
    )
    env.enable_checkpointing(2500)
    assert micro_batch_interval_ms(create_job_graph(env.get_stream_graph()).job_config) == 2500
