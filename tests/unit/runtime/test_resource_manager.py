"""Slot requests wait for TaskManagers to register, as Flink's (``slot.request.timeout``).

A job submitted while the TaskManagers of a MiniCluster (or a standalone cluster) are
still registering used to fail at once with "Could not acquire the minimum required
resources" (about 1 in 4 runs of programs that turn on INFO logging, which slows
start-up). Flink's slot manager keeps the request pending until the slots arrive or
``slot.request.timeout`` (default 5 min) passes.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import CancelledError

import pytest

from millstream.runtime.ids import ResourceID
from millstream.runtime.jobmanager.resource_manager import NoResourceAvailableError, ResourceManager
from millstream.runtime.rpc.endpoint import RpcEndpoint


@pytest.fixture
def rm() -> Iterator[ResourceManager]:
    manager = ResourceManager(slot_request_timeout_s=30.0)
    manager.start()
    yield manager
    manager.stop()


def test_a_request_made_before_any_task_manager_registered_is_served_on_registration(
    rm: ResourceManager,
) -> None:
    requested = rm.request_slots("job", 3)
    rm.register_task_executor(ResourceID("tm-1"), object(), 2).result(5)
    assert not requested.done()  # two of three slots: still waiting
    rm.register_task_executor(ResourceID("tm-2"), object(), 2).result(5)
    offers = requested.result(5)
    assert [o.resource_id for o in offers] == ["tm-1", "tm-1", "tm-2"]
    assert rm.number_of_free_slots() == 1


def test_released_slots_serve_a_waiting_job(rm: ResourceManager) -> None:
    rm.register_task_executor(ResourceID("tm-1"), object(), 2).result(5)
    first = rm.request_slots("a", 2).result(5)
    second = rm.request_slots("b", 2)
    assert len(first) == 2 and not second.done()
    rm.release_slots("a")
    assert len(second.result(5)) == 2


def test_releasing_a_waiting_job_withdraws_its_request(rm: ResourceManager) -> None:
    requested = rm.request_slots("job", 2)
    rm.release_slots("job")  # cancelled while waiting
    with pytest.raises(CancelledError):
        requested.result(5)
    rm.register_task_executor(ResourceID("tm-1"), object(), 2).result(5)
    assert rm.number_of_free_slots() == 2


def test_a_request_fails_after_the_slot_request_timeout_naming_the_option() -> None:
    rm = ResourceManager(slot_request_timeout_s=0.2)
    rm.start()
    try:
        rm.register_task_executor(ResourceID("tm-1"), object(), 1).result(5)
        requested = rm.request_slots("job", 4)
        with pytest.raises(NoResourceAvailableError) as failure:
            requested.result(10)
        message = str(failure.value)
        assert "Could not acquire the minimum required resources" in message
        assert "slot.request.timeout=200 ms" in message
        assert "needs 4 slots; 1 TaskManagers registered 1 slots, 1 of them free" in message
    finally:
        rm.stop()


def test_endpoint_timers_run_on_the_main_thread_in_due_order() -> None:
    endpoint = RpcEndpoint("timers")
    endpoint.start()
    ran: list[tuple[str, bool]] = []
    done = threading.Event()

    def note(name: str) -> None:
        ran.append((name, endpoint.is_main_thread()))
        if len(ran) == 3:
            done.set()

    try:
        endpoint.schedule_run_async(0.15, note, "late")
        endpoint.schedule_run_async(0.05, note, "early")
        endpoint.run_async(note, "now")
        assert done.wait(5)
        assert ran == [("now", True), ("early", True), ("late", True)]
    finally:
        endpoint.stop()
