"""Shared fixtures: environments, result collection, thread-leak check; hypothesis
profiles; the ``integration`` marker on every test that runs whole jobs or processes.

Hypothesis profiles, chosen with ``HYPOTHESIS_PROFILE``: ``dev`` (the default and the
development loop's, ``scripts/test.sh --fast``: 25 examples, new ones every run) and ``ci``
(200, derandomized so a failure reproduces; ``scripts/test.sh`` uses it for the whole suite).
Neither has a deadline: CI machines are slow and noisy. A property that needs more examples
to hit its edge cases takes ``@ci_examples(n)``: n in the ci profile, the profile's count in
the development loop. Only this file loads a profile. Select a tier with ``-m integration`` or
``-m "not integration"``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

from millstream.common import Configuration
from millstream.datastream import StreamExecutionEnvironment

if TYPE_CHECKING:
    from millstream.testing.kafka_broker import KafkaBroker
    from millstream.testing.postgres_server import PostgresServer

# Token files of REST APIs the tests start go to a directory of the test run, not ~/.millstream.
os.environ.setdefault(
    "MILLSTREAM_HOME", os.path.join(os.environ.get("TMPDIR", "/tmp"), f"millstream-tests-{os.getpid()}")
)

settings.register_profile("dev", max_examples=25, deadline=None)
settings.register_profile("ci", max_examples=200, deadline=None, derandomize=True)
HYPOTHESIS_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
settings.load_profile(HYPOTHESIS_PROFILE)


def ci_examples(count: int, **other: Any) -> settings:
    """Settings of a property that needs ``count`` examples: that many in the ci profile (the
    whole suite, derandomized), the profile's own count in the development loop; ``other``
    settings (``stateful_step_count`` ...) in both."""
    if HYPOTHESIS_PROFILE == "ci":
        return settings(max_examples=count, deadline=None, **other)
    return settings(deadline=None, **other)


# Folders whose tests run whole jobs, start processes or open sockets.
INTEGRATION_DIRS = ("integration", "pyflink", "conformance", "examples")
INTEGRATION_FILES = ("test_benchmarks_smoke.py", "test_cli.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test under an integration folder, and the files that start processes."""
    tests_root = Path(__file__).parent
    for item in items:
        relative = Path(str(item.fspath)).relative_to(tests_root)
        if relative.parts[0] in INTEGRATION_DIRS or relative.name in INTEGRATION_FILES:
            item.add_marker(pytest.mark.integration)


def make_env(parallelism: int = 1, **config: object) -> StreamExecutionEnvironment:
    """A fresh environment with ``parallelism`` and configuration keys written as Python names
    (``restart_strategy__type``: ``restart-strategy.type``)."""
    conf = Configuration()
    for key, value in config.items():
        conf.set_string(key.replace("__", ".").replace("_", "-"), str(value))
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    return env


@pytest.fixture(scope="module")
def broker() -> Iterator[KafkaBroker]:
    """A Kafka-protocol broker (Tansu) on a free port for the module's tests."""
    from millstream.testing.kafka_broker import KafkaBroker

    with KafkaBroker() as started:
        yield started


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server (Debian's, a new cluster, logical WAL) on a free port for the module's tests."""
    from millstream.testing.postgres_server import PostgresServer

    with PostgresServer() as started:
        yield started


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
