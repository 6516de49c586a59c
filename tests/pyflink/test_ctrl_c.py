"""Ctrl-C cancels the job (issue 13, point 10).

The first SIGINT (sent, as a terminal does, to the whole foreground process group) must
cancel every task within seconds even while a user function is stuck in Python code,
leave no part file that looks committed, stop the embedded TaskManager processes, and
end the command with status 130. Before, the client waited 30 s for a cancellation that
never came (nothing interrupted the stuck task thread), then 30 s more for the
TaskManagers' threads.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import psutil
import pytest

from tests.pyflink.processes import ProcessGroup, list_jobs, wait_until

pytestmark = pytest.mark.timeout(180)

MILLSTREAM = os.path.join(os.path.dirname(sys.executable), "millstream")

STUCK_JOB = textwrap.dedent(
    """
    import sys
    from millstream.common import Encoder, Types, WatermarkStrategy
    from millstream.datastream import StreamExecutionEnvironment
    from millstream.datastream.connectors.datagen import DataGeneratorSource
    from millstream.datastream.connectors.file_system import FileSink, RollingPolicy

    out, marker = sys.argv[1], sys.argv[2]

    def stuck(x):
        if x == 3000:
            open(marker, "w").close()
            while True:  # a user function stuck in Python code
                pass
        return str(x)

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    numbers = env.from_source(DataGeneratorSource(lambda i: i, None), WatermarkStrategy.no_watermarks(), "n")
    sink = FileSink.for_row_format(out, Encoder.simple_string_encoder()) \\
        .with_rolling_policy(RollingPolicy.default_rolling_policy(part_size=256)).build()
    numbers.map(stuck, output_type=Types.STRING()).sink_to(sink)
    env.execute("stuck")
    """
)


def _task_managers(pid: int) -> list[psutil.Process]:
    return [
        p
        for p in psutil.Process(pid).children(recursive=True)
        if "millstream.cluster.taskmanager" in " ".join(p.cmdline())
    ]


def _gone(processes: list[psutil.Process]) -> bool:
    return not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in processes)


def _interrupt(
    command: list[str], tmp_path: Path, env: dict[str, str] | None = None
) -> tuple[int, str, list]:
    """Run ``command`` until the job is stuck, Ctrl-C its process group; (status, stderr, TMs)."""
    marker = tmp_path / "stuck"
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=env,
        # A terminal's foreground program has SIGINT's default action; a suite started in the
        # background (`cmd &` in a script) passes SIGINT on ignored, and Python then installs
        # no KeyboardInterrupt (seen: all three tests timed out in such a run).
        preexec_fn=_default_sigint,
    )
    try:
        wait_until(lambda: marker.exists() or process.poll() is not None, 120, "the job gets stuck")
        assert process.poll() is None, process.communicate()[1]
        task_managers = _task_managers(process.pid)
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
        return process.returncode, err, task_managers
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _assert_nothing_committed(out: Path) -> None:
    files = [p for p in out.rglob("*") if p.is_file()]
    assert files, "the sink wrote before the interrupt"
    assert all(p.name.startswith(".") for p in files), [p.name for p in files]


def test_ctrl_c_on_millstream_run_cancels_a_stuck_job_and_exits_130(tmp_path: Path) -> None:
    job = tmp_path / "job.py"
    job.write_text(STUCK_JOB)
    out = tmp_path / "out"
    status, err, task_managers = _interrupt(
        [MILLSTREAM, "run", str(job), str(out), str(tmp_path / "stuck")], tmp_path
    )
    assert status == 130, err
    assert "interrupted; the job was cancelled" in err
    assert len(task_managers) >= 1
    wait_until(lambda: _gone(task_managers), 10, "the embedded TaskManagers stop")
    _assert_nothing_committed(out)


def test_ctrl_c_on_python_job_py_cancels_a_stuck_job(tmp_path: Path) -> None:
    job = tmp_path / "job.py"
    job.write_text(STUCK_JOB)
    out = tmp_path / "out"
    status, err, task_managers = _interrupt(
        [sys.executable, str(job), str(out), str(tmp_path / "stuck")], tmp_path
    )
    # Python ends an uncaught KeyboardInterrupt by SIGINT: a shell reports 130.
    assert status in (130, -signal.SIGINT), err
    assert "KeyboardInterrupt" in err
    wait_until(lambda: _gone(task_managers), 10, "the embedded TaskManagers stop")
    _assert_nothing_committed(out)


def test_ctrl_c_on_a_cluster_job_cancels_it_on_the_cluster(tmp_path: Path) -> None:
    secret_file = tmp_path / "secret"
    secret_file.write_text("ctrl-c-test-secret\n")
    with __import__("socket").socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    job = tmp_path / "job.py"
    job.write_text(STUCK_JOB)
    env = {k: v for k, v in os.environ.items() if k != "MILLSTREAM_SECRET"}
    with ProcessGroup() as cluster:
        jobmanager = cluster.start(
            [
                MILLSTREAM,
                "jobmanager",
                "--port",
                str(port),
                "--secret-file",
                str(secret_file),
                "-D",
                "rest.port=0",
            ]
        )
        cluster.wait_for_port(port, jobmanager)
        taskmanager = cluster.start(
            [MILLSTREAM, "taskmanager", "--jobmanager", f"127.0.0.1:{port}", "--slots", "2"]
            + ["--secret-file", str(secret_file)]
        )
        client = [MILLSTREAM, "run", "--target", f"cluster://127.0.0.1:{port}"]
        client += [
            "-D",
            f"security.secret-file={secret_file}",
            str(job),
            str(tmp_path / "out"),
            str(tmp_path / "stuck"),
        ]
        status, err, _ = _interrupt(client, tmp_path, env)
        assert status == 130, err
        # The job ends on the cluster (the dispatcher forgets finished jobs): its stuck task
        # thread was interrupted. Without the interrupt it stayed CANCELLING for good.
        wait_until(lambda: list_jobs(port, "ctrl-c-test-secret") == [], 30, "the job is cancelled")
        assert taskmanager.poll() is None  # the cluster's TaskManager stays up
    _assert_nothing_committed(tmp_path / "out")
