"""An unchanged job file (split over two modules) runs on Spark from the command line,
with the target given by the ``millstream run`` flags or by a configuration file."""

from __future__ import annotations

import os
import shutil
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
        timeout=240,  # a JVM and its Python workers on a loaded machine (the test has 300 s)
        env={**os.environ, **(env or {})},
    )


def test_run_with_target_spark_flags(tmp_path):
    result = run(["--target", "spark", "--spark-master", "local[2]", write_job(tmp_path)])
    assert result.returncode == 0, result.stderr[-3000:]
    # BATCH semantics on Spark: the final count of each word
    assert "[('a', 3), ('b', 3), ('c', 1)]" in result.stdout
    # the job is in STREAMING mode (the default): the submission says, once, what that changes
    warnings = [line for line in result.stderr.splitlines() if "runs on Spark with BATCH semantics" in line]
    assert len(warnings) == 1, result.stderr[-3000:]
    assert warnings[0].startswith("WARNING millstream: Job 'cli word count' is bounded and runs on Spark")
    assert "'Reduce': each key's final value only, no rolling update per record" in warnings[0]


def test_target_from_the_configuration_directory(tmp_path):
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "config.yaml").write_text(
        "# deployment settings\nexecution.target: spark\nspark.master: local[1]\n"
    )
    result = run([write_job(tmp_path)], env={"MILLSTREAM_CONF_DIR": str(conf)})
    assert result.returncode == 0, result.stderr[-3000:]
    assert "[('a', 3), ('b', 3), ('c', 1)]" in result.stdout


SHARED_LIB = """
def shout(word):
    return word.upper() + "!"
"""

CLUSTER_JOB = """
import os
import sys

sys.path.insert(0, {lib_dir!r})  # the client imports the library from where it lives

import shared_lib
from helpers import tokens

from millstream.datastream import StreamExecutionEnvironment

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
env.add_python_file({lib_file!r})  # ... and ships it to the executors
words = (
    env.from_collection(["A b a", "c A b", "b"] * 10)
    .rebalance()
    .flat_map(tokens)
    .map(lambda w: (shared_lib.shout(w), os.getcwd()))
)
with words.execute_and_collect("cluster job") as results:
    results = list(results)
print(sorted({{w for w, _ in results}}))
print("executors:", len({{where for _, where in results}}))
print("work:", sorted({{os.path.dirname(where) for _, where in results}}))
"""


def test_a_two_file_job_with_a_shipped_library_runs_on_a_spark_cluster(tmp_path):
    """local-cluster: a standalone master with two workers, each executor its own JVM and
    Python workers started in its own work directory, as on a real cluster. The job's
    helper module travels by value; a library outside the job's directory only reaches
    the executors because ``add_python_file`` ships it (``addPyFile``)."""
    job_dir, lib_dir = tmp_path / "job", tmp_path / "lib"
    job_dir.mkdir()
    lib_dir.mkdir()
    (job_dir / "helpers.py").write_text(textwrap.dedent(HELPERS))
    (lib_dir / "shared_lib.py").write_text(textwrap.dedent(SHARED_LIB))
    job = job_dir / "job.py"
    job.write_text(
        textwrap.dedent(CLUSTER_JOB).format(lib_dir=str(lib_dir), lib_file=str(lib_dir / "shared_lib.py"))
    )
    # local-cluster workers always work under $SPARK_HOME/work: this application's is removed
    from pyspark.find_spark_home import _find_spark_home

    work = os.path.join(_find_spark_home(), "work")
    before = set(os.listdir(work)) if os.path.isdir(work) else set()
    try:
        result = run(["--target", "spark", "--spark-master", "local-cluster[2,1,1024]", str(job)])
        assert result.returncode == 0, result.stderr[-3000:]
        assert "['A!', 'B!', 'C!']" in result.stdout
        # both executors ran the job's code, each in its own work directory of the application
        assert "executors: 2" in result.stdout
        assert f"work: ['{work}/app-" in result.stdout
    finally:
        for app in set(os.listdir(work) if os.path.isdir(work) else []) - before:
            shutil.rmtree(os.path.join(work, app), ignore_errors=True)
