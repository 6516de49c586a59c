"""A request whose caller stops waiting (a REST request timing out while a TaskManager hangs)
is dropped quietly, and the answer names the TaskManager that did not answer (issue 46,
point 19). Before, the JobMaster's task metrics set the result of a future the REST API had
cancelled when the TaskManager answered late (``InvalidStateError: CANCELLED`` tracebacks
in the JobManager's log), and an endpoint's call cancelled before it ran killed the
endpoint's main thread."""

from __future__ import annotations

import logging
import time
from concurrent.futures import Future
from typing import Any

import pytest

from millstream.runtime.rpc.endpoint import RpcEndpoint
from tests.unit.runtime.test_job_master import RecordingTaskExecutor, cluster, settle, start

__all__ = ["cluster"]  # the fixture, shared with test_job_master

pytestmark = pytest.mark.timeout(30)


class HangingTaskExecutor(RecordingTaskExecutor):
    """Accepts tasks, never answers for their metrics until it resumes."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[Future[Any]] = []

    def task_metrics(self, job_id: str) -> Future[Any]:
        future: Future[Any] = Future()
        self.asked.append(future)
        return future

    def resume(self) -> None:
        """Answer what it was asked, and from now on at once."""
        for asked in self.asked:
            asked.set_result({})
        self.task_metrics = super().task_metrics  # type: ignore[method-assign]


def test_the_metrics_report_names_the_task_manager_that_did_not_answer_and_a_late_answer_is_dropped(
    cluster: Any, caplog: pytest.LogCaptureFixture
) -> None:
    hanging = HangingTaskExecutor()
    master = start(cluster, [RecordingTaskExecutor(), hanging], parallelism=2, slots=1)
    began = time.monotonic()
    report = master.request_task_metrics_report(0.3).result(10)
    assert report.unanswered == ("tm-1",) and time.monotonic() - began >= 0.3
    # a caller that stops waiting cancels; the TaskManager answers afterwards
    with caplog.at_level(logging.DEBUG):
        cancelled = master.request_task_metrics_report(5.0)
        assert cancelled.cancel()
        hanging.resume()
        settle(master)
        assert master.request_attempt_metrics().result(10) == {}  # everyone answered: at once
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


def test_an_unreachable_task_manager_is_named_at_once(cluster: Any) -> None:
    class Unreachable(RecordingTaskExecutor):
        def task_metrics(self, job_id: str) -> Future[Any]:
            future: Future[Any] = Future()
            future.set_exception(ConnectionResetError("peer closed"))
            return future

    master = start(cluster, [Unreachable(), RecordingTaskExecutor()], parallelism=2, slots=1)
    report = master.request_task_metrics_report(20.0).result(10)  # not after 20 s: both answered
    assert report.unanswered == ("tm-0",)


def test_a_call_cancelled_before_it_ran_leaves_the_endpoint_running(caplog: pytest.LogCaptureFixture) -> None:
    endpoint = RpcEndpoint("slow")
    endpoint.start()
    try:
        released = Future[None]()
        endpoint.run_async(released.result, 10)  # the main thread is busy
        ran: list[str] = []
        given_up = endpoint.call_async(ran.append, "work")
        assert given_up.cancel()  # its caller stopped waiting
        released.set_result(None)
        assert endpoint.call_async(lambda: "still running").result(10) == "still running"
        assert ran == ["work"]  # the work was done; its answer dropped
    finally:
        endpoint.stop()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
