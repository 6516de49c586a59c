"""Backpressure across TaskManager processes: bounded memory, the metric, recovery."""

from __future__ import annotations

import os
import time

import psutil
import pytest

from millstream.common import WatermarkStrategy
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.datastream.functions import SinkFunction
from tests.conftest import make_env

pytestmark = pytest.mark.timeout(120)


class ThrottledSink(SinkFunction):
    """Sleeps 2 ms per record while ``flag`` exists (checked every 100 records)."""

    def __init__(self, flag: str) -> None:
        self.flag = flag
        self.seen = 0
        self.slow = True

    def invoke(self, value, context):
        self.seen += 1
        if self.seen % 100 == 0:
            self.slow = os.path.exists(self.flag)
        if self.slow:
            time.sleep(0.002)


def _rss(pids: list[int]) -> int:
    return sum(psutil.Process(pid).memory_info().rss for pid in pids)


def _sources(metrics: dict) -> list[dict]:
    return [m for name, m in metrics.items() if name.startswith("Source")]


def _sink_records(metrics: dict) -> int:
    return sum(m["numRecordsIn"] for name, m in metrics.items() if name.startswith("Sink"))


def test_a_throttled_sink_bounds_memory_reports_backpressure_and_recovers(tmp_path):
    flag = tmp_path / "slow"
    flag.write_text("")
    env = make_env(2)
    source = DataGeneratorSource(lambda i: "x" * 1000, None)
    env.from_source(source, WatermarkStrategy.no_watermarks(), "gen").rebalance().add_sink(
        ThrottledSink(str(flag))
    )
    client = env.execute_async("throttled")
    try:
        # the TaskManagers start and the pipeline fills its buffers: however long that takes
        # on a loaded machine, every source ends up blocked with its pool used up
        deadline = time.monotonic() + 90
        while True:
            sources = _sources(client.get_task_metrics())
            if len(sources) == 2 and all(m["isBackPressured"] and m["outPoolUsage"] == 1.0 for m in sources):
                break
            assert time.monotonic() < deadline, f"the sources were never back-pressured: {sources}"
            time.sleep(0.1)  # polling an observable condition, bounded by the deadline
        pids = [p.pid for p in client.cluster.task_manager_processes.processes]
        rss_before = _rss(pids)
        slow_before = _sink_records(client.get_task_metrics())  # starts the measured interval
        time.sleep(3.0)  # measured interval
        metrics = client.get_task_metrics()
        rss_after = _rss(pids)
        slow_rate = (_sink_records(metrics) - slow_before) / 3.0
        sources = _sources(metrics)
        # over the interval (not at its last instant, when a buffer may just have come back):
        # mostly waiting for buffers (on a loaded machine a source also waits for a core)
        assert all(m["backPressuredTimeMsPerSecond"] > 500 for m in sources), sources
        assert rss_after - rss_before < 20 * 1024 * 1024, (rss_before, rss_after)

        flag.unlink()  # remove the slowdown
        time.sleep(1.0)  # measured interval
        fast_before = _sink_records(client.get_task_metrics())
        time.sleep(2.0)  # measured interval
        fast_rate = (_sink_records(client.get_task_metrics()) - fast_before) / 2.0
        assert fast_rate > 5 * slow_rate, (slow_rate, fast_rate)
    finally:
        client.cancel()
        client.close()
