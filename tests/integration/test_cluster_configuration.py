"""Every process of a standalone cluster reads the configuration file and -D (issue 46,
point 13): ``millstream cluster start`` hands its ``-D`` settings to the JobManager and
TaskManagers it starts, and each reads ``$MILLSTREAM_CONF_DIR/config.yaml`` itself, ``-D``
winning, as Flink's ``config.yaml`` and ``-D``. Checked from outside: REST, Prometheus, logs.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_prometheus import _scrape
from tests.integration.test_standalone_cluster import MILLSTREAM, _clean_env, _free_port, _stop_cluster

pytestmark = pytest.mark.timeout(300)

DEADLINE_S = 90.0


def _wait(condition: Any, what: str) -> Any:
    deadline = time.monotonic() + DEADLINE_S
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, what
        time.sleep(0.2)  # polling an observable condition, bounded by the deadline


def _start(cluster_dir: Path, port: int, *options: str, env: dict[str, str]) -> dict[str, Any]:
    start = subprocess.run(
        [*MILLSTREAM, "cluster", "start", "--dir", str(cluster_dir), "--port", str(port), *options],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert start.returncode == 0, start.stdout + start.stderr
    state: dict[str, Any] = json.loads((cluster_dir / "cluster.json").read_text())
    state["stdout"] = start.stdout
    return state


def _rest(address: str, path: str) -> Any:
    with urllib.request.urlopen(f"http://{address}{path}", timeout=30) as response:
        return json.loads(response.read())


def _log(cluster_dir: Path, name: str) -> str:
    return (cluster_dir / f"{name}.log").read_text()


def _prometheus_addresses(text: str) -> list[tuple[str, int]]:
    return [(h, int(p)) for h, p in re.findall(r"Prometheus metrics at http://([\d.]+):(\d+)/metrics", text)]


def _resource_id(cluster_dir: Path, index: int) -> str:
    found = re.search(r"TaskManager (\S+) registered at", _log(cluster_dir, f"taskmanager-{index}"))
    assert found, _log(cluster_dir, f"taskmanager-{index}")
    return found.group(1)


def test_a_cluster_started_with_D_serves_prometheus_from_every_process_and_D_wins_over_the_file(
    tmp_path: Path,
) -> None:
    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    file_rest_port, rest_port = _free_port(), _free_port()
    (conf_dir / "config.yaml").write_text(f"rest.port: {file_rest_port}\n")
    env = {**_clean_env(), "MILLSTREAM_CONF_DIR": str(conf_dir)}
    cluster_dir = tmp_path / "cluster"
    try:
        state = _start(
            cluster_dir,
            _free_port(),
            *("-D", "metrics.reporter.prom.port=0", "-D", f"rest.port={rest_port}"),
            env=env,
        )
        assert state["rest"] == f"127.0.0.1:{rest_port}"  # -D, not the file's rest.port
        [job_manager] = _wait(
            lambda: _prometheus_addresses(_log(cluster_dir, "jobmanager")), "no JobManager endpoint"
        )
        metrics = _scrape(job_manager)
        assert metrics["flink_jobmanager_numRegisteredTaskManagers"][0][1] == 2
        for index in range(2):
            [address] = _wait(
                lambda index=index: _prometheus_addresses(_log(cluster_dir, f"taskmanager-{index}")),
                f"no endpoint of TaskManager {index}",
            )
            [(labels, rss)] = _scrape(address)["flink_taskmanager_Status_Process_Memory_RSS"]
            # the TaskManager's id (the reporter may write its '-' as '_')
            assert labels["tm_id"].replace("_", "-") == _resource_id(cluster_dir, index) and rss > 0
    finally:
        stop = _stop_cluster(cluster_dir)
    assert stop.returncode == 0, stop.stderr


def test_every_cluster_process_reads_the_configuration_file(tmp_path: Path) -> None:
    """The slots and the REST port come from config.yaml: no option of ``cluster start``
    names them, so each process read the file itself."""
    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    rest_port = _free_port()
    (conf_dir / "config.yaml").write_text(
        f"# a standalone cluster\ntaskmanager.numberOfTaskSlots: 3\nrest.port: {rest_port}\n"
    )
    env = {**_clean_env(), "MILLSTREAM_CONF_DIR": str(conf_dir)}
    cluster_dir = tmp_path / "cluster"
    try:
        state = _start(cluster_dir, _free_port(), env=env)
        assert "2 TaskManagers x 3 slots" in state["stdout"]
        task_managers = _rest(f"127.0.0.1:{rest_port}", "/taskmanagers")["taskmanagers"]
        assert [tm["slotsNumber"] for tm in task_managers] == [3, 3]
        assert _rest(f"127.0.0.1:{rest_port}", "/overview")["slots-total"] == 6
    finally:
        _stop_cluster(cluster_dir)


def test_a_bad_setting_in_the_file_stops_cluster_start_with_one_line(tmp_path: Path) -> None:
    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    (conf_dir / "config.yaml").write_text("taskmanager.numberOfTaskSlots: 3\nrest.port: many\n")
    start = subprocess.run(
        [*MILLSTREAM, "cluster", "start", "--dir", str(tmp_path / "cluster"), "--port", str(_free_port())],
        capture_output=True,
        text=True,
        timeout=60,
        env={**_clean_env(), "MILLSTREAM_CONF_DIR": str(conf_dir)},
    )
    assert start.returncode == 2
    assert start.stderr.strip() == (
        f"millstream cluster: {conf_dir / 'config.yaml'}:2: rest.port='many': expected an integer"
    )
    assert not (tmp_path / "cluster" / "cluster.json").exists()
