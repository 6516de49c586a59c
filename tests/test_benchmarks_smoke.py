"""Benchmarks run (tiny sizes) so they do not rot; their figures are not asserted."""

from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_word_count_benchmark_runs_and_checks_its_results():
    result = subprocess.run(
        [
            sys.executable,
            os.path.join(ROOT, "benchmarks", "word_count.py"),
            "--lines",
            "3000",
            "--repeat",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ratio to floor" in result.stdout and "MISMATCH" not in result.stdout


def test_network_benchmark_runs():
    result = subprocess.run(
        [
            sys.executable,
            os.path.join(ROOT, "benchmarks", "network.py"),
            "--buffers",
            "300",
            "--repeat",
            "1",
            "--rate",
            "200",
            "--seconds",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "buffers/s" in result.stdout and "MB/s" in result.stdout
    assert "buffer timeout   0 ms: p50" in result.stdout and "buffer timeout 100 ms: p50" in result.stdout
