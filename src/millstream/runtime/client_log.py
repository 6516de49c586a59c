"""What a job's client tells its user on stderr while the job runs.

Flink logs every failover of a job (``switched from RUNNING to RESTARTING``, with the
cause) in the JobManager's log; a user running a program sees nothing of it. millstream's
client prints one line per restart on its own stderr (the JobManager's log, at INFO, keeps
the whole cause): the ``millstream.client`` logger, which writes to whatever ``sys.stderr``
is when it writes and never propagates, so a program that sends the root logger to stdout
(as PyFlink's examples do) still has these lines on stderr, once each.
Coordinating code.
"""

from __future__ import annotations

import logging
import sys

from millstream.common import config_options as opts
from millstream.common.configuration import Configuration
from millstream.runtime.jobmanager.exception_history import ExceptionHistoryEntry, restart_line

__all__ = ["announce_submission", "client_log", "report_notice", "report_restart", "report_web_ui"]


class _StderrHandler(logging.Handler):
    """Writes to the ``sys.stderr`` of the moment (a test, or a program, may replace it)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:
            self.handleError(record)


def _client_logger() -> logging.Logger:
    logger = logging.getLogger("millstream.client")
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s millstream: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False
        logger.setLevel(logging.INFO)
    return logger


client_log = _client_logger()


def report_restart(job_name: str, entry: ExceptionHistoryEntry) -> None:
    """One WARNING line on stderr for a restart of the job."""
    client_log.warning("%s", restart_line(job_name, entry))


def report_notice(text: str) -> None:
    """One WARNING line on stderr about the job (it waits for slots ...)."""
    client_log.warning("%s", text)


def report_web_ui(url: str) -> None:
    """One INFO line on stderr: where the embedded cluster's dashboard and REST API are."""
    client_log.info("Web dashboard and REST API at %s", url)


def announce_submission(job_id: str, configuration: Configuration) -> None:
    """``Job has been submitted with JobID <id>`` on stdout, when ``millstream run`` asks for it
    (as ``flink run`` prints it: the id ``savepoint``, ``stop`` and the logs name the job by)."""
    if configuration.get(opts.CLIENT_PRINT_JOB_ID):
        print(f"Job has been submitted with JobID {job_id}", flush=True)
