"""``millstream cluster start|stop``: a standalone cluster on this machine, in the background.

    millstream cluster start [--taskmanagers 2] [--slots 1] [--port 6123] [--rest-port 8081]
                             [--bind-host 127.0.0.1] [--secret-file FILE] [--dir DIR]
    millstream cluster stop [--dir DIR]

``start`` launches one JobManager and N TaskManager processes (detached; their logs in DIR:
``jobmanager.log``, ``taskmanager-<n>.log``, and ``.out`` files with what they print),
waits until every TaskManager registered, and records the processes in
``DIR/cluster.json``; it prints the REST API's address and the dashboard's (with the token
that lets the page cancel and stop jobs). Without ``--secret-file`` it writes a fresh secret to
``DIR/secret`` (readable by you only). Jobs are submitted with
``millstream run --target cluster://HOST:PORT -D security.secret-file=FILE JOB.py``. ``stop``
terminates the recorded processes. DIR defaults to $MILLSTREAM_CLUSTER_DIR or
~/.millstream/cluster.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

from millstream.cluster.jobmanager import DEFAULT_PORT
from millstream.common.configuration import exit_on_bad_setting
from millstream.runtime.rpc.event_loop import EventLoopThread
from millstream.runtime.rpc.service import RpcService
from millstream.runtime.rpc.wire import generate_secret, load_secret
from millstream.web.auth import rest_token

__all__ = ["cluster_task_managers", "main"]

STATE = "cluster.json"


def _dir(path: str | None) -> str:
    return path or os.environ.get("MILLSTREAM_CLUSTER_DIR") or os.path.expanduser("~/.millstream/cluster")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _spawn(args: list[str], directory: str, name: str) -> subprocess.Popen[bytes]:
    """Start a process whose log (stderr) goes to ``name.log`` and whose stdout (what tasks
    print) goes to ``name.out``, as Flink's processes write them."""
    # the cluster's temporary files (work directories, spills) under its own directory:
    # removed by ``cluster stop``, also those of a process that was killed
    scratch = os.path.join(directory, "tmp")
    os.makedirs(scratch, exist_ok=True)
    with (
        open(os.path.join(directory, f"{name}.log"), "ab") as log,
        open(os.path.join(directory, f"{name}.out"), "ab") as out,
    ):
        return subprocess.Popen(
            [sys.executable, "-m", *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=log,
            start_new_session=True,
            env={**os.environ, "TMPDIR": scratch},
        )


def _wait_for_port(host: str, port: int, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(
                f"millstream cluster: the JobManager (pid {process.pid}) exited before listening on "
                f"{host}:{port}; see its log"
            )
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"millstream cluster: the JobManager did not listen on {host}:{port}")


def _ask_job_manager(address: tuple[str, int], secret: str, method: str) -> Any:
    loop = EventLoopThread("cluster-cli-io")
    loop.start()
    rpc = RpcService(loop, secret)
    try:
        connection = rpc.connect(*address)
        return connection.call("jobmanager", method).result(10)
    finally:
        rpc.close()
        loop.stop()


def cluster_task_managers(address: tuple[str, int], secret: str) -> dict[str, Any]:
    """The TaskManagers registered with the JobManager at ``address``."""
    managers: dict[str, Any] = _ask_job_manager(address, secret, "task_managers")
    return managers


def _check_port_free(host: str, port: int) -> None:
    """Fail before starting anything when ``host:port`` cannot be listened on."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the JobManager's listener
        try:
            probe.bind((host, port))
        except OSError as err:
            raise SystemExit(
                f"millstream cluster: cannot listen on {host}:{port}: {err.strerror or err} "
                "(another process uses the port: stop it or choose another --port)"
            ) from None


def _secret_file(args: argparse.Namespace, directory: str) -> str:
    if args.secret_file:
        return os.path.expanduser(args.secret_file)
    path = os.path.join(directory, "secret")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(generate_secret() + "\n")
    return path


def _kill(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            process.kill()
        process.wait()


def _start(args: argparse.Namespace) -> int:
    if args.taskmanagers < 1 or args.slots < 1:
        exit_on_bad_setting("millstream cluster: --taskmanagers and --slots must be at least 1")
    directory = _dir(args.dir)
    os.makedirs(directory, exist_ok=True)
    state_path = os.path.join(directory, STATE)
    if os.path.exists(state_path):
        with open(state_path) as f:
            state = json.load(f)
        if any(_alive(pid) for pid in [state["jobmanager_pid"], *state["taskmanager_pids"]]):
            print(f"millstream cluster: already running (see {state_path}); stop it first", file=sys.stderr)
            return 1
    host, port = args.bind_host, args.port
    _check_port_free(host, port)
    if args.rest_port:
        _check_port_free(host, args.rest_port)
    secret_file = _secret_file(args, directory)
    secret = load_secret(None, secret_file)
    processes: list[subprocess.Popen[bytes]] = []
    try:
        return _launch(args, directory, state_path, secret_file, secret, processes)
    except BaseException:
        _kill(processes)  # nothing stays behind a failed start
        if os.path.exists(state_path):
            os.remove(state_path)
        raise


def _launch(
    args: argparse.Namespace,
    directory: str,
    state_path: str,
    secret_file: str,
    secret: str,
    processes: list[subprocess.Popen[bytes]],
) -> int:
    host, port = args.bind_host, args.port
    common = ["--secret-file", secret_file]
    processes.append(
        _spawn(
            [
                "millstream.cluster.jobmanager",
                *("--bind-host", host, "--port", str(port), *common),
                *("-D", f"rest.port={args.rest_port}", "-D", f"rest.bind-address={host}"),
            ],
            directory,
            "jobmanager",
        )
    )
    _wait_for_port(host, port, processes[0], 30)
    for i in range(args.taskmanagers):
        tm = ["--jobmanager", f"{host}:{port}", "--slots", str(args.slots), "--bind-host", host, *common]
        processes.append(_spawn(["millstream.cluster.taskmanager", *tm], directory, f"taskmanager-{i}"))
    state = {
        "jobmanager": f"{host}:{port}",
        "jobmanager_pid": processes[0].pid,
        "taskmanager_pids": [p.pid for p in processes[1:]],
        "secret_file": os.path.abspath(secret_file),
    }
    with open(state_path, "w") as f:
        json.dump(state, f, indent=2)
    deadline = time.monotonic() + 60
    while len(cluster_task_managers((host, port), secret)) < args.taskmanagers:
        if time.monotonic() > deadline or any(p.poll() is not None for p in processes):
            raise SystemExit(
                "millstream cluster: TaskManagers did not register; see the logs in " + directory
            )
        time.sleep(0.2)
    target = f"cluster://{host}:{port}"
    rest = _ask_job_manager((host, port), secret, "rest_address")
    if rest is not None:
        state["rest"] = f"{rest[0]}:{rest[1]}"
        with open(state_path, "w") as f:
            json.dump(state, f, indent=2)
    print(
        f"cluster started: JobManager at {host}:{port}, {args.taskmanagers} TaskManagers x {args.slots} slots"
    )
    print(f"submit with: millstream run --target {target} -D security.secret-file={secret_file} JOB.py")
    print(f"logs: {directory}/jobmanager.log, taskmanager-<n>.log (and .out: what they print)")
    if rest is not None:
        url = f"http://{rest[0]}:{rest[1]}"
        print(f"REST API at {url} (millstream list -m {rest[0]}:{rest[1]})")
        print(f"web dashboard: {url}/?token={rest_token(secret)}")
    return 0


def _stop(args: argparse.Namespace) -> int:
    state_path = os.path.join(_dir(args.dir), STATE)
    if not os.path.exists(state_path):
        print("millstream cluster: no cluster is recorded as running", file=sys.stderr)
        return 1
    with open(state_path) as f:
        state = json.load(f)
    pids = [*state["taskmanager_pids"], state["jobmanager_pid"]]
    for pid in pids:
        if _alive(pid):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in pids:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
    os.remove(state_path)
    shutil.rmtree(os.path.join(_dir(args.dir), "tmp"), ignore_errors=True)
    print("cluster stopped")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """Arguments of ``millstream cluster``."""
    parser = argparse.ArgumentParser(
        prog="millstream cluster", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="action", required=True)
    start = sub.add_parser("start", help="start a JobManager and TaskManagers in the background")
    start.add_argument("--taskmanagers", type=int, default=2)
    start.add_argument("--slots", type=int, default=1)
    start.add_argument("--port", type=int, default=DEFAULT_PORT)
    start.add_argument(
        "--rest-port", type=int, default=8081, help="the REST API's port (0: a free one; default 8081)"
    )
    start.add_argument("--bind-host", default="127.0.0.1")
    start.add_argument("--secret-file")
    start.add_argument("--dir")
    start.set_defaults(func=_start)
    stop = sub.add_parser("stop", help="stop the cluster started with 'start'")
    stop.add_argument("--dir")
    stop.set_defaults(func=_stop)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``millstream cluster``."""
    args = build_parser().parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
