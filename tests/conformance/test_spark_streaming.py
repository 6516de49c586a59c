"""Unbounded jobs on Spark Structured Streaming against the embedded runtime.

Files are appended to a watched directory while the query runs (each only after the
results of the previous one arrived), then the query is stopped; the final results equal
the embedded runtime's on the same files. What Spark cannot express is rejected before
the query starts; the per-micro-batch watermark is a documented difference with its own
test.
"""

from __future__ import annotations

import ast
import os
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from millstream.common import Configuration, Duration, Encoder, Time, Types, WatermarkStrategy
from millstream.common.watermark_strategy import Watermark, WatermarkGenerator
from millstream.datastream import KeyedProcessFunction, OutputTag, StreamExecutionEnvironment
from millstream.datastream.connectors.file_system import FileSink, FileSource, StreamFormat
from millstream.datastream.functions import KeyedBroadcastProcessFunction, KeyedCoProcessFunction
from millstream.datastream.state import MapStateDescriptor, ValueStateDescriptor
from millstream.datastream.window import TumblingEventTimeWindows, TumblingProcessingTimeWindows
from millstream.spark.support import UnsupportedStreamingError

pytestmark = pytest.mark.usefixtures("spark")


def publish(directory: Any, name: str, lines: list[str]) -> None:
    hidden = os.path.join(directory, f".{name}")
    with open(hidden, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    os.rename(hidden, os.path.join(directory, name))


def env_for(target: str, parallelism: int = 2) -> StreamExecutionEnvironment:
    conf = Configuration().set_string("execution.target", target).set_string("minicluster.mode", "threads")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    return env


def watched(env: StreamExecutionEnvironment, directory: Any) -> Any:
    source = (
        FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(directory))
        .monitor_continuously(Duration.of_millis(50))
        .build()
    )
    return env.from_source(source, WatermarkStrategy.no_watermarks(), "watched")


def run_with_files(
    target: str,
    directory: Any,
    build: Callable[[Any], Any],
    files: list[list[str]],
    stage_done: Callable[[list[Any], int], bool],
    parallelism: int = 2,
    deadline_s: float = 90.0,
) -> list[Any]:
    """Start the job on ``target``, publish ``files`` one by one while it runs (the next once
    ``stage_done(results, i)`` says file i was processed), stop it after the last one."""
    os.makedirs(directory, exist_ok=True)
    env = env_for(target, parallelism)
    stream = build(watched(env, directory))
    publish(directory, "part-0.txt", files[0])
    out: list[Any] = []
    stage = 0
    started = time.monotonic()
    with stream.execute_and_collect() as results:
        iterator: Iterator[Any] = iter(results)
        while True:
            assert time.monotonic() - started < deadline_s, f"{target}: results incomplete: {out}"
            out.append(next(iterator))
            while stage_done(out, stage):
                stage += 1
                if stage == len(files):
                    return out
                publish(directory, f"part-{stage}.txt", files[stage])


WORDS = [["to be or", "not to be"], ["to do is", "to be"], ["do be do be do"]]


def final_counts(out: list[tuple[str, int]]) -> dict[str, int]:
    latest: dict[str, int] = {}
    for word, count in out:
        latest[word] = max(latest.get(word, 0), count)
    return latest


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


def _publish_words_until_committed(
    env: StreamExecutionEnvironment, name: str, source_dir: Any, committed: Callable[[], dict[str, int]]
) -> dict[str, int]:
    """Run the job; publish the WORDS files one by one, each once the sink committed the word
    counts of everything before it; cancel. The final counts."""
    client = env.execute_async(name)
    try:
        expected: dict[str, int] = {}
        for i, lines in enumerate(WORDS):
            publish(source_dir, f"part-{i}.txt", lines)
            for word in " ".join(lines).split():
                expected[word] = expected.get(word, 0) + 1
            deadline = time.monotonic() + 60
            while committed() != expected:
                assert time.monotonic() < deadline, f"file {i}: {committed()} != {expected}"
                time.sleep(0.2)  # polling the sink's directory against a deadline
    finally:
        client.cancel()
    return expected


