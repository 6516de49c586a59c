"""Whole pipelines on the embedded runtime: operators, side outputs, union, keyed aggregations."""

from __future__ import annotations

import os

from millstream.common import Row, Types, WatermarkStrategy
from millstream.datastream import (
    FlatMapFunction,
    KeyedProcessFunction,
    MapFunction,
    OutputTag,
    ProcessFunction,
    SinkFunction,
    SourceFunction,
)
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.datastream.connectors.file_system import FileSource, StreamFormat
from tests.conftest import make_env


def collect(ds, limit=None):
    if limit is not None:
        return ds.execute_and_collect(limit=limit)
    with ds.execute_and_collect() as results:
        return list(results)


def test_map_filter_flat_map_with_function_classes_and_callables(exchange):
    class Split(FlatMapFunction):
        def flat_map(self, value):
            yield from value.split()

    class Upper(MapFunction):
        def map(self, value):
            return value.upper()

    env = make_env(2, taskmanager__network__local_exchange=exchange)
    ds = (
        env.from_collection(["a bb", "ccc", "", "dd e"])
        .flat_map(Split())
        .filter(lambda w: len(w) > 1)
        .map(Upper())
    )
    assert sorted(collect(ds)) == ["BB", "CCC", "DD"]


def test_rolling_reduce_emits_every_update_in_order():
    env = make_env(1)
    data = [("a", 1), ("b", 5), ("a", 2), ("a", 3), ("b", 1)]
    out = collect(env.from_collection(data).key_by(lambda t: t[0]).reduce(lambda x, y: (x[0], x[1] + y[1])))
    assert out == [("a", 1), ("b", 5), ("a", 3), ("a", 6), ("b", 6)]


def test_builtin_aggregations_follow_flink():
    data = [("a", 3, "x"), ("a", 1, "y"), ("a", 5, "z"), ("a", 1, "w")]

    def run(agg):
        env = make_env(1)
        return collect(getattr(env.from_collection(data).key_by(lambda t: t[0]), agg)(1))

    assert run("sum") == [("a", 3, "x"), ("a", 4, "x"), ("a", 9, "x"), ("a", 10, "x")]
    # min/max replace only the field; min_by/max_by keep the whole element (first on ties)
    assert run("min") == [("a", 3, "x"), ("a", 1, "x"), ("a", 1, "x"), ("a", 1, "x")]
    assert run("max") == [("a", 3, "x"), ("a", 3, "x"), ("a", 5, "x"), ("a", 5, "x")]
    assert run("min_by") == [("a", 3, "x"), ("a", 1, "y"), ("a", 1, "y"), ("a", 1, "y")]
    assert run("max_by") == [("a", 3, "x"), ("a", 3, "x"), ("a", 5, "z"), ("a", 5, "z")]


def test_aggregations_by_row_field_name_and_on_plain_numbers():
    env = make_env(1)
    rows = [Row(name="a", score=2), Row(name="a", score=5), Row(name="b", score=1)]
    out = collect(env.from_collection(rows).key_by(lambda r: r.name).sum("score"))
    assert [(r.name, r.score) for r in out] == [("a", 2), ("a", 7), ("b", 1)]
    env = make_env(1)
    assert collect(env.from_collection([1, 2, 3, 4]).key_by(lambda x: x % 2).sum()) == [1, 2, 4, 6]


def test_side_outputs_through_yield_tag_value(exchange):
    small = OutputTag("small", Types.INT())

    class Route(ProcessFunction):
        def process_element(self, value, ctx):
            if value < 3:
                yield small, value
            else:
                yield value * 10

    env = make_env(2, taskmanager__network__local_exchange=exchange)
    main = env.from_collection(list(range(6))).process(Route())
    side = main.get_side_output(small).map(lambda v: ("side", v))
    both = main.map(lambda v: ("main", v)).union(side)
    assert sorted(collect(both)) == [
        ("main", 30),
        ("main", 40),
        ("main", 50),
        ("side", 0),
        ("side", 1),
        ("side", 2),
    ]


def test_union_of_three_streams_and_keyed_process_with_current_key():
    class Count(KeyedProcessFunction):
        def open(self, runtime_context):
            self.seen = {}

        def process_element(self, value, ctx):
            key = ctx.get_current_key()
            self.seen[key] = self.seen.get(key, 0) + 1
            yield key, self.seen[key]

    env = make_env(2)
    a = env.from_collection(["x", "y"])
    b = env.from_collection(["x"])
    c = env.from_collection(["z", "x"])
    out = collect(a.union(b, c).key_by(lambda v: v).process(Count()))
    assert sorted(out) == [("x", 1), ("x", 2), ("x", 3), ("y", 1), ("z", 1)]


