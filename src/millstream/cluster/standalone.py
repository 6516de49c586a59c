"""millstream cluster start|stop: a standalone cluster on this machine, in the background.

    millstream cluster start [--taskmanagers 2] [--slots N] [--port 6123] [--rest-port N]
                             [--bind-host 127.0.0.1] [--secret-file FILE] [--dir DIR]
                             [-D key=value ...]
    millstream cluster stop [--dir DIR]

start launches one JobManager and N TaskManager processes (detached; their logs in DIR:
jobmanager.log, taskmanager-<n>.log, and .out files with what they print), waits until
every TaskManager registered, and records the processes in DIR/cluster.json; it prints the
REST API's address and the dashboard's (with the token that lets the page cancel and stop
jobs). Every process reads $MILLSTREAM_CONF_DIR/config.yaml and the -D settings given here
(which win over the file), as Flink's config.yaml and -D: -D metrics.reporter.prom.port=9250-9260
turns on Prometheus, taskmanager.numberOfTaskSlots and rest.port are the defaults of --slots
and --rest-port. Without --secret-file it writes a fresh secret to DIR/secret (readable by
you only). Jobs are submitted with
millstream run --target cluster://HOST:PORT -D security.secret-file=FILE JOB.py.
stop terminates the recorded processes. DIR defaults to $MILLSTREAM_CLUSTER_DIR or
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
from millstream.common import config_options as opts
from millstream.common.configuration import Configuration, exit_on_bad_setting, load_process_configuration
from millstream.common.rest_options import REST_BIND_ADDRESS, REST_ENABLED, REST_PORT
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


def _check_port_free(host: str, port: int, option: str) -> None:
    """Fail before starting anything when ``host:port`` cannot be listened on (``option``: the
    setting that chose the port)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the JobManager's listener
        try:
            probe.bind((host, port))
        except OSError as err:
            raise SystemExit(
                f"millstream cluster: cannot listen on {host}:{port}: {err.strerror or err} "
                f"(another process uses the port: stop it or choose another {option})"
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
    config = load_process_configuration(args.define, "millstream cluster")
    slots = args.slots if args.slots is not None else config.get(opts.TASK_SLOTS)
    if args.taskmanagers < 1 or slots < 1:
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
    _check_port_free(host, port, "--port")
    rest_port = args.rest_port if args.rest_port is not None else config.get(REST_PORT)
    if rest_port and (not config.contains_key(REST_ENABLED.key) or config.get(REST_ENABLED)):
        rest_host = config.get(REST_BIND_ADDRESS) if config.contains_key(REST_BIND_ADDRESS.key) else host
        _check_port_free(rest_host, rest_port, "--rest-port" if args.rest_port is not None else REST_PORT.key)
    secret_file = _secret_file(args, directory)
    secret = load_secret(None, secret_file)
    processes: list[subprocess.Popen[bytes]] = []
    try:
        return _launch(args, config, slots, directory, state_path, secret_file, secret, processes)
    except BaseException:
        _kill(processes)  # nothing stays behind a failed start
        if os.path.exists(state_path):
            os.remove(state_path)
        raise


def _process_arguments(
    args: argparse.Namespace, config: Configuration, secret_file: str
) -> tuple[list[str], list[str]]:
    """The command lines of the JobManager and of each TaskManager. Each process reads
    config.yaml itself; it gets the -D settings given to ``cluster start`` and the options
    given explicitly, which win over the file."""
    host, port = args.bind_host, args.port
    common = ["--bind-host", host, "--secret-file", secret_file]
    for define in args.define:
        common += ["-D", define]
    jobmanager = ["millstream.cluster.jobmanager", "--port", str(port), *common]
    if args.rest_port is not None:
        jobmanager += ["-D", f"{REST_PORT.key}={args.rest_port}"]
    if not config.contains_key(REST_BIND_ADDRESS.key):
        jobmanager += ["-D", f"{REST_BIND_ADDRESS.key}={host}"]
    taskmanager = ["millstream.cluster.taskmanager", "--jobmanager", f"{host}:{port}", *common]
    if args.slots is not None:
        taskmanager += ["--slots", str(args.slots)]
    return jobmanager, taskmanager


def _launch(
    args: argparse.Namespace,
    config: Configuration,
    slots: int,
    directory: str,
    state_path: str,
    secret_file: str,
    secret: str,
    processes: list[subprocess.Popen[bytes]],
) -> int:
    host, port = args.bind_host, args.port
    jobmanager, taskmanager = _process_arguments(args, config, secret_file)
    processes.append(_spawn(jobmanager, directory, "jobmanager"))
    _wait_for_port(host, port, processes[0], 30)
    for i in range(args.taskmanagers):
        processes.append(_spawn(taskmanager, directory, f"taskmanager-{i}"))
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
    print(f"cluster started: JobManager at {host}:{port}, {args.taskmanagers} TaskManagers x {slots} slots")
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
    start = sub.add_parser(
        "start",
        help="start a JobManager and TaskManagers in the background",
        description="Start a standalone cluster on this machine in the background: one JobManager and "
        "N TaskManagers, each reading $MILLSTREAM_CONF_DIR/config.yaml and the -D settings given here "
        "(which win over the file). Waits until every TaskManager registered, then prints how to "
        "submit jobs, where the logs are, and the REST API's and dashboard's addresses.",
    )
    start.add_argument("--taskmanagers", type=int, default=2, help="TaskManager processes (default 2)")
    start.add_argument(
        "--slots", type=int, help=f"task slots per TaskManager (default: {opts.TASK_SLOTS.key}, 1)"
    )
    start.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"the JobManager's RPC port (default {DEFAULT_PORT})"
    )
    start.add_argument(
        "--rest-port", type=int, help=f"the REST API's port (0: a free one; default: {REST_PORT.key}, 8081)"
    )
    start.add_argument(
        "--bind-host", default="127.0.0.1", help="interface every process listens on (default: loopback)"
    )
    start.add_argument(
        "--secret-file", help="file holding the cluster's shared secret (default: a new one in DIR/secret)"
    )
    start.add_argument(
        "--dir",
        help="where the logs, secret and cluster.json go (default: $MILLSTREAM_CLUSTER_DIR or "
        "~/.millstream/cluster)",
    )
    start.add_argument(
        "-D",
        dest="define",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a setting for every process of the cluster; wins over config.yaml",
    )
    start.set_defaults(func=_start)
    stop = sub.add_parser(
        "stop",
        help="stop the cluster started with 'start'",
        description="Stop the processes of the cluster that 'start' recorded in DIR/cluster.json "
        "(SIGTERM, then SIGKILL after 15 s) and remove its temporary files.",
    )
    stop.add_argument("--dir", help="the cluster's directory, as given to 'start'")
    stop.set_defaults(func=_stop)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``millstream cluster``."""
    args = build_parser().parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
