"""Unaligned checkpoints on the embedded runtime, under backpressure: barriers overtake the
queued data (which goes into the checkpoint as in-flight data), so checkpoints complete
while the channels are full; a job restarted from them loses and repeats nothing.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from typing import Any

import pytest

from millstream.common import Configuration, Encoder, JobStatus, Types, WatermarkStrategy
from millstream.datastream import ExternalizedCheckpointRetention, MapFunction, StreamExecutionEnvironment
from millstream.datastream.connectors import FileSink
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.runtime.checkpoint.storage import load_completed_checkpoint
from millstream.runtime.state.snapshot import CHANNEL_STATE_KEY

from .test_checkpoints import cancel_and_wait, committed_lines, completed_checkpoints

pytestmark = pytest.mark.timeout(120)


class Slow(MapFunction):
    """A slow consumer (backpressure), failing once at ``fail_at`` when given a marker."""

    def __init__(self, marker: str | None = None, fail_at: int = -1, pause_s: float = 0.0003) -> None:
        self.marker = marker
        self.fail_at = fail_at
        self.pause_s = pause_s

    def map(self, value):  # type: ignore[no-untyped-def]
        time.sleep(self.pause_s)
        if value == self.fail_at and self.marker and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            raise RuntimeError("boom (once)")
        return (value % 5, 1)


def unaligned_env(directory: Any, mode: str) -> StreamExecutionEnvironment:
    conf = Configuration().set_string("minicluster.mode", mode)
    conf.set_string("execution.checkpointing.dir", str(directory))
    conf.set_string("restart-strategy.type", "fixed-delay")
    conf.set_string("restart-strategy.fixed-delay.delay", "10 ms")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    env.enable_checkpointing(100)
    config = env.get_checkpoint_config()
    config.enable_unaligned_checkpoints()
    config.set_externalized_checkpoint_retention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION)
    return env


def in_flight(checkpoint: Any) -> int:
    """Elements and buffers a checkpoint holds as in-flight data."""
    count = 0
    for _task, snapshots in checkpoint.task_snapshots():
        state = snapshots.get(CHANNEL_STATE_KEY)
        if state is not None:
            count += sum(len(elements) for elements, _partial in state.inputs.values())
            count += sum(len(items) for subpartitions in state.outputs.values() for items in subpartitions)
    return count


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_unaligned_checkpoints_complete_under_backpressure_with_the_data_in_flight(tmp_path, mode):  # type: ignore[no-untyped-def]
    env = unaligned_env(tmp_path, mode)
    source = DataGeneratorSource(lambda i: i, None, None, Types.LONG())
    (
        env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers")
        .rebalance()
        .map(Slow())
        .add_sink(lambda value: None)
    )
    client = env.execute_async("unaligned under backpressure")
    job_dir = os.path.join(tmp_path, str(client.get_job_id()))
    try:
        deadline = time.monotonic() + 60
        while client.get_checkpoint_statistics().get("numberOfCompletedCheckpoints", 0) < 3:
            assert client.get_job_status() is JobStatus.RUNNING
            assert time.monotonic() < deadline, "unaligned checkpoints did not complete"
            time.sleep(0.05)  # polling an observable condition, bounded by the deadline
    finally:
        cancel_and_wait(client)
    latest = load_completed_checkpoint(os.path.join(job_dir, completed_checkpoints(job_dir)[-1]))
    # the full channels went into the checkpoint instead of being waited for
    assert in_flight(latest) > 0


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_a_restart_from_unaligned_checkpoints_counts_every_record_once(tmp_path, mode):  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    env = unaligned_env(tmp_path / "checkpoints", mode)
    # the source produces twice as fast as the two slow maps consume: the channels fill up,
    # and the checkpoints before the failure hold data in flight, which the restart restores
    source = DataGeneratorSource(lambda i: i, 6000, 4000.0, Types.LONG())
    (
        env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers")
        .rebalance()
        .map(Slow(str(tmp_path / "failed-once"), 4000, 0.001), Types.TUPLE([Types.INT(), Types.INT()]))
        .key_by(lambda pair: pair[0], Types.INT())
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .map(lambda pair: f"{pair[0]},{pair[1]}", Types.STRING())
        .sink_to(FileSink.for_row_format(str(out), Encoder.simple_string_encoder()).build())
    )
    result = env.execute("unaligned restart")
    assert (tmp_path / "failed-once").exists()
    stats = result.get_all_accumulator_results()
    assert stats["numRestarts"] == 1 and stats["numberOfCompletedCheckpoints"] >= 1
    # every rolling count of every key committed exactly once across the restart
    assert committed_lines(out) == Counter(f"{k},{c}" for k in range(5) for c in range(1, 1201))
