"""Dispatcher: accepts JobGraphs and starts one JobMaster per job."""

from __future__ import annotations

from concurrent.futures import Future

from millstream.graph.job_graph import JobGraph
from millstream.runtime.jobmanager.job_master import JobMaster, JobResult
from millstream.runtime.jobmanager.resource_manager import ResourceManager
from millstream.runtime.rpc.endpoint import RpcEndpoint

__all__ = ["Dispatcher"]


class Dispatcher(RpcEndpoint):
    """Entry point for job submission."""

    def __init__(self, resource_manager: ResourceManager) -> None:
        super().__init__("dispatcher")
        self._rm = resource_manager
        self.job_masters: dict[str, JobMaster] = {}  # owner: main thread

    def submit_job(self, job_graph: JobGraph) -> JobMaster:
        """Start a JobMaster for ``job_graph`` (any thread)."""
        return self.call_async(self._submit, job_graph).result()

    def _submit(self, job_graph: JobGraph) -> JobMaster:
        if job_graph.job_id in self.job_masters:
            raise ValueError(f"job {job_graph.job_id} was already submitted")
        master = JobMaster(job_graph, self._rm)
        self.job_masters[job_graph.job_id] = master
        master.start()
        master.start_scheduling()
        master.result.add_done_callback(lambda _f: self.run_async(self._job_done, job_graph.job_id))
        return master

    def _job_done(self, job_id: str) -> None:
        master = self.job_masters.pop(job_id, None)
        if master is not None:
            master.stop()

    def request_job_result(self, job_id: str) -> Future[JobResult]:
        """The result future of a running job."""
        return self.call_async(lambda: self.job_masters[job_id].result).result()

    def cancel_job(self, job_id: str) -> None:
        """Cancel a running job."""
        self.run_async(lambda: self.job_masters[job_id].cancel() if job_id in self.job_masters else None)
