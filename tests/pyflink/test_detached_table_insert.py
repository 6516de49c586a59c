"""``millstream run --detached`` of a Table program whose INSERT job never ends: the client
returns after the submission, as Flink's CLI does (``flink run -d``), whether the program ends
in ``execute_sql("INSERT ...").wait()`` or not; the job runs on in the standalone cluster.
Without a cluster (the embedded one ends with its program) detached mode is refused in one
line, as for a DataStream program."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(300)

MILLSTREAM = os.path.join(os.path.dirname(sys.executable), "millstream")
DEADLINE_S = 90.0

ENDLESS_INSERT = textwrap.dedent(
    """
    from millstream.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql("CREATE TABLE src (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5')")
    t_env.execute_sql("CREATE TABLE snk (n BIGINT) WITH ('connector' = 'blackhole')")
    t_env.execute_sql("INSERT INTO snk SELECT n FROM src"){wait}
    print("after the insert")
    """
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.dir = tmp / "cluster"
        self.env = {k: v for k, v in os.environ.items() if k not in ("MILLSTREAM_SECRET", "PYTHONPATH")}
        self.env["MILLSTREAM_HOME"] = str(tmp / "home")
        self.port = _free_port()
        self.rest = ""

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([MILLSTREAM, *args], capture_output=True, text=True, timeout=120, env=self.env)

    def submit_detached(self, program: str) -> subprocess.CompletedProcess[str]:
        job_file = self.tmp / "job.py"
        job_file.write_text(program)
        return self.run(
            "run",
            "--detached",
            "--target",
            f"cluster://127.0.0.1:{self.port}",
            "-D",
            f"security.secret-file={self.dir / 'secret'}",
            str(job_file),
        )

    def job(self, job_id: str) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://{self.rest}/jobs/{job_id}", timeout=30) as response:
            body: dict[str, Any] = json.loads(response.read())
            return body

    def wait_until(self, job_id: str, condition: Any, what: str) -> None:
        deadline = time.monotonic() + DEADLINE_S
        while not condition(self.job(job_id)):
            assert time.monotonic() < deadline, f"{what}: {self.job(job_id)}"
            time.sleep(0.2)  # polling an observable condition, bounded by the deadline


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    running = Cluster(tmp_path)
    started = running.run(
        "cluster", "start", "--taskmanagers", "1", "--slots", "2", "--port", str(running.port),
        "--rest-port", "0", "--dir", str(running.dir),
    )  # fmt: skip
    try:  # whatever fails below, the cluster stops
        assert started.returncode == 0, started.stdout + started.stderr
        running.rest = json.loads((running.dir / "cluster.json").read_text())["rest"]
        yield running
    finally:
        stopped = running.run("cluster", "stop", "--dir", str(running.dir))
        assert stopped.returncode == 0, stopped.stderr


@pytest.mark.parametrize("wait", [".wait()", ""], ids=["wait", "no-wait"])
def test_a_detached_table_insert_returns_after_submission(cluster: Cluster, wait: str) -> None:
    started = time.monotonic()
    submitted = cluster.submit_detached(ENDLESS_INSERT.replace("{wait}", wait))
    # before the fix, wait() blocked the client for as long as the endless job ran
    assert time.monotonic() - started < 60 and submitted.returncode == 0, submitted.stderr
    match = re.fullmatch(
        r"Job has been submitted with JobID ([0-9a-f]{32})\nafter the insert", submitted.stdout.strip()
    )
    assert match, submitted.stdout
    assert submitted.stderr == "", submitted.stderr
    job_id = match.group(1)
    cluster.wait_until(job_id, lambda j: j["state"] == "RUNNING", "the detached job does not run")
    cancelled = cluster.run("cancel", "-m", cluster.rest, job_id)
    assert cancelled.returncode == 0, cancelled.stderr
    cluster.wait_until(job_id, lambda j: j["state"] == "CANCELED", "the job was not cancelled")


def test_a_detached_table_insert_needs_a_cluster(tmp_path: Path) -> None:
    job_file = tmp_path / "job.py"
    job_file.write_text(ENDLESS_INSERT.replace("{wait}", ".wait()"))
    env = {k: v for k, v in os.environ.items() if k not in ("MILLSTREAM_SECRET", "PYTHONPATH")}
    env["MILLSTREAM_HOME"] = str(tmp_path / "home")
    refused = subprocess.run(
        [MILLSTREAM, "run", "--detached", str(job_file)], capture_output=True, text=True, timeout=120, env=env
    )
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines() == [
        "millstream: detached mode (millstream run --detached, execution.attached: false) needs a cluster "
        "that outlives the client: --target cluster://HOST:PORT (the embedded cluster ends with its program)"
    ]
