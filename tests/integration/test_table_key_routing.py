"""A Table runtime exchange (GROUP BY, a window aggregation) sends each key to the subtask
Flink's would: the one owning ``MathUtils.murmurHash(BinaryRowData.hashCode()) % 128``, the
key row holding the GROUP BY keys in the order written (window_start and window_end left
out). The print connector's ``N>`` prefix shows it.

The expected prefixes are what PyFlink 2.3.0 printed for the same programs (imports swapped
to pyflink, parallelism 4, 2026-11-27): every printed line was equal, changelogs included,
161 + 161 + 480 lines. Before this, 10 of 18 words of a word count printed another prefix.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

pytestmark = pytest.mark.timeout(300)

TEXT = (
    "to be or not to be that is the question whether tis nobler in the mind to suffer "
    "the slings and arrows of outrageous fortune a considerably longer word here"
)

BY_WORD = {"a": 1, "and": 1, "arrows": 4, "be": 2, "considerably": 4, "fortune": 4, "here": 1, "in": 1,
           "is": 2, "longer": 3, "mind": 4, "nobler": 1, "not": 3, "of": 1, "or": 4, "outrageous": 1,
           "question": 1,
           "slings": 3, "suffer": 2, "that": 2, "the": 2, "tis": 3, "to": 4, "whether": 1,
           "word": 1}  # fmt: skip
K_N = {("k0", "0"): 1, ("k0", "1"): 4, ("k0", "2"): 2, ("k0", "3"): 4, ("k0", "4"): 2, ("k1", "0"): 2,
       ("k1", "1"): 1, ("k1", "2"): 1, ("k1", "3"): 4, ("k1", "4"): 2, ("k2", "0"): 3, ("k2", "1"): 1,
       ("k2", "2"): 4, ("k2", "3"): 2, ("k2", "4"): 2}  # fmt: skip
LEN_K = {("1", "k1"): 2, ("10", "k2"): 2, ("12", "k2"): 3, ("2", "k0"): 3, ("2", "k1"): 1, ("2", "k2"): 3,
         ("3", "k0"): 1, ("3", "k2"): 2, ("4", "k0"): 1, ("4", "k1"): 3, ("4", "k2"): 4, ("6", "k0"): 4,
         ("6", "k1"): 1, ("6", "k2"): 1, ("7", "k0"): 1, ("7", "k1"): 1, ("8", "k0"): 4}  # fmt: skip
TUMBLE_W = {"alpha": 2, "beta": 4, "delta": 4, "epsilon": 3, "eta": 2, "gamma": 1, "iota": 1, "kappa": 1,
            "lambda": 3, "mu": 3, "nu": 1, "omicron": 4, "pi": 3, "theta": 2, "xi": 3, "zeta": 2}  # fmt: skip


def _prefixes(output: str, identifier: str, width: int) -> dict[tuple[str, ...], set[int]]:
    seen: dict[tuple[str, ...], set[int]] = {}
    for line in output.splitlines():
        m = re.fullmatch(r"(\w+):(\d)> [+-][IUD]\[(.*)\]", line)
        if m and m.group(1) == identifier:
            seen.setdefault(tuple(m.group(3).split(", ")[:width]), set()).add(int(m.group(2)))
    return seen


def test_group_by_keys_reach_the_subtask_flinks_would(capfd: pytest.CaptureFixture[str]) -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "4")
    rows = [(w, i % 5, i * 1.5, f"k{i % 3}") for i, w in enumerate(TEXT.split())]
    t_env.create_temporary_view("src", t_env.from_elements(rows, ["word", "n", "x", "k"]))
    sinks = {"by_word": "word STRING, c BIGINT", "k_n": "k STRING, n BIGINT, c BIGINT",
             "len_k": "l INT, k STRING, c BIGINT"}  # fmt: skip
    for name, columns in sinks.items():
        t_env.execute_sql(
            f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'print', 'print-identifier' = '{name}')"
        )
    statements = t_env.create_statement_set()
    statements.add_insert_sql("INSERT INTO by_word SELECT word, COUNT(*) FROM src GROUP BY word")
    statements.add_insert_sql("INSERT INTO k_n SELECT k, n, COUNT(*) FROM src GROUP BY k, n")
    statements.add_insert_sql(
        "INSERT INTO len_k SELECT CHAR_LENGTH(word), k, COUNT(*) FROM src GROUP BY CHAR_LENGTH(word), k"
    )
    statements.execute().wait()
    output = capfd.readouterr().out
    assert _prefixes(output, "by_word", 1) == {(w,): {n} for w, n in BY_WORD.items()}
    assert _prefixes(output, "k_n", 2) == {k: {n} for k, n in K_N.items()}
    assert _prefixes(output, "len_k", 2) == {k: {n} for k, n in LEN_K.items()}


def test_window_aggregation_keys_reach_the_subtask_flinks_would(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    words = sorted(TUMBLE_W)
    (tmp_path / "e.csv").write_text(
        "".join(f"{words[i % len(words)]},{i % 7},2024-01-01 00:00:{i * 0.25:06.3f}\n" for i in range(200))
    )
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "4")
    t_env.execute_sql(
        "CREATE TABLE ev (w STRING, n INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
        f"WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/e.csv', 'format' = 'csv')"
    )
    t_env.execute_sql(
        "CREATE TABLE tumble_w (w STRING, ws TIMESTAMP(3), c BIGINT) "
        "WITH ('connector' = 'print', 'print-identifier' = 'tumble_w')"
    )
    t_env.execute_sql(
        "INSERT INTO tumble_w SELECT w, window_start, COUNT(*) FROM "
        "TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY w, window_start, window_end"
    ).wait()
    assert _prefixes(capfd.readouterr().out, "tumble_w", 1) == {(w,): {n} for w, n in TUMBLE_W.items()}


# Top-N partitions by its input's fields in their order there (n before k in ``src``, whatever
# the PARTITION BY order); a join by its keys in the condition's order. PyFlink 2.3.0 printed
# the same 107 lines for this program.
RANK_K_N = {("k0", "0"): 2, ("k0", "1"): 2, ("k0", "2"): 3, ("k0", "3"): 1, ("k0", "4"): 1, ("k1", "0"): 4,
            ("k1", "1"): 2, ("k1", "2"): 1, ("k1", "3"): 3, ("k1", "4"): 3, ("k2", "0"): 1, ("k2", "1"): 1,
            ("k2", "2"): 3, ("k2", "3"): 2, ("k2", "4"): 4}  # fmt: skip
JOIN_K = {"d0": 1, "d1": 1, "d2": 4}


def test_top_n_and_join_keys_reach_the_subtask_flinks_would(capfd: pytest.CaptureFixture[str]) -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "4")
    rows = [(w, i % 5, i * 1.5, f"k{i % 3}") for i, w in enumerate(TEXT.split())]
    t_env.create_temporary_view("src", t_env.from_elements(rows, ["word", "n", "x", "k"]))
    dim = [(f"k{i}", i % 5, f"d{i}") for i in range(3)] * 2
    t_env.create_temporary_view("dim", t_env.from_elements(dim, ["dk", "dn", "label"]))
    sinks = {"rank_k_n": "word STRING, n BIGINT, k STRING, rn BIGINT",
             "join_k_n": "word STRING, k STRING, label STRING",
             "rank_word": "word STRING, rn BIGINT"}  # fmt: skip
    for name, columns in sinks.items():
        t_env.execute_sql(
            f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'print', 'print-identifier' = '{name}')"
        )
    statements = t_env.create_statement_set()
    statements.add_insert_sql(
        "INSERT INTO rank_k_n SELECT word, n, k, rn FROM (SELECT *, ROW_NUMBER() OVER "
        "(PARTITION BY k, n ORDER BY x DESC) AS rn FROM src) WHERE rn <= 2"
    )
    statements.add_insert_sql(
        "INSERT INTO join_k_n SELECT word, k, label FROM src JOIN dim ON k = dk AND n = dn"
    )
    statements.add_insert_sql(
        "INSERT INTO rank_word SELECT word, rn FROM (SELECT *, ROW_NUMBER() OVER "
        "(PARTITION BY word ORDER BY x DESC) AS rn FROM src) WHERE rn <= 1"
    )
    statements.execute().wait()
    output = capfd.readouterr().out
    ranked = _prefixes(output, "rank_k_n", 3)
    assert {(k, n): subtasks for (_, n, k), subtasks in ranked.items()} == {
        k: {n} for k, n in RANK_K_N.items()
    }
    joined = {labels[-1]: subtasks for labels, subtasks in _prefixes(output, "join_k_n", 3).items()}
    assert joined == {label: {n} for label, n in JOIN_K.items()}
    assert _prefixes(output, "rank_word", 1) == {(w,): {n} for w, n in BY_WORD.items()}
