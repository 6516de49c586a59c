"""MiniCluster: JobManager components and TaskExecutors for running a job on this machine.

``MiniClusterExecutor`` is the ``embedded`` execution target: ``env.execute()`` starts a
MiniCluster sized for the job (one TaskExecutor with a slot per shared slot), runs the
job, and shuts everything down (also on failure), leaving no thread behind.
"""

from __future__ import annotations

import gc
import queue
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from functools import partial
from typing import Any

from millstream.common import config_options as opts
from millstream.common.config_option import ConfigurationError
from millstream.common.configuration import Configuration
from millstream.common.job_execution_result import (
    JobExecutionException,
    JobExecutionResult,
    JobID,
    JobStatus,
)
from millstream.common.job_listeners import notify_job_finished, notify_job_submitted
from millstream.graph.job_graph import JobGraph
from millstream.runtime.client_log import announce_submission, report_notice, report_restart, report_web_ui
from millstream.runtime.ids import ResourceID, new_id
from millstream.runtime.io.network.buffer_pool import InsufficientBuffersError
from millstream.runtime.jobmanager.collect import END, CollectChannels
from millstream.runtime.jobmanager.collect_result_buffer import CollectError
from millstream.runtime.jobmanager.exception_history import ExceptionHistoryEntry
from millstream.runtime.jobmanager.job_manager_services import JobManagerServices
from millstream.runtime.jobmanager.job_master import JobMaster, JobResult
from millstream.runtime.jobmanager.resource_manager import NoResourceAvailableError
from millstream.runtime.jobmanager.scheduler import minimum_network_buffers, required_slots
from millstream.runtime.rpc.wire import generate_secret
from millstream.runtime.task_manager_process_pool import TaskManagerProcessPool
from millstream.runtime.task_manager_processes import TaskManagerProcesses
from millstream.runtime.taskmanager import cpu_affinity
from millstream.runtime.taskmanager.task_executor import TaskExecutor

__all__ = ["JobClient", "MiniCluster", "MiniClusterExecutor", "check_network_buffers", "task_manager_layout"]

INTERRUPT_GRACE_S = 5.0  # after Ctrl-C: how long the job may take to cancel before a forced release


class _TaskManagerThreads:
    """TaskExecutors as objects of this process (``minicluster.mode: threads``)."""

    def __init__(self, configuration: Configuration, count: int, slots: int, cluster: MiniCluster) -> None:
        self.task_executors = [
            TaskExecutor(
                ResourceID(f"tm-{i}-{new_id()[:6]}"),
                configuration,
                slots,
                cluster.collect_channels,
                cluster.job_master,
            )
            for i in range(count)
        ]

    def start(self, services: JobManagerServices) -> None:
        services.start_in_process()
        for te in self.task_executors:
            te.start()
            services.resource_manager.register_task_executor(te.resource_id, te, te.num_slots).result()

    def ship(self, services: JobManagerServices, job_graph: JobGraph) -> tuple[str, ...]:
        return ()  # the job's code is already here

    def stop(self, services: JobManagerServices, force: bool) -> None:
        for te in self.task_executors:
            te.shutdown()

    def kill(self) -> None:
        pass


class MiniCluster:
    """JobManager components in this process; TaskManagers as child processes or threads.

    One path for both: the JobManager's services (ResourceManager, Dispatcher, collect
    channels) are the same; only the TaskManagers differ. ``processes=True``
    (``minicluster.mode: processes``, the default): the JobManager listens on 127.0.0.1
    with a fresh secret and ``num_task_managers`` TaskManager processes register with it.
    ``processes=False``: TaskExecutors as in-process objects (debugging, fast tests).
    """

    def __init__(
        self,
        configuration: Configuration,
        num_task_managers: int,
        slots_per_task_manager: int,
        processes: bool = False,
    ) -> None:
        self.configuration = configuration
        self.processes = processes
        self.collect_channels = CollectChannels()
        self.services = JobManagerServices(configuration, generate_secret(), self.collect_channels)
        self.resource_manager = self.services.resource_manager
        self.dispatcher = self.services.dispatcher
        self._task_managers: _TaskManagerThreads | TaskManagerProcessPool
        if processes:
            self._task_managers = TaskManagerProcessPool.create(
                configuration, num_task_managers, slots_per_task_manager
            )
        else:
            self._task_managers = _TaskManagerThreads(
                configuration, num_task_managers, slots_per_task_manager, self
            )
        self._started = False
        self._saved_gc = gc.get_threshold()

    @property
    def task_executors(self) -> list[TaskExecutor]:
        """The in-process TaskExecutors (none when TaskManagers are processes)."""
        tms = self._task_managers
        return tms.task_executors if isinstance(tms, _TaskManagerThreads) else []

    @property
    def task_manager_processes(self) -> TaskManagerProcesses | None:
        """The TaskManager processes (None when TaskManagers are threads)."""
        tms = self._task_managers
        return tms.processes if isinstance(tms, TaskManagerProcessPool) else None

    def start(self) -> None:
        """Start every component and register the TaskManagers."""
        threshold = self.configuration.get(opts.GC_THRESHOLD)
        self._saved_gc = gc.get_threshold()
        if threshold > 0:
            gc.set_threshold(threshold, *self._saved_gc[1:])
        self._started = True
        self._task_managers.start(self.services)

    def job_master(self, job_id: str) -> JobMaster:
        """The JobMaster of a running job (the in-process TaskExecutors' gateway to it)."""
        return self.dispatcher.job_masters[job_id]

    def submit(self, job_graph: JobGraph) -> JobMaster:
        """Submit a job; returns its JobMaster (``.result`` is a future)."""
        return self.services.submit_local(job_graph, self._task_managers.ship(self.services, job_graph))

    def close(self, force: bool = False) -> None:
        """Stop every component; TaskManager processes exit, threads are joined.

        ``force`` (after Ctrl-C): kill the TaskManager processes instead of asking them to
        stop, so tasks stuck in user code cannot hold the client up.
        """
        if not self._started:
            return
        self._started = False
        try:
            self._task_managers.stop(self.services, force)
        finally:
            self._task_managers.kill()
            self.services.close()
            gc.set_threshold(*self._saved_gc)


