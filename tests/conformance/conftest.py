"""One SparkSession for the whole conformance suite (per pytest-xdist worker): local[2], bound
to 127.0.0.1, 2 GiB driver. Every test here gets 300 s unless it sets its own timeout: a
Spark test on a loaded two-core machine waits for a JVM, micro-batches and Python workers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

SPARK_TEST_TIMEOUT_S = 300


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(SPARK_TEST_TIMEOUT_S))


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    from millstream.spark.runner import local_session, use_session

    session = local_session("local[2]", "millstream conformance", **{"spark.sql.shuffle.partitions": "4"})
    use_session(session)
    yield session
    use_session(None)
    session.stop()


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    """Py4J keeps connection threads for the shared session; a job's own thread must end."""
    import threading

    yield
    ours = [t for t in threading.enumerate() if t.name.startswith("spark job") and t.is_alive()]
    for t in ours:
        t.join(timeout=10)
    assert not [t.name for t in ours if t.is_alive()]
