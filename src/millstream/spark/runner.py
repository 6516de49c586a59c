"""SparkExecutor: ``execution.target: spark`` runs a millstream JobGraph on Apache Spark.

Bounded jobs (every source bounded) run as Spark RDD jobs with Flink's BATCH semantics
(``millstream.spark.batch``); a bounded job in STREAMING mode gets one WARNING line on
the client's stderr at submission naming what that changes for it
(``support.batch_semantics_notice``). Unbounded jobs run as one Structured Streaming
query (``millstream.spark.streaming``).

The SparkSession: one handed over with ``use_session(spark)`` (notebooks), else the
active one, else a new one built from the configuration: ``spark.master`` (default
``local[*]``) and every other ``spark.*`` key passed through; the driver binds to
127.0.0.1 unless configured otherwise, and executors run the driver's interpreter
(``PYSPARK_PYTHON``). On a non-local master, millstream itself and the job's Python
files (``add_python_file``) are shipped to the executors with ``addPyFile``; functions
defined in the job script travel by value (cloudpickle).

The Spark job group and description name the millstream job; each vertex's RDD carries
the vertex name; ``execute()`` returns a JobExecutionResult whose accumulators hold the
Spark job ids (``spark.job-ids``) and the records each vertex emitted
(``records-out:<vertex name>``).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import queue
import shlex
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from typing import Any

import millstream
from millstream.common.configuration import Configuration
from millstream.common.job_execution_result import JobExecutionException, JobExecutionResult, JobID, JobStatus
from millstream.common.job_listeners import notify_job_finished, notify_job_submitted
from millstream.graph.job_graph import JobGraph
from millstream.runtime.client_log import report_notice
from millstream.spark.failures import job_failure
from millstream.spark.streaming.client import StreamingJobClient
from millstream.spark.streaming.query import translate_streaming
from millstream.spark.support import batch_semantics_notice, is_unbounded
from millstream.spark.translation import SparkPlan, translate

__all__ = ["SparkExecutor", "SparkJobClient", "local_session", "use_session"]

_handed_session: Any = None
_END = object()


def use_session(spark: Any) -> None:
    """Run millstream jobs with ``execution.target: spark`` on this SparkSession (None: forget it)."""
    global _handed_session
    _handed_session = spark


LOCAL_DEFAULTS = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
}


_WORKER_PYTHON = """#!/bin/sh
# Spark's Python processes: the interpreter below, without PySpark's source archives on
# PYTHONPATH (see millstream.spark.runner._worker_python)
set -f
keep=
IFS=:
for entry in $PYTHONPATH; do
  case "$entry" in
    {lib_pattern}/*.zip) ;;
    *) keep="${{keep:+$keep:}}$entry" ;;
  esac
done
unset IFS
export PYTHONPATH="$keep"
exec {python} "$@"
"""


def _worker_python(master: str) -> str:
    """The interpreter Spark starts its Python processes with: this one (``PYSPARK_PYTHON``).

    Spark puts ``$SPARK_HOME/python/lib/pyspark.zip`` (and py4j's) first on its Python
    processes' PYTHONPATH. With a pip-installed PySpark, SPARK_HOME is the package itself,
    and every Python worker imports PySpark from that zip, which holds no bytecode: each
    one compiles PySpark afresh (0.65 s of CPU, against 0.15 s from the installed package).
    On a loaded machine that made Spark's driver-side workers (transformWithState's state
    schema, Python data sources) miss the fixed 10 s in which Spark waits for them to
    connect back ("Python worker failed to connect back"). On a master whose executors run
    on this machine, a small wrapper script (in the temporary directory, one per
    interpreter) drops those archives, so workers import the installed PySpark they
    duplicate; a cluster's executors run this interpreter's path as it is.
    """
    if not master.startswith("local") or os.name != "posix":
        return sys.executable
    try:
        # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
        import pyspark
    except ImportError:
        return sys.executable
    lib = os.path.join(os.path.dirname(os.path.abspath(pyspark.__file__)), "python", "lib")
    if not os.path.isfile(os.path.join(lib, "pyspark.zip")):
        return sys.executable
    script = _WORKER_PYTHON.format(python=shlex.quote(sys.executable), lib_pattern=shlex.quote(lib))
    digest = hashlib.sha256(script.encode()).hexdigest()[:16]
    path = os.path.join(tempfile.gettempdir(), f"millstream-pyspark-python-{os.getuid()}-{digest}")
    if not os.path.isfile(path):
        staging = f"{path}.{os.getpid()}"
        with open(staging, "w") as f:
            f.write(script)
        os.chmod(staging, 0o755)
        os.replace(staging, path)  # atomic: a concurrent session sees the whole script or none
    return path if os.access(path, os.X_OK) else sys.executable  # not on a noexec mount


def local_session(master: str = "local[2]", app_name: str = "millstream", **settings: str) -> Any:
    """A SparkSession on this machine bound to 127.0.0.1 (tests, benchmarks, notebooks)."""
    os.environ.setdefault("PYSPARK_PYTHON", _worker_python(master))
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in {**LOCAL_DEFAULTS, "spark.driver.memory": "2g", **settings}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _session(configuration: Configuration) -> Any:
    settings = {k: v for k, v in configuration.to_dict().items() if k.startswith("spark.")}
    settings.setdefault("spark.master", "local[*]")
    os.environ.setdefault("PYSPARK_PYTHON", _worker_python(settings["spark.master"]))
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark.sql import SparkSession

    if _handed_session is not None:
        return _handed_session
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    settings.setdefault("spark.app.name", "millstream")
    for key, value in LOCAL_DEFAULTS.items():
        settings.setdefault(key, value)
    builder = SparkSession.builder
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    atexit.register(spark.stop)
    return spark


def _ship_code(sc: Any, job_graph: JobGraph) -> None:
    """Executors get the job's Python files (``add_python_file``), and on a cluster millstream.

    ``local`` and ``local[n]`` run the Python workers next to the driver, where millstream
    is installed; ``local-cluster[...]`` and real masters start executors elsewhere.
    """
    for path in job_graph.job_config.python_files:
        sc.addPyFile(path)
    master = str(sc.master)
    if master == "local" or master.startswith("local["):
        return

    package_dir = os.path.dirname(millstream.__file__)
    archive = os.path.join(tempfile.mkdtemp(prefix="millstream-spark-"), "millstream.zip")
    with zipfile.ZipFile(archive, "w") as zf:
        for root, _, files in os.walk(package_dir):
            for name in files:
                if name.endswith(".py") or name == "py.typed":
                    path = os.path.join(root, name)
                    zf.write(path, os.path.relpath(path, os.path.dirname(package_dir)))
    sc.addPyFile(archive)


def _pickle_job_modules_by_value() -> None:
    """Modules of the job's own directory travel with the functions that use them.

    A job split over several files imports its helpers from the job script's directory;
    executors (on a cluster, or Python workers started elsewhere) cannot import those, so
    they are pickled by value, as cloudpickle does for the script itself.
    """
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark import cloudpickle

    script = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if not script or not os.path.isfile(script):
        return
    job_dir = os.path.dirname(os.path.abspath(script)) + os.sep
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if not path or name == "__main__" or name.startswith("millstream"):
            continue
        path = os.path.abspath(path)
        if path.startswith(job_dir) and "site-packages" not in path:
            try:
                cloudpickle.register_pickle_by_value(module)
            except ValueError:
                pass  # not importable by its name (nothing to register)


class SparkJobClient:
    """A job running on Spark: its result, cancellation and collected elements."""

    def __init__(self, job_graph: JobGraph, spark: Any, plan: SparkPlan) -> None:
        self._job_graph = job_graph
        self._spark = spark
        self._plan = plan
        self._group = f"millstream-{job_graph.job_id}"
        self._queues: dict[str, queue.Queue[Any]] = {cid: queue.Queue(maxsize=64) for cid in plan.collect_ids}
        self._done = threading.Event()
        self._error: BaseException | None = None
        self._result: JobExecutionResult | None = None
        self._cancelled = False
        self.started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name=f"spark job {job_graph.job_name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        sc = self._spark.sparkContext
        started = self.started = time.monotonic()
        try:
            sc.setJobGroup(
                self._group, f"millstream job '{self._job_graph.job_name}'", interruptOnCancel=True
            )
            for record in self._plan.run():
                q = self._queues.get(record[0])
                if q is not None:
                    self._put(q, record[1])
            counts = self._plan.record_counts()
            job_ids = list(sc.statusTracker().getJobIdsForGroup(self._group))
            self._result = JobExecutionResult(
                JobID(self._job_graph.job_id),
                int((time.monotonic() - started) * 1000),
                {"spark.job-ids": sorted(job_ids), **{f"records-out:{k}": v for k, v in counts.items()}},
                self._job_graph.job_name,
            )
        except BaseException as err:
            self._error = err
        finally:
            self._done.set()
            for q in self._queues.values():
                self._put(q, _END)

    def _put(self, q: queue.Queue[Any], item: Any) -> None:
        while True:
            try:
                q.put(item, timeout=0.1)
                return
            except queue.Full:
                if self._cancelled:
                    return

    def get_job_id(self) -> JobID:
        """The millstream job id."""
        return JobID(self._job_graph.job_id)

    def get_job_execution_result(self, timeout: float | None = None) -> JobExecutionResult:
        """Wait for the Spark jobs; raise JobExecutionException naming the operator if they failed."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"job '{self._job_graph.job_name}' still runs on Spark")
        if self._cancelled:
            raise JobExecutionException(self._job_graph.job_id, "Job was cancelled")
        if self._error is not None:
            raise job_failure(self._job_graph, self._error)
        assert self._result is not None
        return self._result

    def result_done(self) -> bool:
        """Whether the job's Spark jobs ended."""
        return self._done.is_set()

    def get_job_status(self) -> Any:
        """RUNNING, FINISHED, FAILED or CANCELED."""
        if not self._done.is_set():
            return JobStatus.RUNNING
        if self._cancelled:
            return JobStatus.CANCELED
        return JobStatus.FAILED if self._error is not None else JobStatus.FINISHED

    def spark_status(self) -> dict[str, Any]:
        """The job's Spark jobs and stages now, from Spark's status tracker (the progress view)."""
        tracker = self._spark.sparkContext.statusTracker()
        jobs: list[dict[str, Any]] = []
        stages: list[dict[str, Any]] = []
        for job_id in sorted(tracker.getJobIdsForGroup(self._group)):
            info = tracker.getJobInfo(job_id)
            if info is None:
                continue
            jobs.append({"id": job_id, "status": str(info.status)})
            for stage_id in info.stageIds:
                if any(seen["id"] == stage_id for seen in stages):
                    continue  # a stage of an earlier job (skipped: its output is reused)
                stage = tracker.getStageInfo(stage_id)
                if stage is not None:
                    stages.append(
                        {
                            "id": stage_id,
                            "job": job_id,
                            "name": stage.name,
                            "tasks": stage.numTasks,
                            "active": stage.numActiveTasks,
                            "completed": stage.numCompletedTasks,
                            "failed": stage.numFailedTasks,
                        }
                    )
        return {
            "name": self._job_graph.job_name,
            "id": self._job_graph.job_id,
            "jobs": jobs,
            "stages": stages,
        }

    def collect(self, collect_id: str) -> Iterator[Any]:
        """The elements reaching collect sink ``collect_id``."""
        q = self._queues[collect_id]
        while True:
            item = q.get()
            if item is _END:
                self.get_job_execution_result()
                return
            yield item

    def cancel(self) -> None:
        """Cancel the job's Spark jobs."""
        if not self._done.is_set():
            self._cancelled = True
            self._spark.sparkContext.cancelJobGroup(self._group)

    def close(self, interrupted: bool = False) -> None:
        """Cancel the job if it still runs and wait for its thread (briefly after Ctrl-C)."""
        self.cancel()
        self._thread.join(timeout=5 if interrupted else 60)


class SparkExecutor:
    """The ``spark`` PipelineExecutor."""

    def execute_async(self, job_graph: JobGraph, configuration: Configuration) -> Any:
        """Translate the JobGraph and start its Spark jobs (a streaming query if unbounded).

        Raises:
            ValueError: the job asks to start from a millstream savepoint or checkpoint: Spark
                keeps a streaming query's state in its own checkpoint location (its RocksDB
                state store, by partition), which a millstream snapshot cannot become.
        """
        restore = job_graph.job_config.restore_path
        if restore:
            raise ValueError(
                f"execution.state-recovery.path={restore}: the Spark runner cannot start from a "
                "millstream savepoint or checkpoint (Spark restores a streaming query from its own "
                "checkpoint location, <execution.checkpointing.dir>/<job name>); run the job on "
                "the embedded runtime or a millstream cluster to restore it"
            )
        job_graph = job_graph.with_row_operators()  # Spark hosts the functions, not Arrow operators
        spark = _session(configuration)
        _ship_code(spark.sparkContext, job_graph)
        _pickle_job_modules_by_value()  # before translating: naming an RDD pickles its function
        client: Any
        if is_unbounded(job_graph):
            client = StreamingJobClient(job_graph, translate_streaming(job_graph, spark))
        else:
            plan = translate(job_graph, spark.sparkContext)
            notice = batch_semantics_notice(job_graph)
            if notice is not None:
                report_notice(notice)
            client = SparkJobClient(job_graph, spark, plan)
        notify_job_submitted(client)
        return client

    def execute(self, job_graph: JobGraph, configuration: Configuration) -> JobExecutionResult:
        """Run the job to completion on Spark."""
        client = self.execute_async(job_graph, configuration)
        try:
            return client.get_job_execution_result()
        finally:
            notify_job_finished(client)
            client.close()
