"""The failover part of a JobMaster (Flink's ExecutionFailureHandler and restart logic): a
failed task restarts its pipelined region and the regions consuming from it
(``failover.py``), or the whole job after a lost TaskManager, from the latest completed
checkpoint, after the restart strategy's backoff (``restart_backoff.py``); with no restart
left, the job fails. Every failure goes into the exception history and the log.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import Future

from millstream.common.job_execution_result import JobStatus
from millstream.runtime.executiongraph.execution_graph import (
    Execution,
)
from millstream.runtime.jobmanager.exception_history import (
    history_entry,
    restart_line,
)
from millstream.runtime.jobmanager.failover import attempts_ended, new_attempts, regions_to_restart
from millstream.runtime.jobmanager.job_master_scheduling import SchedulingJobMaster
from millstream.runtime.jobmanager.restart_backoff import recovery_suppressed
from millstream.runtime.jobmanager.scheduler import (
    SchedulingPipelinedRegion,
)
from millstream.runtime.rpc.gateways import SlotOffer

__all__ = ["FailoverJobMaster"]

log = logging.getLogger("millstream.runtime.jobmanager.job_master")  # one logger for the whole JobMaster


class FailoverJobMaster(SchedulingJobMaster):
    """A JobMaster's failover: restarts after task failures as the restart strategy allows."""

    def _task_failed(self, error: BaseException | None, failed: Execution, whole_job: bool = False) -> None:
        """A task failed: if the restart strategy allows, restart its region and the regions
        consuming from it (``failover.py``) or the whole job (``whole_job``: a lost
        TaskManager), from the latest checkpoint; else fail the job. Either way the failure
        goes into the exception history and the log, and a restart to the failover listeners."""
        if self.checkpoint_coordinator is not None:
            self.checkpoint_coordinator.abort_pending()
        if self._failure is not None or self.status is not JobStatus.RUNNING:
            return  # failing or restarting already: this is a consequence
        if failed.attempt_id in self._region_cancelled:
            return  # cancelled for a region restart, it failed on its way out
        self._recover(error, failed, whole_job)

    def handle_global_failure(self, error: BaseException) -> None:
        """A failure of no single task (Flink's ``handleGlobalFailure``): a source's split
        enumerator cannot go on. As a task failure, under the restart strategy: the whole job
        restarts from the latest checkpoint (its enumerators anew), or the job fails (main
        thread)."""
        if self.checkpoint_coordinator is not None:
            self.checkpoint_coordinator.abort_pending()
        if self._failure is not None or self.status is not JobStatus.RUNNING:
            return  # failing or restarting already: this is a consequence
        self._recover(error, None, True)

    def _recover(self, error: BaseException | None, failed: Execution | None, whole_job: bool) -> None:
        """Restart (``failed``'s regions, or the whole job) if the restart strategy allows,
        else fail the job; the failure goes into the exception history either way."""
        now_ms = int(time.time() * 1000)
        self._restart_backoff.notify_failure(now_ms)
        restarting = self._restart_backoff.can_restart()
        if restarting:
            self._failovers += 1
            self._backoff_ms = self._restart_backoff.backoff_ms()
        else:  # the job fails with it: "Recovery is suppressed by <strategy>", as Flink's
            error = recovery_suppressed(self._restart_backoff, error)
        entry = history_entry(
            error,
            now_ms,
            None if failed is None else failed.vertex.task_name_with_subtask,
            None if failed is None else failed.assigned_resource,
            self._failovers if restarting else None,
            self._backoff_ms if restarting else None,
        )
        self.exception_history.append(entry)
        if not restarting:
            where = entry.task_name or "the job"
            log.info("job %s: %s failed; no restart (%s)", self._job_label, where, entry.summary)
            self._fail(error)
            return
        log.info("job %s: %s", self._job_label, restart_line(self.job_graph.job_name, entry), exc_info=error)
        for listener in self._failover_listeners:
            listener(entry)
        regions = None if whole_job or failed is None else self._failover_regions(failed)
        if regions is not None:
            log.info(
                "job %s: %d tasks will be restarted to recover the failed task %s.",
                self._job_label,
                sum(len(region.vertices) for region in regions),
                entry.task_name,
            )
            self._cancel_regions(regions)
            return
        self._set_status(JobStatus.RESTARTING)
        self._restart_pending = False
        if self.checkpoint_coordinator is not None:
            self.checkpoint_coordinator.stop_scheduler()
        self._cancel_all()

    def _failover_regions(self, failed: Execution) -> list[SchedulingPipelinedRegion] | None:
        """The regions to restart for ``failed``; None: the whole job."""
        if self.job_graph.job_config.restart_strategy.failover_strategy != "region":
            return None
        regions = regions_to_restart(self._regions, failed.vertex)
        pending = {id(r) for r in self._pending_regions} | {id(r) for r in regions}
        return regions if len(pending) < len(self._regions) else None

    def _cancel_regions(self, regions: list[SchedulingPipelinedRegion]) -> None:
        for region in regions:
            if region not in self._pending_regions:
                self._pending_regions.append(region)
            for ev in region.vertices:
                assert ev.current_execution is not None
                self._region_cancelled.add(ev.current_execution.attempt_id)
                self._cancel_execution(ev.current_execution)
        self._maybe_restart_regions()

    def _maybe_restart_regions(self) -> None:
        """Once every attempt of a region to restart ended, restart after the backoff."""
        if self._region_restart_scheduled or not any(map(attempts_ended, self._pending_regions)):
            return
        self._region_restart_scheduled = True
        self.schedule_run_async(self._backoff_ms / 1000.0, self._restart_regions)

    def _restart_regions(self) -> None:
        """New attempts of the regions' subtasks, in the same slots, from the latest checkpoint
        (a region that failed after this was scheduled waits for its attempts to end)."""
        self._region_restart_scheduled = False
        if self.status is not JobStatus.RUNNING or self._failure is not None:
            self._pending_regions = []
            self._maybe_complete()
            return
        regions = [region for region in self._pending_regions if attempts_ended(region)]
        self._pending_regions = [region for region in self._pending_regions if region not in regions]
        self.num_restarts += 1
        checkpoint = self.checkpoint_coordinator.latest_completed() if self.checkpoint_coordinator else None
        states = dict(checkpoint.task_states.values()) if checkpoint is not None else None
        ended = new_attempts(regions, self._executions, self._partitions)
        restored_from = checkpoint if checkpoint is not None else self._initial_checkpoint
        restored_id = restored_from.checkpoint_id if restored_from is not None else None
        for region in regions:
            for ev in region.vertices:
                self._region_cancelled.discard(ended[id(ev)])
                for op in ev.job_vertex.job_vertex.operators:
                    source = self.source_coordinators.get(op.node_id)
                    if source is not None:
                        source.subtask_reset(ev.subtask_index, restored_id)
                key = (ev.job_vertex.job_vertex.id, ev.subtask_index)
                if states is not None:
                    self._restored[key] = states.get(key)
                elif self._initial_checkpoint is None:
                    self._restored.pop(key, None)
        if self.checkpoint_coordinator is not None:
            self.checkpoint_coordinator.tasks_restarted(ended.values())
        self._schedule_ready_regions()
        self._maybe_restart_regions()

    def _maybe_restart(self) -> None:
        """Once every attempt ended, restart after the strategy's backoff."""
        if self._restart_pending or any(not e.state.is_terminal for e in self._executions.values()):
            return
        self._restart_pending = True
        self.schedule_run_async(self._backoff_ms / 1000.0, self._restart)

    def _restart(self) -> None:
        """Ask for slots again (a lost TaskManager's are gone; a replacement's come instead)."""
        if self.status is not JobStatus.RESTARTING:
            return  # cancelled while waiting
        self._rm.release_slots(self.job_graph.job_id)
        requested = self._request_slots(len(self._needed))
        requested.add_done_callback(lambda f: self.run_async(self._redeploy, f))

    def _redeploy(self, requested: Future[list[SlotOffer]]) -> None:
        if self.status is not JobStatus.RESTARTING:
            self._rm.release_slots(self.job_graph.job_id)
            return
        try:
            self._slots = dict(zip(self._needed, requested.result()))
        except BaseException as err:
            self.fail_job(err)
            return
        self.num_restarts += 1
        checkpoint = self.checkpoint_coordinator.latest_completed() if self.checkpoint_coordinator else None
        if checkpoint is not None:
            self._restored = dict(checkpoint.task_states.values())
        elif self._initial_checkpoint is None:
            self._restored = {}  # else: from the checkpoint the job started from, again
        for source in self.source_coordinators.values():
            source.start(checkpoint if checkpoint is not None else self._initial_checkpoint)
        self._create_executions()
        self._set_status(JobStatus.RUNNING)
        if self.checkpoint_coordinator is not None:
            self.checkpoint_coordinator.tasks_restarted()
            self.checkpoint_coordinator.start_scheduler()
        self._schedule_ready_regions()
