"""Exactly-once through failures: a postgres-cdc table's changelog written to the exactly-once
FileSink (one line per change), a TaskManager process SIGKILLed while rows keep changing, and
the committed lines replayed (+I/+U add a row, -U/-D take one away) equal to the database's
final rows, each once: the source's snapshot progress and stream position are in the
checkpoints, and the slot hears a position only after its checkpoint completed.

Killed mid-snapshot on the embedded cluster's TaskManager processes (the rest of the snapshot
comes from a new snapshot, the stream skips what it saw), and mid-stream on a standalone
cluster (``millstream cluster start``, the job submitted with ``millstream run``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path
from typing import Any

import psutil
import pytest

from millstream.common import Configuration, Encoder, Types
from millstream.datastream import MapFunction, StreamExecutionEnvironment
from millstream.datastream.connectors import FileSink
from millstream.table import StreamTableEnvironment
from millstream.testing.postgres_server import PostgresServer
from tests.integration.test_postgres_cdc import Writer, cdc_options, create_accounts, database_rows, new_slot

pytestmark = pytest.mark.timeout(600)

MILLSTREAM = [sys.executable, "-m", "millstream.cli.main"]


def committed_changes(out: Path) -> Counter[tuple[Any, ...]]:
    """The replay of every committed line ``kind|id|owner|balance``."""
    state: Counter[tuple[Any, ...]] = Counter()
    for path in out.rglob("*"):
        if path.is_file() and not path.name.startswith("."):
            for line in path.read_text().splitlines():
                kind, key, owner, balance = line.split("|")
                state[(int(key), owner, int(balance))] += 1 if kind in ("+I", "+U") else -1
    return state


def settled(state: Counter[tuple[Any, ...]]) -> Counter[tuple[Any, ...]]:
    return Counter({row: n for row, n in state.items() if n != 0})


def committed_lines(out: Path) -> int:
    return sum(
        len(p.read_text().splitlines()) for p in out.rglob("*") if p.is_file() and not p.name.startswith(".")
    )


class Paced(MapFunction):
    """A change as a line, at most ``per_second`` of them (the snapshot then takes seconds)."""

    def __init__(self, per_second: float) -> None:
        self.pause = 1.0 / per_second

    def map(self, row: Any) -> str:
        time.sleep(self.pause)
        return f"{row.get_row_kind()}|{row[0]}|{row[1]}|{row[2]}"


def wait_for(condition: Any, what: str, client: Any = None, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        if client is not None:
            assert not client.get_job_status().is_globally_terminal_state(), f"the job ended before {what}"
        time.sleep(0.05)  # polling an observable condition, bounded by the deadline


def test_a_task_manager_killed_mid_snapshot_loses_and_doubles_nothing(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    name, rows = "snapkill", 6000
    create_accounts(postgres, name, rows)
    slot = new_slot("snapkill")
    out = tmp_path / "out"
    conf = Configuration()
    for key, value in {
        "minicluster.mode": "processes",
        "minicluster.number-of-taskmanagers": "2",
        "taskmanager.numberOfTaskSlots": "1",
        "execution.checkpointing.dir": str(tmp_path / "checkpoints"),
        "restart-strategy.type": "fixed-delay",
        "restart-strategy.fixed-delay.attempts": "5",
        "restart-strategy.fixed-delay.delay": "100 ms",
        # small serialized buffers: backpressure reaches the source within a few hundred rows, so
        # the checkpoints taken while the sink writes the snapshot hold the snapshot's progress
        "taskmanager.memory.segment-size": "1024",
        "taskmanager.network.local-exchange": "serialized",
    }.items():
        conf.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    env.enable_checkpointing(200)
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(
        f"CREATE TABLE {name} (id INT, owner STRING, balance INT, PRIMARY KEY (id) NOT ENFORCED) "
        f"WITH ({cdc_options(postgres, name, slot, scan_snapshot_fetch_size='20')})"
    )
    sink = FileSink.for_row_format(str(out), Encoder.simple_string_encoder()).build()
    t_env.to_changelog_stream(t_env.from_path(name)).map(Paced(300), Types.STRING()).sink_to(sink)
    with Writer(postgres, name, rows, 1_000_000, seed=11) as writer:
        client = env.execute_async("postgres-cdc killed mid-snapshot")
        try:
            wait_for(lambda: committed_lines(out) > 0, "a checkpoint committed snapshot rows", client)
            print("committed lines at the kill:", committed_lines(out))
            assert committed_lines(out) < rows, "the snapshot ended before the kill"
            os.kill(client.cluster.task_manager_processes.processes[0].pid, signal.SIGKILL)
            wait_for(lambda: client.get_restart_count() >= 1, "the job restarted", client)
            wait_for(lambda: committed_lines(out) > rows, "the restored job read past its snapshot", client)
            writer.stop.set()
            writer.wait()
            final = database_rows(postgres, name)
            wait_for(
                lambda: settled(committed_changes(out)) == final,
                "the committed changes replay to the table",
                client,
            )
            confirmed = postgres.query(
                f"SELECT confirmed_flush_lsn > '0/0' FROM pg_replication_slots WHERE slot_name = '{slot}'"
            )
            assert confirmed == [(True,)]
        finally:
            client.cancel()
            try:
                client.get_job_execution_result(60)
            except Exception:
                pass  # canceled
    state = settled(committed_changes(out))
    assert state == final and all(n == 1 for n in state.values())


STREAM_JOB = """
import os, sys
from millstream.common import Configuration, Encoder, Types
from millstream.datastream import MapFunction, StreamExecutionEnvironment
from millstream.datastream.connectors import FileSink
from millstream.table import StreamTableEnvironment

