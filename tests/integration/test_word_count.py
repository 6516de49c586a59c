"""Acceptance: word count over generated lines equals collections.Counter.

Runs the example's pipeline (PyFlink's word count shape) at parallelism 1, 2 and 4 with
chaining on and off over 100,000 lines, and once over 1,000,000 lines, reading the final
count of every word from the FileSink's output.
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
LINES = 100_000
MILLION = 1_000_000


def generate(directory, lines: int) -> tuple[str, collections.Counter]:
    path = directory / "words.txt"
    if os.path.exists(GEN_WORDS):
        subprocess.run([sys.executable, GEN_WORDS, str(path), str(lines)], check=True)
    else:
        word_count.generate_input(str(path), lines)
    counts: collections.Counter = collections.Counter()
    with open(path) as f:
        for line in f:
            counts.update(line.split())
    return str(path), counts


@pytest.fixture(scope="module")
def words_file(tmp_path_factory):
    return generate(tmp_path_factory.mktemp("wc"), LINES)


def run_word_count(path: str, out_dir: str, parallelism: int, chaining: bool) -> None:
    conf = Configuration().set_string("pipeline.operator-chaining.enabled", str(chaining).lower())
    set_context_configuration(conf)
    try:
        word_count.word_count(path, out_dir, parallelism)
    finally:
        set_context_configuration(None)


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
    run_word_count(path, str(tmp_path / "out"), parallelism, chaining)
    assert final_counts(str(tmp_path / "out")) == dict(expected)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_word_count_of_a_million_lines_equals_counter(tmp_path):
    path, expected = generate(tmp_path, MILLION)
    run_word_count(path, str(tmp_path / "out"), 2, True)
    assert final_counts(str(tmp_path / "out")) == dict(expected)
