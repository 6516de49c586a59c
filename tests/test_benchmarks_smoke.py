"""Benchmarks run (tiny sizes) so they do not rot; their figures are not asserted."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(script: str, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "benchmarks", script), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_word_count_benchmark_runs_and_checks_its_results():
    # without the PySpark comparison (a Spark session costs ~10 s here; the Spark smoke test
    # below runs the hand-written PySpark word count)
    args = ["--lines", "3000", "--repeat", "1", "--distribution", "uniform", "--no-pyspark"]
    out = _run("word_count.py", *args)
    assert "ratio to floor" in out and "MISMATCH" not in out
    assert "== STREAMING, uniform words" in out and "== BATCH, uniform words" in out
    assert "speed-up over p=1" in out and "hand-written PySpark" not in out


def test_network_benchmark_runs():
    args = ["--buffers", "300", "--repeat", "1", "--rate", "200", "--seconds", "1", "--records", "50000"]
    out = _run("network.py", *args)
    assert "buffers/s" in out and "MB/s" in out
    assert "key declared STRING: producer" in out and "key undeclared    : producer" in out
    assert "buffer timeout   0 ms: p50" in out and "buffer timeout 100 ms: p50" in out


def test_windows_benchmark_runs_and_checks_every_window_sum():
    out = _run("windows.py", "--events", "30000", "--repeat", "1", "--parallelism", "1", "2")
    assert "ratio to floor" in out and "MISMATCH" not in out
    assert "millstream tumbling window sum p=2" in out and "millstream session window sum p=2" in out
    assert "p=1" in out and "p=2" in out and "peak memory" in out


def _bench_events():  # type: ignore[no-untyped-def]
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    import bench_events

    return bench_events


def test_windows_benchmark_event_copy_matches_the_shared_generator():
    shared = os.path.join(ROOT, "..", "shared", "bench", "events.py")
    if not os.path.exists(shared):
        pytest.skip("../shared/bench/events.py is not next to this checkout")
    bench_events = _bench_events()
    namespace: dict = {}
    exec(compile(open(shared).read(), shared, "exec"), namespace)
    assert [namespace["event"](i) for i in range(0, 50_000, 7)] == [
        bench_events.event(i) for i in range(0, 50_000, 7)
    ]


def test_windows_benchmark_events_start_at_the_base_time_plus_the_largest_lag():
    bench_events = _bench_events()
    assert bench_events.event(0) == ("k0", 0, bench_events.BASE_MS + bench_events.MAX_LAG_MS)


def test_word_count_benchmark_on_spark_compares_with_hand_written_pyspark():
    out = _run("word_count.py", "--target", "spark", "--lines", "2000", "--repeat", "1")
    assert "millstream on spark" in out and "hand-written PySpark RDD" in out and "MISMATCH" not in out


def test_checkpointing_benchmark_runs_and_checks_its_results():
    out = _run("checkpointing.py", "--lines", "3000", "--events", "20000", "--repeat", "1", "--seconds", "2")
    assert "slower, aligned, whole job" in out and "slower, unaligned, whole job" in out
    assert "MISMATCH" not in out
    assert "aligned checkpoint duration without backpressure" in out
    assert "unaligned checkpoint duration with backpressure" in out
    assert "recovery after a TaskManager kill" in out


def test_the_chaos_script_runs_a_trial():
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "chaos.py"), "--trials", "1", "--seed", "7"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1/1 trials held" in result.stdout


def test_kafka_benchmark_runs_and_reads_every_record():
    out = _run("kafka.py", "--records", "5000", "--repeat", "1")
    assert "MISMATCH" not in out and "ratio to floor" in out
    assert "millstream KafkaSource p2, whole job" in out and "millstream KafkaSink EXACTLY_ONCE" in out


def test_operations_benchmark_runs_both_kinds_of_window():
    out = _run("operations.py", "--parallelism", "1", "--windows", "4", "--window-s", "1", "--lines", "200")
    assert "watched/unwatched" in out and "p1: median watched/unwatched" in out


def test_nexmark_sql_benchmark_runs_every_engine(tmp_path: object) -> None:
    figures = os.path.join(str(tmp_path), "nexmark.json")
    out = _run(
        "nexmark_sql.py", "--events", "3000", "--parallelism", "1", "--query", "q0", "--query", "q5",
        "--row-path", "--json", figures,
    )  # fmt: skip
    assert "q0 p=1: SQL" in out and "SQL / DuckDB" in out and "SQL / DataStream" in out
    assert "q5 p=1: SQL" in out and "columnar / row path" in out
    import json

    with open(figures) as f:
        assert [r["query"] for r in json.load(f)["results"]] == ["q0", "q5"]