out, checkpoints, pids, options = sys.argv[1:5]


class Line(MapFunction):
    # each change as a line; the TaskManagers running the job note their pids
    def open(self, runtime_context):
        with open(os.path.join(pids, str(os.getpid())), "w"):
            pass

    def map(self, row):
        return f"{row.get_row_kind()}|{row[0]}|{row[1]}|{row[2]}"


conf = Configuration()
conf.set_string("execution.checkpointing.dir", checkpoints)
conf.set_string("restart-strategy.type", "fixed-delay")
conf.set_string("restart-strategy.fixed-delay.delay", "100 ms")
env = StreamExecutionEnvironment.get_execution_environment(conf)
env.set_parallelism(2)
env.enable_checkpointing(200)
t_env = StreamTableEnvironment.create(env)
t_env.execute_sql(
    "CREATE TABLE streamkill (id INT, owner STRING, balance INT, PRIMARY KEY (id) NOT ENFORCED) "
    f"WITH ({options})"
)
changes = t_env.to_changelog_stream(t_env.from_path("streamkill"))
sink = FileSink.for_row_format(out, Encoder.simple_string_encoder()).build()
changes.map(Line(), Types.STRING()).sink_to(sink)
env.execute("postgres-cdc on a standalone cluster")
"""


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_task_manager_killed_mid_stream_on_a_standalone_cluster_changes_nothing_committed(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    """Issue 49's acceptance: a standalone cluster of three TaskManagers of one slot runs the
    job (parallelism 2, checkpoints every 200 ms); once the snapshot and some changes are
    committed, a TaskManager running the job is SIGKILLed while rows keep changing. The job
    restarts from its checkpoint on the TaskManagers left, the source streams again from the
    checkpointed position, and the committed changes replay to the table's final rows."""
    name, rows = "streamkill", 500
    create_accounts(postgres, name, rows)
    slot = new_slot("streamkill")
    out, pids, cluster_dir = tmp_path / "out", tmp_path / "pids", tmp_path / "cluster"
    pids.mkdir()
    (tmp_path / "job.py").write_text(textwrap.dedent(STREAM_JOB))
    env = {k: v for k, v in os.environ.items() if k != "MILLSTREAM_SECRET"}
    port = _free_port()
    start = subprocess.run(
        [*MILLSTREAM, "cluster", "start", "--dir", str(cluster_dir), "--port", str(port), "--rest-port", "0"]
        + ["--taskmanagers", "3"],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
    )
    job = None
    try:
        assert start.returncode == 0, start.stdout + start.stderr
        state = json.loads((cluster_dir / "cluster.json").read_text())
        job = subprocess.Popen(
            [*MILLSTREAM, "run", "--target", f"cluster://127.0.0.1:{port}"]
            + ["-D", f"security.secret-file={state['secret_file']}", str(tmp_path / "job.py")]
            + [str(out), str(tmp_path / "checkpoints"), str(pids), cdc_options(postgres, name, slot)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        with Writer(postgres, name, rows, 1_000_000, seed=13) as writer:
            wait_for(
                lambda: committed_lines(out) > rows + 200 and job.poll() is None, "changes were committed"
            )
            running = {int(p.name) for p in pids.iterdir()} & set(state["taskmanager_pids"])
            assert running, "no TaskManager noted that it runs the job"
            victim = psutil.Process(min(running))
            victim.send_signal(signal.SIGKILL)
            killed_at = committed_lines(out)
            wait_for(
                lambda: committed_lines(out) > killed_at + 200, "the restarted job committed more changes"
            )
            writer.stop.set()
            writer.wait()
        final = database_rows(postgres, name)
        wait_for(
            lambda: settled(committed_changes(out)) == final, "the committed changes replay to the table"
        )
        assert job.poll() is None, job.communicate()
        job.kill()
        _stdout, stderr = job.communicate(timeout=60)
        restarts = [line for line in stderr.splitlines() if line.startswith("WARNING millstream: Job ")]
        assert restarts and "restart 1 in" in restarts[0], stderr
    finally:
        if job is not None and job.poll() is None:
            job.kill()
            job.communicate()
        subprocess.run(
            [*MILLSTREAM, "cluster", "stop", "--dir", str(cluster_dir)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    state_counts = settled(committed_changes(out))
    assert state_counts == final and all(n == 1 for n in state_counts.values())
