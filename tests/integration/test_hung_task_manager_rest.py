"""The REST API while a TaskManager hangs (SIGSTOP), as an operator finds it (issue 46,
point 19): documents built from the tasks' metrics answer within their time with what the
other TaskManagers sent, naming the one that did not answer; its logs answer 504 naming it;
when it answers late, nothing is logged. Before, those documents left its tasks out without
a word, its logs answered 500 with a traceback in the JobManager's log, and every late
answer logged ``InvalidStateError: CANCELLED`` (job_master ``one_done``)."""

from __future__ import annotations

import json
import logging
import os
import signal
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from millstream.common import Configuration, Types, WatermarkStrategy
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.testing.sinks import DiscardingSink
from millstream.web import rest_server

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

DEADLINE_S = 90.0


def _get(url: str) -> tuple[int, Any, dict[str, str], float]:
    began = time.monotonic()
    try:
        with urllib.request.urlopen(url, timeout=90) as response:
            return (
                response.status,
                json.loads(response.read()),
                dict(response.headers),
                time.monotonic() - began,
            )
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read()), dict(err.headers), time.monotonic() - began


def test_rest_requests_name_a_hung_task_manager_and_its_late_answers_log_nothing(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a paused TaskManager never answers: a short wait for its logs says the same as 30 s
    monkeypatch.setattr(rest_server, "TASK_MANAGER_TIMEOUT_S", 5.0)
    conf = Configuration()
    for key, value in {
        "rest.enabled": "true",
        "rest.port": "0",
        "minicluster.number-of-taskmanagers": "2",
        "heartbeat.timeout": "300 s",  # the paused TaskManager stays registered throughout
    }.items():
        conf.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    source = DataGeneratorSource(lambda i: i, None, 100.0, Types.LONG())
    env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers").map(lambda v: v).sink_to(
        DiscardingSink()
    )
    client = env.execute_async("one paused TaskManager")
    paused: int | None = None
    try:
        base = client.cluster.services.plugins["rest"].url
        job_path = f"{base}/jobs/{client.get_job_id().hex}"
        deadline = time.monotonic() + DEADLINE_S
        while True:
            status, job, _, _ = _get(job_path)
            if status == 200 and all(v["status"] == "RUNNING" for v in job["vertices"]):
                break
            assert time.monotonic() < deadline, job
            time.sleep(0.2)  # polling an observable condition, bounded by the deadline
        vertex = job["vertices"][0]["id"]
        processes = client.cluster.task_manager_processes
        hung = str(processes.resource_ids[0])
        paused = processes.processes[0].pid
        with caplog.at_level(logging.DEBUG):
            os.kill(paused, signal.SIGSTOP)
            for path in ("", f"/vertices/{vertex}", f"/vertices/{vertex}/backpressure"):
                status, body, headers, took = _get(job_path + path)
                assert status == 200 and body["unansweredTaskManagers"] == [hung], (path, body)
                assert headers["Millstream-Unanswered-TaskManagers"] == hung and took < 20, (path, took)
            status, body, _, _ = _get(f"{job_path}/vertices/{vertex}/metrics?get=numRecordsOut")
            assert status == 200 and isinstance(body, list)
            status, body, _, took = _get(f"{base}/taskmanagers/{hung}/logs")
            assert status == 504 and body == {"errors": [f"TaskManager {hung} did not answer within 5 s"]}
            os.kill(paused, signal.SIGCONT)  # its late answers arrive
            paused = None
            deadline = time.monotonic() + DEADLINE_S
            while True:  # it answers again, and nothing went wrong meanwhile
                status, body, headers, _ = _get(job_path)
                if "unansweredTaskManagers" not in body:
                    break
                assert time.monotonic() < deadline, body
                time.sleep(0.2)  # polling an observable condition, bounded by the deadline
            assert _get(f"{base}/taskmanagers/{hung}/logs")[0] == 200
        problems = [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
        assert not problems, "\n".join(r.getMessage() for r in problems)
    finally:
        if paused is not None:
            os.kill(paused, signal.SIGCONT)
        client.cancel()
        client.close()
