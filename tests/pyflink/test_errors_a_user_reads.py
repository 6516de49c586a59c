"""Errors a user reads (issue 30, point 4) and the job id (point 5).

Before, these ended a program with 15-85 lines of the engine's traceback: a typo in the
conf file, a missing input file, a cluster that is not running (a bare
ConnectionRefusedError), a wrong secret, ``millstream plan ... | head`` (BrokenPipeError);
a job waiting for slots said nothing for 5 minutes and ignored the client's
``-D slot.request.timeout``. Now each is one line naming what is wrong (``--verbose`` or
MILLSTREAM_LOG_LEVEL=DEBUG shows the traceback), and a user function's exception shows a
header and only the user's own frames. ``millstream run`` prints the job id as ``flink run``
does.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(180)

MILLSTREAM = [os.path.join(os.path.dirname(sys.executable), "millstream")]
HINT = "(--verbose or MILLSTREAM_LOG_LEVEL=DEBUG shows the whole traceback)"

JOB = textwrap.dedent(
    """
    import sys
    from millstream.common import WatermarkStrategy
    from millstream.datastream import StreamExecutionEnvironment
    from millstream.datastream.connectors.file_system import FileSource, StreamFormat

    def ratio(x):
        return 10 // (x - 2)

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    if len(sys.argv) > 1:
        source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), sys.argv[1]).build()
        env.from_source(source, WatermarkStrategy.no_watermarks(), "lines").print()
    else:
        env.from_collection([1, 2, 3]).map(ratio).name("ratio").print()
    env.execute("errors")
    """
)


def _run(command: list[str], tmp_path: Path, **env_vars: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MILLSTREAM_LOG_LEVEL", "MILLSTREAM_VERBOSE")}
    env.update(env_vars)
    return subprocess.run(command, capture_output=True, text=True, timeout=150, cwd=tmp_path, env=env)


@pytest.fixture
def job(tmp_path: Path) -> Path:
    path = tmp_path / "job.py"
    path.write_text(JOB)
    return path


def _both_ways(job: Path, *args: str) -> list[list[str]]:
    """The program under ``millstream run`` and as ``python job.py``."""
    return [[*MILLSTREAM, "run", str(job), *args], [sys.executable, str(job), *args]]


def test_a_typo_in_the_conf_file_is_one_line(job: Path, tmp_path: Path) -> None:
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "config.yaml").write_text("parallelism.defualt: 2\n")
    for command in _both_ways(job):
        result = _run(command, tmp_path, MILLSTREAM_CONF_DIR=str(conf))
        assert result.returncode == 1, result
        assert result.stderr.strip().splitlines() == [
            f"millstream: {conf}/config.yaml:1: unknown configuration key 'parallelism.defualt'; did "
            "you mean 'parallelism.default'? (settings of your own: prefix them with 'user.')"
        ], command  # nothing more to show: no hint to --verbose (issue 46, point 21)


def test_a_missing_input_file_is_one_line(job: Path, tmp_path: Path) -> None:
    for command in _both_ways(job, str(tmp_path / "missing.txt")):
        result = _run(command, tmp_path)
        assert result.returncode == 1
        assert result.stderr.strip().splitlines() == [
            f"millstream: FileSource: cannot read input path {tmp_path / 'missing.txt'}: No such file or "
            "directory"
        ], command


def test_a_user_function_error_shows_a_header_and_only_the_users_frames(job: Path, tmp_path: Path) -> None:
    for command in _both_ways(job):
        result = _run(command, tmp_path)
        assert result.returncode == 1
        lines = result.stderr.strip().splitlines()
        assert re.fullmatch(
            r"millstream: Job 'errors' failed: user function raised: operator 'ratio' in subtask "
            r".*ratio.* \(1/1\)#0 on record 2 at input position \d+ of the subtask",
            lines[0],
        ), lines
        assert lines[1] == "Traceback of the user function (most recent call last):"
        assert "job.py" in lines[2] and "in ratio" in lines[2] and "return 10 // (x - 2)" in lines[3]
        assert lines[-2:] == ["ZeroDivisionError: integer division or modulo by zero", HINT]
        assert "millstream/" not in result.stderr and len(lines) <= 8, result.stderr
    verbose = _run([*MILLSTREAM, "run", "--verbose", str(job)], tmp_path)
    assert "millstream/runtime/operators" in verbose.stderr  # the engine's frames, on request


def test_an_unreachable_cluster_and_a_wrong_secret_are_one_line(job: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("not the cluster's\n")
    secret.chmod(0o600)
    with_secret = ["-D", f"security.secret-file={secret}"]
    refused = _run(
        [*MILLSTREAM, "run", "--target", "cluster://127.0.0.1:1", *with_secret, str(job)], tmp_path
    )
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines() == [
        "millstream: no JobManager is listening at 127.0.0.1:1: is the cluster running? (millstream "
        "cluster start, or millstream jobmanager)"
    ]
    cluster_secret = tmp_path / "cluster-secret"
    cluster_secret.write_text("the cluster's own\n")
    cluster_secret.chmod(0o600)
    port = _free_port()
    jobmanager = subprocess.Popen(
        [
            *MILLSTREAM,
            "jobmanager",
            "--port",
            str(port),
            "--secret-file",
            str(cluster_secret),
            "-D",
            "rest.port=0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert jobmanager.stdout is not None
        assert "listening" in jobmanager.stdout.readline()  # it is up
        wrong = _run(
            [*MILLSTREAM, "run", "--target", f"cluster://127.0.0.1:{port}", *with_secret, str(job)], tmp_path
        )
        assert wrong.returncode == 1
        [line] = wrong.stderr.strip().splitlines()
        assert line.startswith(f"millstream: the JobManager at 127.0.0.1:{port} refused this client: ")
        assert "security.secret-file" in line and not line.endswith(HINT)  # nothing more to show
    finally:
        jobmanager.kill()
        jobmanager.wait()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_plan_into_a_closed_pipe_ends_quietly(job: Path, tmp_path: Path) -> None:
    """``millstream plan ... | head``: the reader leaves early; no BrokenPipeError."""
    big = tmp_path / "big.py"
    big.write_text(
        "from millstream.datastream import StreamExecutionEnvironment\n"
        "env = StreamExecutionEnvironment.get_execution_environment()\n"
        "env.from_collection([1]).rebalance().map(str).rebalance().map(str).print()\n"
        "env.execute('big')\n"
    )
    plan = subprocess.Popen(
        [*MILLSTREAM, "plan", "-p", "120", "--level", "execution", "--format", "json", str(big)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    assert plan.stdout is not None and plan.stderr is not None
    assert plan.stdout.read(100)  # a few bytes, then the reader is gone (as `head` exits)
    plan.stdout.close()
    stderr = plan.stderr.read().decode()
    assert plan.wait(timeout=120) == 141 and stderr == "", stderr


def test_run_prints_the_job_id_as_flink_run_does(job: Path, tmp_path: Path) -> None:
    result = _run([*MILLSTREAM, "run", str(job), str(tmp_path / "job.py")], tmp_path)
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"Job has been submitted with JobID [0-9a-f]{32}", result.stdout.splitlines()[0])
    plain = _run([sys.executable, str(job), str(tmp_path / "job.py")], tmp_path)
    assert "JobID" not in plain.stdout  # a program run by itself prints only its own output


def test_a_mistake_in_the_program_itself_shows_its_traceback_as_python_would(tmp_path: Path) -> None:
    """Not millstream's error: the program's own traceback, starting at the program (the
    command line's and runpy's frames above it left out)."""
    bad = tmp_path / "bad.py"
    bad.write_text("import millstream\nprint(undefined_name)\n")
    result = _run([*MILLSTREAM, "run", str(bad)], tmp_path)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1] == f'  File "{bad}", line 2, in <module>'
    assert lines[-1] == "NameError: name 'undefined_name' is not defined"
