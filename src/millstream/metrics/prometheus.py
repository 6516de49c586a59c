"""Prometheus endpoints of the JobManager and each TaskManager, with Flink's metric names.

As Flink's ``PrometheusReporter``: a metric's name is ``flink_`` + its scope + its name
(``flink_taskmanager_job_task_numRecordsIn``, ``flink_jobmanager_job_numRestarts``, an
operator's ``flink_taskmanager_job_task_operator_currentOutputWatermark``), its scope
variables are labels (``job_id``, ``job_name``, ``task_name``, ``subtask_index``,
``task_attempt_num``, ``tm_id``, ``host``, an operator's ``operator_id`` and
``operator_name`` ...) whose values have every character but ``[a-zA-Z0-9:_]`` replaced by
``_`` (Flink's default ``filterLabelValueCharacters``: ``Source: gen`` is ``Source:_gen``),
and every value is a gauge (counters too: they restart with a task). Values are read when
Prometheus scrapes, from what the REST API reads too (the tasks' samplers, the JobMasters'
checkpoint statistics, the process report): nothing is counted twice and nothing runs
between scrapes. Bytes are bytes.

A process serves on the first port of ``metrics.reporter.prom.port`` it can bind (a range
lets several TaskManagers share a machine) at ``metrics.reporter.prom.host``; a process that
finds none logs one warning and runs on without the endpoint.
"""

from __future__ import annotations

import hashlib
import logging
import re
import socket
import threading
from collections.abc import Iterator
from typing import Any

from prometheus_client.core import CollectorRegistry, GaugeMetricFamily
from prometheus_client.exposition import start_http_server

from millstream.common.configuration import Configuration
from millstream.common.metrics_options import PROMETHEUS_HOST, PROMETHEUS_PORT
from millstream.runtime.process_metrics import process_report
from millstream.runtime.taskmanager.task_metrics import OPERATOR_METRIC_NAMES, TASK_METRIC_NAMES

__all__ = [
    "PrometheusReporter",
    "label_value",
    "operator_id",
    "parse_ports",
    "start_job_manager_reporter",
    "start_task_manager_reporter",
]

log = logging.getLogger(__name__)

CALL_TIMEOUT_S = 5.0
TASK_METRICS = TASK_METRIC_NAMES  # the task metrics exported, Flink's names
JOB_METRICS = (
    "numRestarts",
    "lastCheckpointDuration",
    "lastCheckpointSize",
    "lastCheckpointFullSize",
    "numberOfCompletedCheckpoints",
    "numberOfFailedCheckpoints",
    "numberOfInProgressCheckpoints",
)
TASK_LABELS = ("job_id", "job_name", "task_name", "subtask_index", "task_attempt_num", "task_attempt_id")
OPERATOR_LABELS = ("operator_id", "operator_name")
_UNALLOWED = re.compile(r"[^a-zA-Z0-9:_]")


def label_value(value: str) -> str:
    """A label value as Flink's reporter writes it: characters other than ``[a-zA-Z0-9:_]``
    become ``_``."""
    return _UNALLOWED.sub("_", value)


def operator_id(node_id: int) -> str:
    """An operator's ``operator_id`` label: 32 hex digits, the same for the same operator of
    the same program in every run (as Flink's OperatorID)."""
    return hashlib.md5(f"operator {node_id}".encode(), usedforsecurity=False).hexdigest()


def parse_ports(text: str) -> list[int]:
    """``9249`` / ``9250-9260`` / ``0`` -> the ports to try, in order.

    Raises:
        ValueError: neither a port nor a range.
    """
    first, sep, last = text.strip().partition("-")
    try:
        low = int(first)
        high = int(last) if sep else low
    except ValueError:
        raise ValueError(
            f"{PROMETHEUS_PORT.key}: expected a port or a range like 9250-9260, got {text!r}"
        ) from None
    if not 0 <= low <= high <= 65535:
        raise ValueError(f"{PROMETHEUS_PORT.key}: {text!r} is not a port range")
    return list(range(low, high + 1))


def _process_families(prefix: str, labels: dict[str, str]) -> Iterator[GaugeMetricFamily]:
    report = process_report()
    for name, key in (
        ("CPU_Load", "cpuLoad"),
        ("CPU_Time", "cpuTime"),
        ("Memory_RSS", "rss"),
        ("Threads", "threads"),
    ):
        family = GaugeMetricFamily(
            f"{prefix}_Status_Process_{name}", f"this process: {key}", labels=list(labels)
        )
        family.add_metric([label_value(v) for v in labels.values()], float(report[key]))
        yield family


