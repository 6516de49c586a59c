"""The JobMaster's side of savepoints: ``trigger_savepoint`` and stop-with-savepoint.

A savepoint is a checkpoint the user asks for (``millstream savepoint JOB_ID [DIR]``,
``JobClient.trigger_savepoint``): taken by the job's CheckpointCoordinator into its own
directory under DIR (or ``execution.checkpointing.savepoint-dir``), self-contained (the
tasks' state files and the ``_metadata``), in the canonical snapshot format that either
state backend restores, and owned by the user: the job never deletes it. A job starts
from one with ``millstream run -s PATH``, at any parallelism.

Stop-with-savepoint (``millstream stop --savepoint-path DIR JOB_ID``,
``JobClient.stop_with_savepoint``): periodic checkpoints stop, the savepoint is taken, its
completion is told to the tasks (sinks commit what it covers) and the job is stopped: its
tasks are cancelled and it ends FINISHED, as in Flink. Windows and timers are not fired
(no final watermark), so a job restarted from the savepoint continues exactly where it
stopped.

With ``--drain`` (``advance_to_end_of_event_time``) the source tasks end their input when
the savepoint's trigger reaches them, as a bounded source ends: the final watermark fires
every window and event-time timer, the operators finish, and the savepoint is taken after
that, as the tasks' final checkpoint (FLIP-147); its completion lets every task end, so the
job ends FINISHED by itself. A job restarted from such a savepoint has no window left to
fire. If the savepoint fails, periodic checkpoints resume and the drained job ends with its
next checkpoint.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import TYPE_CHECKING

from millstream.runtime.checkpoint.coordinator import CheckpointException, CheckpointFailureReason

if TYPE_CHECKING:
    from millstream.runtime.jobmanager.job_master import JobMaster

__all__ = ["SavepointError", "trigger_savepoint"]


class SavepointError(Exception):
    """A savepoint could not be taken (no directory, no checkpointing, a failed snapshot)."""


def trigger_savepoint(
    master: JobMaster, directory: str | None, stop: bool, result: Future[str], drain: bool = False
) -> None:
    """Take a savepoint of ``master``'s job (its main thread); ``result`` gets its path.
    ``stop``: then stop the job (it ends FINISHED); ``drain``: end the input first."""
    job_config = master.job_graph.job_config
    target = directory or job_config.savepoint_dir
    coordinator = master.checkpoint_coordinator
    if not target:
        result.set_exception(
            SavepointError(
                "no savepoint directory: name one (millstream savepoint JOB_ID DIR) or set "
                "execution.checkpointing.savepoint-dir"
            )
        )
        return
    if coordinator is None and not job_config.batch:  # submitted, not scheduled yet
        result.set_exception(CheckpointException(CheckpointFailureReason.NOT_ALL_REQUIRED_TASKS_RUNNING))
        return
    if coordinator is None:
        result.set_exception(
            SavepointError(
                f"job {master.job_graph.job_id} runs in BATCH mode: savepoints need STREAMING execution "
                "(a BATCH job recovers by running again)"
            )
        )
        return
    drain = stop and drain
    if stop:
        coordinator.stop_scheduler()
    taken = coordinator.trigger_savepoint(target, drain)

    def done(future: Future[str]) -> None:
        error = future.exception()
        if error is not None:
            if stop:
                coordinator.start_scheduler()  # the job goes on, checkpointing as before
            failure = SavepointError(f"savepoint of job {master.job_graph.job_id} failed: {error}")
            failure.__cause__ = error
            result.set_exception(failure)
            return
        if stop and not drain:  # drained tasks end by themselves once the savepoint completed
            master.stop_after_savepoint()
        result.set_result(future.result())

    taken.add_done_callback(lambda future: master.run_async(done, future))