def test_runtime_context_names_task_subtask_parallelism_attempt():
    class Describe(MapFunction):
        def open(self, ctx):
            self.info = (
                ctx.get_task_name(),
                ctx.get_index_of_this_subtask(),
                ctx.get_number_of_parallel_subtasks(),
                ctx.get_attempt_number(),
                ctx.get_max_number_of_parallel_subtasks(),
            )

        def map(self, value):
            return self.info

    env = make_env(2)
    out = set(collect(env.from_collection(list(range(20))).rebalance().map(Describe()).name("describe")))
    # As in Flink, the task name is the name of the whole chain; the collect sink runs in one
    # subtask (Flink's CollectStreamSink has parallelism 1), so it is not chained to the map.
    task = "describe"
    assert out == {(task, 0, 2, 0, 128), (task, 1, 2, 0, 128)}


def test_open_and_close_are_called_once_per_subtask(tmp_path):
    marker = tmp_path / "calls"

    class Life(MapFunction):
        def open(self, ctx):
            with open(marker, "a") as f:
                f.write(f"open {ctx.get_index_of_this_subtask()}\n")

        def close(self):
            with open(marker, "a") as f:
                f.write("close\n")

        def map(self, value):
            return value

    env = make_env(3)
    env.from_collection([1, 2, 3]).rebalance().map(Life()).print()
    env.execute()
    lines = marker.read_text().split("\n")
    assert sorted(line for line in lines if line.startswith("open")) == [
        "open 0",
        "open 1",
        "open 2",
    ]
    assert lines.count("close") == 3


def test_source_function_and_sink_function(tmp_path):
    class Numbers(SourceFunction):
        def run(self, ctx):
            for i in range(5):
                ctx.collect(i)

    class Append(SinkFunction):
        def invoke(self, value, context):
            with open(tmp_path / "sink", "a") as f:
                f.write(f"{value}\n")

    env = make_env(1)
    env.add_source(Numbers()).map(lambda x: x * x).add_sink(Append())
    env.execute()
    assert (tmp_path / "sink").read_text().split() == ["0", "1", "4", "9", "16"]


def test_plain_callable_sink_and_generator_source(tmp_path):
    # Functions are shipped to tasks serialized, as in PyFlink: observe through a file.
    path = str(tmp_path / "seen")

    def write(value):
        with open(path, "a") as f:
            f.write(f"{value}\n")

    env = make_env(1)
    source = DataGeneratorSource(lambda i: i * 3, count=10)
    env.from_source(source, WatermarkStrategy.no_watermarks(), "gen").add_sink(write)
    env.execute()
    assert open(path).read().split() == [str(i * 3) for i in range(10)]


def test_file_source_splits_a_file_across_readers(tmp_path):
    path = tmp_path / "in.txt"
    lines = [f"line {i} " + "x" * (i % 17) for i in range(5000)]
    path.write_text("\n".join(lines) + "\n")
    env = make_env(3)
    source = (
        FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(path))
        .set_split_size(4096)
        .build()
    )
    out = collect(env.from_source(source, WatermarkStrategy.no_watermarks(), "file"))
    assert sorted(out) == sorted(lines)


def test_execute_and_collect_with_limit_stops_the_job():
    env = make_env(1)
    source = DataGeneratorSource(lambda i: i, count=None)  # unbounded
    assert env.from_source(source, WatermarkStrategy.no_watermarks(), "gen").execute_and_collect(
        limit=7
    ) == list(range(7))


def test_print_output_matches_pyflink(capfd):
    env = make_env(2)
    ds = env.from_collection([("a", 1), ("b", 2)]).map(
        lambda t: t, output_type=Types.TUPLE([Types.STRING(), Types.INT()])
    )
    ds.print("out")
    env.execute()
    lines = capfd.readouterr().out.splitlines()
    assert sorted(line.split("> ")[1] for line in lines) == ["(a,1)", "(b,2)"]
    assert all(line.split("> ")[0] in ("out:1", "out:2") for line in lines)
    env = make_env(1)
    env.from_collection([Row(1, "x"), ("t", None), "s"]).print()
    env.execute()
    assert capfd.readouterr().out.splitlines() == ["<Row(1, 'x')>", "('t', None)", "s"]


def test_file_sink_writes_finished_part_files(tmp_path):
    from millstream.common import Encoder
    from millstream.datastream.connectors.file_system import (
        BucketAssigner,
        FileSink,
        OutputFileConfig,
    )

    env = make_env(2)
    sink = (
        FileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder())
        .with_output_file_config(
            OutputFileConfig.builder().with_part_prefix("pre").with_part_suffix(".txt").build()
        )
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
        .build()
    )
    env.from_collection(list(range(100))).rebalance().map(lambda x: x, output_type=Types.LONG()).sink_to(sink)
    env.execute()
    names = sorted(os.listdir(tmp_path))
    assert len(names) == 2 and all(n.startswith("pre-") and n.endswith(".txt") for n in names)
    assert {n.rsplit("-", 2)[1] for n in names} == {"0", "1"}  # one part file per subtask
    values = sorted(int(v) for n in names for v in (tmp_path / n).read_text().split())
    assert values == list(range(100))
