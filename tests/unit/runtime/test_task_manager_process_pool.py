"""TaskManagerProcessPool: children that end are replaced, paced as Flink's active resource
managers pace workers that fail to start (issue 30, point 1). Driven by hand: fake
processes, a manual clock, and the watch run by the test instead of a timer."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from millstream.common import Configuration
from millstream.runtime.ids import ResourceID
from millstream.runtime.task_manager_process_pool import TaskManagerProcessPool, describe_exit


class FakeProcesses:
    """Children as ids; the test says which ended."""

    def __init__(self, count: int) -> None:
        self.resource_ids = [ResourceID(f"tm-{i}-0") for i in range(count)]
        self.ended: list[tuple[ResourceID, int]] = []
        self.killed: list[ResourceID] = []
        self.spawned = 0
        self.started = False

    def start(self, address: Any, secret: str) -> None:
        self.started = True

    def exited(self) -> list[tuple[ResourceID, int]]:
        ended, self.ended = self.ended, []
        return ended

    def replace(self, resource_id: ResourceID) -> ResourceID | None:
        index = self.resource_ids.index(resource_id)
        self.spawned += 1
        self.resource_ids[index] = ResourceID(f"tm-{index}-{self.spawned}")
        return self.resource_ids[index]

    def kill_one(self, resource_id: ResourceID) -> None:
        self.killed.append(resource_id)


class FakeResourceManager:
    def __init__(self) -> None:
        self.registered: list[Any] = []
        self.lost: list[Any] = []
        self.timers: list[Any] = []

    def add_registered_listener(self, listener: Any) -> None:
        self.registered.append(listener)

    def add_lost_listener(self, listener: Any) -> None:
        self.lost.append(listener)

    def schedule_run_async(self, delay: float, fn: Any, *args: Any) -> None:
        self.timers.append(fn)


def started_pool(
    count: int = 2, **settings: str
) -> tuple[TaskManagerProcessPool, FakeProcesses, Any, list[float]]:
    conf = Configuration()
    for key, value in settings.items():
        conf.set_string(key, value)
    now = [100.0]
    processes = FakeProcesses(count)
    pool = TaskManagerProcessPool(conf, processes, clock=lambda: now[0])  # type: ignore[arg-type]
    rm = FakeResourceManager()
    services = SimpleNamespace(
        start=lambda host, port: (host, 1), resource_manager=rm, rpc=SimpleNamespace(secret="s")
    )
    pool.start(services)  # type: ignore[arg-type]
    return pool, processes, rm, now


def watch(rm: FakeResourceManager) -> None:
    timers, rm.timers = rm.timers, []
    for fn in timers:
        fn()


def test_a_child_that_ends_before_registering_is_replaced_at_the_next_watch() -> None:
    _pool, processes, rm, _now = started_pool()
    assert processes.started
    victim = processes.resource_ids[0]
    processes.ended.append((victim, -9))
    watch(rm)
    assert victim not in processes.resource_ids and processes.spawned == 1
    assert rm.timers  # the watch goes on


def test_a_registered_child_that_is_lost_while_alive_is_killed_then_replaced() -> None:
    _pool, processes, rm, _now = started_pool()
    tm = processes.resource_ids[1]
    rm.registered[0](tm)
    rm.lost[0](tm, "no heartbeat for 50.0 s")
    assert processes.killed == [tm]
    processes.ended.append((tm, -9))
    watch(rm)
    assert tm not in processes.resource_ids


def test_past_the_failure_rate_the_next_start_waits_for_the_retry_interval() -> None:
    _pool, processes, rm, now = started_pool(
        1,
        **{
            "resourcemanager.start-worker.max-failure-rate": "2",
            "resourcemanager.start-worker.retry-interval": "3 s",
        },
    )
    for _ in range(2):  # two start failures: within the rate, each replaced at once
        processes.ended.append((processes.resource_ids[0], 1))
        watch(rm)
    assert processes.spawned == 2
    processes.ended.append((processes.resource_ids[0], 1))  # the third in a minute
    watch(rm)
    assert processes.spawned == 2  # paused
    now[0] += 2.9
    watch(rm)
    assert processes.spawned == 2
    now[0] += 0.2
    watch(rm)
    assert processes.spawned == 3


def test_failures_older_than_a_minute_no_longer_count() -> None:
    _pool, processes, rm, now = started_pool(1, **{"resourcemanager.start-worker.max-failure-rate": "1"})
    processes.ended.append((processes.resource_ids[0], 1))
    watch(rm)
    now[0] += 61
    processes.ended.append((processes.resource_ids[0], 1))
    watch(rm)
    assert processes.spawned == 2


def test_a_child_that_never_registers_is_killed_after_the_registration_timeout() -> None:
    _pool, processes, rm, now = started_pool(2)
    rm.registered[0](processes.resource_ids[1])
    now[0] += 61
    watch(rm)
    assert processes.killed == [processes.resource_ids[0]]


def test_nothing_is_started_once_the_pool_stops() -> None:
    pool, processes, rm, _now = started_pool()
    pool.kill = lambda: None  # type: ignore[method-assign]
    pool._stopping.set()
    processes.ended.append((processes.resource_ids[0], -9))
    watch(rm)
    assert processes.spawned == 0 and not rm.timers


def test_exit_codes_read_as_signals_or_codes() -> None:
    assert describe_exit(-9) == "killed by SIGKILL"
    assert describe_exit(1) == "exit code 1"