def _to_result(result: JobResult) -> JobExecutionResult:
    if result.status is JobStatus.FAILED:
        cause = result.failure
        raise JobExecutionException(
            result.job_id, f"Job execution failed: {cause}" if cause else "Job execution failed"
        ) from cause
    if result.status is JobStatus.CANCELED:
        raise JobExecutionException(result.job_id, "Job was cancelled")
    return JobExecutionResult(
        JobID(result.job_id), result.net_runtime_ms, dict(result.accumulators), result.job_name
    )


class JobClient:
    """A running job: its result, cancellation and collected elements.

    ``result`` completes with the JobResult; ``cancel`` asks the JobManager to cancel;
    ``collect_channels`` receive the job's collect sinks; ``shutdown`` releases whatever
    runs the job for this client (a MiniCluster, or a connection to a cluster).
    """

    def __init__(
        self,
        job_id: str,
        result: Future[JobResult],
        cancel: Callable[[], None],
        status: Callable[[], JobStatus],
        collect_channels: CollectChannels,
        shutdown: Callable[[bool], None],
        metrics: Callable[[], Future[dict[str, Any]]] | None = None,
        checkpoint_statistics: Callable[[], Future[dict[str, Any]]] | None = None,
        savepoint: Callable[[str | None, bool, bool], Future[str]] | None = None,
        exceptions: Callable[[], Future[tuple[int, list[ExceptionHistoryEntry]]]] | None = None,
        details: Callable[[], Future[Any]] | None = None,
        attempt_metrics: Callable[[], Future[dict[str, Any]]] | None = None,
    ) -> None:
        self._job_id = job_id
        self._details = details
        self._attempt_metrics = attempt_metrics
        self._exceptions = exceptions
        self._savepoint = savepoint
        self._metrics = metrics
        self._checkpoint_statistics = checkpoint_statistics
        self._result = result
        self._cancel = cancel
        self._status = status
        self._collect_channels = collect_channels
        self._shutdown = shutdown
        self._closed = False
        self.cluster: Any = None

    def get_job_id(self) -> JobID:
        """The job id."""
        return JobID(self._job_id)

    def get_job_status(self) -> JobStatus:
        """Current status."""
        return self._status()

    def get_job_execution_result(self, timeout: float | None = None) -> JobExecutionResult:
        """Wait for the job and return its result (raises if it failed)."""
        try:
            return _to_result(self._result.result(timeout))
        finally:
            if self._result.done():
                self.close()

    def cancel(self) -> None:
        """Cancel the job."""
        self._cancel()

    def trigger_savepoint(self, savepoint_directory: str | None = None) -> Future[str]:
        """Take a savepoint into a new directory under ``savepoint_directory`` (default:
        ``execution.checkpointing.savepoint-dir``); the future's result is its path."""
        return self._request_savepoint(savepoint_directory, stop=False)

    def stop_with_savepoint(
        self, advance_to_end_of_event_time: bool = False, savepoint_directory: str | None = None
    ) -> Future[str]:
        """Take a savepoint, then stop the job (it ends FINISHED); the future's result is the
        savepoint's path. ``advance_to_end_of_event_time`` (drain): the sources end their
        input first, so every window and event-time timer fires before the savepoint."""
        return self._request_savepoint(savepoint_directory, stop=True, drain=advance_to_end_of_event_time)

    def _request_savepoint(self, directory: str | None, stop: bool, drain: bool = False) -> Future[str]:
        if self._savepoint is None:
            raise NotImplementedError("this job's runner takes no savepoints")
        if self._result.done():
            failed: Future[str] = Future()
            failed.set_exception(RuntimeError(f"job {self._job_id} is not running"))
            return failed
        return self._savepoint(None if directory is None else str(directory), stop, drain)

    def run_to_completion(self) -> JobExecutionResult:
        """Wait for the result; whatever happens (Ctrl-C too), release what runs the job."""
        try:
            return self.get_job_execution_result()
        except KeyboardInterrupt:
            self.close(interrupted=True)
            raise
        finally:
            self.close()

    def get_task_metrics(self, timeout: float = 30.0) -> dict[str, Any]:
        """Metrics of the running job's tasks, by subtask (millstream; Flink shows them in its REST API)."""
        if self._metrics is None or self._result.done():
            return {}
        return self._metrics().result(timeout)

    def get_job_details(self, timeout: float = 30.0) -> tuple[Any, dict[str, Any]] | None:
        """(JobDetails, task metrics by execution attempt) of the job, as the REST API serves
        them (the progress view reads them); None when the runner has none. Once the job ended
        its final details, where the runner still has them (the embedded one does until the
        client lets go)."""
        if self._details is None or self._attempt_metrics is None:
            return None
        ended = self._result.done()
        details = self._details().result(timeout)
        return details, {} if ended else self._attempt_metrics().result(timeout)

    def result_done(self) -> bool:
        """Whether the job reached a final state (its result is known)."""
        return self._result.done()

    def get_checkpoint_statistics(self, timeout: float = 30.0) -> dict[str, Any]:
        """Checkpoint and restart metrics with Flink's names (numberOfCompletedCheckpoints,
        numberOfFailedCheckpoints, lastCheckpointDuration, lastCheckpointSize, numRestarts ...);
        after the job ended, its final values (also the result's accumulators)."""
        if self._result.done():
            result = self._result.result()
            return dict(result.accumulators)
        if self._checkpoint_statistics is None:
            return {}
        return self._checkpoint_statistics().result(timeout)

    def get_restart_count(self, timeout: float = 30.0) -> int:
        """How often the job restarted so far (Flink's ``numRestarts``)."""
        return self._restarts_and_exceptions(timeout)[0]

    def get_exception_history(self, timeout: float = 30.0) -> list[ExceptionHistoryEntry]:
        """The failures that restarted or failed the job, oldest first (at most 16, as
        Flink's ``web.exception-history-size``): what failed where, the root cause's type,
        message and the whole stack trace, and the restart it caused."""
        return self._restarts_and_exceptions(timeout)[1]

    def _restarts_and_exceptions(self, timeout: float) -> tuple[int, list[ExceptionHistoryEntry]]:
        if self._result.done():
            result = self._result.result()
            return int(result.accumulators.get("numRestarts", 0)), list(result.exception_history)
        if self._exceptions is None:
            return 0, []
        return self._exceptions().result(timeout)

    def collect(self, collect_id: str) -> Iterator[Any]:
        """The elements reaching collect sink ``collect_id``, as they become visible: at once,
        or, with exactly-once checkpoints, when a completed checkpoint covers them (each once,
        also across restarts); the job's end makes every element visible.

        Raises:
            CollectError: a collect sink restarted in a job without checkpoints
                (``JobRestartedError``, after the elements delivered before); the job is
                cancelled.
        """
        channel = self._collect_channels.channel(collect_id)
        while True:
            try:
                batch = channel.get(timeout=0.05)
            except queue.Empty:
                if self._result.done():
                    result = self._result.result()
                    if result.status is not JobStatus.FINISHED:
                        self.close()
                        _to_result(result)
                        return
                    channel.complete()
                continue
            except CollectError:
                self.close()
                raise
            if batch is END:
                self.get_job_execution_result()
                return
            yield from batch

    def detach(self) -> None:
        """Let go of the job without cancelling it (detached mode): only this client's
        connection closes; the job runs on in its cluster."""
        if self._closed:
            return
        self._closed = True
        notify_job_finished(self)
        self._collect_channels.close_all()
        self._shutdown(False)

    def close(self, interrupted: bool = False) -> None:
        """Cancel the job if it still runs; release what runs it.

        ``interrupted`` (Ctrl-C): wait only ``INTERRUPT_GRACE_S`` for the cancellation,
        then release by force (an embedded cluster's TaskManager processes are killed): a
        second Ctrl-C is not needed to get the terminal back.
        """
        if self._closed:
            return
        self._closed = True
        notify_job_finished(self)
        self._collect_channels.close_all()
        if not self._result.done():
            self._cancel()
            try:
                self._result.result(timeout=INTERRUPT_GRACE_S if interrupted else 30)
            except BaseException:
                pass
        self._shutdown(interrupted and not self._result.done())


