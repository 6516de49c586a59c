"""``millstream list | cancel | stop | savepoint``: drive jobs through the JobManager's REST API.

As Flink's ``flink list/cancel/stop/savepoint -m HOST:PORT``: the address is the REST
API's (default 127.0.0.1:8081). ``-m cluster://HOST:PORT`` reaches a standalone
JobManager over its RPC port instead (with the cluster's secret: ``-D
security.secret-file``); ``list`` then shows the running jobs only.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from millstream.cli.rest_client import RestClient, RestError

__all__ = ["add_job_commands", "the_running_job"]

SAVEPOINT_TIMEOUT_S = 600.0
_TERMINAL = ("FINISHED", "CANCELED", "FAILED")


def _client(args: argparse.Namespace) -> RestClient:
    return RestClient(args.jobmanager, _secret_file(args))


def _when(ms: int) -> str:
    return time.strftime("%d.%m.%Y %H:%M:%S", time.localtime(ms / 1000))


def _fail(args: argparse.Namespace, err: Exception) -> int:
    if getattr(args, "verbose", False):
        raise err
    print(f"millstream {args.command}: {err}", file=sys.stderr)
    return 1


def _secret_file(args: argparse.Namespace) -> str | None:
    for define in args.define or []:
        key, _, value = define.partition("=")
        if key.strip() == "security.secret-file":
            return value.strip()
    return None


def _rpc(args: argparse.Namespace, method: str, *call_args: Any) -> Any:
    """Call the JobManager's RPC port (``-m cluster://HOST:PORT``; the shared secret)."""
    # the runtime's cluster_client (~60 ms of the CLI's start-up): imported for cluster:// targets
    from millstream.runtime.cluster_client import call_job_manager

    return call_job_manager(args.jobmanager, _secret_file(args), method, *call_args, timeout=30)


def _cmd_list(args: argparse.Namespace) -> int:
    try:
        if (args.jobmanager or "").startswith("cluster://"):  # running jobs only: the RPC's list
            jobs = [
                {"jid": jid, "name": name, "state": state, "start-time": 0}
                for jid, name, state in _rpc(args, "list_jobs")
            ]
        else:
            jobs = _client(args).call("GET", "/jobs/overview")["jobs"]
    except (RestError, ValueError, OSError, LookupError) as err:
        return _fail(args, err)
    running = [j for j in jobs if j["state"] not in _TERMINAL and j["state"] != "CREATED"]
    scheduled = [j for j in jobs if j["state"] == "CREATED"]
    ended = [j for j in jobs if j["state"] in _TERMINAL]

    def show(title: str, entries: list[dict[str, Any]], none: str) -> None:
        if not entries:
            print(none)
            return
        print(f"{f' {title} ':-^62}")
        for job in sorted(entries, key=lambda j: j["start-time"]):
            when = _when(job["start-time"]) if job["start-time"] else "-"
            print(f"{when} : {job['jid']} : {job['name']} ({job['state']})")
        print("-" * 62)

    show("Running/Restarting Jobs", running, "No running jobs.")
    show("Scheduled Jobs", scheduled, "No scheduled jobs.")
    if args.all:
        show("Terminated Jobs", ended, "No terminated jobs.")
    return 0


def the_running_job(client: RestClient) -> str:
    """The id of the one job running (no JOB_ID given).

    Raises:
        LookupError: none, or several (they are named).
    """
    jobs = [j for j in client.call("GET", "/jobs/overview")["jobs"] if j["state"] not in _TERMINAL]
    if len(jobs) == 1:
        return str(jobs[0]["jid"])
    where = f"{client.host}:{client.port}"
    if not jobs:
        raise LookupError(f"no job is running at {where}")
    listed = "; ".join(f"{j['jid']} '{j['name']}' ({j['state']})" for j in jobs)
    raise LookupError(f"{len(jobs)} jobs run at {where}: name one of them: {listed}")


