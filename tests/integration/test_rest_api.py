"""The REST API against running jobs on the embedded cluster: every path answers with Flink's
JSON shape and with what the job does (records counted, checkpoints, the exception of a
restart, back-pressure, watermarks, TaskManagers); state changes need the cluster's token
(401 without, 403 with a wrong one); savepoint, stop-with-savepoint and cancel work."""

from __future__ import annotations

import json
import os
import stat
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from millstream.common import Configuration, WatermarkStrategy
from millstream.common.watermark_strategy import TimestampAssigner
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.testing.sinks import DiscardingSink
from millstream.web.auth import read_token_file

DEADLINE_S = 90.0


class _Stamp(TimestampAssigner):
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return int(value) * 10


class _FailOnce:
    """Raises once, on the 50th element of subtask 0's first attempt (a flag file says)."""

    def __init__(self, flag: str) -> None:
        self.flag = flag

    def __call__(self, value: int) -> int:
        if value == 50 and not os.path.exists(self.flag):
            Path(self.flag).write_text("failed")
            raise ValueError("boom at element 50")
        return value


def _start_job(tmp: Path, name: str, fail_once: bool = False) -> Any:
    conf = Configuration()
    for key, value in {
        "rest.enabled": "true",
        "rest.port": "0",
        "execution.checkpointing.dir": str(tmp / f"checkpoints-{name}"),
        "restart-strategy.type": "fixed-delay",
        "restart-strategy.fixed-delay.attempts": "3",
        "restart-strategy.fixed-delay.delay": "100 ms",
    }.items():
        conf.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    env.enable_checkpointing(300)
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(_Stamp())
    source = env.from_source(DataGeneratorSource(lambda i: i, None, records_per_second=400), strategy, "gen")
    mapped = source.map(_FailOnce(str(tmp / f"failed-{name}"))) if fail_once else source.map(lambda v: v)
    mapped.key_by(lambda v: v % 5).reduce(lambda a, b: a + b).name("sum").sink_to(DiscardingSink())
    return env.execute_async(name)


def _wait_until_cancelled(client: Any) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while client.get_job_status().name != "CANCELED":
        assert time.monotonic() < deadline, client.get_job_status()
        time.sleep(0.1)  # polling an observable condition, bounded by the deadline


