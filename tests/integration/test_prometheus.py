"""Prometheus endpoints of the JobManager and each TaskManager: Flink's metric names and
labels, record counts that grow between scrapes, checkpoint and restart metrics, process CPU
and memory; every process of a machine on its own port of the configured range."""

from __future__ import annotations

import socket
import time
import urllib.request
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from millstream.common import Configuration, WatermarkStrategy
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.testing.sinks import DiscardingSink
from tests.integration.test_rest_api import _Stamp

DEADLINE_S = 90.0


def _free_range(size: int) -> tuple[int, int]:
    """A range of ``size`` ports that were free a moment ago."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            low = probe.getsockname()[1]
        if low + size > 65535:
            continue
        free = True
        for port in range(low, low + size):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    free = False
                    break
        if free:
            return low, low + size - 1
    raise RuntimeError("no free port range")


def _scrape(address: tuple[str, int]) -> dict[str, list[tuple[dict[str, str], float]]]:
    with urllib.request.urlopen(f"http://{address[0]}:{address[1]}/metrics", timeout=30) as response:
        text = response.read().decode()
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return out


def _wait(condition: Any, what: str) -> Any:
    deadline = time.monotonic() + DEADLINE_S
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, what
        time.sleep(0.2)  # polling an observable condition, bounded by the deadline


def test_every_process_serves_flinks_metrics_on_its_own_port(tmp_path: Path) -> None:
    low, high = _free_range(10)
    conf = Configuration()
    conf.set_string("metrics.reporter.prom.port", f"{low}-{high}")
    conf.set_string("execution.checkpointing.dir", str(tmp_path / "checkpoints"))
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    env.enable_checkpointing(300)
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(_Stamp())
    source = env.from_source(DataGeneratorSource(lambda i: i, None, records_per_second=400), strategy, "gen")
    source.key_by(lambda v: v % 5).reduce(lambda a, b: a + b).name("sum").sink_to(DiscardingSink())
    client = env.execute_async("prometheus job")
    try:
        services = client.cluster.services
        job_manager = services.plugins["prometheus"].address

        def endpoints() -> list[Any] | None:
            found = [
                info["plugins"]["prometheus"]
                for info in services.registry.task_managers().values()
                if info.get("plugins", {}).get("prometheus")
            ]
            return found if len(found) == 2 else None

        task_managers = _wait(endpoints, "the two TaskManagers did not report their Prometheus endpoints")
        ports = {job_manager[1], *(address[1] for address in task_managers)}
        assert len(ports) == 3 and all(low <= port <= high for port in ports), ports

        # the JobManager: cluster, job and process metrics
        def checkpointed() -> Any:
            metrics = _scrape(job_manager)
            completed = metrics.get("flink_jobmanager_job_numberOfCompletedCheckpoints", [])
            return metrics if completed and completed[0][1] >= 2 else None

        jm = _wait(checkpointed, "the JobManager never reported two completed checkpoints")
        assert jm["flink_jobmanager_numRegisteredTaskManagers"][0][1] == 2
        assert jm["flink_jobmanager_taskSlotsTotal"][0][1] == 2
        assert jm["flink_jobmanager_numRunningJobs"][0][1] == 1
        (labels, restarts) = jm["flink_jobmanager_job_numRestarts"][0]
        assert labels["job_id"] == client.get_job_id().hex and labels["job_name"] == "prometheus_job"
        assert restarts == 0
        assert jm["flink_jobmanager_job_lastCheckpointDuration"][0][1] >= 0
        assert jm["flink_jobmanager_job_lastCheckpointSize"][0][1] > 0
        assert jm["flink_jobmanager_Status_Process_Memory_RSS"][0][1] > 0

        # a TaskManager: task metrics with Flink's labels, counts that grow, bytes as bytes
        def records_out(metrics: dict[str, Any]) -> float:
            return sum(
                value
                for labels, value in metrics.get("flink_taskmanager_job_task_numRecordsOut", [])
                if labels["task_name"] == "Source:_gen"  # Flink's reporter filters label values
            )

        first = {tuple(address): _scrape(address) for address in task_managers}
        _wait(
            lambda: (
                sum(records_out(_scrape(a)) for a in task_managers)
                > sum(records_out(m) for m in first.values()) + 100
            ),
            "the record counts did not grow between scrapes",
        )
        metrics = _scrape(task_managers[0])
        (labels, _), *_ = metrics["flink_taskmanager_job_task_numRecordsIn"]
        assert {
            "job_id",
            "job_name",
            "task_name",
            "subtask_index",
            "task_attempt_num",
            "tm_id",
            "host",
        } <= set(labels)
        for name in (
            "numBytesOut",
            "numRecordsOutPerSecond",
            "backPressuredTimeMsPerSecond",
            "busyTimeMsPerSecond",
            "idleTimeMsPerSecond",
            "inPoolUsage",
            "outPoolUsage",
            "currentInputWatermark",
        ):
            assert f"flink_taskmanager_job_task_{name}" in metrics, name
        both = [_scrape(a) for a in task_managers]
        sent = sum(
            value
            for m in both
            for labels, value in m["flink_taskmanager_job_task_numBytesOut"]
            if labels["task_name"] == "Source:_gen"
        )
        received = sum(
            value
            for m in both
            for labels, value in m["flink_taskmanager_job_task_numRecordsIn"]
            if labels["task_name"] == "sum____Sink:_Writer"
        )
        assert sent > received > 0  # bytes are bytes: more of them than records
        assert metrics["flink_taskmanager_Status_Process_Memory_RSS"][0][1] > 10_000_000
        assert 0 <= metrics["flink_taskmanager_Status_Process_CPU_Load"][0][1] <= 2.5
    finally:
        client.cancel()
        client.close()
