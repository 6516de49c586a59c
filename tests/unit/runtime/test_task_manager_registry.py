"""A TaskManager that registers again (issue 46, point 17): the JobManager keeps one
registration per TaskManager, the newest, as Flink's ResourceManager replaces the
registration of a TaskExecutor that registers again."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any

import pytest

from millstream.runtime.ids import ResourceID
from millstream.runtime.jobmanager.resource_manager import ResourceManager
from millstream.runtime.jobmanager.task_manager_registry import TaskManagerRegistry
from millstream.runtime.rpc import service


class _Connection:
    """The registry's view of one RPC connection from a TaskManager."""

    def __init__(self, peer: str) -> None:
        self.peer = peer
        self.closed = False
        self._listeners: list[Callable[[Any], None]] = []

    def gateway(self, target: str) -> object:
        return object()

    def add_close_listener(self, listener: Callable[[Any], None]) -> None:
        self._listeners.append(listener)

    def call(self, target: str, method: str, *args: Any) -> Future[Any]:
        return Future()

    def close(self) -> None:
        """As the connection's loop does later: the listeners hear of it."""
        self.closed = True
        for listener in self._listeners:
            listener(self)


class _Loop:
    class loop:  # as EventLoopThread.loop
        @staticmethod
        def call_later(delay: float, callback: Callable[..., Any], *args: Any) -> None:
            pass  # no heartbeat rounds in this test


@pytest.fixture
def rm() -> Iterator[ResourceManager]:
    manager = ResourceManager(slot_request_timeout_s=30.0)
    manager.start()
    yield manager
    manager.stop()


def _register(registry: TaskManagerRegistry, connection: _Connection, resource_id: str) -> Future[None]:
    token = service._current.set(connection)  # type: ignore[arg-type]
    try:
        return registry.register_task_manager(ResourceID(resource_id), 2, ("127.0.0.1", 1), {"pid": 1})
    finally:
        service._current.reset(token)


def test_a_registration_from_a_new_connection_replaces_the_old_one(rm: ResourceManager) -> None:
    registry = TaskManagerRegistry(rm, _Loop(), 1.0, 5.0)  # type: ignore[arg-type]
    old, new = _Connection("127.0.0.1:1000"), _Connection("127.0.0.1:2000")
    lost: list[str] = []
    rm.add_lost_listener(lambda resource_id, reason: lost.append(reason))
    _register(registry, old, "tm-1").result(5)
    _register(registry, new, "tm-1").result(5)
    assert old.closed and not new.closed
    assert list(registry.task_managers()) == ["tm-1"]
    assert rm.slot_report().result(5) == (1, 2, 2)  # its slots once, not twice
    assert lost == ["it registered again from 127.0.0.1:2000"]
    old.close()  # the old connection's close arriving late does not drop the new registration
    assert list(registry.task_managers()) == ["tm-1"]
    new.close()
    assert registry.task_managers() == {}
    assert rm.slot_report().result(5) == (0, 0, 0)


def test_a_registration_asked_again_on_the_same_connection_is_the_same_one(rm: ResourceManager) -> None:
    """The TaskManager's first attempt timed out on its side; it asks again on the same connection."""
    registry = TaskManagerRegistry(rm, _Loop(), 1.0, 5.0)  # type: ignore[arg-type]
    connection = _Connection("127.0.0.1:1000")
    first = _register(registry, connection, "tm-1")
    assert _register(registry, connection, "tm-1") is first
    first.result(5)
    assert not connection.closed
    assert rm.slot_report().result(5) == (1, 2, 2)