class _TaskManagerCollector:
    """The metrics of one TaskManager's tasks, their operators and its process, read at each
    scrape."""

    def __init__(self, runner: Any) -> None:
        self._runner = runner
        self._host = socket.gethostname()

    def collect(self) -> Iterator[GaugeMetricFamily]:
        tm = {"tm_id": str(self._runner.resource_id), "host": self._host}
        tasks = _families("flink_taskmanager_job_task", "task", TASK_METRICS, [*TASK_LABELS, *tm])
        operators = _families(
            "flink_taskmanager_job_task_operator",
            "operator",
            OPERATOR_METRIC_NAMES,
            [*TASK_LABELS, *OPERATOR_LABELS, *tm],
        )
        executor = self._runner.task_executor
        for tdd, sample in executor.task_samples() if executor is not None else []:
            task = [
                tdd.job_id,
                tdd.job_name,
                tdd.task_name,
                str(tdd.subtask_index),
                str(tdd.attempt_number),
                str(tdd.execution_attempt_id),
            ]
            _add(tasks, [*task, *tm.values()], sample)
            for operator in sample.get("operators", ()):
                labels = [*task, operator_id(operator["id"]), operator["name"], *tm.values()]
                _add(operators, labels, operator)
        yield from tasks.values()
        yield from operators.values()
        yield from _process_families("flink_taskmanager", tm)


def _families(
    prefix: str, scope: str, names: tuple[str, ...], labels: list[str]
) -> dict[str, GaugeMetricFamily]:
    return {
        name: GaugeMetricFamily(f"{prefix}_{name}", f"Flink's {scope} metric {name}", labels=labels)
        for name in names
    }


def _add(families: dict[str, GaugeMetricFamily], labels: list[str], values: dict[str, Any]) -> None:
    """The values of ``values`` that ``families`` names, under ``labels`` (filtered)."""
    labels = [label_value(label) for label in labels]
    for name, family in families.items():
        if name in values:
            family.add_metric(labels, float(values[name]))


class _JobManagerCollector:
    """The JobManager's cluster and job metrics, read at each scrape."""

    def __init__(self, services: Any) -> None:
        self._services = services
        self._host = socket.gethostname()

    def collect(self) -> Iterator[GaugeMetricFamily]:
        services = self._services
        managers, slots, free = services.resource_manager.slot_report().result(CALL_TIMEOUT_S)
        masters, _ended = services.dispatcher.jobs().result(CALL_TIMEOUT_S)
        host = {"host": self._host}
        for name, value in (
            ("numRegisteredTaskManagers", managers),
            ("taskSlotsTotal", slots),
            ("taskSlotsAvailable", free),
            ("numRunningJobs", len(masters)),
        ):
            family = GaugeMetricFamily(
                f"flink_jobmanager_{name}", f"Flink's JobManager metric {name}", labels=["host"]
            )
            family.add_metric([label_value(self._host)], float(value))
            yield family
        families = {
            name: GaugeMetricFamily(
                f"flink_jobmanager_job_{name}",
                f"Flink's job metric {name}",
                labels=["job_id", "job_name", "host"],
            )
            for name in (*JOB_METRICS, "uptime")
        }
        for master in masters:
            try:
                stats = master.checkpoint_statistics().result(CALL_TIMEOUT_S)
            except Exception:  # the job ending meanwhile
                continue
            labels = [
                label_value(value)
                for value in (master.job_graph.job_id, master.job_graph.job_name, self._host)
            ]
            for name in JOB_METRICS:
                if name in stats:
                    families[name].add_metric(labels, float(stats[name]))
            families["uptime"].add_metric(labels, float(master.uptime_ms()))
        yield from families.values()
        yield from _process_families("flink_jobmanager", host)


class PrometheusReporter:
    """One process's Prometheus endpoint."""

    def __init__(self, collector: Any, configuration: Configuration, what: str) -> None:
        self._registry = CollectorRegistry(auto_describe=False)
        self._registry.register(collector)
        self._configuration = configuration
        self._what = what
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self.address: tuple[str, int] | None = None

    def start(self) -> PrometheusReporter | None:
        """Listen on the first free port of the range; None (and one warning) if none is."""
        host = self._configuration.get(PROMETHEUS_HOST)
        ports = parse_ports(self._configuration.get(PROMETHEUS_PORT))
        for port in ports:
            try:
                self._server, self._thread = start_http_server(port, host, self._registry)
            except OSError:
                continue
            self.address = (host, int(self._server.server_address[1]))
            log.info("%s: Prometheus metrics at http://%s:%d/metrics", self._what, *self.address)
            return self
        log.warning(
            "%s: no Prometheus endpoint: no port of %s=%s is free on %s",
            self._what,
            PROMETHEUS_PORT.key,
            self._configuration.get(PROMETHEUS_PORT),
            host,
        )
        return None

    def close(self) -> None:
        """Stop serving."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None


def _wanted(configuration: Configuration) -> bool:
    return bool(configuration.get(PROMETHEUS_PORT).strip())


def start_job_manager_reporter(services: Any) -> PrometheusReporter | None:
    """The JobManager's endpoint, when ``metrics.reporter.prom.port`` is set (a plugin)."""
    if not _wanted(services.configuration):
        return None
    return PrometheusReporter(_JobManagerCollector(services), services.configuration, "JobManager").start()


def start_task_manager_reporter(runner: Any) -> PrometheusReporter | None:
    """A TaskManager's endpoint, when ``metrics.reporter.prom.port`` is set (a plugin)."""
    if not _wanted(runner.configuration):
        return None
    what = f"TaskManager {runner.resource_id}"
    return PrometheusReporter(_TaskManagerCollector(runner), runner.configuration, what).start()
