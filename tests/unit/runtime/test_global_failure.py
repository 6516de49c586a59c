"""A source's split enumerator that cannot go on fails the whole job under the restart
strategy, as any task failure does (issue 46, point 18).

Flink's ``OperatorCoordinatorHolder`` turns an enumerator's ``failJob`` into
``scheduler.handleGlobalFailure(FlinkException("Global failure triggered by OperatorCoordinator
for '<source>' ..."))``: the JobMaster logs "Trying to recover from a global failure." and
restarts the whole job (its enumerators anew) while the restart strategy allows, else fails
it. Before, millstream's enumerator failure failed the job at once, checkpointing and restart
strategy or not. Driven by hand: a real ResourceManager and JobMaster, task executors that
record what they are asked, the coordinator of a real FileSource.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from millstream.common import WatermarkStrategy
from millstream.common.job_execution_result import JobStatus
from millstream.connectors.file.source import FileSource, StreamFormat
from millstream.graph.job_graph_generator import create_job_graph
from millstream.runtime.execution_state import ExecutionState
from millstream.runtime.ids import ResourceID
from millstream.runtime.jobmanager.job_master import JobMaster
from millstream.runtime.jobmanager.resource_manager import ResourceManager
from millstream.runtime.jobmanager.restart_backoff import JobException
from tests.conftest import make_env
from tests.unit.runtime.test_job_master import RecordingTaskExecutor, report, settle, states

pytestmark = pytest.mark.timeout(30)

S = ExecutionState
FIXED_DELAY = {
    "restart-strategy.type": "fixed-delay",
    "restart-strategy.fixed-delay.attempts": "1",
    "restart-strategy.fixed-delay.delay": "1 ms",
}


@pytest.fixture
def cluster() -> Iterator[tuple[ResourceManager, list[JobMaster]]]:
    rm = ResourceManager(slot_request_timeout_s=5)
    rm.start()
    masters: list[JobMaster] = []
    yield rm, masters
    for master in masters:
        master.stop()
    rm.stop()


def _start(cluster: Any, tmp_path: Path, **config: str) -> JobMaster:
    rm, masters = cluster
    rm.register_task_executor(ResourceID("tm-0"), RecordingTaskExecutor(), 2).result(5)
    (tmp_path / "in.txt").write_text("a\nb\n")
    source = FileSource.for_record_stream_format(
        StreamFormat.text_line_format(), str(tmp_path / "in.txt")
    ).build()
    env = make_env(1, **config)
    env.from_source(source, WatermarkStrategy.no_watermarks(), "lines").print()
    master = JobMaster(create_job_graph(env.get_stream_graph()), rm)
    masters.append(master)
    master.start()
    master.start_scheduling()
    settle(master)
    return master


def _enumerator_fails(master: JobMaster, error: BaseException) -> None:
    [coordinator] = master.source_coordinators.values()
    master.call_async(lambda: coordinator.fail_job(error)).result(5)
    settle(master)


def _until(master: JobMaster, condition: Callable[[], bool], seconds: float = 20.0) -> None:
    """Let the JobMaster run (its restart after the backoff, the slot request) until ``condition``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the JobMaster did not get there"
        settle(master)


def _running(master: JobMaster) -> list[str]:
    attempts = sorted(states(master))
    for attempt in attempts:
        report(master, attempt, S.INITIALIZING, S.RUNNING)
    return attempts


def test_without_a_restart_strategy_the_job_fails_with_the_enumerators_error(
    cluster: Any, tmp_path: Path
) -> None:
    master = _start(cluster, tmp_path)
    attempts = _running(master)
    error = RuntimeError("no broker answers")
    _enumerator_fails(master, error)
    assert master.status is JobStatus.FAILING
    for attempt in attempts:
        report(master, attempt, S.CANCELED)
    result = master.result.result(5)
    assert result.status is JobStatus.FAILED and result.failure is error


def test_with_a_restart_strategy_the_whole_job_restarts_then_fails_once_it_is_exhausted(
    cluster: Any, tmp_path: Path
) -> None:
    master = _start(cluster, tmp_path, **FIXED_DELAY)
    first = _running(master)
    [coordinator] = master.source_coordinators.values()
    enumerator = coordinator._enumerator
    error = RuntimeError("no broker answers")
    _enumerator_fails(master, error)
    assert master.status is JobStatus.RESTARTING  # a global failover: every task is cancelled
    assert {states(master)[a] for a in first} == {S.CANCELING}
    for attempt in first:
        report(master, attempt, S.CANCELED)
    _until(master, lambda: master.status is JobStatus.RUNNING)
    second = sorted(states(master))
    assert not set(second) & set(first)  # new attempts
    assert coordinator._enumerator is not enumerator  # the enumerator starts anew
    entry = master.exception_history[-1]
    assert (entry.task_name, entry.restart, entry.message) == (None, 1, "no broker answers")
    for attempt in second:
        report(master, attempt, S.INITIALIZING, S.RUNNING)
    _enumerator_fails(master, error)  # the one restart is used up
    for attempt in second:
        report(master, attempt, S.CANCELED)
    result = master.result.result(5)
    assert result.status is JobStatus.FAILED
    assert isinstance(result.failure, JobException) and result.failure.__cause__ is error
    assert str(result.failure).startswith("Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy(")
