"""Standalone TaskManagers that lose their JobManager (issue 46, point 17).

As Flink's, they keep trying to register for ``taskmanager.registration.timeout``: a
JobManager restarted at the same address gets them back, a TaskManager paused past the
heartbeat timeout rejoins, their tasks are cancelled when the JobManager is lost, and a
TaskManager that no JobManager takes exits with one line.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from millstream.cluster.standalone import cluster_task_managers
from tests.integration.test_cluster_configuration import _log, _resource_id, _rest, _start, _wait
from tests.integration.test_standalone_cluster import MILLSTREAM, _clean_env, _free_port, _stop_cluster

pytestmark = pytest.mark.timeout(300)


RUNS_UNTIL_CANCELLED = """
from millstream.common import Types, WatermarkStrategy
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.testing.sinks import DiscardingSink

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
source = DataGeneratorSource(lambda i: i, None, 50.0, Types.LONG())
env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers").sink_to(DiscardingSink())
env.execute("runs until its JobManager is killed")
"""

SUMS = """
from millstream.datastream import StreamExecutionEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
with env.from_collection(list(range(100))).rebalance().map(lambda x: 2 * x).execute_and_collect() as out:
    print(sum(out))
"""


def _running_tasks(address: tuple[str, int], secret: str) -> list[int] | None:
    """Tasks running on each TaskManager registered at ``address`` (None: no JobManager there)."""
    try:
        managers = cluster_task_managers(address, secret)
    except OSError:  # the new JobManager does not listen yet
        return None
    return sorted(int(info["report"].get("running_tasks", -1)) for info in managers.values())


def test_task_managers_register_with_a_restarted_job_manager_and_run_its_jobs(tmp_path: Path) -> None:
    cluster_dir = tmp_path / "cluster"
    (tmp_path / "forever.py").write_text(RUNS_UNTIL_CANCELLED)
    (tmp_path / "sums.py").write_text(SUMS)
    port = _free_port()
    env = _clean_env()
    # a failed registration attempt is retried after 200 ms (Flink's default: 10 s)
    registration = ("-D", "cluster.registration.error-delay=200 ms")
    state = _start(cluster_dir, port, "--rest-port", "0", *registration, env=env)
    secret_file = state["secret_file"]
    secret = Path(secret_file).read_text().strip()
    run = [
        *MILLSTREAM,
        "run",
        "--target",
        f"cluster://127.0.0.1:{port}",
        "-D",
        f"security.secret-file={secret_file}",
    ]
    new_job_manager = None
    try:
        detached = subprocess.run(
            [*run, "--detached", str(tmp_path / "forever.py")],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert detached.returncode == 0, detached.stdout + detached.stderr
        _wait(lambda: _running_tasks(("127.0.0.1", port), secret) == [1, 1], "the job's tasks never ran")
        os.kill(state["jobmanager_pid"], signal.SIGKILL)
        lost = [
            _wait(
                lambda i=i: re.findall(
                    r"lost the JobManager at .*; cancelled (\d) task", _log(cluster_dir, f"taskmanager-{i}")
                ),
                f"TaskManager {i} did not notice the JobManager's loss",
            )
            for i in range(2)
        ]
        assert lost == [["1"], ["1"]]  # each cancelled the task it ran, and said so once
        new_job_manager = subprocess.Popen(
            [
                *MILLSTREAM,
                "jobmanager",
                "--port",
                str(port),
                "--secret-file",
                secret_file,
                "-D",
                "rest.port=0",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        # the old TaskManagers register with the new JobManager, idle: their tasks were cancelled
        _wait(
            lambda: _running_tasks(("127.0.0.1", port), secret) == [0, 0],
            "the TaskManagers did not come back",
        )
        sums = subprocess.run(
            [*run, str(tmp_path / "sums.py")], capture_output=True, text=True, timeout=120, env=env
        )
        assert sums.returncode == 0, sums.stdout + sums.stderr
        assert sums.stdout.strip().splitlines()[-1] == str(2 * sum(range(100)))
        for i in range(2):
            log = _log(cluster_dir, f"taskmanager-{i}")
            assert log.count("lost the JobManager") == 1 and log.count("registered again at") == 1, log
            assert _alive(state["taskmanager_pids"][i])
    finally:
        if new_job_manager is not None:
            new_job_manager.kill()
            new_job_manager.wait()
        _stop_cluster(cluster_dir)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_task_manager_paused_past_the_heartbeat_timeout_rejoins(tmp_path: Path) -> None:
    cluster_dir = tmp_path / "cluster"
    heartbeats = ("-D", "heartbeat.interval=500 ms", "-D", "heartbeat.timeout=4 s")
    state = _start(
        cluster_dir,
        _free_port(),
        "--rest-port",
        "0",
        *heartbeats,
        *("-D", "cluster.registration.error-delay=200 ms"),
        env=_clean_env(),
    )
    rest = state["rest"]

    def listed() -> list[str]:
        return sorted(tm["id"] for tm in _rest(rest, "/taskmanagers")["taskmanagers"])

    paused = _resource_id(cluster_dir, 0)
    both = sorted([paused, _resource_id(cluster_dir, 1)])
    pid = state["taskmanager_pids"][0]
    try:
        assert listed() == both
        os.kill(pid, signal.SIGSTOP)
        try:
            _wait(lambda: paused not in listed(), "the JobManager never dropped the paused TaskManager")
        finally:
            os.kill(pid, signal.SIGCONT)
        _wait(lambda: listed() == both, "the paused TaskManager did not rejoin")
        log = _log(cluster_dir, "taskmanager-0")
        assert log.count("lost the JobManager") == 1 and log.count("registered again at") == 1, log
    finally:
        _stop_cluster(cluster_dir)


def test_a_task_manager_exits_with_one_line_when_no_job_manager_takes_it(tmp_path: Path) -> None:
    port = _free_port()
    taskmanager = subprocess.run(
        [*MILLSTREAM, "taskmanager", "--jobmanager", f"127.0.0.1:{port}"]
        + ["-D", "taskmanager.registration.timeout=1 s", "-D", "cluster.registration.error-delay=100 ms"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**_clean_env(), "MILLSTREAM_SECRET": "s" * 32},
    )
    assert taskmanager.returncode == 1
    assert taskmanager.stderr.strip() == (
        f"millstream taskmanager: could not register at the JobManager at 127.0.0.1:{port} within 1 s "
        "(taskmanager.registration.timeout); last attempt: Connection refused; exiting"
    )
