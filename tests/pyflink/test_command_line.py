"""The command line as the README writes it (issue 13, point 8).

``millstream jobmanager ...`` / ``millstream taskmanager ...`` failed with "unrecognized
arguments" (only ``python -m`` worked), ``~`` in ``security.secret-file`` was not
expanded (the shell does not expand it after ``=``), the no-secret error named an option
``millstream run`` does not have, and ``millstream cluster start`` on a busy port waited
for TaskManagers that could never register.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import psutil
import pytest

from millstream.runtime.rpc.wire import load_secret

pytestmark = pytest.mark.timeout(180)

MILLSTREAM = os.path.join(os.path.dirname(sys.executable), "millstream")

JOB = textwrap.dedent(
    """
    from millstream.datastream import StreamExecutionEnvironment
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    with env.from_collection(list(range(100))).rebalance().map(lambda x: 2 * x).execute_and_collect() as out:
        print("sum", sum(out))
    """
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MILLSTREAM, *args], capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.parametrize(
    "command",
    ["run", "plan", "jobmanager", "taskmanager", "cluster", "cluster start", "cluster stop"],
)
def test_every_sub_command_has_help(command: str) -> None:
    result = _run(*command.split(), "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: millstream {command}"), result.stdout


def _cluster_processes(port: int) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline"]):
        cmdline = " ".join(process.info["cmdline"] or [])
        if "millstream.cluster." in cmdline and f"{port}" in cmdline:
            found.append(process)
    return found


def test_the_readme_cluster_commands_work_as_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("MILLSTREAM_SECRET", "MILLSTREAM_CLUSTER_DIR")}
    env["HOME"] = str(home)  # the cluster's directory defaults to ~/.millstream/cluster
    job = tmp_path / "job.py"
    job.write_text(JOB)
    port = _free_port()
    started = _run(
        "cluster",
        "start",
        "--taskmanagers",
        "2",
        "--slots",
        "1",
        "--port",
        str(port),
        "--rest-port",
        "0",
        env=env,
    )
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        assert (home / ".millstream" / "cluster" / "secret").exists()
        target = f"cluster://127.0.0.1:{port}"
        # The README's line, with its literal "~": the shell leaves it to millstream.
        ran = _run(
            "run",
            "--target",
            target,
            "-D",
            "security.secret-file=~/.millstream/cluster/secret",
            str(job),
            env=env,
        )
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout.splitlines()[1:] == ["sum 9900"]  # after "Job has been submitted ..."
        # Without a secret, the error names the option that gives one.
        missing = _run("run", "--target", target, str(job), env=env)
        assert missing.returncode != 0
        assert "no shared secret: pass -D security.secret-file=FILE" in missing.stderr
    finally:
        stopped = _run("cluster", "stop", env=env)
    assert stopped.returncode == 0, stopped.stderr
    assert _cluster_processes(port) == []


def test_cluster_start_on_a_busy_port_fails_naming_it_and_leaves_nothing_behind(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _run(
            "cluster",
            "start",
            "--port",
            str(port),
            "--rest-port",
            "0",
            "--dir",
            str(tmp_path / "cluster"),
            timeout=60,
        )
    assert result.returncode != 0
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr, result.stderr
    assert "Address already in use" in result.stderr
    assert _cluster_processes(port) == []
    assert not (tmp_path / "cluster" / "cluster.json").exists()


def test_a_secret_file_path_expands_the_home_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "secret").write_text("abc\n")
    assert load_secret(None, "~/secret") == "abc"
    with pytest.raises(ValueError, match=r"cannot read the secret file .*/nope: No such file"):
        load_secret(None, "~/nope")


# Issue 13, point 9: configuration validated as Flink validates its ConfigOptions.
@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (
            ["-D", "paralelism.default=2"],
            "-D unknown configuration key 'paralelism.default'; did you mean 'parallelism.default'?",
        ),
        (["-D", "parallelism.default=abc"], "millstream: -D parallelism.default='abc': expected an integer"),
        (["-D", "heartbeat.timeout=soon"], "millstream: -D heartbeat.timeout='soon': expected a duration"),
        (["-D", "taskmanager.numberOfTaskSlots=0"], "taskmanager.numberOfTaskSlots='0': must be at least 1"),
        (["-D", "execution.runtime-mode=fast"], "expected one of STREAMING, BATCH, AUTOMATIC"),
        (["-D", "novalue"], "-D expects key=value, got 'novalue'"),
        (["-p", "0"], "millstream: -p/--parallelism must be at least 1, got 0"),
        (["-p", "-1"], "millstream: -p/--parallelism must be at least 1, got -1"),
    ],
)
def test_bad_settings_are_one_line_errors_before_anything_starts(
    arguments: list[str], error: str, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    job = tmp_path / "job.py"
    job.write_text(f"open({str(marker)!r}, 'w').close()\n")
    result = _run("run", *arguments, str(job), timeout=60)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and error in result.stderr, result.stderr
    assert not marker.exists()  # the program never ran


def test_user_keys_durations_and_memory_sizes_are_accepted(tmp_path: Path) -> None:
    job = tmp_path / "job.py"
    job.write_text(
        textwrap.dedent(
            """
            from millstream.datastream import StreamExecutionEnvironment
            env = StreamExecutionEnvironment.get_execution_environment()
            print(env.get_parallelism())
            env.from_collection([1, 2]).map(lambda x: x).print()
            env.execute()
            """
        )
    )
    result = _run(
        "run",
        *(
            "-D",
            "user.threshold=5",
            "-D",
            "heartbeat.timeout=1 min",
            "-D",
            "taskmanager.memory.segment-size=16 kb",
        ),
        *("-D", "parallelism.default=1", "-D", "execution.buffer-timeout=10ms"),
        str(job),
    )
    assert result.returncode == 0, result.stderr
    assert [line for line in result.stdout.splitlines() if "JobID" not in line] == ["1", "1", "2"]


@pytest.mark.parametrize(
    ("command", "error"),
    [
        (["taskmanager", "--jobmanager", "127.0.0.1:1", "--slots", "0"], "--slots must be at least 1, got 0"),
        (
            ["taskmanager", "--jobmanager", "127.0.0.1:1", "-D", "heartbeat.intervall=5"],
            "did you mean 'heartbeat.interval'",
        ),
        (
            ["jobmanager", "-D", "heartbeat.interval=x"],
            "millstream jobmanager: -D heartbeat.interval='x': expected",
        ),
        (["cluster", "start", "--taskmanagers", "0"], "--taskmanagers and --slots must be at least 1"),
        (["cluster", "start", "--slots", "0"], "--taskmanagers and --slots must be at least 1"),
    ],
)
def test_cluster_processes_reject_bad_settings_before_starting(command: list[str], error: str) -> None:
    result = _run(*command, timeout=60)
    assert result.returncode == 2
    assert error in result.stderr, result.stderr


def test_a_conf_file_with_a_bad_value_names_the_file_line_and_key(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("# settings\nparallelism.default: 2\nheartbeat.timeout: soon\n")
    job = tmp_path / "job.py"
    job.write_text(
        "from millstream.datastream import StreamExecutionEnvironment\n"
        "StreamExecutionEnvironment.get_execution_environment()\n"
    )
    env = {**os.environ, "MILLSTREAM_CONF_DIR": str(tmp_path)}
    result = subprocess.run([sys.executable, str(job)], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode != 0
    assert f"{tmp_path}/config.yaml:3: heartbeat.timeout='soon': expected a duration" in result.stderr
