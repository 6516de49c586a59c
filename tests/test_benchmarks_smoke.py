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
