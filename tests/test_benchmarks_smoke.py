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


def test_nexmark_sql_benchmark_runs_both_shapes_and_checks_the_rows(tmp_path: object) -> None:
    # without PyFlink (a JVM per query): millstream's rows are checked against the other shape's
    # and DuckDB's
    figures = os.path.join(str(tmp_path), "nexmark.json")
    out = _run(
        "nexmark_sql.py", "--events", "3000", "--parallelism", "1", "--query", "q0", "--query", "q5",
        "--row-path", "--datastream", "--json", figures,
    )  # fmt: skip
    assert "PyFlink not measured" in out and "MISMATCH" not in out and "FAILED" not in out
    assert "q0 nested p1: millstream" in out and "q0 flat p1: millstream" in out
    assert "same as nested, DuckDB same" in out and "row path / columnar" in out and "DataStream / SQL" in out
    import json

    with open(figures) as f:
        results = json.load(f)["results"]
    assert [(r["query"], r["shape"]) for r in results] == [
        ("q0", "nested"), ("q0", "flat"), ("q5", "nested"), ("q5", "flat")
    ]  # fmt: skip
    assert all(r["millstream_s"] > 0 and r["rows"]["millstream"]["count"] > 0 for r in results)


def test_nexmark_sql_benchmark_applies_changes_and_compares_values(tmp_path: object) -> None:
    _bench_events()  # benchmarks/ on the path
    import nexmark_sql

    changes = [
        '{"before":null,"after":{"id":14,"price":9.080,"t":"2024-01-01 00:00:00"},"op":"c"}',
        '{"before":{"id":14,"price":9.08,"t":"2024-01-01 00:00:00.000"},"after":null,"op":"d"}',
        '{"before":null,"after":{"id":14,"price":10,"t":"2024-01-01 00:00:01.5"},"op":"c"}',
        '{"before":null,"after":{"id":15,"price":null,"t":"2024-01-01T00:00:02.000Z"},"op":"c"}',
    ]
    with open(os.path.join(str(tmp_path), "part-0"), "w") as f:
        f.write("\n".join(changes) + "\n")
    with open(os.path.join(str(tmp_path), ".part-1.inprogress"), "w") as f:
        f.write(changes[0] + "\n")
    rows = nexmark_sql.changelog_rows(str(tmp_path))
    # the same two rows as DuckDB hands them (a decimal with trailing zeros, datetimes)
    import datetime
    from collections import Counter
    from decimal import Decimal

    expected = Counter(
        nexmark_sql._row(values)
        for values in [
            (14, Decimal("10.000"), datetime.datetime(2024, 1, 1, 0, 0, 1, 500000)),
            (15, None, datetime.datetime(2024, 1, 1, 0, 0, 2)),
        ]
    )
    assert rows == nexmark_sql.Rows.of(expected) and rows.count == 2


def test_async_io_benchmark_runs_and_checks_its_results():
    args = ["--elements", "400", "--sleep-ms", "20", "--capacity", "50", "--serial-sample", "5"]
    out = _run("async_io.py", *args)
    assert "MISMATCH" not in out and "measured on 5 elements" in out
    assert "millstream unordered_wait" in out and "millstream ordered_wait" in out
    assert "speed-up over serial" in out and "ratio to floor" in out
