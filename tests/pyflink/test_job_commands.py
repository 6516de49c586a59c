"""``millstream run --detached / list / savepoint / stop / cancel`` against a standalone
cluster's REST API, as Flink's ``flink run -d / list / savepoint / stop / cancel -m``: the
token comes from the file the JobManager wrote (no flag), a client without it is refused."""

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

ENDLESS_JOB = textwrap.dedent(
    """
    from millstream.common import WatermarkStrategy
    from millstream.datastream import StreamExecutionEnvironment
    from millstream.datastream.connectors.datagen import DataGeneratorSource

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.enable_checkpointing(300)
    source = DataGeneratorSource(lambda i: i, None, records_per_second=200)
    numbers = env.from_source(source, WatermarkStrategy.no_watermarks(), "gen")
    numbers.key_by(lambda v: v % 3).sum().name("total")
    env.execute("endless")
    """
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    def __init__(self, tmp: Path) -> None:
        self.dir = tmp / "cluster"
        self.env = {k: v for k, v in os.environ.items() if k not in ("MILLSTREAM_SECRET", "PYTHONPATH")}
        self.env["MILLSTREAM_HOME"] = str(tmp / "home")
        self.port = _free_port()
        self.job_file = tmp / "job.py"
        self.job_file.write_text(ENDLESS_JOB)
        self.rest = ""

    def run(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [MILLSTREAM, *args], capture_output=True, text=True, timeout=120, env=env or self.env
        )

    def submit(self) -> str:
        started = time.monotonic()
        result = self.run(
            "run",
            "--detached",
            "--target",
            f"cluster://127.0.0.1:{self.port}",
            "-D",
            f"security.secret-file={self.dir / 'secret'}",
            str(self.job_file),
        )
        assert result.returncode == 0, result.stderr
        assert time.monotonic() - started < 60  # it returned: the job runs on (it never ends)
        match = re.fullmatch(r"Job has been submitted with JobID ([0-9a-f]{32})", result.stdout.strip())
        assert match, result.stdout
        return match.group(1)

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
        "cluster",
        "start",
        "--taskmanagers",
        "2",
        "--slots",
        "1",
        "--port",
        str(running.port),
        "--rest-port",
        "0",
        "--dir",
        str(running.dir),
    )
    try:  # whatever fails below, the cluster stops
        assert started.returncode == 0, started.stdout + started.stderr
        running.rest = json.loads((running.dir / "cluster.json").read_text())["rest"]
        assert f"REST API at http://{running.rest}" in started.stdout
        assert re.search(rf"web dashboard: http://{running.rest}/\?token=[0-9a-f]{{64}}", started.stdout)
        yield running
    finally:
        stopped = running.run("cluster", "stop", "--dir", str(running.dir))
        assert stopped.returncode == 0, stopped.stderr


def test_detached_run_list_savepoint_and_stop(cluster: Cluster, tmp_path: Path) -> None:
    job_id = cluster.submit()
    listed = cluster.run("list", "-m", cluster.rest)
    assert listed.returncode == 0, listed.stderr
    assert re.search(
        rf"^\d\d\.\d\d\.\d{{4}} \d\d:\d\d:\d\d : {job_id} : endless \((RUNNING|CREATED)\)$",
        listed.stdout,
        re.M,
    ), listed.stdout
    cluster.wait_until(
        job_id, lambda j: all(v["status"] == "RUNNING" for v in j["vertices"]), "the job's tasks never ran"
    )
    saved = cluster.run("savepoint", "-m", cluster.rest, job_id, str(tmp_path / "savepoints"))
    assert saved.returncode == 0, saved.stderr
    path = re.search(r"^Savepoint completed\. Path: (.+)$", saved.stdout, re.M)
    assert path and (Path(path.group(1)) / "_metadata").exists(), saved.stdout
    stopped = cluster.run("stop", "-m", cluster.rest, "--savepoint-path", str(tmp_path / "final"), job_id)
    assert stopped.returncode == 0, stopped.stderr
    assert f"Job {job_id} stopped; resume it with: millstream run -s " in stopped.stdout
    cluster.wait_until(job_id, lambda j: j["state"] == "FINISHED", "the stopped job did not finish")
    ended = cluster.run("list", "-m", cluster.rest, "--all")
    assert "No running jobs." in ended.stdout and f"{job_id} : endless (FINISHED)" in ended.stdout


