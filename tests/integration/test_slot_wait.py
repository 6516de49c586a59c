"""A job waiting for its slots warns only when the wait is abnormal (issue 46, point 15).

Flink says nothing while a job waits for slots and fails after ``slot.request.timeout``
with "Could not acquire the minimum required resources" (PyFlink 2.3.0, a job of parallelism
2 on one slot with ``slot.request.timeout: 10 s``, fails after 14 s with
``NoResourceAvailableException: Could not acquire the minimum required resources.`` and
prints nothing before). millstream's client warned after 3 s, which an ordinary embedded run
on a loaded machine reached while its own TaskManagers started (8 runs of 12), and named the
timeout as "its slot.request.timeout". Now it warns once, after a tenth of the timeout, with
the value in seconds."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from millstream.common import Types, WatermarkStrategy
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.datagen import DataGeneratorSource

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

MILLSTREAM = [sys.executable, "-m", "millstream.cli.main"]


@pytest.fixture
def loaded_machine() -> Iterator[None]:
    """Two processes spinning on the CPU while the test runs (killed after it)."""
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL)
        for _ in range(2)
    ]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait(timeout=30)


def test_ordinary_embedded_runs_under_load_print_no_slot_warning(loaded_machine: None, capsys: Any) -> None:
    for parallelism in (2, 3, 4, 2, 3, 4):
        env = StreamExecutionEnvironment.get_execution_environment()
        env.set_parallelism(parallelism)
        source = DataGeneratorSource(lambda i: i, 50, None, Types.LONG())
        env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers").map(lambda v: v + 1).key_by(
            lambda v: v % 3
        ).reduce(lambda a, b: a + b).add_sink(lambda v: None)
        env.execute(f"ordinary p{parallelism}")
        err = capsys.readouterr().err
        assert "task slots" not in err and "slot.request.timeout" not in err, err


def _clean_env() -> dict[str, str]:
    """This process's environment without what a cluster must not inherit."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("MILLSTREAM_SECRET", None)
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_job_needing_more_slots_than_a_standalone_cluster_has_warns_once_then_fails(
    tmp_path: Path,
) -> None:
    cluster_dir = tmp_path / "cluster"
    job = tmp_path / "job.py"
    job.write_text(
        textwrap.dedent(
            """
            from millstream.datastream import StreamExecutionEnvironment

            env = StreamExecutionEnvironment.get_execution_environment()
            env.set_parallelism(2)
            env.from_collection(list(range(10))).map(lambda v: v).print()
            env.execute("needs two slots")
            """
        )
    )
    port = _free_port()
    start = subprocess.run(
        [*MILLSTREAM, "cluster", "start", "--dir", str(cluster_dir), "--port", str(port), "--rest-port", "0"]
        + ["--taskmanagers", "1", "--slots", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        env=_clean_env(),
    )
    try:
        assert start.returncode == 0, start.stdout + start.stderr
        secret = cluster_dir / "secret"
        started = time.monotonic()
        run = subprocess.run(
            [*MILLSTREAM, "run", "--target", f"cluster://127.0.0.1:{port}"]
            + ["-D", f"security.secret-file={secret}", "-D", "slot.request.timeout=10 s", str(job)],
            capture_output=True,
            text=True,
            timeout=180,
            env=_clean_env(),
        )
        took = time.monotonic() - started
    finally:
        subprocess.run(
            [*MILLSTREAM, "cluster", "stop", "--dir", str(cluster_dir)], capture_output=True, timeout=60
        )
    assert run.returncode != 0 and took >= 10, (took, run.stderr)
    warnings = [line for line in run.stderr.splitlines() if "task slots" in line]
    assert len(warnings) == 1, run.stderr
    assert warnings[0].startswith(
        "WARNING millstream: Job 'needs two slots' is still waiting for 2 task slots after "
    ) and warnings[0].endswith(
        ": 1 TaskManager(s) registered 1 slots, 1 free; it fails if they are not there within "
        "10 s (slot.request.timeout)"
    ), warnings[0]
    assert "Could not acquire the minimum required resources" in run.stderr.splitlines()[-1], run.stderr
