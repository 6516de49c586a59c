"""A standalone cluster: JobManager and TaskManagers started as separate commands."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap

import psutil
import pytest

pytestmark = pytest.mark.timeout(180)

MILLSTREAM = [sys.executable, "-m", "millstream.cli.main"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("MILLSTREAM_SECRET", None)
    start = subprocess.run(
        [
            *MILLSTREAM,
            "cluster",
            "start",
            "--dir",
            str(cluster_dir),
            "--port",
            str(port),
            "--taskmanagers",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
    )
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
        assert run.stdout.strip() == str(2 * sum(range(100)))
        wrong = tmp_path / "wrong-secret"
        wrong.write_text("not-the-secret\n")
        refused = submit(wrong)
        assert refused.returncode != 0 and "shared secret" in refused.stderr
    finally:
        stop = subprocess.run(
            [*MILLSTREAM, "cluster", "stop", "--dir", str(cluster_dir)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert stop.returncode == 0, stop.stderr
    pids = [state["jobmanager_pid"], *state["taskmanager_pids"]]
    assert not [pid for pid in pids if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"]
    assert not state_path.exists()