def _committed_counts(directory: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for root, _, names in os.walk(directory):
        for name in names:
            if name.startswith("part-"):
                with open(os.path.join(root, name)) as f:
                    for line in f:
                        word, count = ast.literal_eval(line)  # untyped tuples are written as repr
                        counts[word] = max(counts.get(word, 0), count)
    return counts


def test_the_file_sink_writes_each_micro_batch_once_with_stable_names(tmp_path):
    from millstream.datastream.connectors.file_system import BucketAssigner

    out_dir = tmp_path / "out"
    sink = (
        FileSink.for_row_format(str(out_dir), Encoder.simple_string_encoder())
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
        .build()
    )
    env = env_for("spark")
    source_dir = tmp_path / "in"
    source_dir.mkdir()
    calls = str(tmp_path / "calls")

    def pair(word: str) -> tuple[str, int]:
        with open(calls, "a") as f:  # one line per call of the user function
            f.write(word + "\n")
        return word, 1

    words = watched(env, source_dir).flat_map(str.split)
    # the counted function runs after a shuffle, in the keyed operator's stage
    words.key_by(lambda w: w).map(pair).key_by(lambda p: p[0]).sum(1).sink_to(sink)
    expected = _publish_words_until_committed(
        env, "streaming file sink", source_dir, lambda: _committed_counts(out_dir)
    )
    names = sorted(n for _, _, files in os.walk(out_dir) for n in files if n.startswith("part-"))
    assert names and all("-batch" in n for n in names)  # part-<job>-batch<id>-<partition>-<n>
    with open(calls) as f:  # each element went through the user function once
        assert len(f.read().split()) == sum(expected.values())


def test_a_restarted_job_resumes_from_its_checkpoint(tmp_path):
    """Stopped and started again under the same name with execution.checkpointing.dir set,
    the query goes on from Spark's checkpoint: state is kept and no file is read twice."""
    source_dir = tmp_path / "in"
    source_dir.mkdir()

    def run(name: str, lines: list[str], expected: dict[str, int]) -> dict[str, int]:
        conf = Configuration().set_string("execution.target", "spark")
        conf.set_string("execution.checkpointing.dir", str(tmp_path / "checkpoints"))
        env = StreamExecutionEnvironment.get_execution_environment(conf)
        counts = watched(env, source_dir).flat_map(str.split).map(lambda w: (w, 1)).key_by(lambda p: p[0])
        publish(source_dir, name, lines)
        latest: dict[str, int] = {}
        started = time.monotonic()
        with counts.sum(1).execute_and_collect("resumable word count") as results:
            for word, count in results:
                latest[word] = count
                assert time.monotonic() - started < 90
                if all(latest.get(w) == c for w, c in expected.items()):
                    return latest
        return latest

    first = run("a.txt", ["x y x"], {"x": 2, "y": 1})
    assert first == {"x": 2, "y": 1}
    second = run("b.txt", ["x z"], {"x": 3, "z": 1})
    # state is exactly once: x went on from 2 and a.txt was not counted again. Delivery is at
    # least once: a batch replayed after the stop may hand its records out again (y: 1).
    assert second["x"] == 3 and second["z"] == 1 and second.get("y", 1) == 1


def _csv_and_parquet(env: StreamExecutionEnvironment, directory: Any) -> Any:
    from millstream.datastream.formats.csv import CsvReaderFormat, CsvSchema
    from millstream.datastream.formats.parquet import ParquetColumnarRowInputFormat
    from millstream.table import DataTypes

    schema = CsvSchema.builder().add_string_column("who").add_number_column("n").set_use_header().build()
    row_type = DataTypes.ROW(
        [DataTypes.FIELD("who", DataTypes.STRING()), DataTypes.FIELD("n", DataTypes.BIGINT())]
    )
    csv_files = FileSource.for_record_stream_format(
        CsvReaderFormat.for_schema(schema), str(directory / "csv")
    )
    parquet_files = FileSource.for_bulk_file_format(
        ParquetColumnarRowInputFormat(row_type=row_type), str(directory / "pq")
    )
    streams = [
        env.from_source(
            files.monitor_continuously(Duration.of_millis(50)).build(),
            WatermarkStrategy.no_watermarks(),
            name,
        )
        for files, name in ((csv_files, "csv"), (parquet_files, "parquet"))
    ]
    return streams[0].union(streams[1]).map(lambda r: (r.who, r.n)).key_by(lambda p: p[0]).sum(1)


def _publish_csv(directory: Any, name: str, text: str) -> None:
    os.makedirs(directory, exist_ok=True)
    (directory / f".{name}").write_text(text)
    os.rename(directory / f".{name}", directory / name)


def _publish_parquet(directory: Any, name: str, rows: list[tuple[str, int]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    os.makedirs(directory, exist_ok=True)
    table = pa.table({"n": [n for _, n in rows], "who": [w for w, _ in rows]})  # columns matched by name
    pq.write_table(table, directory / f".{name}", row_group_size=2)
    os.rename(directory / f".{name}", directory / name)


def test_csv_and_parquet_files_stream_as_on_the_embedded_runtime(tmp_path):
    stages: list[Callable[[Any], None]] = [
        lambda d: _publish_csv(d / "csv", "a.csv", 'who,n\nann,1\n"bob\nby",2\nann,3\n'),
        lambda d: _publish_parquet(d / "pq", "b.parquet", [("ann", 10), ("cy", 5), ("bob\nby", 20)]),
        lambda d: _publish_csv(d / "csv", "c.csv", "who,n\ncy,1\n"),
    ]
    expected_after = [
        {"ann": 4, "bob\nby": 2},
        {"ann": 14, "bob\nby": 22, "cy": 5},
        {"ann": 14, "bob\nby": 22, "cy": 6},
    ]
    results = {}
    for target in ("embedded", "spark"):
        directory = tmp_path / target
        os.makedirs(directory / "csv")
        os.makedirs(directory / "pq")
        stream = _csv_and_parquet(env_for(target), directory)
        out: list[Any] = []
        stage = 0
        started = time.monotonic()
        stages[0](directory)
        with stream.execute_and_collect() as collected:
            for record in collected:
                assert time.monotonic() - started < 90, f"{target}: results incomplete: {out}"
                out.append(record)
                if final_counts(out) == expected_after[stage]:
                    stage += 1
                    if stage == len(stages):
                        break
                    stages[stage](directory)
        results[target] = (final_counts(out), len(out))
    assert results["spark"] == results["embedded"] == (expected_after[-1], 7)


def test_a_malformed_streamed_file_fails_the_query_naming_file_and_line(tmp_path):
    from millstream.common import JobExecutionException

    env = env_for("spark")
    stream = _csv_and_parquet(env, tmp_path)
    _publish_csv(tmp_path / "csv", "bad.csv", "who,n\nann,1\nbob,two\n")
    os.makedirs(tmp_path / "pq")
    with pytest.raises(JobExecutionException) as info, stream.execute_and_collect() as results:
        list(results)
    message = str(info.value)
    assert "operator 'Source: csv'" in message
    assert f"{tmp_path / 'csv' / 'bad.csv'}, line 3, column 'n': invalid literal for int()" in message


LIMITS = MapStateDescriptor("limits")


class Spending(KeyedBroadcastProcessFunction):
    """Running spend per user against a limit from the broadcast stream; limit changes are
    acknowledged, and applied to every user's current total (apply_to_keyed_state)."""

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.total = runtime_context.get_state(ValueStateDescriptor("total"))

    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        user, amount = value
        total = (self.total.value() or 0) + amount
        self.total.update(total)
        limit = ctx.get_broadcast_state(LIMITS).get(user)
        yield "spend", user, total, "over" if limit is not None and total > limit else "ok"

    def process_broadcast_element(self, value, ctx):  # type: ignore[no-untyped-def]
        user, limit = value
        ctx.get_broadcast_state(LIMITS).put(user, limit)
        yield "limit", user, limit, ""
        over: list[Any] = []
        ctx.apply_to_keyed_state(
            ValueStateDescriptor("total"),
            lambda key, state: over.append(key) if key == user and (state.value() or 0) > limit else None,
        )
        for key in over:
            yield "now-over", key, limit, ""


def _spending(env: StreamExecutionEnvironment, directory: Any) -> Any:
    def watch(sub: str) -> Any:
        files = FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(directory / sub))
        built = files.monitor_continuously(Duration.of_millis(50)).build()
        return env.from_source(built, WatermarkStrategy.no_watermarks(), sub).map(
            lambda line: (line.split()[0], int(line.split()[1]))
        )

    limits = watch("limits").broadcast(LIMITS)
    return watch("spend").key_by(lambda v: v[0]).connect(limits).process(Spending())


def test_keyed_broadcast_state_streams_as_on_the_embedded_runtime(tmp_path):
    """The broadcast side's limits reach every key; each stage is published once the previous
    one's results arrived, so both runtimes see the same order of limits and spending."""
    stages = [
        # each of the 2 parallel instances acknowledges a limit, as in Flink
        ("limits", ["ann 10", "bob 5"], 4),
        ("spend", ["ann 4", "bob 3", "ann 5"], 7),
        ("limits", ["ann 8"], 10),  # ann is at 9: over the new limit at once (on ann's instance)
        ("spend", ["bob 3", "cy 1", "ann 1"], 13),
    ]
    results = {}
    for target in ("embedded", "spark"):
        directory = tmp_path / target
        for sub in ("limits", "spend"):
            os.makedirs(directory / sub)
        stream = _spending(env_for(target), directory)
        out: list[Any] = []
        started = time.monotonic()
        publish(directory / stages[0][0], "s0.txt", stages[0][1])
        stage = 0
        with stream.execute_and_collect() as collected:
            for record in collected:
                assert time.monotonic() - started < 90, f"{target}: results incomplete: {out}"
                out.append(record)
                if len(out) == stages[stage][2]:
                    stage += 1
                    if stage == len(stages):
                        break
                    publish(directory / stages[stage][0], f"s{stage}.txt", stages[stage][1])
        results[target] = out
    expected = [
        *[("limit", "ann", 10, "")] * 2,  # from each parallel instance
        *[("limit", "bob", 5, "")] * 2,
        ("spend", "ann", 4, "ok"),
        ("spend", "bob", 3, "ok"),
        ("spend", "ann", 9, "ok"),
        *[("limit", "ann", 8, "")] * 2,
        ("now-over", "ann", 8, ""),
        ("spend", "bob", 6, "over"),
        ("spend", "cy", 1, "ok"),
        ("spend", "ann", 10, "over"),
    ]
    assert sorted(results["spark"]) == sorted(results["embedded"]) == sorted(expected)

    def per_user(records: list[Any], user: str) -> list[Any]:
        """The user's records in order; what one limit change caused (on any instance) as a set."""
        out: list[Any] = []
        for record in (r for r in records if r[1] == user):
            if record[0] != "spend" and out and isinstance(out[-1], frozenset):
                out[-1] = out[-1] | {record}
            else:
                out.append(frozenset({record}) if record[0] != "spend" else record)
        return out

    for user in ("ann", "bob"):
        wanted = per_user(expected, user)
        assert per_user(results["spark"], user) == per_user(results["embedded"], user) == wanted


@pytest.mark.parametrize("rate", [None, 500.0], ids=["unlimited", "rate-limited"])
def test_an_unbounded_data_generator_streams_as_on_the_embedded_runtime(rate: float | None):
    """Spark's rate source counts the indexes; the generator function makes the elements."""
    from millstream.datastream.connectors.datagen import DataGeneratorSource

    wanted = 25  # rolling sums per key
    expected: dict[str, list[int]] = {}
    for i in range(3 * wanted):
        sums = expected.setdefault(f"k{i % 3}", [])
        sums.append((sums[-1] if sums else 0) + i)
    results = {}
    for target in ("embedded", "spark"):
        env = env_for(target, parallelism=1)  # one reader: each key's elements in index order
        source = DataGeneratorSource(lambda i: (f"k{i % 3}", i), None, rate)
        sums = (
            env.from_source(source, WatermarkStrategy.no_watermarks(), "generated")
            .key_by(lambda p: p[0])
            .sum(1)
        )
        seen: dict[str, list[int]] = {}
        started = time.monotonic()
        with sums.execute_and_collect() as collected:
            for key, total in collected:
                assert time.monotonic() - started < 90, f"{target}: results incomplete: {seen}"
                seen.setdefault(key, []).append(total)
                if all(len(seen.get(k, [])) >= wanted for k in expected):
                    break
        results[target] = {k: v[:wanted] for k, v in seen.items()}
    assert results["spark"] == results["embedded"] == expected


def test_a_parquet_bulk_sink_commits_a_file_per_micro_batch(tmp_path):
    """Without checkpoints a bulk file rolls at the end of input only; on Spark every
    micro-batch commits its part files (named after the batch, so a replay rewrites them)."""
    import pyarrow.parquet as pq

    from millstream.datastream.formats.parquet import ParquetBulkWriters
    from millstream.table import DataTypes

    row_type = DataTypes.ROW(
        [DataTypes.FIELD("word", DataTypes.STRING()), DataTypes.FIELD("n", DataTypes.BIGINT())]
    )
    out_dir = tmp_path / "out"
    env = env_for("spark")
    source_dir = tmp_path / "in"
    source_dir.mkdir()
    counts = watched(env, source_dir).flat_map(str.split).map(lambda w: (w, 1)).key_by(lambda p: p[0]).sum(1)
    counts.sink_to(FileSink.for_bulk_format(str(out_dir), ParquetBulkWriters.for_row_type(row_type)).build())

    def committed() -> dict[str, int]:
        latest: dict[str, int] = {}
        for root, _, names in os.walk(out_dir):
            for name in (n for n in names if n.startswith("part-")):
                for row in pq.read_table(os.path.join(root, name)).to_pylist():
                    latest[row["word"]] = max(latest.get(row["word"], 0), row["n"])
        return latest

    _publish_words_until_committed(env, "parquet per batch", source_dir, committed)
    names = [n for _, _, files in os.walk(out_dir) for n in files]
    assert all(n.startswith("part-") and "-batch" in n for n in names)  # no in-progress file left
