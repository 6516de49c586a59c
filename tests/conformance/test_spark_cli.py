"""An unchanged job file (split over two modules) runs on Spark from the command line,
with the target given by the ``millstream run`` flags or by a configuration file."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

MILLSTREAM = os.path.join(os.path.dirname(sys.executable), "millstream")

HELPERS = """
def tokens(line):
    return [w.lower() for w in line.split()]


def add(a, b):
    return (a[0], a[1] + b[1])
"""

JOB = """
from helpers import add, tokens

from millstream.datastream import StreamExecutionEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
counts = (
    env.from_collection(["A b a", "c A b", "b"])
    .flat_map(tokens)
    .map(lambda w: (w, 1))
    .key_by(lambda p: p[0])
    .reduce(add)
)
with counts.execute_and_collect("cli word count") as results:
    print(sorted(results))
"""


def write_job(tmp_path) -> str:  # type: ignore[no-untyped-def]
    (tmp_path / "helpers.py").write_text(textwrap.dedent(HELPERS))
    job = tmp_path / "job.py"
    job.write_text(textwrap.dedent(JOB))
    return str(job)


def run(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``millstream run`` from another directory: the job's modules are not importable there."""
    return subprocess.run(
        [MILLSTREAM, "run", *args],
        cwd="/",
        capture_output=True,
        text=True,
        timeout=110,
        env={**os.environ, **(env or {})},
    )


def test_run_with_target_spark_flags(tmp_path):
    result = run(["--target", "spark", "--spark-master", "local[2]", write_job(tmp_path)])
    assert result.returncode == 0, result.stderr[-3000:]
    # BATCH semantics on Spark: the final count of each word
    assert "[('a', 3), ('b', 3), ('c', 1)]" in result.stdout


def test_target_from_the_configuration_directory(tmp_path):
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "config.yaml").write_text(
        "# deployment settings\nexecution.target: spark\nspark.master: local[1]\n"
    )
    result = run([write_job(tmp_path)], env={"MILLSTREAM_CONF_DIR": str(conf)})
    assert result.returncode == 0, result.stderr[-3000:]
    assert "[('a', 3), ('b', 3), ('c', 1)]" in result.stdout
