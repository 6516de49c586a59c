"""Every program under examples/ runs from the command line on small input."""

from __future__ import annotations

import collections
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_word_count_example_runs_through_the_cli(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("a b a\nc a b\n\n")
    out = tmp_path / "out"
    result = subprocess.run(
        [
            os.path.join(os.path.dirname(sys.executable), "millstream"),
            "run",
            "-p",
            "2",
            os.path.join(ROOT, "examples", "word_count.py"),
            "--input",
            str(src),
            "--output",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert f"output written to {out}" in result.stdout
    lines = [line for p, _, names in os.walk(out) for n in names for line in open(os.path.join(p, n))]
    final = {}
    for line in lines:
        word, _, count = line.strip()[1:-1].rpartition(",")
        final[word] = max(final.get(word, 0), int(count))
    assert final == dict(collections.Counter(["a", "b", "a", "c", "a", "b"]))
    assert len(lines) == 6  # every rolling update is written


def test_word_count_example_generates_its_own_input(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            os.path.join(ROOT, "examples", "word_count.py"),
            "--lines",
            "500",
            "--parallelism",
            "1",
            "--output",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "generating 500 lines" in result.stderr
    written = sum(
        1 for p, _, names in os.walk(tmp_path / "o") for n in names for _ in open(os.path.join(p, n))
    )
    assert written == 5000  # 10 words per line, one rolling update each


def test_tumbling_window_example_prints_window_maxima_and_the_late_reading():
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "tumbling_window.py"), "--parallelism", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line for line in lines if "max" in line] == [
        "sensor-1 [  0s,  10s): max 23.0",
        "sensor-1 [ 10s,  20s): max 30.0",
        "sensor-2 [  0s,  10s): max 19.0",
        "sensor-2 [ 10s,  20s): max 18.5",
        "sensor-2 [ 20s,  30s): max 25.0",
    ]
    assert [line for line in lines if "late" in line] == ["1> late: ('sensor-1', 99.0, 2000)"]
