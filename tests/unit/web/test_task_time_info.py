"""The back-pressure document and the vertex IO metrics are computed from the tasks' measured
back-pressured, idle and busy time, as Flink's JobVertexBackPressureHandler and
MutableIOMetrics compute them; the Prometheus reporter writes operator series and label
values as Flink's reporter does."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace
from typing import Any

from prometheus_client.core import CollectorRegistry
from prometheus_client.exposition import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from millstream.metrics.prometheus import _TaskManagerCollector, label_value
from millstream.runtime.jobmanager.job_details import JobDetails, SubtaskDetails, VertexDetails
from millstream.web import flink_json


def _details(subtasks: int, inputs: list[Any] | None = None) -> JobDetails:
    vertex = VertexDetails(
        "v1",
        "Map",
        subtasks,
        128,
        ("Map",),
        tuple(
            SubtaskDetails(i, 0, f"attempt-{i}", "RUNNING", {"DEPLOYING": 10, "RUNNING": 20}, "tm-1")
            for i in range(subtasks)
        ),
    )
    return JobDetails(
        job_id="j" * 32,
        name="job",
        status="RUNNING",
        job_type="STREAMING",
        timestamps={"CREATED": 1, "RUNNING": 2},
        max_parallelism=128,
        plan={"vertices": [{"id": "v1", "inputs": inputs or []}]},
        vertices=(vertex,),
        num_restarts=0,
        exception_history=(),
        checkpoint_config={},
    )


def _times(backpressured: int, idle: int, busy: float) -> dict[str, Any]:
    return {
        "backPressuredTimeMsPerSecond": backpressured,
        "idleTimeMsPerSecond": idle,
        "busyTimeMsPerSecond": busy,
    }


def test_each_subtask_shows_its_measured_backpressured_idle_and_busy_ratios() -> None:
    """Flink's handler divides each ms-per-second metric by 1000 (before, idleRatio was always
    0.0 and busyRatio 1 - ratio)."""
    live = {
        "attempt-0": _times(950, 0, 50.0),  # blocked on its output
        "attempt-1": _times(0, 900, 100.0),  # waiting for input
    }
    body = flink_json.backpressure(_details(2), "v1", live, 0)
    assert body is not None
    # PyFlink 2.3.0's REST API, a NumberSequenceSource ahead of a slow map, printed:
    # {"status": "ok", "backpressureLevel": "high", "end-timestamp": 1795929860707, "subtasks":
    # [{"subtask": 0, "backpressureLevel": "high", "ratio": 1.0, "idleRatio": 0.0,
    # "busyRatio": 0.0, "backpressure-level": "high"}], "backpressure-level": "high"}
    assert list(body) == ["status", "backpressureLevel", "end-timestamp", "subtasks", "backpressure-level"]
    assert list(body["subtasks"][0]) == [
        "subtask",
        "backpressureLevel",
        "ratio",
        "idleRatio",
        "busyRatio",
        "backpressure-level",
    ]
    first, second = body["subtasks"]
    assert (first["ratio"], first["idleRatio"], first["busyRatio"]) == (0.95, 0.0, 0.05)
    assert first["backpressure-level"] == "high"
    assert (second["ratio"], second["idleRatio"], second["busyRatio"]) == (0.0, 0.9, 0.1)
    assert second["backpressure-level"] == "ok"
    assert body["backpressure-level"] == "high"


def test_an_unmeasured_busy_time_is_nan_as_flinks_json_writes_it() -> None:
    """A legacy source's busy time is NaN in Flink; Jackson writes a NaN double as "NaN"."""
    body = flink_json.backpressure(_details(1), "v1", {"attempt-0": _times(0, 0, math.nan)}, 0)
    assert body is not None
    assert body["subtasks"][0]["busyRatio"] == "NaN"
    json.dumps(body, allow_nan=False)  # strict JSON: no bare NaN


def _sample(records_in: int, source_read: int, **times: float) -> dict[str, Any]:
    return {
        "numRecordsIn": records_in,
        "numRecordsOut": 7,
        "numBytesIn": 10,
        "numBytesOut": 20,
        "accumulateBackPressuredTimeMs": times.get("backpressured", 0),
        "accumulateIdleTimeMs": times.get("idle", 0),
        "accumulateBusyTimeMs": times.get("busy", 0.0),
        "operators": [{"id": 1, "name": "Source: gen", "numRecordsIn": source_read}],
    }


def test_vertex_metrics_sum_the_accumulated_times_of_their_subtasks() -> None:
    live = {
        "attempt-0": _sample(0, 40, backpressured=300, idle=100, busy=600.0),
        "attempt-1": _sample(0, 2, backpressured=5, idle=900, busy=95.0),
    }
    body = flink_json.job_detail(_details(2), live, 100)
    metrics = body["vertices"][0]["metrics"]
    assert metrics["accumulated-backpressured-time"] == 305
    assert metrics["accumulated-idle-time"] == 1000
    assert metrics["accumulated-busy-time"] == 695.0
    # a source vertex: nothing read from the network (as the tasks' numRecordsIn says), what its
    # source operators read apart
    assert metrics["read-records"] == 0 and metrics["source-records"] == 42
    subtask = flink_json.vertex_detail(_details(2), "v1", live, 100)["subtasks"][0]["metrics"]  # type: ignore[index]
    assert subtask["accumulated-backpressured-time"] == 300 and subtask["accumulated-busy-time"] == 600.0
    assert subtask["read-records"] == 0 and subtask["read-records-complete"] is True


