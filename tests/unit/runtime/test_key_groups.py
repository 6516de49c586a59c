"""Key groups: the same key lands in the same group in every process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from millstream.runtime.state.key_groups import (
    assign_key_to_parallel_operator,
    assign_to_key_group,
    compute_key_group_range,
    stable_hash,
)

KEYS = ["word", "", "ünïcödé", 0, -1, 2**70, (1, "a"), b"bytes", 3.5, None, True]


def test_hash_is_stable_across_processes_with_different_hash_seeds():
    script = (
        "from millstream.runtime.state.key_groups import assign_to_key_group as g;"
        f"print([g(k, 128) for k in {KEYS!r}])"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={"PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert outputs == {f"{[assign_to_key_group(k, 128) for k in KEYS]}\n"}


@pytest.mark.parametrize("parallelism", [1, 2, 3, 5, 128])
def test_ranges_partition_the_key_groups_and_agree_with_routing(parallelism):
    owned = []
    for index in range(parallelism):
        r = compute_key_group_range(128, parallelism, index)
        owned.extend(range(r.start, r.end + 1))
        for group in (r.start, r.end):
            assert group * parallelism // 128 == index
    assert owned == list(range(128))
    for key in KEYS:
        index = assign_key_to_parallel_operator(key, 128, parallelism)
        assert assign_to_key_group(key, 128) in compute_key_group_range(128, parallelism, index)


def test_keys_without_a_deterministic_hash_are_refused():
    with pytest.raises(TypeError, match="no deterministic hash"):
        stable_hash(object())
