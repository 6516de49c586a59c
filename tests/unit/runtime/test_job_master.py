"""JobMaster state handling, driven by hand: a real ResourceManager and JobMaster, task
executors that record what the JobMaster asks of them (the ``TaskExecutorGateway`` seam),
and task state reports sent as a TaskManager would send them. Every change of an
execution's state goes through the transition table (Flink's ExecutionState machine)."""

from __future__ import annotations

import logging
import re
from concurrent.futures import Future
from typing import Any

import pytest

from millstream.common.job_execution_result import JobStatus
from millstream.graph.job_graph_generator import create_job_graph
from millstream.runtime.execution_state import ExecutionState, TaskExecutionState
from millstream.runtime.ids import ResourceID
from millstream.runtime.jobmanager.job_master import JobMaster, TaskManagerLostError
from millstream.runtime.jobmanager.resource_manager import ResourceManager
from tests.conftest import make_env

pytestmark = pytest.mark.timeout(30)

S = ExecutionState


class RecordingTaskExecutor:
    """Accepts every task; remembers submissions and cancellations."""

    def __init__(self, fail_submit: BaseException | None = None) -> None:
        self.submitted: list[str] = []
        self.cancelled: list[str] = []
        self.released: list[str] = []
        self._fail_submit = fail_submit

    def submit_task(self, tdd: Any, serialized_vertex: bytes) -> Future[Any]:
        self.submitted.append(tdd.execution_attempt_id)
        future: Future[Any] = Future()
        if self._fail_submit is not None:
            future.set_exception(self._fail_submit)
        else:
            future.set_result(None)
        return future

    def cancel_task(self, attempt_id: str) -> Future[Any]:
        self.cancelled.append(attempt_id)
        future: Future[Any] = Future()
        future.set_result(None)
        return future

    def release_partitions(self, job_id: str) -> None:
        self.released.append(job_id)

    def task_metrics(self, job_id: str) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_result({})
        return future


@pytest.fixture
def cluster():  # type: ignore[no-untyped-def]
    rm = ResourceManager(slot_request_timeout_s=5)
    rm.start()
    masters: list[JobMaster] = []
    yield rm, masters
    for master in masters:
        master.stop()
    rm.stop()


def start(cluster, executors, parallelism=2, slots=2):  # type: ignore[no-untyped-def]
    rm, masters = cluster
    for i, executor in enumerate(executors):
        rm.register_task_executor(ResourceID(f"tm-{i}"), executor, slots).result(5)
    env = make_env(parallelism)
    env.from_collection(list(range(10))).map(lambda v: v).key_by(lambda v: v % 2).reduce(max).print()
    master = JobMaster(create_job_graph(env.get_stream_graph()), rm)
    masters.append(master)
    master.start()
    master.start_scheduling()
    settle(master)
    return master


def settle(master: JobMaster) -> None:
    """Wait until the JobMaster and the ResourceManager ran everything queued so far, including
    what they queue for each other (scheduling -> slot request -> allocation -> deployment ->
    a failed deployment's report): each endpoint runs its queue in order."""
    for endpoint in (master, master._rm, master, master):
        endpoint.call_async(lambda: None).result(5)  # type: ignore[union-attr]


def states(master: JobMaster) -> dict[str, ExecutionState]:
    return master.call_async(lambda: {a: e.state for a, e in master._executions.items()}).result(5)


def report(master: JobMaster, attempt: str, *updates: ExecutionState, error: Exception | None = None) -> None:
    for state in updates:
        master.update_task_execution_state(TaskExecutionState(attempt, state, error))
    settle(master)


def test_every_task_is_deployed_then_finishes_through_the_legal_states(cluster):  # type: ignore[no-untyped-def]
    executor = RecordingTaskExecutor()
    master = start(cluster, [executor])
    assert set(states(master).values()) == {S.DEPLOYING}
    assert sorted(executor.submitted) == sorted(states(master))
    for attempt in states(master):
        report(master, attempt, S.INITIALIZING, S.RUNNING)
    assert set(states(master).values()) == {S.RUNNING}
    assert not master.result.done()
    for attempt in states(master):
        report(master, attempt, S.FINISHED)
    assert master.result.result(5).status is JobStatus.FINISHED


def test_a_failed_task_cancels_the_others_and_fails_the_job_once_they_are_cancelled(cluster):  # type: ignore[no-untyped-def]
    executor = RecordingTaskExecutor()
    master = start(cluster, [executor])
    attempts = sorted(states(master))
    for attempt in attempts:
        report(master, attempt, S.INITIALIZING, S.RUNNING)
    failing, *others = attempts
    boom = RuntimeError("boom")
    report(master, failing, S.FAILED, error=boom)
    now = states(master)
    assert now[failing] is S.FAILED
    assert {now[a] for a in others} == {S.CANCELING}
    assert sorted(executor.cancelled) == sorted(others)
    assert master.status is JobStatus.FAILING and not master.result.done()
    finished_before_cancel, *rest = others
    report(master, finished_before_cancel, S.FINISHED)  # the cancel call came too late
    assert states(master)[finished_before_cancel] is S.CANCELED
    for attempt in rest:
        report(master, attempt, S.CANCELED)
    result = master.result.result(5)
    assert result.status is JobStatus.FAILED and result.failure is boom


