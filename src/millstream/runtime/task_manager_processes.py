"""TaskManagerProcesses: a MiniCluster's TaskManager child processes on this machine.

Each child runs ``python -m millstream.cluster.taskmanager --managed`` with the
MiniCluster's secret in its environment (never on the command line), the client's
``sys.path`` except the job script's directory (the job's own modules arrive as blobs,
as on a cluster) and the cluster
configuration as ``-D`` options. With ``taskmanager.cpu-affinity: auto`` child i is
pinned to the i-th allowed CPU, so parallel TaskManagers use distinct cores. Children
exit when the JobManager (this process) goes away; ``stop`` asks them to exit, waits,
and kills what is left. ``exited`` reports children that ended (killed, crashed, at any
moment from spawn on) once each; ``replace`` starts a new child in the place of one.
Coordinating code.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time

from millstream.common import config_options as opts
from millstream.common.configuration import Configuration
from millstream.runtime.ids import ResourceID, new_id

__all__ = ["TaskManagerProcesses"]

log = logging.getLogger(__name__)


class TaskManagerProcesses:
    """Starts and stops the TaskManager processes of one MiniCluster."""

    def __init__(self, configuration: Configuration, count: int, slots: int) -> None:
        self.configuration = configuration
        self.count = count
        self.slots = slots
        self.resource_ids = [ResourceID(f"tm-{i}-{new_id()[:6]}") for i in range(count)]
        self.processes: list[subprocess.Popen[bytes]] = []
        self._retired: list[subprocess.Popen[bytes]] = []  # lost ones, reaped at stop/kill
        self._reported: set[int] = set()  # pids of exited children ``exited`` returned
        self._env: dict[str, str] = {}
        self._jobmanager: tuple[str, int] = ("127.0.0.1", 0)
        self._cpu_list: list[int] = []
        self._tmp: str | None = None  # the children's TMPDIR, removed with them

    def start(self, jobmanager: tuple[str, int], secret: str) -> None:
        """Spawn every TaskManager (they register with the JobManager at ``jobmanager``)."""
        env = dict(os.environ)
        env["MILLSTREAM_SECRET"] = secret
        # The client's import path, minus the job script's own directory: the job's modules
        # reach TaskManagers as blobs, as on a cluster (and -P keeps the cwd off the path).
        main_file = getattr(sys.modules.get("__main__"), "__file__", None)
        job_dir = os.path.dirname(os.path.abspath(main_file)) if main_file else None
        paths = [p for p in sys.path if p and os.path.abspath(p) != job_dir]
        env["PYTHONPATH"] = os.pathsep.join(paths)
        # every temporary file of the children (work directories, spills, user code's) lives
        # under one directory this process removes when they are gone: a TaskManager killed
        # mid-run cannot clean up after itself
        self._tmp = tempfile.mkdtemp(prefix="millstream-cluster-")
        env["TMPDIR"] = self._tmp
        self._env = env
        self._jobmanager = jobmanager
        self._cpu_list = self._cpus()
        for index, resource_id in enumerate(self.resource_ids):
            self.processes.append(self._spawn(index, resource_id))

    def _spawn(self, index: int, resource_id: ResourceID) -> subprocess.Popen[bytes]:
        # millstream's own options only: a program may set any other key (Flink's, its own).
        defines = [f"{k}={v}" for k, v in self.configuration.to_dict().items() if k in opts.OPTIONS]
        args = [
            sys.executable,
            "-P",
            "-m",
            "millstream.cluster.taskmanager",
            "--managed",
            "--jobmanager",
            f"{self._jobmanager[0]}:{self._jobmanager[1]}",
            "--slots",
            str(self.slots),
            "--resource-id",
            resource_id,
        ]
        for define in defines:
            args += ["-D", define]
        if self._cpu_list:
            args += ["-D", f"{opts.CPU_AFFINITY.key}={self._cpu_list[index % len(self._cpu_list)]}"]
        return subprocess.Popen(args, env=self._env, stdin=subprocess.DEVNULL)

    def replace(self, resource_id: ResourceID) -> ResourceID | None:
        """Start a new TaskManager in place of a lost one (its process is killed if it lingers);
        returns the new one's id, or None if ``resource_id`` is not one of these."""
        if resource_id not in self.resource_ids:
            return None
        index = self.resource_ids.index(resource_id)
        lost = self.processes[index]
        if lost.poll() is None:
            lost.kill()
        self._retired.append(lost)
        new_id_ = ResourceID(f"tm-{index}-{new_id()[:6]}")
        self.resource_ids[index] = new_id_
        self.processes[index] = self._spawn(index, new_id_)
        log.info("started TaskManager %s in place of %s", new_id_, resource_id)
        return new_id_

    def exited(self) -> list[tuple[ResourceID, int]]:
        """Children that ended since the last call, each reported once: (id, exit code; a
        negative code is the signal that killed it)."""
        ended = []
        for resource_id, process in zip(self.resource_ids, self.processes):
            code = process.poll()
            if code is not None and process.pid not in self._reported:
                self._reported.add(process.pid)
                ended.append((resource_id, code))
        return ended

    def kill_one(self, resource_id: ResourceID) -> None:
        """Kill the child ``resource_id`` if it still runs (``exited`` reports it then)."""
        if resource_id in self.resource_ids:
            process = self.processes[self.resource_ids.index(resource_id)]
            if process.poll() is None:
                process.kill()

    def _cpus(self) -> list[int]:
        if self.configuration.get(opts.CPU_AFFINITY).strip().lower() != "auto":
            return []
        if not hasattr(os, "sched_getaffinity"):
            return []
        allowed = sorted(os.sched_getaffinity(0))
        return allowed if len(allowed) > 1 else []

    def stop(self, timeout: float = 10.0) -> None:
        """Wait for the children to exit (they were asked to), then kill the rest."""
        deadline = time.monotonic() + timeout
        for process in self._retired:
            process.wait()
        for process in self.processes:
            try:
                process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("TaskManager pid %d did not stop in time; killing it", process.pid)
                process.kill()
                process.wait()

    def kill(self) -> None:
        """Kill every child at once, and remove their temporary files."""
        for process in [*self.processes, *self._retired]:
            if process.poll() is None:
                process.kill()
        for process in [*self.processes, *self._retired]:
            process.wait()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None
