"""BLOCKING exchanges: spill files, consumers scheduled when their producers finished.

A BATCH job's exchanges are blocking (``execution.batch-shuffle-mode``); the BATCH
runtime mode itself (sorted keyed input) belongs to the event-time issue, so these tests
make the exchanges of a STREAMING program blocking at graph-generation time.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from millstream.common.job_execution_result import JobExecutionException
from millstream.datastream import FlatMapFunction, MapFunction
from millstream.graph import stream_graph_generator
from tests.conftest import make_env

LINES = [f"w{i % 50} w{i % 7} w{i % 3}" for i in range(6000)]


class _Split(FlatMapFunction):
    """The producer: marks in ``markers`` when it has closed (its last act before its output ends)."""

    def __init__(self, markers: str) -> None:
        self.markers = markers

    def open(self, runtime_context):
        self.index = runtime_context.get_index_of_this_subtask()

    def flat_map(self, value):
        for word in value.split():
            yield word, 1

    def close(self):
        Path(self.markers, f"split-{self.index}-closed").touch()


class _Observe(MapFunction):
    """The consumer: what it saw of its producers and of spill files when it was opened."""

    def __init__(self, markers: str, spill: str) -> None:
        self.markers = markers
        self.spill = spill

    def open(self, runtime_context):
        self.producers_done = len(os.listdir(self.markers))
        self.spill_files = len(list(Path(self.spill).rglob("*.spill")))

    def map(self, value):
        return value[0], value[1], self.producers_done, self.spill_files


def _word_counts(tmp_path: Path, mode: str, blocking: bool, monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    if blocking:
        monkeypatch.setattr(stream_graph_generator, "exchange_mode", lambda settings: "BLOCKING")
    markers, spill = tmp_path / f"markers-{blocking}", tmp_path / f"spill-{blocking}"
    markers.mkdir()
    spill.mkdir()
    env = make_env(2, minicluster__mode=mode, io__tmp__dirs=str(spill))
    counts = (
        env.from_collection(LINES)
        .rebalance()
        .flat_map(_Split(str(markers)))
        .key_by(lambda pair: pair[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .map(_Observe(str(markers), str(spill)))
    )
    with counts.execute_and_collect() as results:
        out = list(results)
    monkeypatch.undo()
    assert list(spill.rglob("*")) == [], "spill files and directories are gone after the job"
    return out


@pytest.mark.parametrize("mode", ["processes", "threads"])
def test_blocking_exchange_gives_the_pipelined_result_and_starts_consumers_after_producers(
    tmp_path, monkeypatch, mode
):
    pipelined = _word_counts(tmp_path, mode, False, monkeypatch)
    blocking = _word_counts(tmp_path, mode, True, monkeypatch)
    assert sorted(r[:2] for r in blocking) == sorted(r[:2] for r in pipelined)
    assert len(blocking) == 18000  # rolling updates: one per word
    # Every consumer subtask opened only after both producer subtasks had closed, and
    # read their output from spill files (2 producers x 2 consumers, or more with the
    # source's rebalance result).
    assert {r[2] for r in blocking} == {2}
    assert min(r[3] for r in blocking) >= 4


class _FailOn(MapFunction):
    def map(self, value):
        if value == "w3 w3 w0":
            raise ValueError("bad line")
        return value


def test_a_failing_producer_fails_the_job_and_its_consumers_never_run(tmp_path, monkeypatch):
    monkeypatch.setattr(stream_graph_generator, "exchange_mode", lambda settings: "BLOCKING")
    started = tmp_path / "consumer-started"
    spill = tmp_path / "spill"
    spill.mkdir()

    class Mark(MapFunction):
        def open(self, runtime_context):
            started.touch()  # deployed and started

        def map(self, value):
            return value

    env = make_env(2, io__tmp__dirs=str(spill))
    env.from_collection(LINES).rebalance().map(_FailOn()).name("check lines").key_by(len).map(Mark()).print()
    with pytest.raises(JobExecutionException, match="check lines") as info:
        env.execute()
    assert "on record 'w3 w3 w0'" in str(info.value)
    assert str(info.value.__cause__.__cause__) == "bad line"
    assert not started.exists()
    assert list(spill.rglob("*.spill")) == []
