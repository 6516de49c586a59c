"""The ``cluster://HOST:PORT`` execution target: submit a job to a standalone JobManager.

The client connects with the shared secret (``security.secret-file`` or
MILLSTREAM_SECRET), uploads the job's Python files to the JobManager's blob server,
submits the pickled JobGraph and waits for the result. Elements of
``execute_and_collect`` sinks come back over the same connection: the JobManager
forwards each collect sink's batches to this client's ``collect`` endpoint, and the
sink waits until the client has room (backpressure reaches the job). Coordinating code.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

from millstream.common import config_options as opts
from millstream.common.configuration import Configuration
from millstream.common.job_execution_result import DetachedJobExecutionResult, JobExecutionResult, JobStatus
from millstream.common.job_listeners import notify_job_submitted
from millstream.common.user_code import dumps_user_code
from millstream.graph.job_graph import JobGraph
from millstream.runtime.blob import package_job_files
from millstream.runtime.client_log import announce_submission, report_notice, report_restart
from millstream.runtime.jobmanager.collect import CollectChannels
from millstream.runtime.jobmanager.exception_history import ExceptionHistoryEntry
from millstream.runtime.jobmanager.job_manager_services import open_collect_channels
from millstream.runtime.jobmanager.job_master import JobResult
from millstream.runtime.minicluster import JobClient
from millstream.runtime.rpc.event_loop import EventLoopThread
from millstream.runtime.rpc.serialized_throwable import loads_exception
from millstream.runtime.rpc.service import RpcService
from millstream.runtime.rpc.wire import ProtocolError, load_secret

__all__ = [
    "ClusterConnectionError",
    "ClusterExecutor",
    "call_job_manager",
    "connect_to_job_manager",
    "parse_cluster_target",
]


class ClusterConnectionError(ConnectionError):
    """The JobManager of a standalone cluster cannot be reached, or refused this client."""


def connect_to_job_manager(rpc: RpcService, address: tuple[str, int]) -> Any:
    """An authenticated connection to the JobManager at ``address``.

    Raises:
        ClusterConnectionError: one line saying what failed and what to check.
    """
    host, port = address
    try:
        return rpc.connect(host, port)
    except ConnectionRefusedError:
        raise ClusterConnectionError(
            f"no JobManager is listening at {host}:{port}: is the cluster running? "
            "(millstream cluster start, or millstream jobmanager)"
        ) from None
    except (TimeoutError, OSError) as err:
        raise ClusterConnectionError(f"cannot reach the JobManager at {host}:{port}: {err}") from None
    except ProtocolError as err:
        raise ClusterConnectionError(
            f"the JobManager at {host}:{port} refused this client: {err} (check "
            f"{opts.SECRET_FILE.key}: the cluster's secret file is in its --dir, e.g. "
            "~/.millstream/cluster/secret)"
        ) from None


def parse_cluster_target(target: str) -> tuple[str, int]:
    """``cluster://HOST:PORT`` -> (host, port)."""
    rest = target.removeprefix("cluster://")
    host, sep, port = rest.rpartition(":")
    if not target.startswith("cluster://") or not sep or not port.isdigit():
        raise ValueError(f"execution.target: expected cluster://HOST:PORT, got {target!r}")
    return host or "127.0.0.1", int(port)


def call_job_manager(
    target: str, secret_file: str | None, method: str, *args: Any, timeout: float = 600
) -> Any:
    """Call one RPC method of a standalone cluster's JobManager (``cluster://HOST:PORT``) and
    return its result (the CLI's ``savepoint`` and ``stop``)."""
    secret = load_secret(None, secret_file, f"-D {opts.SECRET_FILE.key}=FILE")
    loop = EventLoopThread("client-io")
    loop.start()
    rpc = RpcService(loop, secret)
    try:
        connection = connect_to_job_manager(rpc, parse_cluster_target(target))
        return connection.call("jobmanager", method, *args).result(timeout)
    finally:
        rpc.close()
        loop.stop()


