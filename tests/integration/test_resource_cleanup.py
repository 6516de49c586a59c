"""Embedded jobs leave nothing behind: no file descriptor, no unclosed event loop, in either
MiniCluster mode (a notebook runs many jobs in one process)."""

from __future__ import annotations

import gc
import os
import warnings

import pytest

from millstream.common import Configuration
from millstream.datastream import StreamExecutionEnvironment

pytestmark = pytest.mark.timeout(120)


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _run_job(mode: str) -> None:
    conf = Configuration().set_string("minicluster.mode", mode)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    assert sorted(env.from_collection([1, 2, 3]).map(lambda v: v + 1).execute_and_collect(limit=3)) == [
        2,
        3,
        4,
    ]


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors through /proc")
@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_repeated_embedded_jobs_leak_no_descriptor_or_event_loop(mode: str) -> None:
    _run_job(mode)  # warm-up: imports, lazily created process-wide resources
    gc.collect()
    before = _open_fds()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        for _ in range(3):
            _run_job(mode)
        gc.collect()  # an unclosed event loop warns when collected
    assert _open_fds() == before
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
