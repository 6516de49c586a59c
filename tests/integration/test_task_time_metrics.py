"""Back-pressured, idle and busy time as Flink measures and shows them, on running jobs:

- a slow sink back-pressures its producer: the producer's subtasks are mostly back-pressured
  (level high), the sink's mostly busy, and each subtask's three ratios add up to one;
- a pipeline with little to do is idle (idleRatio near one);
- the accumulated times are in the vertex metrics, and grow;
- Prometheus has Flink's operator series (``flink_taskmanager_job_task_operator_*``): a
  window's watermarks advance, its ``numLateRecordsDropped`` counts a late record; a task's
  ``numRecordsIn`` is what the REST API shows as ``read-records`` (0 for a source, whose
  operator's ``numRecordsIn`` counts what it read).

Timings are never asserted, only relations, each waited for with a generous deadline."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from millstream.common import Configuration, Time, WatermarkStrategy
from millstream.common.watermark_strategy import TimestampAssigner
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.datastream.functions import SinkFunction, SourceFunction
from millstream.datastream.window import TumblingEventTimeWindows
from millstream.testing.sinks import DiscardingSink
from tests.integration.test_prometheus import _free_range, _scrape
from tests.integration.test_rest_api import Api

pytestmark = pytest.mark.timeout(300)

DEADLINE_S = 120.0
LATE_AT = 60  # the generator's element that falls behind the watermark


class SlowSink(SinkFunction):
    """Busy 5 ms per record: far slower than the generator."""

    def invoke(self, value: Any, context: Any) -> None:
        time.sleep(0.005)


class Trickle(SourceFunction):
    """A legacy source: one element every 20 ms until cancelled."""

    def __init__(self) -> None:
        self.running = True

    def run(self, ctx: Any) -> None:
        i = 0
        while self.running:
            ctx.collect(i)
            i += 1
            time.sleep(0.02)

    def cancel(self) -> None:
        self.running = False


class _EventTime(TimestampAssigner):
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return int(value)


def _timestamp(i: int) -> int:
    """100 ms of event time per element; element LATE_AT goes back to 0 (its window [0, 1 s)
    closed long before, as the watermark follows the elements)."""
    return 0 if i == LATE_AT else i * 100


def _wait(condition: Any, what: str) -> Any:
    deadline = time.monotonic() + DEADLINE_S
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, what
        time.sleep(0.2)  # polling an observable condition, bounded by the deadline


def _env(conf: dict[str, str]) -> StreamExecutionEnvironment:
    configuration = Configuration()
    for key, value in {"rest.enabled": "true", "rest.port": "0", **conf}.items():
        configuration.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(configuration)
    env.set_parallelism(1)
    return env


def _sums_to_one(subtask: dict[str, Any]) -> bool:
    return abs(subtask["ratio"] + subtask["idleRatio"] + subtask["busyRatio"] - 1.0) < 0.01


@pytest.fixture(scope="module")
def backpressured() -> Iterator[Api]:
    env = _env({})
    source = DataGeneratorSource(lambda i: i, None)
    env.from_source(source, WatermarkStrategy.no_watermarks(), "gen").rebalance().add_sink(SlowSink())
    client = env.execute_async("slow sink")
    try:
        yield Api(client)
    finally:
        client.cancel()
        client.close()


def test_a_slow_sink_backpressures_its_producer_and_keeps_itself_busy(backpressured: Api) -> None:
    api = backpressured
    job = api.wait_for(
        f"/jobs/{api.job_id}",
        lambda j: all(v["status"] == "RUNNING" for v in j["vertices"]),
        "the job's tasks never ran",
    )
    source, sink = (v["id"] for v in job["vertices"])

    def pressure(vertex: str) -> dict[str, Any]:
        body = api.get(f"/jobs/{api.job_id}/vertices/{vertex}/backpressure")
        assert body["status"] == "ok"
        return body

    upstream = _wait(
        lambda: (body := pressure(source))["backpressure-level"] == "high" and body,
        "the producer of a slow sink never showed high back-pressure",
    )
    (producer,) = upstream["subtasks"]
    assert producer["backpressure-level"] == "high" and producer["ratio"] > 0.5
    assert _sums_to_one(producer), producer
    assert producer["busyRatio"] < producer["ratio"] and producer["idleRatio"] < producer["ratio"]
    # the sink works all the time it can (waiting for a core on a loaded machine is busy too)
    (consumer,) = _wait(
        lambda: (s := pressure(sink)["subtasks"])[0]["busyRatio"] > s[0]["idleRatio"] and s,
        "the slow sink never showed more busy than idle time",
    )
    assert _sums_to_one(consumer) and consumer["backpressure-level"] == "ok", consumer


def test_the_accumulated_times_are_vertex_metrics_and_grow(backpressured: Api) -> None:
    api = backpressured

    def vertices() -> list[dict[str, Any]]:
        return [v["metrics"] for v in api.get(f"/jobs/{api.job_id}")["vertices"]]

    first_source, first_sink = _wait(
        lambda: (m := vertices())[0]["accumulated-backpressured-time"] > 0 and m,
        "the producer's accumulated back-pressured time never grew",
    )
    assert isinstance(first_sink["accumulated-busy-time"], float) and first_sink["accumulated-busy-time"] > 0
    assert first_source["accumulated-idle-time"] >= 0
    _wait(
        lambda: (
            (m := vertices())[0]["accumulated-backpressured-time"]
            > first_source["accumulated-backpressured-time"]
            and m[1]["accumulated-busy-time"] > first_sink["accumulated-busy-time"]
        ),
        "the accumulated times did not grow",
    )
    sink = api.get(f"/jobs/{api.job_id}")["vertices"][1]["id"]
    names = ["0.accumulateBackPressuredTimeMs", "0.accumulateIdleTimeMs", "0.accumulateBusyTimeMs"]
    values = api.get(f"/jobs/{api.job_id}/vertices/{sink}/metrics?get={','.join(names)}")
    assert [v["id"] for v in values] == names and float(values[2]["value"]) > 0


@pytest.fixture(scope="module")
def windowed() -> Iterator[tuple[Api, Any]]:
    low, high = _free_range(10)
    env = _env({"metrics.reporter.prom.port": f"{low}-{high}"})
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(_EventTime())
    source = DataGeneratorSource(_timestamp, None, records_per_second=50)
    (
        env.from_source(source, strategy, "gen")
        .key_by(lambda v: 0)
        .window(TumblingEventTimeWindows.of(Time.seconds(1)))
        .reduce(lambda a, b: a + b)
        .sink_to(DiscardingSink())
    )
    client = env.execute_async("quiet windows")
    try:
        services = client.cluster.services
        (address,) = _wait(
            lambda: [
                info["plugins"]["prometheus"]
                for info in services.registry.task_managers().values()
                if info.get("plugins", {}).get("prometheus")
            ],
            "the TaskManager did not report its Prometheus endpoint",
        )
        yield Api(client), tuple(address)
    finally:
        client.cancel()
        client.close()


def test_a_pipeline_with_little_to_do_is_idle(windowed: tuple[Api, Any]) -> None:
    api, _ = windowed
    job = api.wait_for(
        f"/jobs/{api.job_id}",
        lambda j: all(v["status"] == "RUNNING" for v in j["vertices"]),
        "the job's tasks never ran",
    )
    for vertex in job["vertices"]:
        path = f"/jobs/{api.job_id}/vertices/{vertex['id']}/backpressure"
        body = api.wait_for(
            path, lambda b: b["subtasks"][0]["idleRatio"] > 0.8, f"{vertex['name']} never showed idle"
        )
        (subtask,) = body["subtasks"]
        assert _sums_to_one(subtask) and body["backpressure-level"] == "ok", subtask


def _series(address: Any, name: str) -> list[tuple[dict[str, str], float]]:
    return _scrape(address).get(name, [])


def test_operators_have_flinks_series_with_watermarks_and_late_records(windowed: tuple[Api, Any]) -> None:
    _, address = windowed
    prefix = "flink_taskmanager_job_task_operator_"
    dropped = _wait(
        lambda: [(labels, v) for labels, v in _series(address, prefix + "numLateRecordsDropped") if v >= 1],
        "the window never counted the late record",
    )
    ((window, count),) = dropped
    assert count == 1, count  # exactly the one element behind the watermark
    assert {
        "job_id",
        "job_name",
        "task_name",
        "subtask_index",
        "task_attempt_num",
        "task_attempt_id",
        "operator_id",
        "operator_name",
        "tm_id",
        "host",
    } <= set(window)
    assert window["job_name"] == "quiet_windows" and window["operator_name"].startswith("Window")

    def output_watermark() -> float:
        (value,) = [
            v for labels, v in _series(address, prefix + "currentOutputWatermark") if labels == window
        ]
        return value

    first = output_watermark()
    _wait(lambda: output_watermark() > first > 0, "the window's output watermark did not advance")
    inputs = {labels["operator_name"]: v for labels, v in _series(address, prefix + "currentInputWatermark")}
    assert inputs[window["operator_name"]] > 0 and "Source:_gen" not in inputs  # a source has no input
    read = {labels["operator_name"]: v for labels, v in _series(address, prefix + "numRecordsIn")}
    sent = {labels["operator_name"]: v for labels, v in _series(address, prefix + "numRecordsOut")}
    assert read["Source:_gen"] > 0 and sent["Source:_gen"] > 0


def test_a_tasks_records_in_are_the_rest_apis_read_records(windowed: tuple[Api, Any]) -> None:
    """One counter for both, as in Flink: 0 for the source task (before, Prometheus showed
    what the source read while REST showed 0), the window task's between two REST reads.

    PyFlink 2.3.0, a NumberSequenceSource "gen" ahead of a map: REST ``0.numRecordsIn`` of the
    source vertex is "0", its subtask's "read-records" 0, and Prometheus has
    ``flink_taskmanager_job_task_numRecordsIn{task_name="Source:_gen",...} 0.0``; the source
    operator's own series are ``flink_taskmanager_job_task_operator_numRecordsOut{...,
    operator_name="Source:_gen",...} 18725.0`` (REST: ``0.Source__gen.numRecordsOut``)."""
    api, address = windowed

    def read_records() -> list[int]:
        return [v["metrics"]["read-records"] for v in api.get(f"/jobs/{api.job_id}")["vertices"]]

    def scraped() -> dict[str, float]:
        series = _series(address, "flink_taskmanager_job_task_numRecordsIn")
        return {labels["task_name"]: value for labels, value in series}

    _wait(lambda: read_records()[1] > 0, "the window task never received records")
    before = read_records()
    prometheus = scraped()
    after = read_records()
    (window_task,) = [name for name in prometheus if name != "Source:_gen"]
    assert before[0] == prometheus["Source:_gen"] == after[0] == 0
    assert before[1] <= prometheus[window_task] <= after[1]
    source_operator = [
        v
        for labels, v in _series(address, "flink_taskmanager_job_task_operator_numRecordsIn")
        if labels["operator_name"] == "Source:_gen"
    ]
    assert source_operator and source_operator[0] > 0  # what the source read is its operator's
    job = api.get(f"/jobs/{api.job_id}")
    assert job["vertices"][0]["metrics"]["source-records"] > 0  # the progress view's figure
    source = job["vertices"][0]["id"]
    (sent,) = api.get(f"/jobs/{api.job_id}/vertices/{source}/metrics?get=0.Source__gen.numRecordsOut")
    assert int(sent["value"]) > 0


def test_a_legacy_sources_busy_time_is_not_measured() -> None:
    """As Flink's SourceStreamTask (setEnableBusyTime(false)): its task thread only waits for
    the source thread, so busy time is NaN, written "NaN" in the REST API's JSON."""
    env = _env({})
    env.add_source(Trickle()).name("trickle").rebalance().add_sink(lambda v: None)
    client = env.execute_async("legacy source")
    try:
        api = Api(client)
        job = api.wait_for(
            f"/jobs/{api.job_id}",
            lambda j: all(v["status"] == "RUNNING" for v in j["vertices"]),
            "the job's tasks never ran",
        )
        source, sink = (v["id"] for v in job["vertices"])
        body = api.wait_for(
            f"/jobs/{api.job_id}/vertices/{source}/backpressure",
            lambda b: b["status"] == "ok",
            "the legacy source never reported its metrics",
        )
        assert body["subtasks"][0]["busyRatio"] == "NaN"
        assert api.get(f"/jobs/{api.job_id}")["vertices"][0]["metrics"]["accumulated-busy-time"] == "NaN"
        sink_body = api.wait_for(
            f"/jobs/{api.job_id}/vertices/{sink}/backpressure",
            lambda b: b["subtasks"][0]["idleRatio"] > 0.5,
            "the sink of a trickle never showed idle",
        )
        assert _sums_to_one(sink_body["subtasks"][0])
    finally:
        client.cancel()
        client.close()
