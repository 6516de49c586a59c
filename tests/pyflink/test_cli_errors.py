"""Every error of the ``millstream`` command is one line; the traceback only with --verbose
(issue 46, point 21), through the real command.

Before: a missing secret file with ``--target cluster://...`` ended in 23 lines of traceback,
``--web-ui`` with the REST port taken in 25, an unknown ``--target`` and ``--detached`` on the
embedded cluster in a traceback each, ``cancel -D security.secret-file=<missing>`` printed a
bare ``[Errno 2]``; ``millstream run DIRECTORY`` said "no such job file"; one-line errors
with nothing more to show ended with the "--verbose" hint; ``millstream --help`` showed
reStructuredText double backticks.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(180)

MILLSTREAM = os.path.join(os.path.dirname(sys.executable), "millstream")
HINT = "(--verbose or MILLSTREAM_LOG_LEVEL=DEBUG shows the whole traceback)"

JOB = textwrap.dedent(
    """
    from millstream.datastream import StreamExecutionEnvironment
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.from_collection([1, 2, 3]).map(lambda x: x * 10).print()
    env.execute("tens")
    """
)


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MILLSTREAM_LOG_LEVEL", "MILLSTREAM_VERBOSE")}
    return subprocess.run([MILLSTREAM, *args], capture_output=True, text=True, timeout=150, cwd=cwd, env=env)


def _one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode != 0, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.fixture
def job(tmp_path: Path) -> Path:
    path = tmp_path / "job.py"
    path.write_text(JOB)
    return path


def test_a_missing_secret_file_for_a_cluster_target_is_one_line(job: Path, tmp_path: Path) -> None:
    missing = tmp_path / "no-secret"
    result = _run(
        "run",
        "--target",
        "cluster://127.0.0.1:1",
        "-D",
        f"security.secret-file={missing}",
        str(job),
        cwd=tmp_path,
    )
    assert _one_line(result) == (
        f"millstream: cannot read the secret file {missing}: No such file or directory "
        "(-D security.secret-file=FILE)"
    )
    verbose = _run(
        "run",
        "-v",
        "--target",
        "cluster://127.0.0.1:1",
        "-D",
        f"security.secret-file={missing}",
        str(job),
        cwd=tmp_path,
    )
    assert "Traceback (most recent call last)" in verbose.stderr  # on request


def test_the_job_commands_name_a_missing_secret_file_and_its_option(tmp_path: Path) -> None:
    missing = tmp_path / "no-secret"
    result = _run(
        "cancel", "-m", "127.0.0.1:1", "-D", f"security.secret-file={missing}", "0" * 32, cwd=tmp_path
    )
    assert _one_line(result) == (
        f"millstream cancel: cannot read the secret file {missing}: No such file or directory "
        "(-D security.secret-file=FILE)"
    )


def test_web_ui_on_a_port_in_use_is_one_line_naming_the_setting(job: Path, tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _run("run", "--web-ui", "-D", f"rest.port={port}", str(job), cwd=tmp_path)
    line = _one_line(result)
    assert line.startswith(f"millstream: the REST API cannot listen on 127.0.0.1:{port}: "), line
    assert line.endswith(
        "address already in use (another process uses the port: stop it, or give the dashboard "
        "another port with -D rest.port=PORT, 0 for a free one)"
    ), line


def test_run_of_a_directory_says_what_it_expects(job: Path, tmp_path: Path) -> None:
    assert _one_line(_run("run", str(tmp_path), cwd=tmp_path)) == (
        f"millstream: {tmp_path} is a directory, not a job file: give the job's Python file "
        f"(millstream run {job}), or a directory with a __main__.py"
    )
    assert _one_line(_run("plan", str(tmp_path), cwd=tmp_path)).startswith(
        f"millstream: {tmp_path} is a directory"
    )
    package = tmp_path / "package"
    package.mkdir()
    (package / "__main__.py").write_text(JOB)
    ran = _run("run", str(package), cwd=tmp_path)  # as `python package` runs its __main__.py
    assert ran.returncode == 0, ran.stderr
    assert sorted(ran.stdout.splitlines()[1:]) == ["10", "20", "30"]


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (
            ["--target", "bogus"],
            "millstream: unknown execution.target 'bogus'; known targets: embedded, local, spark, "
            "cluster://HOST:PORT",
        ),
        (
            ["--detached"],
            "millstream: detached mode (millstream run --detached, execution.attached: false) needs a "
            "cluster that outlives the client: --target cluster://HOST:PORT (the embedded cluster ends "
            "with its program)",
        ),
    ],
    ids=["unknown-target", "detached-embedded"],
)
def test_a_bad_setting_is_one_line_without_the_verbose_hint(
    job: Path, tmp_path: Path, arguments: list[str], error: str
) -> None:
    """The message says it all: no hint to a traceback that would show nothing more."""
    line = _one_line(_run("run", *arguments, str(job), cwd=tmp_path))
    assert line == error and HINT not in line


def test_help_is_plain_text(tmp_path: Path) -> None:
    for command in ([], ["run"], ["plan"], ["list"], ["cancel"], ["savepoint"], ["stop"]):
        result = _run(*command, "--help", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert "``" not in result.stdout, command
    assert "list, cancel, savepoint and stop drive jobs" in _run("--help", cwd=tmp_path).stdout