def test_late_and_illegal_reports_leave_the_state_alone(cluster, caplog):  # type: ignore[no-untyped-def]
    master = start(cluster, [RecordingTaskExecutor()])
    attempt = sorted(states(master))[0]
    report(master, attempt, S.INITIALIZING, S.RUNNING)
    with caplog.at_level(logging.WARNING, logger="millstream.runtime.jobmanager.job_master"):
        report(master, attempt, S.INITIALIZING)  # RUNNING -> INITIALIZING is not a transition
    assert states(master)[attempt] is S.RUNNING
    assert "RUNNING -> INITIALIZING is not a legal transition" in caplog.text
    report(master, attempt, S.FINISHED, S.FAILED)  # nothing leaves a terminal state
    assert states(master)[attempt] is S.FINISHED


def test_a_lost_task_manager_fails_its_tasks_and_cancels_the_rest(cluster):  # type: ignore[no-untyped-def]
    lost, kept = RecordingTaskExecutor(), RecordingTaskExecutor()
    master = start(cluster, [lost, kept], parallelism=2, slots=1)
    for attempt in states(master):
        report(master, attempt, S.INITIALIZING, S.RUNNING)
    assert lost.submitted and kept.submitted  # one shared slot (subtask) on each
    master.task_manager_lost(ResourceID("tm-0"), "heartbeat timed out")
    settle(master)
    now = states(master)
    assert {now[a] for a in lost.submitted} == {S.FAILED}
    assert {now[a] for a in kept.submitted} == {S.CANCELING}
    for attempt in kept.submitted:
        report(master, attempt, S.CANCELED)
    result = master.result.result(5)
    assert result.status is JobStatus.FAILED
    assert isinstance(result.failure, TaskManagerLostError) and "heartbeat timed out" in str(result.failure)


def test_a_failed_deployment_call_fails_the_task_as_a_lost_task_manager(cluster):  # type: ignore[no-untyped-def]
    master = start(cluster, [RecordingTaskExecutor(fail_submit=ConnectionResetError("peer closed"))])
    settle(master)
    now = states(master)
    assert S.FAILED in now.values()
    assert all(s in (S.FAILED, S.CANCELING) for s in now.values())
    assert isinstance(master._failure, TaskManagerLostError)
    assert isinstance(master._failure.__cause__, ConnectionResetError)


def test_a_task_manager_lost_while_the_job_waits_for_slots_leaves_it_waiting(cluster):  # type: ignore[no-untyped-def]
    """Seen in the chaos trials of issue 30: a TaskManager killed after it registered, while
    the job still waited for the slots of the others, ended the job FINISHED at once with
    nothing run (no execution was left unfinished, so the job counted as done). The job
    must go on waiting, and run once the slots are there."""
    rm, _masters = cluster
    master = start(cluster, [], parallelism=2)  # no TaskManager yet: waiting for 2 slots
    rm.register_task_executor(ResourceID("tm-early"), RecordingTaskExecutor(), 1).result(5)
    master.task_manager_lost(ResourceID("tm-early"), "connection closed")
    rm.task_executor_lost(ResourceID("tm-early"), "connection closed")
    settle(master)
    assert not master.result.done() and master.status is JobStatus.RUNNING
    executor = RecordingTaskExecutor()
    rm.register_task_executor(ResourceID("tm-late"), executor, 2).result(5)
    settle(master)
    assert executor.submitted and set(states(master).values()) == {S.DEPLOYING}


def test_a_job_waiting_for_slots_tells_its_client_once_and_keeps_its_own_timeout(cluster):  # type: ignore[no-untyped-def]
    """Issue 30, point 4: a job waiting for slots said nothing for 5 minutes and ignored the
    slot.request.timeout its client set. Now its client hears once, with the numbers, after
    a tenth of the timeout (issue 46, point 15: not while its TaskManagers start), and the
    job fails after its own timeout (here 0.5 s; the cluster's is 5 s)."""
    import dataclasses

    from millstream.runtime.jobmanager.resource_manager import NoResourceAvailableError

    rm, masters = cluster
    rm.register_task_executor(ResourceID("tm-0"), RecordingTaskExecutor(), 1).result(5)
    env = make_env(2)
    env.from_collection(list(range(10))).map(lambda v: v).print()
    job_graph = create_job_graph(env.get_stream_graph())
    config = dataclasses.replace(job_graph.job_config, slot_request_timeout_ms=500)
    job_graph = dataclasses.replace(job_graph, job_config=config)
    master = JobMaster(job_graph, rm)
    masters.append(master)
    notices: list[str] = []
    master.add_notice_listener(notices.append)
    master.start()
    master.start_scheduling()
    result = master.result.result(10)
    assert result.status is JobStatus.FAILED and isinstance(result.failure, NoResourceAvailableError)
    assert "slot.request.timeout=500 ms" in str(result.failure)
    assert len(notices) == 1 and re.fullmatch(
        rf"Job '{job_graph.job_name}' is still waiting for 2 task slots after [\d.]+ s: "
        r"1 TaskManager\(s\) registered 1 slots, 1 free; it fails if they are not there within 0\.5 s "
        r"\(slot\.request\.timeout\)",
        notices[0],
    ), notices
