"""A standalone cluster: JobManager and TaskManagers started as separate commands."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from collections import Counter

import psutil
import pytest

pytestmark = pytest.mark.timeout(180)

MILLSTREAM = [sys.executable, "-m", "millstream.cli.main"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _clean_env() -> dict[str, str]:
    """This process's environment without what a cluster must not inherit."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("MILLSTREAM_SECRET", None)
    return env


def _start_cluster(cluster_dir, port, taskmanagers, env):  # type: ignore[no-untyped-def]
    command = ["cluster", "start", "--dir", str(cluster_dir), "--port", str(port), "--rest-port", "0"]
    return subprocess.run(
        [*MILLSTREAM, *command, "--taskmanagers", str(taskmanagers)],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
    )


def _stop_cluster(cluster_dir):  # type: ignore[no-untyped-def]
    return subprocess.run(
        [*MILLSTREAM, "cluster", "stop", "--dir", str(cluster_dir)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _stop_job_and_cluster(job, cluster_dir):  # type: ignore[no-untyped-def]
    """Kill the client of a job that did not end, stop the cluster."""
    if job is not None and job.poll() is None:
        job.kill()
        job.communicate()
    _stop_cluster(cluster_dir)


def test_cluster_start_run_stop(tmp_path):
    cluster_dir = tmp_path / "cluster"
    job_dir = tmp_path / "job"
    job_dir.mkdir()
    (job_dir / "helpers.py").write_text("def double(x):\n    return 2 * x\n")
    (job_dir / "job.py").write_text(
        textwrap.dedent(
            """
            from helpers import double
            from millstream.datastream import StreamExecutionEnvironment

            env = StreamExecutionEnvironment.get_execution_environment()
            env.set_parallelism(2)
            with env.from_collection(list(range(100))).rebalance().map(double).execute_and_collect() as out:
                print(sum(out))
            """
        )
    )
    port = _free_port()
    env = _clean_env()
    start = _start_cluster(cluster_dir, port, 2, env)
    state_path = cluster_dir / "cluster.json"
    try:
        assert start.returncode == 0, start.stdout + start.stderr
        state = json.loads(state_path.read_text())
        secret_file = state["secret_file"]
        assert oct(os.stat(secret_file).st_mode & 0o777) == "0o600"

        def submit(secret_path):
            return subprocess.run(
                [
                    *MILLSTREAM,
                    "run",
                    "--target",
                    f"cluster://127.0.0.1:{port}",
                    "-D",
                    f"security.secret-file={secret_path}",
                    str(job_dir / "job.py"),
                ],
                capture_output=True,
                text=True,
                timeout=90,
                cwd=str(job_dir),
                env=env,
            )

        run = submit(secret_file)
        assert run.returncode == 0, run.stdout + run.stderr
        # the cluster's processes keep their temporary files (TaskManager work directories)
        # in the cluster's directory, which `cluster stop` removes, even of a killed process
        assert [p.name for p in (cluster_dir / "tmp").iterdir() if p.name.startswith("millstream-")]
        submitted, total = run.stdout.strip().splitlines()
        assert submitted.startswith("Job has been submitted with JobID ") and total == str(
            2 * sum(range(100))
        )
        wrong = tmp_path / "wrong-secret"
        wrong.write_text("not-the-secret\n")
        refused = submit(wrong)
        assert refused.returncode != 0 and "shared secret" in refused.stderr
    finally:
        stop = _stop_cluster(cluster_dir)
    assert stop.returncode == 0, stop.stderr
    pids = [state["jobmanager_pid"], *state["taskmanager_pids"]]
    assert not [pid for pid in pids if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"]
    assert not state_path.exists() and not (cluster_dir / "tmp").exists()


RECOVERING_JOB = """
import sys, time
from millstream.common import Configuration, Encoder, Types, WatermarkStrategy
from millstream.datastream import MapFunction, StreamExecutionEnvironment
from millstream.datastream.connectors import FileSink
from millstream.datastream.connectors.datagen import DataGeneratorSource


class Busy(MapFunction):
    # CPU-bound per record, so the TaskManagers running tasks are the busy ones
    def map(self, value):
        deadline = time.perf_counter() + 0.0004
        while time.perf_counter() < deadline:
            pass
        return value % 5


conf = Configuration()
conf.set_string("execution.checkpointing.dir", sys.argv[2])
conf.set_string("restart-strategy.type", "fixed-delay")
conf.set_string("restart-strategy.fixed-delay.delay", "100 ms")
env = StreamExecutionEnvironment.get_execution_environment(conf)
env.set_parallelism(2)
env.enable_checkpointing(100)
source = DataGeneratorSource(lambda i: i, 12000, None, Types.LONG())
(
    env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers")
    .map(Busy(), Types.INT())
    .rebalance()
    .sink_to(FileSink.for_row_format(sys.argv[1], Encoder.simple_string_encoder()).build())
)
result = env.execute("recovering on a standalone cluster")
print("restarts", result.get_all_accumulator_results()["numRestarts"])
"""


def test_a_standalone_cluster_recovers_a_job_on_its_free_slots_when_a_task_manager_dies(tmp_path):
    """Three TaskManagers of one slot, a job of two: when a TaskManager running a task is
    killed, the job restarts from its checkpoint on the two that are left (Flink's standalone
    cluster has no resource manager to start another; it uses the free slots)."""
    cluster_dir = tmp_path / "cluster"
    (tmp_path / "job.py").write_text(RECOVERING_JOB)
    out, checkpoints = tmp_path / "out", tmp_path / "checkpoints"
    port = _free_port()
    env = _clean_env()
    start = _start_cluster(cluster_dir, port, 3, env)
    state_path = cluster_dir / "cluster.json"
    job = None
    try:
        assert start.returncode == 0, start.stdout + start.stderr
        state = json.loads(state_path.read_text())
        job = subprocess.Popen(
            [
                *MILLSTREAM,
                "run",
                "--target",
                f"cluster://127.0.0.1:{port}",
                "-D",
                f"security.secret-file={state['secret_file']}",
                str(tmp_path / "job.py"),
                str(out),
                str(checkpoints),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        deadline = time.monotonic() + 60
        while not list(checkpoints.rglob("_metadata")):
            assert job.poll() is None, job.communicate()
            assert time.monotonic() < deadline, "no checkpoint completed"
            time.sleep(0.05)  # polling an observable condition, bounded by the deadline
        taskmanagers = [psutil.Process(pid) for pid in state["taskmanager_pids"]]
        before = [tm.cpu_times().user for tm in taskmanagers]
        time.sleep(0.5)  # a CPU-time sample: the busy TaskManagers are those running tasks
        busy = max(range(len(taskmanagers)), key=lambda i: taskmanagers[i].cpu_times().user - before[i])
        taskmanagers[busy].kill()
        stdout, stderr = job.communicate(timeout=120)
        assert job.returncode == 0, stdout + stderr
        assert "restarts 1" in stdout
        # the cluster's client printed the restart (issue 30, point 2), pushed by the JobManager
        restart_lines = [line for line in stderr.splitlines() if line.startswith("WARNING millstream: Job ")]
        assert len(restart_lines) == 1 and "TaskManager" in restart_lines[0], stderr
        assert "restart 1 in" in restart_lines[0], stderr
        lines = [
            line
            for p in out.rglob("*")
            if p.is_file() and not p.name.startswith(".")
            for line in p.read_text().splitlines()
        ]
        assert sorted(lines) == sorted(str(i % 5) for i in range(12000))
    finally:
        _stop_job_and_cluster(job, cluster_dir)


SAVEPOINT_JOB = """
import sys
from millstream.common import Encoder, Types, WatermarkStrategy
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors import FileSink
from millstream.datastream.connectors.datagen import DataGeneratorSource

env = StreamExecutionEnvironment.get_execution_environment()
env.enable_checkpointing(100)
source = DataGeneratorSource(lambda i: i, 6000, float(sys.argv[2]), Types.LONG())
(
    env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers").uid("numbers")
    .map(lambda v: (v % 5, 1), Types.TUPLE([Types.INT(), Types.INT()]))
    .key_by(lambda pair: pair[0], Types.INT())
    .reduce(lambda a, b: (a[0], a[1] + b[1])).uid("counts")
    .map(lambda pair: f"{pair[0]},{pair[1]}", Types.STRING())
    .sink_to(FileSink.for_row_format(sys.argv[1], Encoder.simple_string_encoder()).build()).uid("files")
)
env.execute("savepointed on a standalone cluster")
"""


@pytest.mark.parametrize("drain", [False, True], ids=["stop", "stop --drain"])
def test_the_cli_stops_a_cluster_job_with_a_savepoint_and_resumes_it_at_another_parallelism(tmp_path, drain):
    """``millstream stop -m ... --savepoint-path DIR [--drain] JOB_ID``, then ``millstream run
    -s PATH -p 1``: over both runs every rolling count is committed exactly once (drained: the
    job ends by itself after the savepoint, its sources having ended their input).

    The first run makes 300 numbers a second (its 6,000 would take 20 s), so the stop always
    finds it running, however long a loaded machine takes to start the CLI; the resumed run
    makes the rest at full speed."""
    from millstream.runtime.cluster_client import call_job_manager

    cluster_dir = tmp_path / "cluster"
    (tmp_path / "job.py").write_text(SAVEPOINT_JOB)
    out = tmp_path / "out"
    port = _free_port()
    target = f"cluster://127.0.0.1:{port}"
    env = _clean_env()
    start = _start_cluster(cluster_dir, port, 2, env)
    job = None
    try:
        assert start.returncode == 0, start.stdout + start.stderr
        secret = json.loads((cluster_dir / "cluster.json").read_text())["secret_file"]
        run = [*MILLSTREAM, "run", "--target", target, "-D", f"security.secret-file={secret}"]
        job = subprocess.Popen(
            [*run, "-p", "2", str(tmp_path / "job.py"), str(out), "300"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        deadline = time.monotonic() + 60
        while not list(out.rglob("part-*")):  # a checkpoint completed: its files are committed
            assert job.poll() is None, job.communicate()
            assert time.monotonic() < deadline, "nothing committed"
            time.sleep(0.05)  # polling an observable condition, bounded by the deadline
        [(job_id, _name, status)] = call_job_manager(target, secret, "list_jobs")
        assert status == "RUNNING"
        # the id as `millstream run` printed it (issue 30, point 5); `stop --drain` is given
        # none: the one job running is the one to stop
        assert job.stdout is not None
        assert job.stdout.readline() == f"Job has been submitted with JobID {job_id}\n"
        stop = subprocess.run(
            [*MILLSTREAM, "stop", "-m", target, "-D", f"security.secret-file={secret}"]
            + ["--savepoint-path", str(tmp_path / "savepoints")]
            + (["--drain"] if drain else [job_id]),
            capture_output=True,
            text=True,
            timeout=90,
            env=env,
        )
        assert stop.returncode == 0, stop.stdout + stop.stderr
        path = stop.stdout.split("Path: ", 1)[1].split()[0]
        stdout, stderr = job.communicate(timeout=60)
        assert job.returncode == 0, stdout + stderr  # stopped: the job finished
        resumed = subprocess.run(
            [*run, "-p", "1", "-s", path, str(tmp_path / "job.py"), str(out), "1000000"],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        lines = Counter(
            line
            for p in out.rglob("*")
            if p.is_file() and not p.name.startswith(".")
            for line in p.read_text().splitlines()
        )
        # every rolling count of every key exactly once over both runs
        assert lines == Counter(f"{k},{c}" for k in range(5) for c in range(1, 1201))
        # the JobManager's log tells each job's story: submission, state changes, the end
        log = (cluster_dir / "jobmanager.log").read_text()
        assert f"Received JobGraph submission 'savepointed on a standalone cluster' ({job_id})" in log
        # stopped: the tasks are cancelled after the savepoint; drained: they end by themselves
        assert f"({job_id}) switched from state RUNNING to {'FINISHED' if drain else 'CANCELLING'}" in log
        assert f"({job_id}) reached terminal state FINISHED" in log
    finally:
        _stop_job_and_cluster(job, cluster_dir)
