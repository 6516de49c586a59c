"""What the Structured Streaming conformance tests share: watched directories, files published
atomically while a query runs, and the environment for either target."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from millstream.common import Configuration, Duration, WatermarkStrategy
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.file_system import FileSource, StreamFormat


def publish(directory: Any, name: str, lines: list[str]) -> None:
    hidden = os.path.join(directory, f".{name}")
    with open(hidden, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    os.rename(hidden, os.path.join(directory, name))


def env_for(target: str, parallelism: int = 2) -> StreamExecutionEnvironment:
    conf = Configuration().set_string("execution.target", target).set_string("minicluster.mode", "threads")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    return env


def watched(env: StreamExecutionEnvironment, directory: Any) -> Any:
    source = (
        FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(directory))
        .monitor_continuously(Duration.of_millis(50))
        .build()
    )
    return env.from_source(source, WatermarkStrategy.no_watermarks(), "watched")


def run_with_files(
    target: str,
    directory: Any,
    build: Callable[[Any], Any],
    files: list[list[str]],
    stage_done: Callable[[list[Any], int], bool],
    parallelism: int = 2,
    deadline_s: float = 180.0,
) -> list[Any]:
    """Start the job on ``target``, publish ``files`` one by one while it runs (the next once
    ``stage_done(results, i)`` says file i was processed), stop it after the last one."""
    os.makedirs(directory, exist_ok=True)
    env = env_for(target, parallelism)
    stream = build(watched(env, directory))
    publish(directory, "part-0.txt", files[0])
    out: list[Any] = []
    stage = 0
    started = time.monotonic()
    with stream.execute_and_collect() as results:
        iterator: Iterator[Any] = iter(results)
        while True:
            assert time.monotonic() - started < deadline_s, f"{target}: results incomplete: {out}"
            out.append(next(iterator))
            while stage_done(out, stage):
                stage += 1
                if stage == len(files):
                    return out
                publish(directory, f"part-{stage}.txt", files[stage])


WORDS = [["to be or", "not to be"], ["to do is", "to be"], ["do be do be do"]]


def final_counts(out: list[tuple[str, int]]) -> dict[str, int]:
    latest: dict[str, int] = {}
    for word, count in out:
        latest[word] = max(latest.get(word, 0), count)
    return latest
