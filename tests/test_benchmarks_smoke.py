"""Benchmarks run (tiny sizes) so they do not rot; their figures are not asserted."""

from __future__ import annotations

import os
import subprocess
import sys

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
    out = _run("word_count.py", "--lines", "3000", "--repeat", "1")
    assert "ratio to floor" in out and "MISMATCH" not in out


def test_network_benchmark_runs():
    out = _run("network.py", "--buffers", "300", "--repeat", "1", "--rate", "200", "--seconds", "1")
    assert "buffers/s" in out and "MB/s" in out
    assert "buffer timeout   0 ms: p50" in out and "buffer timeout 100 ms: p50" in out