def test_a_nan_busy_time_makes_the_vertex_busy_time_nan() -> None:
    live = {"attempt-0": _sample(0, 1, busy=math.nan)}
    metrics = flink_json.job_detail(_details(1), live, 100)["vertices"][0]["metrics"]
    assert metrics["accumulated-busy-time"] == "NaN"
    values = flink_json.vertex_metric_values(_details(1), "v1", live, ["0.accumulateBusyTimeMs"])
    assert values == [{"id": "0.accumulateBusyTimeMs", "value": "NaN"}]


def test_the_vertex_metrics_list_flinks_accumulated_time_names_and_operator_metrics() -> None:
    """PyFlink 2.3.0 lists, for a NumberSequenceSource named "gen", '0.accumulateBusyTimeMs',
    '0.accumulateIdleTimeMs', '0.accumulateBackPressuredTimeMs' and the operator's
    '0.Source__gen.numRecordsIn', '0.Source__gen.numRecordsOut', '0.Source__gen.currentOutputWatermark'
    (and 'Sink: Print to Std. Out' as '0.Sink__Print_to_Std__Out.numRecordsIn')."""
    live = {"attempt-0": _sample(3, 0, backpressured=1, idle=2, busy=3.0)}
    live["attempt-0"]["operators"][0].update(numRecordsOut=4, currentOutputWatermark=9)
    listed = {m["id"] for m in flink_json.vertex_metric_values(_details(1), "v1", live, None) or []}
    assert {"0.accumulateBackPressuredTimeMs", "0.accumulateIdleTimeMs", "0.accumulateBusyTimeMs"} <= listed
    assert {"0.Source__gen.numRecordsIn", "0.Source__gen.numRecordsOut"} <= listed
    values = flink_json.vertex_metric_values(
        _details(1), "v1", live, ["0.Source__gen.currentOutputWatermark"]
    )
    assert values == [{"id": "0.Source__gen.currentOutputWatermark", "value": "9"}]
    assert flink_json.metric_operator_name("Sink: Print to Std. Out") == "Sink__Print_to_Std__Out"
    assert flink_json.metric_operator_name("slow map, Filter") == "slow_map__Filter"


def test_label_values_keep_only_prometheus_name_characters() -> None:
    """Flink's reporter (filterLabelValueCharacters, on by default). PyFlink 2.3.0 labels
    the task "slow map, Filter -> Sink: Print to Std. Out" of job "pf bp" as
    task_name="slow_map__Filter____Sink:_Print_to_Std__Out", job_name="pf_bp"."""
    assert (
        label_value("slow map, Filter -> Sink: Print to Std. Out")
        == "slow_map__Filter____Sink:_Print_to_Std__Out"
    )
    assert label_value("Source: gen -> Map") == "Source:_gen____Map"
    assert label_value("Window(TumblingEventTimeWindows(1000))") == "Window_TumblingEventTimeWindows_1000__"


def test_operators_are_series_of_their_own_with_flinks_scope_and_labels() -> None:
    tdd = SimpleNamespace(
        job_id="ab" * 16,
        job_name="my job",
        task_name="Source: gen -> Map",
        subtask_index=1,
        attempt_number=0,
        execution_attempt_id="e1",
    )
    sample = {
        "numRecordsIn": 0,
        "operators": [
            {
                "id": 1,
                "name": "Source: gen",
                "numRecordsIn": 5,
                "numRecordsOut": 5,
                "currentOutputWatermark": 9,
            },
            {"id": 2, "name": "Map", "numRecordsIn": 5, "numRecordsOut": 4, "numLateRecordsDropped": 1},
        ],
    }
    runner = SimpleNamespace(
        resource_id="tm-1", task_executor=SimpleNamespace(task_samples=lambda: [(tdd, sample)])
    )
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_TaskManagerCollector(runner))
    scraped: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(generate_latest(registry).decode()):
        for s in family.samples:
            scraped.setdefault(s.name, []).append((dict(s.labels), s.value))
    (task_labels, records_in), *_ = scraped["flink_taskmanager_job_task_numRecordsIn"]
    assert records_in == 0 and task_labels["task_name"] == "Source:_gen____Map"
    assert task_labels["job_name"] == "my_job" and task_labels["tm_id"] == "tm_1"
    by_operator = {
        labels["operator_name"]: value
        for labels, value in scraped["flink_taskmanager_job_task_operator_numRecordsOut"]
    }
    assert by_operator == {"Source:_gen": 5.0, "Map": 4.0}
    ((labels, dropped),) = scraped["flink_taskmanager_job_task_operator_numLateRecordsDropped"]
    assert dropped == 1.0 and labels["operator_name"] == "Map" and labels["subtask_index"] == "1"
    assert len(labels["operator_id"]) == 32 and labels["task_attempt_num"] == "0"
    assert scraped["flink_taskmanager_job_task_operator_currentOutputWatermark"][0][1] == 9.0
