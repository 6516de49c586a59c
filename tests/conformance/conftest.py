"""One SparkSession for the whole conformance suite: local[2], bound to 127.0.0.1, 2 GiB driver."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from millstream.spark.runner import use_session

    session = (
        SparkSession.builder.master("local[2]")
        .appName("millstream conformance")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.memory", "2g")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
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
