"""TaskManager processes of the embedded runtime: failures, cleanup, job files."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap
import time

import psutil
import pytest

from millstream.common import Encoder, JobExecutionException, WatermarkStrategy
from millstream.datastream.connectors import FileSink
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.testing.chaos import committed_output, leftover_task_managers
from tests.conftest import make_env

pytestmark = pytest.mark.timeout(120)


def _endless_job(env):
    generator = DataGeneratorSource(lambda i: i, None)
    endless = env.from_source(generator, WatermarkStrategy.no_watermarks(), "endless")
    endless.rebalance().map(lambda x: x).name("relay").add_sink(lambda x: None)
    return env.execute_async("endless")


def test_killing_a_task_manager_fails_the_job_promptly_and_leaves_no_process():
    env = make_env(2)
    client = _endless_job(env)
    processes = client.cluster.task_manager_processes.processes
    assert len(processes) == 2 and all(p.poll() is None for p in processes)
    victim = processes[1]
    # kill only once every subtask runs (before its slots are allocated, the job fails
    # for lack of resources instead, with another message)
    deadline = time.monotonic() + 60
    while len(client.get_task_metrics()) < 4:  # 2 source and 2 relay subtasks report metrics
        assert time.monotonic() < deadline, "the job's tasks did not start"
    started = time.monotonic()
    os.kill(victim.pid, signal.SIGKILL)
    with pytest.raises(JobExecutionException) as info:
        client.get_job_execution_result(timeout=30)
    assert time.monotonic() - started < 15
    message = str(info.value) + str(info.value.__cause__)
    assert "TaskManager" in message and ("no longer reachable" in message or "was lost" in message)
    assert all(p.poll() is not None for p in processes)


def test_a_killed_task_managers_temporary_files_are_removed_with_its_cluster(tmp_path):
    """A TaskManager killed mid-run cannot remove its work directory: every temporary file of
    the cluster's TaskManagers (theirs and their tasks') lives under one directory the client
    removes when the cluster stops."""
    seen = tmp_path / "seen"
    env = make_env(2)
    generator = DataGeneratorSource(lambda i: i, None)
    endless = env.from_source(generator, WatermarkStrategy.no_watermarks(), "endless")

    def note_tempdir(x: int) -> int:
        import tempfile

        if x < 4:  # a task's temporary directory, and a file in it, as user code makes them
            handle, path = tempfile.mkstemp()
            os.close(handle)
            with open(seen, "a") as out:
                out.write(path + "\n")
        return x

    endless.map(note_tempdir).add_sink(lambda x: None)
    client = env.execute_async("temporary files")
    try:
        processes = client.cluster.task_manager_processes.processes
        deadline = time.monotonic() + 60
        while not seen.exists() or len(client.get_task_metrics()) < 2:  # both chained subtasks run
            assert time.monotonic() < deadline, "the job's tasks did not start"
            time.sleep(0.05)  # polling the job's progress against a deadline
        os.kill(processes[0].pid, signal.SIGKILL)
        with pytest.raises(JobExecutionException):
            client.get_job_execution_result(timeout=30)
    finally:
        client.close()
    paths = seen.read_text().split()
    parents = {os.path.basename(os.path.dirname(p)) for p in paths}
    assert paths and all(parent.startswith("millstream-cluster-") for parent in parents)
    assert not any(os.path.exists(p) or os.path.exists(os.path.dirname(p)) for p in paths)


def test_task_managers_exit_when_their_client_is_killed(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(
        textwrap.dedent(
            """
            from millstream.common import WatermarkStrategy
            from millstream.datastream import StreamExecutionEnvironment
            from millstream.datastream.connectors.datagen import DataGeneratorSource

            env = StreamExecutionEnvironment.get_execution_environment()
            env.set_parallelism(2)
            gen = DataGeneratorSource(lambda i: i, None)
            src = env.from_source(gen, WatermarkStrategy.no_watermarks(), "s")
            src.rebalance().map(lambda x: x).add_sink(lambda x: None)
            env.execute("forever")
            """
        )
    )
    client = subprocess.Popen([sys.executable, str(script)], cwd=os.getcwd())
    try:
        parent = psutil.Process(client.pid)
        deadline = time.monotonic() + 60
        children: list[psutil.Process] = []
        while len(children) < 2:
            assert time.monotonic() < deadline, "TaskManagers did not start"
            assert client.poll() is None, "the job process exited"
            children = parent.children()
            time.sleep(0.1)
        client.kill()
        client.wait(10)
        _gone, alive = psutil.wait_procs(children, timeout=20)
        assert not alive, f"orphaned TaskManagers: {[p.pid for p in alive]}"
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()


def test_a_job_script_importing_its_own_helper_module_runs_on_task_managers(tmp_path):
    (tmp_path / "helpers.py").write_text("def shout(word):\n    return word.upper() + '!'\n")
    script = tmp_path / "job.py"
    script.write_text(
        textwrap.dedent(
            """
            from helpers import shout
            from millstream.datastream import StreamExecutionEnvironment

            env = StreamExecutionEnvironment.get_execution_environment()
            env.set_parallelism(2)
            with env.from_collection(["a", "b", "c"]).rebalance().map(shout).execute_and_collect() as out:
                print(sorted(out))
            """
        )
    )
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    result = subprocess.run(
        [sys.executable, str(script)], cwd=str(tmp_path), capture_output=True, text=True, timeout=90, env=env
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['A!', 'B!', 'C!']"


def test_a_task_manager_killed_before_it_registers_is_replaced_and_the_job_runs(tmp_path, caplog):
    """Issue 30, point 1: a TaskManager lost during start-up was a RuntimeError out of
    ``minicluster.start`` ("TaskManager tm-... exited with code -9"). As Flink's active
    resource managers do, the embedded cluster starts another process in its place, and the
    job, waiting for its slots meanwhile, runs without a restart (no task was deployed) and
    without a restart strategy (no checkpoints here)."""
    env = make_env(2)
    sink = FileSink.for_row_format(str(tmp_path / "out"), Encoder.simple_string_encoder()).build()
    env.from_collection(list(range(200))).rebalance().map(lambda x: str(x * 2)).sink_to(sink)
    with caplog.at_level(logging.WARNING, logger="millstream"):
        client = env.execute_async("killed at start-up")
        # execute_async returns once the job is submitted: the children were just spawned,
        # long before one could have imported millstream and registered
        processes = client.cluster.task_manager_processes
        victim_id = processes.resource_ids[0]
        os.kill(processes.processes[0].pid, signal.SIGKILL)
        result = client.get_job_execution_result(timeout=90)
    assert int(result.get_all_accumulator_results().get("numRestarts", 0)) == 0
    assert sorted(int(line) for line in committed_output(str(tmp_path / "out")).split()) == [
        x * 2 for x in range(200)
    ]
    assert f"TaskManager {victim_id} exited before it registered (killed by SIGKILL)" in caplog.text
    assert victim_id not in processes.resource_ids  # its replacement took its place
    assert leftover_task_managers() == []