def _cmd_cancel(args: argparse.Namespace) -> int:
    try:
        if (args.jobmanager or "").startswith("cluster://"):
            running = _rpc(args, "list_jobs")
            if args.job_id is None and len(running) != 1:
                raise LookupError(f"{len(running)} jobs run at {args.jobmanager}: name one of them")
            job_id = args.job_id or running[0][0]
            print(f"Cancelling job {job_id}.")
            _rpc(args, "cancel_job", job_id)
        else:
            client = _client(args)
            job_id = args.job_id or the_running_job(client)
            print(f"Cancelling job {job_id}.")
            client.call("PATCH", f"/jobs/{job_id}?mode=cancel")
    except (RestError, LookupError, ValueError, OSError) as err:
        return _fail(args, err)
    print(f"Cancelled job {job_id}.")
    return 0


def savepoint_over_rest(args: argparse.Namespace, stop: bool, directory: str | None) -> int:
    """``savepoint`` / ``stop`` against the REST API: trigger, then wait for the result."""
    try:
        client = _client(args)
        job_id = args.job_id or the_running_job(client)
        target = None if directory is None else os.path.abspath(directory)
        if stop:
            print(f"Suspending job {job_id} with a savepoint.")
            body = {"targetDirectory": target, "drain": bool(args.drain)}
            trigger = client.call("POST", f"/jobs/{job_id}/stop", body)["request-id"]
        else:
            print(f"Triggering savepoint for job {job_id}.")
            body = {"target-directory": target, "cancel-job": False}
            trigger = client.call("POST", f"/jobs/{job_id}/savepoints", body)["request-id"]
        print("Waiting for response...")
        deadline = time.monotonic() + SAVEPOINT_TIMEOUT_S
        while True:
            status = client.call("GET", f"/jobs/{job_id}/savepoints/{trigger}")
            if status["status"]["id"] == "COMPLETED":
                break
            if time.monotonic() > deadline:
                raise RestError(
                    f"the savepoint of job {job_id} did not complete in {SAVEPOINT_TIMEOUT_S:.0f} s"
                )
            time.sleep(0.2)  # polling the operation's status, bounded by the deadline
    except (RestError, LookupError, ValueError) as err:
        return _fail(args, err)
    operation = status.get("operation", {})
    if "failure-cause" in operation:
        return _fail(args, RestError(operation["failure-cause"].get("stack-trace", "the savepoint failed")))
    path = operation["location"]
    print(f"Savepoint completed. Path: {path}")
    if stop:
        print(f"Job {job_id} stopped; resume it with: millstream run -s {path} ...")
    else:
        print("You can resume your program from this savepoint with: millstream run -s PATH ...")
    return 0


def add_job_commands(sub: Any, savepoint_command: Any) -> None:
    """Add ``list`` and ``cancel``; ``savepoint_command`` runs ``savepoint`` and ``stop``."""
    listing = sub.add_parser("list", help="list the jobs of a JobManager (its REST API)")
    listing.add_argument("-a", "--all", action="store_true", help="also the ended jobs")
    listing.set_defaults(func=_cmd_list)
    cancel = sub.add_parser("cancel", help="cancel a job")
    cancel.add_argument("job_id", nargs="?", help="the job's id (default: the one job running)")
    cancel.set_defaults(func=_cmd_cancel)
    savepoint = sub.add_parser("savepoint", help="take a savepoint of a running job")
    stop = sub.add_parser("stop", help="take a savepoint of a running job and stop it")
    for command in (listing, cancel, savepoint, stop):
        command.add_argument(
            "-m",
            "--jobmanager",
            metavar="HOST:PORT",
            help="the JobManager's REST address (default 127.0.0.1:8081), or cluster://HOST:PORT: its RPC "
            "port (with -D security.secret-file=FILE)",
        )
        command.add_argument("-D", dest="define", action="append", metavar="KEY=VALUE", help="configuration")
        command.add_argument("-v", "--verbose", action="store_true", help="show whole tracebacks of errors")
    for command in (savepoint, stop):
        command.set_defaults(func=savepoint_command)
    stop.add_argument(
        "-p", "--savepoint-path", dest="savepoint_path", metavar="DIR", help="savepoint directory"
    )
    stop.add_argument("-d", "--drain", action="store_true", help="advance to the end of event time first")
    stop.add_argument("job_id", nargs="?", help="the job's id (default: the one job running)")
    savepoint.add_argument("job_id", nargs="?", help="the job's id (default: the one job running)")
    savepoint.add_argument(
        "directory", nargs="?", help="savepoint directory (default: execution.checkpointing.savepoint-dir)"
    )
