"""The OpenAPI description kept in the repo names exactly the routes the REST API serves, and
Flink's back-pressure levels and task counts come out as Flink computes them."""

from __future__ import annotations

import json
import re
from importlib import resources

from aiohttp import web

from millstream.common import Configuration
from millstream.runtime.jobmanager.job_details import JobDetails, SubtaskDetails, VertexDetails
from millstream.web import flink_json
from millstream.web.auth import rest_token
from millstream.web.rest_server import RestEndpoint


def _served() -> set[tuple[str, str]]:
    app = web.Application()
    RestEndpoint(None, Configuration(), "secret")._routes(app)
    routes = set()
    for route in app.router.routes():
        info = route.resource.get_info() if route.resource is not None else {}
        path = info.get("formatter") or info.get("path")
        if path is None or path.startswith("/static") or route.method == "HEAD":
            continue
        routes.add((route.method.lower(), path))
    return routes


def test_every_served_route_is_described_and_every_described_route_served() -> None:
    spec = json.loads((resources.files("millstream.web") / "openapi.json").read_text())
    described = {(method, path) for path, methods in spec["paths"].items() for method in methods}
    assert described == _served()
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            assert operation["summary"], (method, path)
            for name in re.findall(r"{(\w+)}", path):
                assert any(p["name"] == name and p["in"] == "path" for p in operation["parameters"]), path
            if method != "get":  # state changes are the secured ones
                assert operation["security"] == [{"token": []}], (method, path)
                assert {"401", "403"} <= set(operation["responses"]), (method, path)


def test_the_token_is_an_hmac_of_the_secret() -> None:
    assert rest_token("a") != rest_token("b")
    assert rest_token("a") == rest_token("a") and len(rest_token("a")) == 64
    assert "shared-secret" not in rest_token("shared-secret")  # the token does not carry the secret


def _details(samples: list[str]) -> JobDetails:
    subtasks = tuple(
        SubtaskDetails(i, 0, f"attempt-{i}", state, {"DEPLOYING": 10, "RUNNING": 20}, "tm-1")
        for i, state in enumerate(samples)
    )
    vertex = VertexDetails("v1", "Map", len(samples), 128, ("Map",), subtasks)
    return JobDetails(
        job_id="j" * 32,
        name="job",
        status="RUNNING",
        job_type="STREAMING",
        timestamps={"CREATED": 1, "RUNNING": 2},
        max_parallelism=128,
        plan={"vertices": [{"id": "v1", "inputs": []}]},
        vertices=(vertex,),
        num_restarts=0,
        exception_history=(),
        checkpoint_config={},
    )


def test_backpressure_levels_are_flinks() -> None:
    """Flink's thresholds: a ratio up to 0.10 is ok, up to 0.5 low, above high."""
    details = _details(["RUNNING"] * 4)
    live = {
        f"attempt-{i}": {"backPressuredTimeMsPerSecond": ms}
        for i, ms in enumerate((100.0, 101.0, 500.0, 900.0))
    }
    body = flink_json.backpressure(details, "v1", live, 0)
    assert body is not None
    assert [s["backpressure-level"] for s in body["subtasks"]] == ["ok", "low", "low", "high"]
    assert body["backpressure-level"] == "high" and body["status"] == "ok"


def test_a_finished_subtask_keeps_the_metrics_it_ended_with() -> None:
    subtask = SubtaskDetails(0, 0, "gone", "FINISHED", {"FINISHED": 5}, "tm-1", {"numRecordsOut": 42})
    assert flink_json.subtask_metrics(subtask, {}) == {"numRecordsOut": 42}
    assert flink_json.subtask_metrics(subtask, {"gone": {"numRecordsOut": 43}}) == {"numRecordsOut": 43}


def test_task_counts_and_vertex_status_follow_the_subtasks() -> None:
    body = flink_json.job_detail(_details(["RUNNING", "FINISHED", "RUNNING"]), {}, 100)
    (vertex,) = body["vertices"]
    assert (
        vertex["status"] == "RUNNING" and vertex["tasks"]["RUNNING"] == 2 and vertex["tasks"]["FINISHED"] == 1
    )
    assert vertex["metrics"]["read-records-complete"] is False  # no subtask reported yet
    assert (
        flink_json.job_detail(_details(["FINISHED", "FINISHED"]), {}, 100)["vertices"][0]["status"]
        == "FINISHED"
    )
