"""A failed Spark job as millstream reports one: the operator, subtask and record of the
user's error, and the root cause of a worker's chained traceback (batch and streaming runs)."""

from __future__ import annotations

import re

from millstream.common.job_execution_result import JobExecutionException
from millstream.graph.job_graph import JobGraph

__all__ = ["job_failure", "root_cause"]

_USER_ERROR = re.compile(r"(?:UserFunctionError|UnsupportedStreamingError|UnsupportedOnSparkError): (.*)")


def job_failure(job_graph: JobGraph, err: BaseException) -> JobExecutionException:
    """The Spark failure as millstream reports a failed job: the operator, subtask and record."""
    text = str(err)
    match = _USER_ERROR.search(text)
    cause = match.group(1).strip() if match else text.strip().splitlines()[0] if text.strip() else repr(err)
    root = root_cause(text)
    if match and root and root.split(": ", 1)[-1] not in cause:
        cause = f"{cause}; caused by {root}"
    failure = JobExecutionException(job_graph.job_id, f"Job '{job_graph.job_name}' failed on Spark: {cause}")
    failure.__cause__ = err
    return failure


_CHAINED = "The above exception was the direct cause of the following exception:"
_EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception)): (.+)$")


def root_cause(text: str) -> str | None:
    """The first exception of a worker's chained Python traceback (``Type: message``), if any."""
    if _CHAINED not in text:
        return None
    for line in reversed(text.split(_CHAINED, 1)[0].strip().splitlines()):
        found = _EXCEPTION_LINE.match(line.strip())
        if found:
            return f"{found.group(1).rsplit('.', 1)[-1]}: {found.group(2)}"
    return None
