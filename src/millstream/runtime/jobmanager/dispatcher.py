"""Dispatcher: accepts JobGraphs and starts one JobMaster per job."""

from __future__ import annotations

import logging
from collections import OrderedDict
from concurrent.futures import Future
from typing import Any

from millstream.common import config_options as opts
from millstream.graph.job_graph import JobGraph
from millstream.runtime.ids import ResourceID
from millstream.runtime.jobmanager.job_details import JobDetails
from millstream.runtime.jobmanager.job_master import JobMaster, JobResult
from millstream.runtime.jobmanager.resource_manager import ResourceManager
from millstream.runtime.rpc.endpoint import RpcEndpoint

__all__ = ["JOB_MASTER_RPC_METHODS", "Dispatcher", "job_master_address"]

log = logging.getLogger(__name__)

ARCHIVED_JOBS = 100  # ended jobs whose details stay for the REST API
ARCHIVE_TIMEOUT_S = 10.0

# What a TaskManager may call on a job's JobMaster.
JOB_MASTER_RPC_METHODS = frozenset(
    {
        "update_task_execution_state",
        "notify_partition_consumable",
        "acknowledge_checkpoint",
        "decline_checkpoint",
        "send_operator_event_to_coordinator",
    }
)


def job_master_address(job_id: str) -> str:
    """The RPC name of a job's JobMaster."""
    return f"jobmaster/{job_id}"


class Dispatcher(RpcEndpoint):
    """Entry point for job submission."""

    def __init__(
        self,
        resource_manager: ResourceManager,
        rpc: Any = None,
        slot_request_timeout_s: float = opts.SLOT_REQUEST_TIMEOUT.default / 1000,
    ) -> None:
        """``slot_request_timeout_s``: the cluster's ``slot.request.timeout``, for jobs whose
        client set none."""
        super().__init__("dispatcher")
        self._rm = resource_manager
        self._slot_request_timeout_s = slot_request_timeout_s
        self._rpc = rpc  # RpcService exposing job masters to TaskManager processes, or None
        self.job_masters: dict[str, JobMaster] = {}  # owner: main thread
        # main thread: the final details of ended jobs, oldest first (Flink's job store)
        self.archived: OrderedDict[str, JobDetails] = OrderedDict()
        resource_manager.add_lost_listener(self._task_manager_lost)

    def submit_job(self, job_graph: JobGraph, user_artifacts: tuple[str, ...] = ()) -> JobMaster:
        """Start a JobMaster for ``job_graph`` (any thread)."""
        return self.call_async(self._submit, job_graph, user_artifacts).result()

    def _submit(self, job_graph: JobGraph, user_artifacts: tuple[str, ...]) -> JobMaster:
        if job_graph.job_id in self.job_masters:
            raise ValueError(f"job {job_graph.job_id} was already submitted")
        log.info("Received JobGraph submission '%s' (%s).", job_graph.job_name, job_graph.job_id)
        master = JobMaster(job_graph, self._rm, user_artifacts, self._slot_request_timeout_s)
        self.job_masters[job_graph.job_id] = master
        if self._rpc is not None:
            self._rpc.register(job_master_address(job_graph.job_id), master, JOB_MASTER_RPC_METHODS)
        master.start()
        master.start_scheduling()
        master.result.add_done_callback(lambda _f: self.run_async(self._job_done, job_graph.job_id))
        return master

    def _job_done(self, job_id: str) -> None:
        master = self.job_masters.pop(job_id, None)
        if master is not None:
            result = master.result.result()
            try:
                self.archived[job_id] = master.details().result(ARCHIVE_TIMEOUT_S)
                while len(self.archived) > ARCHIVED_JOBS:
                    self.archived.popitem(last=False)
            except Exception:
                log.warning("the details of ended job %s could not be archived", job_id, exc_info=True)
            log.info(
                "Job '%s' (%s) reached terminal state %s%s.",
                result.job_name,
                job_id,
                result.status.name,
                f" after {master.num_restarts} restart(s)" if master.num_restarts else "",
            )
            master.stop()
        if self._rpc is not None:
            self._rpc.unregister(job_master_address(job_id))

    def _task_manager_lost(self, resource_id: ResourceID, reason: str) -> None:
        self.run_async(self._forward_loss, resource_id, reason)

    def _forward_loss(self, resource_id: ResourceID, reason: str) -> None:
        for master in self.job_masters.values():
            master.task_manager_lost(resource_id, reason)

    def request_job_result(self, job_id: str) -> Future[JobResult]:
        """The result future of a running job."""
        return self.call_async(lambda: self.job_masters[job_id].result).result()

    def jobs(self) -> Future[tuple[list[JobMaster], list[JobDetails]]]:
        """The running jobs' masters and the ended jobs' details (any thread)."""
        return self.call_async(lambda: (list(self.job_masters.values()), list(self.archived.values())))

    def job_details(self, job_id: str) -> Future[JobDetails]:
        """A job's details: a running job's now, an ended one's as it ended (any thread).

        Raises (in the future):
            KeyError: no such job, running or archived.
        """
        result: Future[JobDetails] = Future()

        def find() -> None:
            master = self.job_masters.get(job_id)
            if master is not None:  # its thread runs until _job_done (this thread) stops it
                master.details().add_done_callback(lambda done: _forward(done, result))
            elif not result.set_running_or_notify_cancel():
                return  # its caller stopped waiting
            elif job_id in self.archived:
                result.set_result(self.archived[job_id])
            else:
                result.set_exception(KeyError(f"no job {job_id}"))

        self.run_async(find)
        return result

    def cancel_job(self, job_id: str) -> None:
        """Cancel a running job."""
        self.run_async(self._cancel_job, job_id)

    def _cancel_job(self, job_id: str) -> None:
        master = self.job_masters.get(job_id)
        if master is not None:
            log.info("Cancelling job '%s' (%s).", master.job_graph.job_name, job_id)
            master.cancel()


def _forward(done: Future[Any], result: Future[Any]) -> None:
    if not result.set_running_or_notify_cancel():
        return  # its caller stopped waiting (a REST request timed out)
    error = done.exception()
    if error is not None:
        result.set_exception(error)
    else:
        result.set_result(done.result())