def test_cancel_the_one_running_job_and_refuse_a_client_without_the_token(
    cluster: Cluster, tmp_path: Path
) -> None:
    job_id = cluster.submit()
    stranger = {**cluster.env, "MILLSTREAM_HOME": str(tmp_path / "elsewhere")}
    refused = cluster.run("cancel", "-m", cluster.rest, job_id, env=stranger)
    assert refused.returncode == 1
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith("millstream cancel: PATCH ") and " 401 " in line and "token" in line
    assert cluster.job(job_id)["state"] == "RUNNING"
    rpc = [
        "-m",
        f"cluster://127.0.0.1:{cluster.port}",
        "-D",
        f"security.secret-file={cluster.dir / 'secret'}",
    ]
    over_rpc = cluster.run("list", *rpc)  # the JobManager's RPC port, with the secret
    assert over_rpc.returncode == 0 and f"- : {job_id} : endless (RUNNING)" in over_rpc.stdout, over_rpc
    cancelled = cluster.run("cancel", "-m", cluster.rest)  # no id: the one job running
    assert cancelled.returncode == 0, cancelled.stderr
    assert cancelled.stdout.splitlines() == [f"Cancelling job {job_id}.", f"Cancelled job {job_id}."]
    cluster.wait_until(job_id, lambda j: j["state"] == "CANCELED", "the job was not cancelled")
    assert f"{job_id} : endless (CANCELED)" in cluster.run("list", "-m", cluster.rest, "-a").stdout


PRINTING_JOB = ENDLESS_JOB.replace(
    'numbers = env.from_source(source, WatermarkStrategy.no_watermarks(), "gen")',
    'numbers = env.from_source(source, WatermarkStrategy.no_watermarks(), "gen")'
    '.map(lambda v: print("hello from a task", v, flush=True) or v)',
)


def test_the_clusters_logs_and_what_tasks_print_are_served(cluster: Cluster) -> None:
    cluster.job_file.write_text(PRINTING_JOB)
    job_id = cluster.submit()

    def get(path: str) -> Any:
        with urllib.request.urlopen(f"http://{cluster.rest}{path}", timeout=30) as response:
            body = response.read().decode()
            return json.loads(body) if response.headers.get_content_type() == "application/json" else body

    names = {log["name"] for log in get("/jobmanager/logs")["logs"]}
    assert names == {"jobmanager.log", "jobmanager.out"}
    assert f"Received JobGraph submission 'endless' ({job_id})" in get("/jobmanager/logs/jobmanager.log")
    managers = [tm["id"] for tm in get("/taskmanagers")["taskmanagers"]]
    assert len(managers) == 2
    logs = {tm: {log["name"] for log in get(f"/taskmanagers/{tm}/logs")["logs"]} for tm in managers}
    assert all(
        any(n.endswith(".log") for n in files) and any(n.endswith(".out") for n in files)
        for files in logs.values()
    )
    deadline = time.monotonic() + DEADLINE_S
    while True:  # the task runs on one of them: what it prints is in that one's .out
        printed = [
            get(f"/taskmanagers/{tm}/logs/{name}")
            for tm, files in logs.items()
            for name in files
            if name.endswith(".out")
        ]
        if any("hello from a task" in text for text in printed):
            break
        assert time.monotonic() < deadline, printed
        time.sleep(0.2)  # polling an observable condition, bounded by the deadline
    registered = [
        get(f"/taskmanagers/{tm}/logs/{n}") for tm, files in logs.items() for n in files if n.endswith(".log")
    ]
    assert all("registered at" in text for text in registered)
    cluster.run("cancel", "-m", cluster.rest, job_id)


def test_detached_needs_a_cluster_and_an_absent_api_is_one_line(tmp_path: Path) -> None:
    job = tmp_path / "job.py"
    job.write_text(ENDLESS_JOB)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(
        [MILLSTREAM, "run", "--detached", str(job)], capture_output=True, text=True, timeout=120, env=env
    )
    assert result.returncode == 1
    assert (
        "detached mode (millstream run --detached, execution.attached: false) needs a cluster"
        in result.stderr
    )
    port = _free_port()
    absent = subprocess.run(
        [MILLSTREAM, "list", "-m", f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=60, env=env
    )
    assert absent.returncode == 1
    (line,) = absent.stderr.strip().splitlines()
    assert line.startswith(f"millstream list: no REST API answers at 127.0.0.1:{port}")