class Api:
    """The REST API of one job's cluster."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.rest = client.cluster.services.plugins["rest"]
        self.base = self.rest.url
        self.job_id = client.get_job_id().hex
        host, port = self.rest.address
        self.token = read_token_file(host, port)

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read().decode()
                kind = response.headers.get("Content-Type", "")
                return response.status, json.loads(text) if "json" in kind and text else text
        except urllib.error.HTTPError as err:
            text = err.read().decode()
            return err.code, json.loads(text) if text.startswith("{") else text

    def get(self, path: str) -> Any:
        status, body = self.call("GET", path)
        assert status == 200, (path, status, body)
        return body

    def wait_for(self, path: str, condition: Any, what: str) -> Any:
        deadline = time.monotonic() + DEADLINE_S
        while True:
            body = self.get(path)
            if condition(body):
                return body
            assert time.monotonic() < deadline, f"{what}: {json.dumps(body)[:2000]}"
            time.sleep(0.2)  # polling an observable condition, bounded by the deadline


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    tmp = tmp_path_factory.mktemp("rest")
    client = _start_job(tmp, "rest reads", fail_once=True)
    try:
        started = Api(client)
        # the job fails once (element 50) and restarts: wait for that, then for every task to
        # run again, however long a loaded machine takes (its tasks may all run before the
        # failure, and the job be RESTARTING when a test looks)
        started.wait_for(
            f"/jobs/{started.job_id}/exceptions",
            lambda body: body["exceptionHistory"]["entries"],
            "the job's planned failure never happened",
        )
        started.wait_for(
            f"/jobs/{started.job_id}",
            lambda job: job["state"] == "RUNNING" and all(v["status"] == "RUNNING" for v in job["vertices"]),
            "the job's tasks never all ran after its restart",
        )
        yield started
    finally:
        client.cancel()
        client.close()


def test_cluster_paths_show_task_managers_slots_and_the_job(api: Api) -> None:
    config = api.get("/config")
    assert config["refresh-interval"] == 3000 and config["features"]["web-cancel"] is True
    overview = api.get("/overview")
    assert overview["taskmanagers"] == 2 and overview["slots-total"] == 2 and overview["slots-available"] == 0
    assert overview["jobs-running"] == 1
    assert api.get("/jobs") == {"jobs": [{"id": api.job_id, "status": "RUNNING"}]}
    (entry,) = api.get("/jobs/overview")["jobs"]
    assert entry["jid"] == api.job_id and entry["name"] == "rest reads" and entry["state"] == "RUNNING"
    assert entry["end-time"] == -1 and entry["tasks"]["total"] == 4


def test_the_job_shows_every_vertex_running_with_records_counted(api: Api) -> None:
    def counted(job: dict[str, Any]) -> bool:
        moved = [v["metrics"]["write-records"] + v["metrics"]["read-records"] for v in job["vertices"]]
        running = all(v["tasks"]["RUNNING"] == v["parallelism"] for v in job["vertices"])
        return running and all(v["status"] == "RUNNING" for v in job["vertices"]) and all(moved)

    job = api.wait_for(f"/jobs/{api.job_id}", counted, "records were never counted on every vertex")
    assert job["state"] == "RUNNING" and job["isStoppable"] is True and job["job-type"] == "STREAMING"
    assert {"CREATED", "RUNNING"} <= set(job["timestamps"])
    source, keyed = job["vertices"]
    assert source["name"] == "Source: gen -> Map" and source["parallelism"] == 2
    assert source["metrics"]["read-records"] == 0  # a source receives nothing, as in Flink
    assert keyed["metrics"]["read-records"] > 0 and keyed["metrics"]["read-bytes"] > 0
    assert keyed["tasks"]["RUNNING"] == 2 and keyed["start-time"] > 0 and keyed["end-time"] == -1
    later = api.wait_for(
        f"/jobs/{api.job_id}",
        lambda j: j["vertices"][1]["metrics"]["read-records"] > keyed["metrics"]["read-records"],
        "the record counts did not grow",
    )
    assert later["now"] > job["now"]
    plan = api.get(f"/jobs/{api.job_id}/plan")["plan"]
    assert [n["id"] for n in plan["nodes"]] == [source["id"], keyed["id"]]
    (edge,) = plan["nodes"][1]["inputs"]
    assert edge["id"] == source["id"] and edge["ship_strategy"] == "HASH"


def test_the_restart_is_in_the_exception_history(api: Api) -> None:
    body = api.wait_for(
        f"/jobs/{api.job_id}/exceptions",
        lambda b: b["exceptionHistory"]["entries"],
        "the failure never reached the exception history",
    )
    (entry,) = body["exceptionHistory"]["entries"]
    assert entry["exceptionName"] == "ValueError" and "boom at element 50" in entry["stacktrace"]
    assert entry["taskName"].startswith("Source: gen -> Map (")
    assert entry["taskManagerId"] and entry["timestamp"] > 0 and entry["restart"] == 1


def test_checkpoints_are_counted_with_their_history_and_settings(api: Api) -> None:
    stats = api.wait_for(
        f"/jobs/{api.job_id}/checkpoints",
        lambda b: b["counts"]["completed"] >= 2,
        "no two checkpoints completed",
    )
    completed = stats["latest"]["completed"]
    assert completed["status"] == "COMPLETED" and completed["num_acknowledged_subtasks"] == 4
    assert completed["checkpoint_type"] == "CHECKPOINT" and completed["external_path"]
    assert stats["history"][0]["id"] >= completed["id"]  # newest first
    assert stats["summary"]["end_to_end_duration"]["max"] >= stats["summary"]["end_to_end_duration"]["min"]
    detail = api.get(f"/jobs/{api.job_id}/checkpoints/details/{completed['id']}")
    assert detail["id"] == completed["id"]
    config = api.get(f"/jobs/{api.job_id}/checkpoints/config")
    assert config["interval"] == 300 and config["mode"] == "exactly_once"
    assert api.call("GET", f"/jobs/{api.job_id}/checkpoints/details/999999")[0] == 404


def test_a_vertex_shows_its_subtasks_backpressure_watermarks_and_metrics(api: Api) -> None:
    vertex = api.get(f"/jobs/{api.job_id}")["vertices"][1]["id"]
    detail = api.get(f"/jobs/{api.job_id}/vertices/{vertex}")
    assert [s["subtask"] for s in detail["subtasks"]] == [0, 1]
    assert all(s["status"] == "RUNNING" and s["taskmanager-id"] for s in detail["subtasks"])
    pressure = api.get(f"/jobs/{api.job_id}/vertices/{vertex}/backpressure")
    assert pressure["status"] == "ok" and pressure["backpressure-level"] in ("ok", "low", "high")
    assert [s["subtask"] for s in pressure["subtasks"]] == [0, 1]
    assert all(0.0 <= s["ratio"] <= 1.0 for s in pressure["subtasks"])
    marks = api.wait_for(
        f"/jobs/{api.job_id}/vertices/{vertex}/watermarks",
        lambda b: len(b) == 2 and all(int(m["value"]) > 0 for m in b),
        "the watermarks never advanced",
    )
    assert {m["id"] for m in marks} == {"0.currentInputWatermark", "1.currentInputWatermark"}
    names = {m["id"] for m in api.get(f"/jobs/{api.job_id}/vertices/{vertex}/metrics")}
    assert {"0.numRecordsIn", "1.numBytesIn", "0.backPressuredTimeMsPerSecond"} <= names
    values = api.get(f"/jobs/{api.job_id}/vertices/{vertex}/metrics?get=0.numRecordsIn,1.isBackPressured")
    assert [v["id"] for v in values] == ["0.numRecordsIn", "1.isBackPressured"]
    assert int(values[0]["value"]) >= 0 and values[1]["value"] in ("true", "false")
    assert api.call("GET", f"/jobs/{api.job_id}/vertices/nosuchvertex")[0] == 404


def test_task_managers_show_slots_memory_cpu_and_logs(api: Api) -> None:
    managers = api.get("/taskmanagers")["taskmanagers"]
    assert len(managers) == 2 and all(m["slotsNumber"] == 1 and m["freeSlots"] == 0 for m in managers)
    one = api.get(f"/taskmanagers/{managers[0]['id']}")
    assert one["hardware"]["cpuCores"] >= 1 and one["hardware"]["physicalMemory"] > 0
    assert one["metrics"]["rss"] > 0 and one["metrics"]["cpuLoad"] >= 0
    assert one["allocatedSlots"] == [{"index": 0, "jobId": api.job_id}]
    logs = api.get(f"/taskmanagers/{managers[0]['id']}/logs")
    assert isinstance(logs["logs"], list)  # embedded TaskManagers write to the client's terminal
    assert api.call("GET", "/taskmanagers/nosuch")[0] == 404


def test_the_openapi_description_is_served(api: Api) -> None:
    spec = api.get("/openapi.json")
    assert spec["openapi"].startswith("3.") and "/jobs/{jobid}/stop" in spec["paths"]


def test_unknown_jobs_are_404_with_flinks_error_shape(api: Api) -> None:
    status, body = api.call("GET", "/jobs/" + "0" * 32)
    assert status == 404 and body == {"errors": [f"Job {'0' * 32} not found"]}


def test_state_changes_need_the_clusters_token(api: Api) -> None:
    path = f"/jobs/{api.job_id}?mode=cancel"
    status, body = api.call("PATCH", path)
    assert status == 401 and "token" in body["errors"][0]
    status, body = api.call("PATCH", path, token="not-the-token")
    assert status == 403
    status, _ = api.call("POST", f"/jobs/{api.job_id}/savepoints", {"target-directory": "/tmp/x"})
    assert status == 401
    status, _ = api.call("POST", f"/jobs/{api.job_id}/stop", {}, token="wrong")
    assert status == 403
    assert api.get(f"/jobs/{api.job_id}")["state"] == "RUNNING"  # nothing happened
    host, port = api.rest.address
    from millstream.web.auth import token_file

    mode = stat.S_IMODE(os.stat(token_file(host, port)).st_mode)
    assert mode == 0o600, oct(mode)


def test_the_dashboard_takes_the_token_into_a_cookie(api: Api) -> None:
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    with opener.open(api.rest.dashboard_url, timeout=30) as response:
        assert response.status == 200 and response.url == api.base + "/"
    request = urllib.request.Request(api.base + f"/jobs/{'0' * 32}?mode=cancel", method="PATCH")
    with pytest.raises(urllib.error.HTTPError) as refused:
        opener.open(request, timeout=30)
    assert refused.value.code == 404  # authenticated by the cookie: the job is what is missing
    status, _ = api.call("GET", "/?token=wrong")
    assert status == 403


def test_a_savepoint_triggered_over_rest_completes_with_its_path(api: Api, tmp_path: Path) -> None:
    status, body = api.call(
        "POST", f"/jobs/{api.job_id}/savepoints", {"target-directory": str(tmp_path)}, token=api.token
    )
    assert status == 202, body
    done = api.wait_for(
        f"/jobs/{api.job_id}/savepoints/{body['request-id']}",
        lambda b: b["status"]["id"] == "COMPLETED",
        "the savepoint never completed",
    )
    location = done["operation"]["location"]
    assert Path(location).parent == tmp_path and (Path(location) / "_metadata").exists()
    stats = api.get(f"/jobs/{api.job_id}/checkpoints")
    assert stats["latest"]["savepoint"]["external_path"] == location
    assert api.get(f"/jobs/{api.job_id}")["state"] == "RUNNING"
    assert api.call("GET", f"/jobs/{api.job_id}/savepoints/nosuchtrigger")[0] == 404


def test_stop_with_a_savepoint_over_rest_finishes_the_job(tmp_path: Path) -> None:
    client = _start_job(tmp_path, "rest stop")
    try:
        api = Api(client)
        api.wait_for(
            f"/jobs/{api.job_id}/checkpoints", lambda b: b["counts"]["completed"] >= 1, "no checkpoint"
        )
        status, body = api.call(
            "POST", f"/jobs/{api.job_id}/stop", {"targetDirectory": str(tmp_path / "sp")}, token=api.token
        )
        assert status == 202, body
        done = api.wait_for(
            f"/jobs/{api.job_id}/savepoints/{body['request-id']}",
            lambda b: b["status"]["id"] == "COMPLETED",
            "the stop never completed",
        )
        assert (Path(done["operation"]["location"]) / "_metadata").exists()
        result = client.get_job_execution_result(timeout=DEADLINE_S)
        assert result.get_job_id().hex == api.job_id  # FINISHED: no exception
    finally:
        client.close()


def test_cancel_over_rest_cancels_the_job(tmp_path: Path) -> None:
    client = _start_job(tmp_path, "rest cancel")
    try:
        api = Api(client)
        status, _ = api.call("PATCH", f"/jobs/{api.job_id}?mode=cancel", token=api.token)
        assert status == 202
        _wait_until_cancelled(client)
    finally:
        client.close()


def test_the_cli_in_another_process_drives_an_embedded_job_without_flags(tmp_path: Path) -> None:
    """The embedded cluster's token file lets ``millstream list/cancel -m HOST:PORT`` of the
    same user work from another terminal (here: another process) with no flag."""
    import subprocess
    import sys

    client = _start_job(tmp_path, "embedded, driven by the CLI")
    try:
        api = Api(client)
        host, port = api.rest.address
        millstream = os.path.join(os.path.dirname(sys.executable), "millstream")
        env = {k: v for k, v in os.environ.items() if k not in ("MILLSTREAM_SECRET", "PYTHONPATH")}

        def cli(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [millstream, *args, "-m", f"{host}:{port}"],
                capture_output=True,
                text=True,
                timeout=120,
                env=env,
            )

        listed = cli("list")
        assert (
            listed.returncode == 0
            and f"{api.job_id} : embedded, driven by the CLI (RUNNING)" in listed.stdout
        )
        cancelled = cli("cancel")
        assert cancelled.returncode == 0, cancelled.stderr
        _wait_until_cancelled(client)
    finally:
        client.close()
