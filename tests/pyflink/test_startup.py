"""Start-up: jobs wait for TaskManager slots, and millstream's logs stay off the user's stdout.

Issue 13, point 6: a job submitted before every TaskManager slot had registered failed
with "Could not acquire the minimum required resources" (about 1 in 4 runs of programs
that turn on INFO logging, which slows start-up), and the JobManager's "TaskManager ...
registered" lines appeared in the output of programs that log to stdout, as PyFlink's
official examples do (``logging.basicConfig(stream=sys.stdout, level=logging.INFO,
format="%(message)s")`` in pyflink/examples/datastream/word_count.py). Under PyFlink the
runtime logs to Flink's log files, never to the program's stdout.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.pyflink.processes import ProcessGroup, list_jobs, wait_until

pytestmark = pytest.mark.timeout(180)

MILLSTREAM = [os.path.join(os.path.dirname(sys.executable), "millstream")]  # the console script

LOGGING_PROGRAM = textwrap.dedent(
    """
    import logging, sys
    from millstream.common import Types
    from millstream.datastream import StreamExecutionEnvironment

    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(message)s")
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(3)
    logging.info("starting")
    env.from_collection([1, 2, 3, 4, 5, 6], type_info=Types.INT()).rebalance() \\
        .map(lambda x: x * 10, output_type=Types.INT()).print()
    env.execute("logging")
    logging.info("done")
    """
)


@pytest.mark.parametrize("run", range(3))
def test_a_program_logging_at_info_to_stdout_prints_only_its_own_lines(run: int, tmp_path: Path) -> None:
    job = tmp_path / "job.py"
    job.write_text(LOGGING_PROGRAM)
    result = subprocess.run([sys.executable, str(job)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "starting" and lines[-1] == "done", result.stdout
    printed = sorted(line.split("> ", 1)[1] for line in lines[1:-1])
    assert printed == ["10", "20", "30", "40", "50", "60"], result.stdout
    assert all(line[0].isdigit() and "> " in line for line in lines[1:-1]), result.stdout


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_job_submitted_before_any_task_manager_registered_runs_when_one_does(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("s3cret-for-this-test\n")
    port = _free_port()
    job = tmp_path / "job.py"
    job.write_text(
        textwrap.dedent(
            """
            from millstream.datastream import StreamExecutionEnvironment
            env = StreamExecutionEnvironment.get_execution_environment()
            env.set_parallelism(2)
            ds = env.from_collection(list(range(10))).rebalance().map(lambda x: x + 1)
            with ds.execute_and_collect() as out:
                print("sum", sum(out))
            """
        )
    )
    env = {k: v for k, v in os.environ.items() if k != "MILLSTREAM_SECRET"}
    with ProcessGroup() as processes:
        jobmanager = processes.start(
            [
                *MILLSTREAM,
                "jobmanager",
                "--port",
                str(port),
                "--secret-file",
                str(secret),
                "-D",
                "rest.port=0",
            ],
            env=env,
        )
        processes.wait_for_port(port, jobmanager)
        client = processes.start(
            [
                *MILLSTREAM,
                "run",
                "--target",
                f"cluster://127.0.0.1:{port}",
                "-D",
                f"security.secret-file={secret}",
                str(job),
            ],
            env=env,
        )
        # The job reaches the JobManager and waits for two slots; nothing has registered yet.
        key = secret.read_text().strip()
        wait_until(lambda: list_jobs(port, key) != [], 60, "the job reaches the JobManager")
        assert list_jobs(port, key)[0][2] == "RUNNING" and client.poll() is None
        processes.start(
            [
                *MILLSTREAM,
                "taskmanager",
                "--jobmanager",
                f"127.0.0.1:{port}",
                "--slots",
                "2",
                "--secret-file",
                str(secret),
            ],
            env=env,
        )
        out, err = client.communicate(timeout=120)
        assert client.returncode == 0, err
        assert out.splitlines()[1:] == ["sum 55"]  # after "Job has been submitted with JobID ..."
