"""What a client collects from a job that restarts (``execute_and_collect``, a SQL query's
``collect()`` and ``print()``), as Flink's collect sink and result fetcher decide it.

Before, the collect channel showed every result as it arrived and knew nothing of restarts:
a job restarting from a checkpoint delivered every result emitted after that checkpoint a
second time (6000 numbers collected as 8024, 2024 of them twice, in processes mode).

Now, with checkpoints in EXACTLY_ONCE mode, a result reaches the client once a completed
checkpoint covers it (or the job ended), and a restart drops the results after the checkpoint
it restores, which the restarted job computes again: every result exactly once. PyFlink 2.3.0
collects the 6000 numbers of the DataStream job below once each across its restart
(``failed: True n: 6000 distinct: 6000 dups: 0``), and the 3000 rows of the SQL query below
likewise (``n: 3000 distinct: 3000 dups: 0``). Without checkpoints, a restarted collect sink
fails the reading with ``Job restarted`` after the results delivered before it (PyFlink
2.3.0: ``java.lang.RuntimeException: Job restarted`` from ``hasNext`` after 4000 results).
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from millstream.common import Configuration, Types, WatermarkStrategy
from millstream.common.job_listeners import register_job_listener, unregister_job_listener
from millstream.datastream import MapFunction, StreamExecutionEnvironment
from millstream.datastream.closeable_iterator import CloseableIterator
from millstream.datastream.connectors import NumberSequenceSource
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.graph.operator_specs import CollectSpec
from millstream.graph.transformations import SinkTransformation
from millstream.runtime.jobmanager.collect import COLLECT_QUEUE_BATCHES
from millstream.runtime.jobmanager.collect_result_buffer import JobRestartedError
from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.udf import udf
from tests.conftest import make_env

from .test_standalone_cluster import MILLSTREAM, _clean_env, _free_port, _start_cluster, _stop_job_and_cluster

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


class FailsAfterACheckpoint(MapFunction):
    """Raises once (a marker file outlives the restart), at its ``after``-th record after the
    first checkpoint it heard of completed: the results in between reached the client before
    the failure and come again from the restored job."""

    def __init__(self, marker: str, after: int) -> None:
        self.marker = marker
        self.after = after
        self.since_checkpoint: int | None = None

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        if self.since_checkpoint is None:
            self.since_checkpoint = 0

    def map(self, value: int) -> int:
        time.sleep(0.0003)  # slow enough for checkpoints to complete before the input ends
        if self.since_checkpoint is not None and not os.path.exists(self.marker):
            self.since_checkpoint += 1
            if self.since_checkpoint >= self.after:
                Path(self.marker).touch()
                raise RuntimeError("boom (once)")
        return value


def restarting_env(mode: str, checkpoint_ms: int | None) -> StreamExecutionEnvironment:
    conf = Configuration().set_string("minicluster.mode", mode)
    conf.set_string("restart-strategy.type", "fixed-delay")
    conf.set_string("restart-strategy.fixed-delay.delay", "10 ms")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    if checkpoint_ms is not None:
        env.enable_checkpointing(checkpoint_ms)
    env.set_buffer_timeout(0)  # every result reaches the client at once, also those a restart takes back
    return env


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_a_job_failing_once_after_a_checkpoint_collects_every_result_exactly_once(tmp_path, mode):  # type: ignore[no-untyped-def]
    env = restarting_env(mode, checkpoint_ms=200)
    marker = tmp_path / "failed-once"
    source = DataGeneratorSource(lambda i: i, 6000, 3000.0, Types.LONG())  # small batches, 2 s
    numbers = env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers")
    with numbers.map(FailsAfterACheckpoint(str(marker), 300), Types.LONG()).execute_and_collect() as results:
        got = list(results)
    assert marker.exists()  # it did fail, 300 records after a checkpoint
    assert sorted(got) == list(range(6000))


def failing_query(mode: str, tmp_path: Path, checkpointing: bool) -> Any:
    """A SQL query over 3000 generated rows whose UDF raises once, 300 rows after it first saw
    a completed checkpoint in the checkpoint directory (without checkpoints: after row 1000)."""
    marker, checkpoints = str(tmp_path / "failed-once"), str(tmp_path / "checkpoints")
    seen: list[int] = []  # the row at which the UDF saw a completed checkpoint (per attempt)

    @udf(result_type=DataTypes.BIGINT())
    def fail_once(v: int) -> int:
        if os.path.exists(marker):
            return v
        if not checkpointing:
            fail_at = 1000
        else:
            if not seen and v % 20 == 0 and glob.glob(f"{checkpoints}/*/chk-*/_metadata"):
                seen.append(v)
            fail_at = seen[0] + 300 if seen else 1 << 62
        if v >= fail_at:
            Path(marker).touch()
            raise RuntimeError("boom (once)")
        return v

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    config = t_env.get_config()
    config.set("parallelism.default", "1")
    config.set("minicluster.mode", mode)
    config.set("restart-strategy.type", "fixed-delay")
    config.set("restart-strategy.fixed-delay.delay", "10 ms")
    config.set("execution.checkpointing.dir", checkpoints)
    if checkpointing:
        config.set("execution.checkpointing.interval", "300 ms")
    t_env.create_temporary_function("fail_once", fail_once)
    t_env.execute_sql(
        "CREATE TABLE numbers (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', "
        "'fields.id.start' = '0', 'fields.id.end' = '2999', 'rows-per-second' = '2000')"
    )
    return t_env.execute_sql("SELECT fail_once(id) AS id FROM numbers")


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_a_sql_query_failing_once_after_a_checkpoint_collects_every_row_exactly_once(tmp_path, mode):  # type: ignore[no-untyped-def]
    with failing_query(mode, tmp_path, checkpointing=True).collect() as rows:
        got = [row[0] for row in rows]
    assert (tmp_path / "failed-once").exists()
    assert sorted(got) == list(range(3000))


def test_a_sql_query_failing_once_after_a_checkpoint_prints_every_row_once(tmp_path, capsys):  # type: ignore[no-untyped-def]
    failing_query("processes", tmp_path, checkpointing=True).print()
    assert (tmp_path / "failed-once").exists()
    lines = capsys.readouterr().out.splitlines()
    printed = sorted(int(line.split("|")[2]) for line in lines if line.startswith("| +I"))
    assert printed == list(range(3000))
    assert lines[-1] == "3000 rows in set"


class FailsWhenTheClientRead(MapFunction):
    """Raises once, at its first record after the client read ``read`` results (it touches
    ``flag`` then)."""

    def __init__(self, flag: str, marker: str) -> None:
        self.flag, self.marker = flag, marker

    def map(self, value: int) -> int:
        time.sleep(0.0003)
        if os.path.exists(self.flag) and not os.path.exists(self.marker):
            Path(self.marker).touch()
            raise RuntimeError("boom (once)")
        return value


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_without_checkpoints_a_restarted_collect_sink_fails_the_reading_after_the_results_before(
    tmp_path: Path, mode: str
) -> None:
    """Flink's choice for a job without checkpoints, ``UncheckpointedCollectResultBuffer`` with
    ``failureTolerance`` false (flink-streaming-java
    src/main/java/org/apache/flink/streaming/api/operators/collect/UncheckpointedCollectResultBuffer.java
    and ``CollectResultIterator.createBuffer``): results are visible at once, and when the sink
    restarted (its version changed) ``sinkRestarted`` throws ``RuntimeException("Job
    restarted")``; the results fetched before it are all read first. PyFlink 2.3.0 prints
    ``java.lang.RuntimeException: Job restarted`` after 4000 of 6000 results here."""
    env = restarting_env(mode, checkpoint_ms=None)
    flag, marker = tmp_path / "client-read", tmp_path / "failed-once"
    numbers = env.from_source(NumberSequenceSource(0, 5999), WatermarkStrategy.no_watermarks(), "numbers")
    stream = numbers.map(FailsWhenTheClientRead(str(flag), str(marker)), Types.LONG())
    got: list[int] = []
    with pytest.raises(JobRestartedError) as raised, stream.execute_and_collect() as results:
        for value in results:
            got.append(value)
            if len(got) == 100:
                flag.touch()
    assert marker.exists()
    assert str(raised.value).startswith("Job restarted: collect sink subtask 1/1 started again (attempt 1)")
    assert len(got) >= 100 and len(set(got)) == len(got)  # what came before: each once
    assert set(got) < set(range(6000))


def test_without_checkpoints_a_sql_query_whose_job_restarts_fails_its_collect(tmp_path):  # type: ignore[no-untyped-def]
    """PyFlink 2.3.0: ``java.lang.RuntimeException: Job restarted`` after 1000 rows."""
    got: list[int] = []
    with (
        pytest.raises(JobRestartedError, match=r"^Job restarted"),
        failing_query("threads", tmp_path, checkpointing=False).collect() as rows,
    ):
        got.extend(row[0] for row in rows)
    assert (tmp_path / "failed-once").exists()
    assert len(set(got)) == len(got) and set(got) <= set(range(1000))


def test_with_checkpoints_results_stream_to_the_client_as_checkpoints_complete() -> None:
    """A job without failures: the first results come with the first checkpoint, long before
    the input ends (its 1,000,000 numbers at 1000 a second take 1000 s)."""
    env = make_env(1, minicluster__mode="processes")
    env.enable_checkpointing(100)
    source = DataGeneratorSource(lambda i: i, 1_000_000, 1000.0, Types.LONG())
    numbers = env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers")
    started = time.monotonic()
    assert numbers.execute_and_collect(limit=50) == list(range(50))
    assert time.monotonic() - started < 120


GENERATED = [0]


def generate(i: int) -> int:
    GENERATED[0] = max(GENERATED[0], i + 1)
    return i


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_a_slow_client_holds_back_a_checkpointed_job_and_then_reads_every_result_once(mode: str) -> None:
    """Backpressure with exactly-once results: while the client reads nothing, the collect
    sink waits with a bounded number of batches in the channel, and the job stays behind (in
    threads mode the source's progress is seen in this process: it stopped)."""
    GENERATED[0] = 0
    total = 100_000  # 5 s at 20,000 a second
    env = make_env(1, minicluster__mode=mode)
    env.enable_checkpointing(50)
    clients: list[Any] = []
    register_job_listener(clients.append)
    try:
        source = DataGeneratorSource(generate, total, 20_000.0)
        numbers = env.from_source(source, WatermarkStrategy.no_watermarks(), "gen")
        with numbers.map(lambda x: x).execute_and_collect() as results:
            got = [next(results)]  # the first checkpoint made results visible
            (client,) = clients
            (channel,) = client.cluster.collect_channels._channels.values()
            deadline = time.monotonic() + 60
            while channel.queued()[2] == 0:  # a sink's batch waits for the client: the job is held
                assert time.monotonic() < deadline, f"the collect sink never waited: {channel.queued()}"
                time.sleep(0.005)
            visible, held, waiting = channel.queued()
            assert visible + held >= COLLECT_QUEUE_BATCHES and waiting == 1
            assert not client.result_done()
            if mode == "threads":
                assert GENERATED[0] < total
            got.extend(results)
    finally:
        unregister_job_listener(clients.append)
    assert got == list(range(total))


def collect_in_parallel(stream: Any, parallelism: int) -> Any:
    """Run ``stream``'s job with a collect sink of ``parallelism`` subtasks (the API's is one
    subtask, as Flink's); the iterator over what reaches the client."""
    env = stream._env
    collect_id = uuid.uuid4().hex
    env._add(
        SinkTransformation(
            id=env._new_id(),
            name="Sink: parallel collect",
            parallelism=parallelism,
            input=stream._values_id(),
            operator=CollectSpec(collect_id),
        )
    )
    client = env.execute_async("parallel collect")
    return CloseableIterator(client.collect(collect_id), client.close)


def test_a_parallel_collect_sink_restarted_from_a_checkpoint_delivers_every_result_once(tmp_path):  # type: ignore[no-untyped-def]
    env = restarting_env("processes", checkpoint_ms=200)
    marker = tmp_path / "failed-once"
    source = DataGeneratorSource(lambda i: i, 6000, 3000.0, Types.LONG())
    numbers = env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers")
    failing = numbers.map(FailsAfterACheckpoint(str(marker), 300), Types.LONG()).rebalance().map(lambda v: v)
    with collect_in_parallel(failing, 2) as results:
        got = list(results)
    assert marker.exists()
    assert sorted(got) == list(range(6000))


REMOTE_JOB = """
import os, sys
from pathlib import Path
from millstream.common import Configuration, Types, WatermarkStrategy
from millstream.datastream import MapFunction, StreamExecutionEnvironment
from millstream.datastream.connectors.datagen import DataGeneratorSource


class FailsAfterACheckpoint(MapFunction):
    def __init__(self, marker):
        self.marker, self.since_checkpoint = marker, None

    def notify_checkpoint_complete(self, checkpoint_id):
        if self.since_checkpoint is None:
            self.since_checkpoint = 0

    def map(self, value):
        if self.since_checkpoint is not None and not os.path.exists(self.marker):
            self.since_checkpoint += 1
            if self.since_checkpoint >= 300:
                Path(self.marker).touch()
                raise RuntimeError("boom (once)")
        return value


conf = Configuration()
conf.set_string("restart-strategy.type", "fixed-delay")
conf.set_string("restart-strategy.fixed-delay.delay", "10 ms")
env = StreamExecutionEnvironment.get_execution_environment(conf)
env.set_parallelism(2)
env.enable_checkpointing(200)
env.set_buffer_timeout(0)
source = DataGeneratorSource(lambda i: i, 6000, 3000.0, Types.LONG())
numbers = env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers")
with numbers.map(FailsAfterACheckpoint(sys.argv[1]), Types.LONG()).execute_and_collect() as results:
    got = list(results)
print("failed", os.path.exists(sys.argv[1]), "collected", len(got), "distinct", len(set(got)))
print("exactly once", sorted(got) == list(range(6000)))
"""


def test_a_remote_client_of_a_standalone_cluster_collects_every_result_once_across_a_restart(tmp_path):  # type: ignore[no-untyped-def]
    """The results travel TaskManager -> JobManager -> the client's connection."""
    cluster_dir = tmp_path / "cluster"
    (tmp_path / "job.py").write_text(REMOTE_JOB)
    port = _free_port()
    env = _clean_env()
    start = _start_cluster(cluster_dir, port, 2, env)
    job = None
    try:
        assert start.returncode == 0, start.stdout + start.stderr
        state = json.loads((cluster_dir / "cluster.json").read_text())
        job = subprocess.Popen(
            [
                *MILLSTREAM,
                "run",
                "--target",
                f"cluster://127.0.0.1:{port}",
                "-D",
                f"security.secret-file={state['secret_file']}",
                str(tmp_path / "job.py"),
                str(tmp_path / "failed-once"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        stdout, stderr = job.communicate(timeout=150)
        assert job.returncode == 0, stdout + stderr
        assert "failed True collected 6000 distinct 6000" in stdout, stdout + stderr
        assert "exactly once True" in stdout
    finally:
        _stop_job_and_cluster(job, cluster_dir)
