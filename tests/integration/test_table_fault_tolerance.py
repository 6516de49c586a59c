"""A SQL job's state is checkpointed like any operator's: a TaskManager process killed at a
random moment changes nothing a failure-free run commits.

The job (parallelism 2, two TaskManager processes, exactly-once checkpoints): generated
numbers become a table with an event-time attribute and a watermark; a TUMBLE window
aggregation counts and sums each key's numbers per second (window slices in keyed state); an
inner join names each key from a dimension table (both sides in keyed state); a GROUP BY
keeps each name's running total over its windows (accumulators in keyed state, an updating
changelog: -U/+U). The changelog goes through ``to_changelog_stream`` into a FileSink
(exactly-once part files). Every stateful SQL operator is thus restored from the checkpoint
after the kill; the committed lines (sorted) must equal the failure-free run's.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from typing import Any

import pytest

from millstream.common import Encoder, Types, WatermarkStrategy
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors import FileSink
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.testing.chaos import ChaosJob, TrialResult, run_trial

pytestmark = pytest.mark.timeout(300)

KEYS = 7


def _row(i: int) -> tuple[int, int, int]:
    return (i % KEYS, i, i * 10)  # key, value, event time in ms: a second holds 100 numbers


def _line(row: Any) -> str:
    return f"{row.get_row_kind()},{','.join(str(v) for v in row)}"


@dataclass(frozen=True)
class SqlChaosJob(ChaosJob):
    records: int = 12_000
    records_per_second: float = 3_000.0

    def build(
        self, env: StreamExecutionEnvironment, out_dir: str, marker: str | None, raise_at: int | None
    ) -> None:
        from millstream.table import DataTypes, Schema, StreamTableEnvironment

        t_env = StreamTableEnvironment.create(env)
        numbers = env.from_source(
            DataGeneratorSource(_row, self.records, self.records_per_second,
                                Types.TUPLE([Types.INT(), Types.LONG(), Types.LONG()])),
            WatermarkStrategy.no_watermarks(),
            "numbers",
        )  # fmt: skip
        schema = (
            Schema.new_builder()
            .column("f0", DataTypes.INT())
            .column("f1", DataTypes.BIGINT())
            .column("f2", DataTypes.BIGINT())
            .column_by_expression("ts", "TO_TIMESTAMP_LTZ(f2, 3)")
            .watermark("ts", "ts")
            .build()
        )
        t_env.create_temporary_view("numbers", t_env.from_data_stream(numbers, schema))
        names = t_env.from_elements([(k, f"key-{k}") for k in range(KEYS)], ["k", "name"])
        t_env.create_temporary_view("names", names)
        totals = t_env.sql_query(
            """
            SELECT name, SUM(total) AS running, SUM(n) AS seen, COUNT(*) AS windows
            FROM (
              SELECT f0 AS k, window_start, COUNT(*) AS n, SUM(f1) AS total
              FROM TABLE(TUMBLE(TABLE numbers, DESCRIPTOR(ts), INTERVAL '1' SECOND))
              GROUP BY f0, window_start, window_end
            ) w JOIN names ON w.k = names.k
            GROUP BY name
            """
        )
        sink = FileSink.for_row_format(out_dir, Encoder.simple_string_encoder()).build()
        t_env.to_changelog_stream(totals).map(_line, Types.STRING()).sink_to(sink)


JOB = SqlChaosJob()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: Any) -> TrialResult:
    result = run_trial(JOB, str(tmp_path_factory.mktemp("sql-reference")), "none")
    assert result.restarts == 0 and not result.leftover
    return result


def test_the_failure_free_run_commits_every_window_once(reference: TrialResult) -> None:
    lines = reference.output.decode().splitlines()
    windows = JOB.records // 100  # 100 numbers per second, every key in every window
    assert len([x for x in lines if x.startswith(("+I", "+U"))]) == windows * KEYS
    finals = {}
    for line in lines:
        kind, name, running, seen, count = line.split(",")
        if kind in ("+I", "+U") and int(count) == windows:
            finals[name] = (int(running), int(seen))
    assert finals == {
        f"key-{k}": (sum(i for i in range(JOB.records) if i % KEYS == k), len(range(k, JOB.records, KEYS)))
        for k in range(KEYS)
    }


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_a_task_manager_killed_mid_run_changes_nothing_committed(
    reference: TrialResult, tmp_path: Any, backend: str
) -> None:
    seed = int(os.environ.get("MILLSTREAM_CHAOS_SEED") or random.SystemRandom().randrange(1 << 30))
    rng = random.Random(seed)
    fail_after = rng.uniform(0.1, 0.5 * reference.duration_s)
    job = SqlChaosJob(state_backend=backend, incremental=backend == "rocksdb")
    # once the tasks run (execute_async returns when the TaskManagers are spawned: a kill
    # before they registered needs no restart, and this test is about one mid-run)
    result = run_trial(job, str(tmp_path), "kill", fail_after, rng=rng, after_running=True)
    context = f"seed {seed}: killed at {result.failed_after_s} s of a {reference.duration_s:.1f} s run"
    assert result.failed_after_s is not None and result.restarts >= 1, context
    assert result.output == reference.output, context
    assert result.leftover == [], context
