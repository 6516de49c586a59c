"""The Table API examples under examples/table/ print exactly what Flink's semantics say.

``word_count.py``: with one subtask a group aggregation's changelog is determined by the
input order: a word's first occurrence is ``+I[w, 1]``, each later one ``-U[w, n-1]`` then
``+U[w, n]``, written as Flink's print connector writes rows. (PyFlink 2.3.0 running its own
table word count, imports swapped to millstream, printed the same 353 lines as PyFlink.)
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.timeout(180)


def expected_changelog(lines: list[str]) -> list[str]:
    counts: dict[str, int] = {}
    out = []
    for line in lines:
        for word in line.split():
            n = counts.get(word, 0)
            if n:
                out += [f"-U[{word}, {n}]", f"+U[{word}, {n + 1}]"]
            else:
                out.append(f"+I[{word}, 1]")
            counts[word] = n + 1
    return out


@pytest.mark.parametrize("own_input", [False, True])
def test_table_word_count_prints_the_changelog(tmp_path, own_input):
    args = [sys.executable, os.path.join(ROOT, "examples", "table", "word_count.py")]
    lines = [
        "a stream is a table in motion",
        "a table is a stream at rest",
        "every change to the table is a record in the stream",
    ]
    if own_input:
        lines = ["to be or not to be", "that is the question", "to be"]
        (tmp_path / "in.txt").write_text("\n".join(lines) + "\n")
        args += ["--input", str(tmp_path / "in.txt")]
    result = subprocess.run(args, capture_output=True, text=True, timeout=150)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == expected_changelog(lines)
