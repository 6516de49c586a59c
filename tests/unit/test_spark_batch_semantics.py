"""The Spark runner runs a bounded job with BATCH semantics whatever its runtime mode: the
notice it prints at submission names what that changes for a STREAMING job's operators."""

from __future__ import annotations

from millstream.common import Duration, Time, Types, WatermarkStrategy
from millstream.datastream import (
    BroadcastProcessFunction,
    KeyedProcessFunction,
    RuntimeExecutionMode,
    StreamExecutionEnvironment,
)
from millstream.datastream.functions import ProcessJoinFunction
from millstream.datastream.state import MapStateDescriptor
from millstream.datastream.window import TumblingEventTimeWindows, TumblingProcessingTimeWindows
from millstream.graph.job_graph_generator import create_job_graph
from millstream.spark.support import batch_semantics_notice
from tests.conftest import make_env

EVENTS = [("a", 1, 1_000), ("b", 2, 2_000), ("a", 3, 1_500)]


def notice(env: StreamExecutionEnvironment) -> str | None:
    return batch_semantics_notice(
        create_job_graph(env.get_stream_graph("notice job", clear_transformations=True))
    )


class Emit(KeyedProcessFunction):
    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        yield value


class Pair(ProcessJoinFunction):
    def process_element(self, left, right, ctx):  # type: ignore[no-untyped-def]
        yield left, right


def test_a_rolling_reduce_is_named_with_what_it_loses() -> None:
    env = make_env(2)
    env.from_collection(EVENTS).key_by(lambda e: e[0]).reduce(lambda a, b: (a[0], a[1] + b[1], b[2])).print()
    text = notice(env)
    assert text is not None and "\n" not in text
    assert text.startswith(
        "Job 'notice job' is bounded and runs on Spark with BATCH semantics, not STREAMING: "
    )
    assert "'Reduce': each key's final value only, no rolling update per record" in text
    assert "late" not in text and "checkpoint" not in text  # nothing this job does not have
    assert "Set execution.runtime-mode: BATCH" in text


def test_windows_timers_and_checkpoints_of_a_watermarked_job_are_each_named() -> None:
    env = make_env(1)
    env.enable_checkpointing(1_000)
    stream = env.from_collection(EVENTS).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(100)).with_timestamp_assigner(
            lambda e, _: e[2]
        )
    )
    keyed = stream.key_by(lambda e: e[0])
    keyed.window(TumblingEventTimeWindows.of(Time.seconds(1))).reduce(lambda a, b: a).name(
        "event windows"
    ).print()
    keyed.window(TumblingProcessingTimeWindows.of(Time.seconds(1))).reduce(lambda a, b: a).name(
        "clock"
    ).print()
    keyed.process(Emit()).name("timers").print()
    keyed.interval_join(keyed).between(Time.milliseconds(-5), Time.milliseconds(5)).process(Pair()).name(
        "joined"
    ).print()
    text = notice(env)
    assert text is not None
    assert "'event windows', 'joined': no record is late (none is dropped behind the watermark" in text
    assert "'clock': windows fire when the key's input ends, not by the clock" in text
    assert (
        "'timers': input arrives key by key in timestamp order, timers fire when the key's input ends" in text
    )
    assert "checkpointing: no checkpoint is taken" in text


def test_without_watermarks_no_record_can_be_late() -> None:
    env = make_env(1)
    keyed = env.from_collection(EVENTS).key_by(lambda e: e[0])
    keyed.window(TumblingEventTimeWindows.of(Time.seconds(1))).reduce(lambda a, b: a).print()
    assert notice(env) is None  # STREAMING fires such windows only at the end of input too


def test_a_broadcast_input_is_read_first() -> None:
    env = make_env(1)
    rules = env.from_collection(["r"]).broadcast(MapStateDescriptor("rules", Types.STRING(), Types.STRING()))

    class Match(BroadcastProcessFunction):
        def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
            yield value

        def process_broadcast_element(self, value, ctx):  # type: ignore[no-untyped-def]
            pass

    env.from_collection(["x"]).connect(rules).process(Match()).name("match").print()
    text = notice(env)
    assert text is not None and "'match': the whole broadcast input is read before the other input" in text


def test_a_batch_job_or_a_stateless_one_gets_no_notice() -> None:
    batch = make_env(2)
    batch.set_runtime_mode(RuntimeExecutionMode.BATCH)
    batch.from_collection(EVENTS).key_by(lambda e: e[0]).sum(1).print()
    assert notice(batch) is None
    stateless = make_env(2)
    stateless.from_collection(EVENTS).map(lambda e: e[1]).filter(lambda n: n > 1).print()
    assert notice(stateless) is None
