"""TaskManagerProcessPool: the embedded cluster's TaskManager processes, kept at full strength.

Flink's active resource managers (Kubernetes, YARN) start TaskManagers on demand and start
a new one whenever one terminates, at any moment: before it registered, while tasks
deploy, while they run. This pool does the same for the embedded cluster's child
processes, so that a TaskManager lost at any point of a job's life is one more failure for
the restart strategy to decide on, never a failure of the cluster itself:

::

    spawn N children ──> each registers its slots with the ResourceManager (when it can)
      every WATCH_INTERVAL_S on the ResourceManager's main thread:
        a child exited ──> WARNING with its exit code, then a new child in its place
                           (paced: more than start-worker.max-failure-rate children per
                           minute that exited before registering -> wait retry-interval)
        a child alive but unregistered for REGISTRATION_TIMEOUT_S ──> killed (then replaced)
      a registered TaskManager lost (connection closed, heartbeats missed) ──> its process
        is killed if it lingers, and replaced as above

The jobs see only the ResourceManager: a job asking for slots waits until enough are
registered (``slot.request.timeout``); a job whose TaskManager was lost restarts through
its restart strategy. Coordinating code on the ResourceManager's main thread.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections import deque
from collections.abc import Callable

from millstream.common import config_options as opts
from millstream.common.configuration import Configuration
from millstream.graph.job_graph import JobGraph
from millstream.runtime.blob import package_job_files
from millstream.runtime.ids import ResourceID
from millstream.runtime.jobmanager.job_manager_services import JobManagerServices
from millstream.runtime.task_manager_processes import TaskManagerProcesses

__all__ = ["REGISTRATION_TIMEOUT_S", "TaskManagerProcessPool", "describe_exit"]

log = logging.getLogger(__name__)

WATCH_INTERVAL_S = 0.05
REGISTRATION_TIMEOUT_S = 60.0  # a child that has not registered by then is killed and replaced
_FAILURE_WINDOW_MS = 60_000  # the failure rate is counted per minute, as Flink's


def describe_exit(code: int) -> str:
    """``exit code 1`` or ``killed by SIGKILL`` (a negative Popen return code is a signal)."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class TaskManagerProcessPool:
    """TaskManager processes registering over RPC, as in a standalone cluster, replaced when
    they end (the embedded cluster's default)."""

    def __init__(
        self,
        configuration: Configuration,
        processes: TaskManagerProcesses,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.processes = processes
        self._clock = clock
        self._max_failures = configuration.get(opts.START_WORKER_MAX_FAILURE_RATE)
        self._retry_interval_s = configuration.get(opts.START_WORKER_RETRY_INTERVAL) / 1000.0
        self._stopping = threading.Event()
        self._spawn_lock = threading.Lock()  # no child starts once stopping is set
        self._services: JobManagerServices | None = None
        # owner: the resource manager's main thread
        self._registered: set[ResourceID] = set()  # children that registered at some point
        self._spawned_at: dict[ResourceID, float] = {}  # children not registered yet
        self._start_failures: deque[float] = deque()  # when children exited before registering
        self._paused_until = 0.0  # no new child before (the failure rate was exceeded)
        self._to_replace: list[ResourceID] = []  # ended children waiting for the pause to end

    @classmethod
    def create(cls, configuration: Configuration, count: int, slots: int) -> TaskManagerProcessPool:
        """A pool of ``count`` TaskManager processes with ``slots`` slots each."""
        return cls(configuration, TaskManagerProcesses(configuration, count, slots))

    def start(self, services: JobManagerServices) -> None:
        """Listen, spawn the children and watch them; returns at once (jobs wait for slots)."""
        self._services = services
        address = services.start("127.0.0.1", 0)
        rm = services.resource_manager
        rm.add_registered_listener(self._on_registered)
        rm.add_lost_listener(self._on_lost)
        now = self._clock()
        self._spawned_at.update((rid, now) for rid in self.processes.resource_ids)  # before the watch
        self.processes.start(address, services.rpc.secret)
        rm.schedule_run_async(WATCH_INTERVAL_S, self._watch)

    def _on_registered(self, resource_id: ResourceID) -> None:
        self._registered.add(resource_id)
        self._spawned_at.pop(resource_id, None)

    def _on_lost(self, resource_id: ResourceID, reason: str) -> None:
        # lost while its process lingers (heartbeats missed): end it; ``_watch`` replaces it
        if not self._stopping.is_set():
            self.processes.kill_one(resource_id)

    def _watch(self) -> None:
        if self._stopping.is_set():
            return
        now = self._clock()
        for resource_id, code in self.processes.exited():
            registered = resource_id in self._registered
            log.warning(
                "TaskManager %s %s (%s); starting a new one",
                resource_id,
                "exited" if registered else "exited before it registered",
                describe_exit(code),
            )
            if not registered:
                self._start_failures.append(now)
            self._spawned_at.pop(resource_id, None)
            self._to_replace.append(resource_id)
        for resource_id, spawned in list(self._spawned_at.items()):
            if now - spawned > REGISTRATION_TIMEOUT_S:
                log.warning(
                    "TaskManager %s did not register within %.0f s", resource_id, REGISTRATION_TIMEOUT_S
                )
                del self._spawned_at[resource_id]
                self.processes.kill_one(resource_id)
        self._replace_ended(now)
        assert self._services is not None
        self._services.resource_manager.schedule_run_async(WATCH_INTERVAL_S, self._watch)

    def _replace_ended(self, now: float) -> None:
        """Start a child for each ended one, unless start failures exceeded the rate."""
        while self._start_failures and self._start_failures[0] <= now - _FAILURE_WINDOW_MS / 1000:
            self._start_failures.popleft()
        if self._to_replace and now >= self._paused_until and len(self._start_failures) > self._max_failures:
            self._paused_until = now + self._retry_interval_s
            log.warning(
                "%d TaskManager processes exited before registering within a minute: waiting %.1f s "
                "(%s) before starting the next one",
                len(self._start_failures),
                self._retry_interval_s,
                opts.START_WORKER_RETRY_INTERVAL.key,
            )
            self._start_failures.clear()  # counted again from the next start on
        if now < self._paused_until:
            return
        with self._spawn_lock:
            if self._stopping.is_set():
                return
            for resource_id in self._to_replace:
                new = self.processes.replace(resource_id)
                if new is not None:
                    self._spawned_at[new] = now
        self._to_replace = []

    def ship(self, services: JobManagerServices, job_graph: JobGraph) -> tuple[str, ...]:
        """Put the job's Python files on the blob server (the children fetch them)."""
        job_files = package_job_files(job_graph)
        return (services.blob_server.put_blob(job_files),) if job_files else ()

    def stop(self, services: JobManagerServices, force: bool) -> None:
        """Ask the children to exit and wait (``force``: leave them to ``kill``)."""
        with self._spawn_lock:
            self._stopping.set()
        if not force:
            services.registry.shutdown_all()
            for resource_id in list(self._spawned_at):  # not registered: nothing to shut down
                self.processes.kill_one(resource_id)
            self.processes.stop()

    def kill(self) -> None:
        """Kill every child."""
        with self._spawn_lock:
            self._stopping.set()
        self.processes.kill()
