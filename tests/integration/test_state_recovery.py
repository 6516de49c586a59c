"""Starting a job from a retained checkpoint (``execution.state-recovery.path``, ``run -s``).

A job with checkpoints retained on cancellation is cancelled part-way; the same program
started again from its last checkpoint continues where the checkpoint was: sources resume
at their positions, keyed state holds its counts, and the FileSink commits what the
checkpoint had pending. Over both runs every rolling count is committed exactly once.
State that fits no operator is a clear error (a changed parallelism is rescaled:
``test_savepoints.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from millstream.common import Configuration, JobStatus

from .test_checkpoints import committed_lines, completed_checkpoints

pytestmark = pytest.mark.timeout(180)

PROGRAM = """
import sys
from millstream.common import Configuration, Encoder, Types, WatermarkStrategy
from millstream.datastream import ExternalizedCheckpointRetention, StreamExecutionEnvironment
from millstream.datastream.connectors import FileSink
from millstream.datastream.connectors.datagen import DataGeneratorSource


def build(env, out, extra_map=False, uids=False):
    env.enable_checkpointing(100)
    env.get_checkpoint_config().set_externalized_checkpoint_retention(
        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION
    )
    source = DataGeneratorSource(lambda i: i, 6000, 2000.0, Types.LONG())
    stream = env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers")
    if uids:
        stream = stream.uid("numbers")
    if extra_map:
        stream = stream.map(lambda v: v).uid("added").disable_chaining()
    counts = (
        stream.map(lambda v: (v % 5, 1), Types.TUPLE([Types.INT(), Types.INT()]))
        .key_by(lambda pair: pair[0], Types.INT())
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
    )
    if uids:
        counts = counts.uid("counts")
    sink = (
        counts.map(lambda pair: f"{pair[0]},{pair[1]}", Types.STRING())
        .sink_to(FileSink.for_row_format(out, Encoder.simple_string_encoder()).build())
    )
    if uids:
        sink.uid("files")


if __name__ == "__main__":
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    build(env, sys.argv[1])
    env.execute("counts")
"""


@pytest.fixture
def program(tmp_path: Path) -> Any:
    path = tmp_path / "counts_job.py"
    path.write_text(textwrap.dedent(PROGRAM))
    sys.path.insert(0, str(tmp_path))
    try:
        import counts_job  # type: ignore[import-not-found]

        yield path, counts_job
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("counts_job", None)


def first_run_cancelled_after_checkpoints(module: Any, tmp_path: Path, out: Path, uids: bool = False) -> Path:
    """Run the program until two checkpoints completed, cancel it; its checkpoint directory."""
    from millstream.datastream import StreamExecutionEnvironment

    checkpoints = tmp_path / "checkpoints"
    conf = Configuration().set_string("execution.checkpointing.dir", str(checkpoints))
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    module.build(env, str(out), uids=uids)
    client = env.execute_async("counts, first run")
    job_dir = checkpoints / str(client.get_job_id())
    deadline = time.monotonic() + 60
    try:
        while (
            len(completed_checkpoints(str(job_dir))) < 1
            or client.get_checkpoint_statistics().get("numberOfCompletedCheckpoints", 0) < 2
        ):
            # CREATED: still being scheduled (the first polls may come before it runs)
            assert client.get_job_status() in (JobStatus.CREATED, JobStatus.RUNNING)
            assert time.monotonic() < deadline, "no checkpoint completed"
            time.sleep(0.05)  # polling an observable condition, bounded by the deadline
    finally:
        client.cancel()
        with pytest.raises(Exception, match="cancelled"):
            client.get_job_execution_result(60)
    assert completed_checkpoints(str(job_dir)), "the checkpoint was not retained"
    return job_dir


def all_rolling_counts_once(lines: Counter[str]) -> bool:
    return lines == Counter(f"{k},{c}" for k in range(5) for c in range(1, 1201))


def test_the_cli_starts_a_job_from_a_retained_checkpoint_and_it_continues_exactly_once(program, tmp_path):  # type: ignore[no-untyped-def]
    path, module = program
    out = tmp_path / "out"
    job_dir = first_run_cancelled_after_checkpoints(module, tmp_path, out)
    before = committed_lines(out)
    assert 0 < sum(before.values()) < 6000  # part of the counts, committed by the first run
    millstream = os.path.join(os.path.dirname(sys.executable), "millstream")
    result = subprocess.run(
        [millstream, "run", "-s", str(job_dir), str(path), str(out)],
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "checkpoints completed" in result.stderr
    # counts continue from the checkpoint: no count restarts at 1, none is lost or repeated
    assert all_rolling_counts_once(committed_lines(out))


def test_state_that_fits_no_operator_is_an_error_unless_dropped(program, tmp_path):  # type: ignore[no-untyped-def]
    from millstream.datastream import StreamExecutionEnvironment

    _path, module = program
    job_dir = first_run_cancelled_after_checkpoints(module, tmp_path, tmp_path / "out")

    def second_run(parallelism: int, extra_map: bool, ignore_unclaimed: bool) -> Any:
        conf = Configuration().set_string("execution.state-recovery.path", str(job_dir))
        conf.set_boolean("execution.state-recovery.ignore-unclaimed-state", ignore_unclaimed)
        env = StreamExecutionEnvironment.get_execution_environment(conf)
        env.set_parallelism(parallelism)
        module.build(env, str(tmp_path / f"out-{parallelism}-{extra_map}-{ignore_unclaimed}"), extra_map)
        return env.execute("counts, second run")

    second_run(3, extra_map=False, ignore_unclaimed=False)  # rescaled: test_savepoints.py
    # an operator added after the source shifts the node ids: without uids the keyed counts
    # (node 4, Reduce) find no operator (node 4 is another one now)
    with pytest.raises(
        Exception, match="the state of operator node:4:Reduce matches no operator of this job"
    ):
        second_run(2, extra_map=True, ignore_unclaimed=False)
    second_run(2, extra_map=True, ignore_unclaimed=True)  # dropped: starts afresh


def test_with_uids_the_state_finds_its_operators_in_a_changed_program(program, tmp_path):  # type: ignore[no-untyped-def]
    """An operator inserted after the source changes the chains and shifts every node id; the
    source, the keyed counts and the sink have uids, so their state is found again."""
    from millstream.datastream import StreamExecutionEnvironment

    _path, module = program
    out = tmp_path / "out"
    job_dir = first_run_cancelled_after_checkpoints(module, tmp_path, out, uids=True)
    conf = Configuration().set_string("execution.state-recovery.path", str(job_dir))
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    module.build(env, str(out), extra_map=True, uids=True)
    env.execute("counts, changed")
    # counts continue from the checkpoint in the changed program: each committed once
    assert all_rolling_counts_once(committed_lines(out))
