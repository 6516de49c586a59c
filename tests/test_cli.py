"""The millstream command: plan at every level and format, run with settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from millstream.cli.main import main

JOB = """
from millstream.datastream import StreamExecutionEnvironment
env = StreamExecutionEnvironment.get_execution_environment()
ds = env.from_collection([1, 2, 3]).map(lambda x: x * 2).name("double")
ds.key_by(lambda x: x % 2).sum().print()
env.execute("cli job")
"""


@pytest.fixture
def job(tmp_path):
    path = tmp_path / "job.py"
    path.write_text(JOB)
    return str(path)


def test_plan_stream_json_is_flinks_plan(job, capsys):
    assert main(["plan", "-p", "3", "--level", "stream", "--format", "json", job]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert [n["type"] for n in plan["nodes"]] == [
        "Source: Collection Source",
        "double",
        "Reduce",
        "Print to Std. Out",
    ]
    assert [n["parallelism"] for n in plan["nodes"]] == [1, 3, 3, 3]


def test_plan_job_and_execution_levels(job, capsys):
    assert main(["plan", "-p", "2", job]) == 0
    text = capsys.readouterr().out
    assert "Reduce -> Print to Std. Out  parallelism=2" in text and "<--HASH (ALL_TO_ALL)-- double" in text
    assert main(["plan", "-p", "2", "--level", "execution", job]) == 0
    text = capsys.readouterr().out
    assert "Reduce -> Print to Std. Out (2/2) <- double (1/2)[1], double (2/2)[1]" in text
    for level in ("stream", "job", "execution"):
        assert main(["plan", "--level", level, "--format", "dot", job]) == 0
        dot = capsys.readouterr().out
        assert dot.startswith("digraph") and "->" in dot and dot.rstrip().endswith("}")


def test_run_executes_with_settings(job):
    millstream = os.path.join(os.path.dirname(sys.executable), "millstream")
    result = subprocess.run([millstream, "run", "-p", "2", job], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    submitted, *lines = result.stdout.splitlines()
    assert submitted.startswith("Job has been submitted with JobID ")  # as `flink run` prints it
    # -p 2 reached the job: the parallel print sink prefixes subtask numbers.
    assert len(lines) == 3 and {line[:3] for line in lines} <= {"1> ", "2> "}
    sums = sorted(int(line[3:]) for line in lines)
    # 2, 4, 6 all have key 0: rolling sums end at 12 whatever the arrival order.
    assert sums[-1] == 12 and len(set(sums)) == 3


def test_run_with_checkpoints_reports_them_when_the_job_ends(job, tmp_path):
    millstream = os.path.join(os.path.dirname(sys.executable), "millstream")
    result = subprocess.run(
        [
            millstream,
            "run",
            "-D",
            "execution.checkpointing.interval=100 ms",
            "-D",
            f"execution.checkpointing.dir={tmp_path}",
            job,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    # a bounded job takes its final checkpoint before it ends (stdout keeps only the job's output)
    assert "checkpoints completed, 0 failed (last: " in result.stderr
    assert str(tmp_path) in result.stderr and "checkpoints" not in result.stdout


def test_run_reports_a_missing_file():
    with pytest.raises(SystemExit, match="no such job file"):
        main(["run", "/nonexistent/job.py"])