def task_manager_layout(configuration: Configuration, slots: int) -> tuple[int, int]:
    """(TaskManager processes, slots each) of an embedded cluster for a job needing ``slots``.

    One process per core by default (a process runs one core's worth of Python), never more
    processes than slots, and as many slots in each as the job needs: ``-p 32`` starts as
    many processes as ``-p 2``. ``minicluster.number-of-taskmanagers`` and
    ``taskmanager.numberOfTaskSlots`` fix either number.

    Raises:
        NoResourceAvailableError: both are fixed and offer fewer slots than the job needs.
    """
    count = configuration.get(opts.MINICLUSTER_TASK_MANAGERS)
    per_tm = configuration.get(opts.TASK_SLOTS) if configuration.contains_key(opts.TASK_SLOTS.key) else 0
    if count <= 0:
        count = -(-slots // per_tm) if per_tm > 0 else max(1, min(slots, cpu_affinity.available_cpus()))
    if per_tm <= 0:
        per_tm = max(1, -(-slots // count))
    if count * per_tm < slots:
        raise NoResourceAvailableError(
            f"Could not acquire the minimum required resources: the job needs {slots} slots, and "
            f"{opts.MINICLUSTER_TASK_MANAGERS.key}={count} x {opts.TASK_SLOTS.key}={per_tm} offer "
            f"{count * per_tm}"
        )
    return count, per_tm


def check_network_buffers(job_graph: JobGraph, configuration: Configuration, task_managers: int) -> None:
    """Fail at once, before any process starts, when no placement has buffers enough.

    Raises:
        InsufficientBuffersError: the job's minimum exceeds every TaskManager's buffers.
    """
    needed = minimum_network_buffers(job_graph)
    per_tm = configuration.get(opts.NETWORK_NUM_BUFFERS)
    if needed > per_tm * task_managers:
        raise InsufficientBuffersError(
            f"Insufficient number of network buffers: the job needs at least {needed}, and "
            f"{task_managers} TaskManagers have {per_tm * task_managers} "
            f"({opts.NETWORK_NUM_BUFFERS.key}={per_tm} each): lower the parallelism or raise "
            f"{opts.NETWORK_NUM_BUFFERS.key}"
        )


class MiniClusterExecutor:
    """The ``embedded`` PipelineExecutor."""

    def execute_async(self, job_graph: JobGraph, configuration: Configuration) -> JobClient:
        """Start a MiniCluster sized for the job and submit it."""
        slots = len(required_slots(job_graph))
        settings = configuration.to_dict()
        for key in sorted(settings.keys() & opts.OPTIONS.keys()):  # bad values fail here, one line each
            opts.OPTIONS[key].parse(settings[key])
        mode = configuration.get(opts.MINICLUSTER_MODE).strip().lower()
        cpu_affinity.parse_affinity(configuration.get(opts.CPU_AFFINITY))  # a bad value fails here, clearly
        if mode == "threads":
            configured = configuration.get_integer(opts.TASK_SLOTS.key, 0)
            cluster = MiniCluster(configuration, 1, max(slots, configured))
        else:
            count, per_tm = task_manager_layout(configuration, slots)
            check_network_buffers(job_graph, configuration, count)
            cluster = MiniCluster(configuration, count, per_tm, processes=True)
        try:
            cluster.start()
            rest = cluster.services.wait_for_plugins().get("rest")
            if rest is not None:
                report_web_ui(rest.dashboard_url)
            master = cluster.submit(job_graph)
        except BaseException:
            cluster.close()
            raise
        master.add_failover_listener(partial(report_restart, job_graph.job_name))
        master.add_notice_listener(report_notice)
        announce_submission(job_graph.job_id, configuration)
        client = JobClient(
            job_graph.job_id,
            master.result,
            master.cancel,
            lambda: master.status,
            cluster.collect_channels,
            cluster.close,
            master.request_task_metrics,
            master.checkpoint_statistics,
            master.trigger_savepoint,
            master.exceptions,
            lambda: cluster.dispatcher.job_details(job_graph.job_id),
            master.request_attempt_metrics,
        )
        client.cluster = cluster  # the embedded cluster, for inspection (tests, debugging)
        notify_job_submitted(client)
        return client

    def execute(self, job_graph: JobGraph, configuration: Configuration) -> JobExecutionResult:
        """Run the job to completion."""
        if not configuration.get(opts.EXECUTION_ATTACHED):
            raise ConfigurationError(
                "detached mode (millstream run --detached, execution.attached: false) needs a cluster "
                "that outlives the client: --target cluster://HOST:PORT (the embedded cluster ends "
                "with its program)"
            )
        return self.execute_async(job_graph, configuration).run_to_completion()
