"""Cancellation races: a task cancelled at any moment ends in a terminal state."""

from __future__ import annotations

import threading
import time

import pytest

from millstream.common.job_execution_result import JobExecutionException
from millstream.datastream import MapFunction
from millstream.runtime.execution_state import ExecutionState
from tests.conftest import make_env

_closing = threading.Event()
_release = threading.Event()


class _SlowClose(MapFunction):
    """Holds the task in ``close`` (after all input was processed) until the test says so."""

    def map(self, value):
        return value

    def close(self):
        _closing.set()
        _release.wait(30)


def _wait_for(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.01)


def test_a_task_cancelled_while_finishing_ends_canceled_not_stuck():
    """Cancel arrives after the task's last record, before it reports FINISHED.

    The task thread then cannot move to FINISHED (CANCELING allows only CANCELED or
    FAILED); it must report CANCELED instead of ending silently, or the JobMaster waits
    for it forever (seen as a rare hang when a failure cancelled a finishing task).
    """
    _closing.clear()
    _release.clear()
    env = make_env(1, minicluster__mode="threads")
    env.from_collection([1, 2, 3]).map(_SlowClose()).print()
    client = env.execute_async()
    try:
        assert _closing.wait(30)
        client.cancel()
        (executor,) = client.cluster.task_executors
        tasks = list(executor._tasks.values())
        _wait_for(lambda: all(t.state is ExecutionState.CANCELING for t in tasks))
        _release.set()
        with pytest.raises(JobExecutionException, match="cancelled"):
            client.get_job_execution_result(timeout=30)
        assert [t.state for t in tasks] == [ExecutionState.CANCELED]
    finally:
        _release.set()
        client.close()
