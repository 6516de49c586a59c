"""FileSource.monitor_continuously: files appearing in a watched directory are read while
the (unbounded) job runs, each exactly once; the job runs until it is cancelled."""

from __future__ import annotations

import os

import pytest

from millstream.common import Duration, WatermarkStrategy
from millstream.datastream import RuntimeExecutionMode
from millstream.datastream.connectors.file_system import FileSource, StreamFormat
from tests.conftest import make_env


def publish(directory, name: str, lines: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Write under a hidden name, then rename: a file is complete when it appears."""
    hidden = os.path.join(directory, f".{name}")
    with open(hidden, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    os.rename(hidden, os.path.join(directory, name))


def monitored(directory) -> FileSource:  # type: ignore[no-untyped-def]
    return (
        FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(directory))
        .monitor_continuously(Duration.of_millis(20))
        .build()
    )


@pytest.mark.parametrize("parallelism", [1, 2])
def test_new_files_are_read_while_the_job_runs(tmp_path, parallelism: int):
    publish(tmp_path, "first.txt", ["a b", "a"])
    env = make_env(parallelism, minicluster__mode="threads")
    counts = (
        env.from_source(monitored(tmp_path), WatermarkStrategy.no_watermarks(), "watched")
        .flat_map(lambda line: line.split())
        .map(lambda w: (w, 1))
        .key_by(lambda p: p[0])
        .sum(1)
    )
    latest: dict[str, int] = {}
    batches = [["b c", "c c"], ["a", "d e f"], [f"w{i}" for i in range(100)]]
    expected = {"a": 3, "b": 2, "c": 3, "d": 1, "e": 1, "f": 1, **{f"w{i}": 1 for i in range(100)}}
    seen = 0
    with counts.execute_and_collect() as results:
        for word, count in results:
            latest[word] = count
            seen += 1
            # each file is published only once everything before it was counted
            if batches and seen == sum(latest.values()) and seen in (3, 7, 11):
                publish(tmp_path, f"more-{seen}.txt", batches.pop(0))
            if latest == expected:
                break
    assert latest == expected
    assert seen == sum(expected.values())  # every word counted once: no file read twice


def test_a_monitored_source_is_unbounded():
    source = monitored("/tmp")
    assert not source.is_bounded()
    env = make_env(1)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    env.from_source(source, WatermarkStrategy.no_watermarks(), "watched").print()
    with pytest.raises(ValueError, match="UNBOUNDED source"):
        env.execute()
