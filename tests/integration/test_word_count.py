"""Acceptance: word count over 1,000,000 generated lines equals collections.Counter.

Runs the example's pipeline (PyFlink's word count shape) at parallelism 1, 2 and 4 with
chaining on and off, reading the final count of every word from the FileSink's output.
"""

from __future__ import annotations

import collections
import os
import subprocess
import sys

import pytest

from millstream.common import Configuration
from millstream.datastream.stream_execution_environment import set_context_configuration

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import word_count  # noqa: E402

GEN_WORDS = os.path.join(ROOT, "..", "shared", "bench", "gen_words.py")
LINES = 1_000_000


@pytest.fixture(scope="module")
def words_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("wc") / "words.txt"
    if os.path.exists(GEN_WORDS):
        subprocess.run([sys.executable, GEN_WORDS, str(path), str(LINES)], check=True)
    else:
        word_count.generate_input(str(path), LINES)
    counts = collections.Counter()
    with open(path) as f:
        for line in f:
            counts.update(line.split())
    return str(path), counts


def final_counts(out_dir: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for root, _, names in os.walk(out_dir):
        for name in names:
            assert not name.startswith("."), f"unfinished part file {name}"
            with open(os.path.join(root, name)) as f:
                for line in f:
                    word, _, count = line.rstrip("\n")[1:-1].rpartition(",")
                    counts[word] = max(counts.get(word, 0), int(count))
    return counts


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("chaining", [True, False], ids=["chained", "unchained"])
@pytest.mark.parametrize("parallelism", [1, 2, 4])
def test_word_count_equals_counter(words_file, tmp_path, parallelism, chaining):
    path, expected = words_file
    conf = Configuration().set_string("pipeline.operator-chaining.enabled", str(chaining).lower())
    set_context_configuration(conf)
    try:
        word_count.word_count(path, str(tmp_path), parallelism)
    finally:
        set_context_configuration(None)
    assert final_counts(str(tmp_path)) == dict(expected)
