"""The exception history of a job: every failure that restarted or failed it, newest last.

Flink's JobMaster keeps the root causes of its failovers (``/jobs/:jobid/exceptions``:
exception name, stack trace, timestamp, task name, TaskManager) and a bounded number of
them (``web.exception-history-size``, 16). An :class:`ExceptionHistoryEntry` is one such
failure as plain data (it crosses the RPC boundary to a cluster client and will be served
by the REST API); :func:`restart_line` is the one line a client prints for a restart.
The failure a restart strategy could not recover from is named by the ``JobException``
that fails the job ("Recovery is suppressed by <strategy>", as Flink's last entry is); its
stack trace holds the task's failure. Coordinating code.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass

from millstream.common.error_report import root_cause
from millstream.runtime.jobmanager.restart_backoff import JobException
from millstream.runtime.location import UserFunctionError

__all__ = ["ExceptionHistoryEntry", "history_entry", "restart_line", "root_cause"]

_MESSAGE_LIMIT = 300


@dataclass(frozen=True, slots=True)
class ExceptionHistoryEntry:
    """One failure of a job: what failed where, and what the job did about it."""

    timestamp_ms: int  # when the JobMaster learned of it (epoch ms)
    exception_name: str  # the root cause's type, qualified (``builtins.ValueError``), or JobException's
    message: str  # its message, first line, at most 300 characters
    stacktrace: str  # the whole chain as Python prints it
    task_name: str | None  # the failing subtask, ``Map -> Sink (2/4)``; None: the whole job
    operator_name: str | None  # the operator whose user function raised, when known
    task_manager_id: str | None  # where the subtask ran
    restart: int | None  # the restart it caused (1 for the first); None: it failed the job
    backoff_ms: int | None  # the wait before that restart

    @property
    def summary(self) -> str:
        """``ValueError: bad record`` (the type's plain name and the message)."""
        name = self.exception_name.rpartition(".")[2]
        return f"{name}: {self.message}" if self.message else name


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= _MESSAGE_LIMIT else line[: _MESSAGE_LIMIT - 3] + "..."


def history_entry(
    error: BaseException | None,
    timestamp_ms: int,
    task_name: str | None,
    task_manager_id: str | None,
    restart: int | None,
    backoff_ms: int | None,
) -> ExceptionHistoryEntry:
    """The entry of ``error`` (None: a failure without an exception, named as such)."""
    if error is None:
        error = RuntimeError("task failed without an exception")
    failure = error.__cause__ if isinstance(error, JobException) else error
    cause = error if isinstance(error, JobException) else root_cause(error)
    kind = type(cause)
    module = "" if kind.__module__ == "builtins" else f"{kind.__module__}."
    operator = failure.operator_name if isinstance(failure, UserFunctionError) else None
    return ExceptionHistoryEntry(
        timestamp_ms=timestamp_ms,
        exception_name=f"{module}{kind.__qualname__}",
        message=_first_line(str(cause)),
        stacktrace="".join(traceback.format_exception(error)),
        task_name=task_name,
        operator_name=operator,
        task_manager_id=task_manager_id,
        restart=restart,
        backoff_ms=backoff_ms,
    )


def restart_line(job_name: str, entry: ExceptionHistoryEntry) -> str:
    """One line for a client's stderr: which restart, what failed where, the wait."""
    wait = f"{(entry.backoff_ms or 0) / 1000:.1f} s"
    if entry.exception_name.endswith("TaskManagerLostError"):
        # its message names the TaskManager, a subtask it ran and why it is gone
        return f"Job '{job_name}': {entry.message}; restart {entry.restart} in {wait}"
    where = entry.task_name or "the job"
    if entry.operator_name is not None:
        where = f"operator '{entry.operator_name}' in {where}"
    return f"Job '{job_name}': {where} failed: {entry.summary}; restart {entry.restart} in {wait}"