class _RestartPrinter:
    """The client's ``jobclient`` endpoint: the JobManager tells it of each restart."""

    RPC_METHODS = frozenset({"job_restarting", "job_notice"})

    def __init__(self, job_name: str) -> None:
        self._job_name = job_name

    def job_restarting(self, job_id: str, entry: ExceptionHistoryEntry) -> None:
        """RPC: the job restarts after ``entry``'s failure: one line on stderr."""
        report_restart(self._job_name, entry)

    def job_notice(self, job_id: str, text: str) -> None:
        """RPC: something the user should know about the job (it waits for slots)."""
        report_notice(text)


class ClusterExecutor:
    """PipelineExecutor for a standalone cluster."""

    def __init__(self, target: str) -> None:
        self.address = parse_cluster_target(target)

    def execute_async(self, job_graph: JobGraph, configuration: Configuration) -> JobClient:
        """Submit the job; returns its client."""
        secret = load_secret(
            None, configuration.get(opts.SECRET_FILE) or None, f"-D {opts.SECRET_FILE.key}=FILE"
        )
        loop = EventLoopThread("client-io")
        loop.start()
        rpc = RpcService(loop, secret)

        def shutdown(force: bool = False) -> None:  # the cluster runs on; only the connection goes
            rpc.close()
            loop.stop()

        try:
            collect = CollectChannels()
            rpc.register("collect", collect, CollectChannels.RPC_METHODS)
            rpc.register("jobclient", _RestartPrinter(job_graph.job_name), _RestartPrinter.RPC_METHODS)
            connection = connect_to_job_manager(rpc, self.address)
            open_collect_channels(collect, job_graph)
            files = package_job_files(job_graph)
            keys = (connection.call("blobserver", "put_blob", files).result(),) if files else ()
            job_id = connection.call("jobmanager", "submit_job", dumps_user_code(job_graph), keys).result()
            announce_submission(job_id, configuration)
        except BaseException:
            shutdown()
            raise
        result: Future[JobResult] = Future()
        status = [JobStatus.RUNNING]

        def on_result(remote: Future[Any]) -> None:
            error = remote.exception()
            if error is not None:
                failure: BaseException = error
                result.set_result(JobResult(job_id, job_graph.job_name, JobStatus.FAILED, 0, failure))
            else:
                name, job_name, runtime_ms, accumulators, pickled, history = remote.result()
                failure_value = loads_exception(pickled) if pickled is not None else None
                result.set_result(
                    JobResult(
                        job_id,
                        job_name,
                        JobStatus[name],
                        runtime_ms,
                        failure_value,
                        accumulators,
                        list(history),
                    )
                )
            status[0] = result.result().status

        connection.call("jobmanager", "job_result", job_id).add_done_callback(on_result)
        client = JobClient(
            job_id,
            result,
            lambda: connection.call("jobmanager", "cancel_job", job_id).result(30),
            lambda: status[0],
            collect,
            shutdown,
            lambda: connection.call("jobmanager", "job_metrics", job_id),
            savepoint=lambda directory, stop, drain: connection.call(
                "jobmanager", "trigger_savepoint", job_id, directory, stop, drain
            ),
            exceptions=lambda: connection.call("jobmanager", "job_exceptions", job_id),
            details=lambda: connection.call("jobmanager", "job_details", job_id),
            attempt_metrics=lambda: connection.call("jobmanager", "job_attempt_metrics", job_id),
        )
        notify_job_submitted(client)
        return client

    def execute(self, job_graph: JobGraph, configuration: Configuration) -> JobExecutionResult:
        """Run the job on the cluster to completion; detached (``execution.attached`` false):
        submit it and return at once, leaving it running."""
        client = self.execute_async(job_graph, configuration)
        if configuration.get(opts.EXECUTION_ATTACHED):
            return client.run_to_completion()
        client.detach()
        return DetachedJobExecutionResult(client.get_job_id(), job_graph.job_name)
