"""Shared fixtures: environments, result collection, thread-leak check."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from millstream.common import Configuration
from millstream.datastream import StreamExecutionEnvironment


def make_env(parallelism: int = 1, **config: object) -> StreamExecutionEnvironment:
    """A fresh environment with ``parallelism`` and raw configuration keys."""
    conf = Configuration()
    for key, value in config.items():
        conf.set_string(key.replace("__", "."), str(value))
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    return env


@pytest.fixture(params=["objects", "serialized"])
def exchange(request: pytest.FixtureRequest) -> str:
    """Both ways records cross a local channel."""
    return str(request.param)


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    """Every job joins its threads: none may outlive a test."""
    before = {t.ident for t in threading.enumerate()}
    yield
    leaked = [t for t in threading.enumerate() if t.ident not in before and t.is_alive()]
    for t in leaked:
        t.join(timeout=5)
    still = [t.name for t in leaked if t.is_alive()]
    assert not still, f"threads left behind: {still}"
