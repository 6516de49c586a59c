"""Unbounded jobs on Spark Structured Streaming against the embedded runtime: sinks and sources.

File sinks written once per micro-batch with stable names, a restarted query resuming
from its checkpoint, CSV and Parquet files streamed through their formats' readers,
broadcast state, the unbounded data generator, Parquet bulk sinks.
"""

from __future__ import annotations

import ast
import os
import time
from collections.abc import Callable
from typing import Any

import pytest

from millstream.common import Configuration, Duration, Encoder, WatermarkStrategy
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.file_system import FileSink, FileSource, StreamFormat
from millstream.datastream.functions import KeyedBroadcastProcessFunction
from millstream.datastream.state import MapStateDescriptor, ValueStateDescriptor
from tests.conformance.streaming_support import WORDS, env_for, final_counts, publish, watched

pytestmark = pytest.mark.usefixtures("spark")


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


def test_the_file_sink_writes_each_micro_batch_once_with_stable_names(tmp_path, monkeypatch):
    """Also: the query's checkpoint location, a temporary directory when none is configured,
    is removed when the job is cancelled (it held Spark's offsets and state)."""
    import tempfile

    from millstream.datastream.connectors.file_system import BucketAssigner

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # this driver's temporary directories

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
    assert not [p.name for p in scratch.iterdir() if p.name.startswith("millstream-spark-checkpoint-")]


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
