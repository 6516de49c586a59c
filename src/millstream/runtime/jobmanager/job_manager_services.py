"""JobManagerServices: the JobManager's components and its RPC port, shared by every runner.

::

    RpcService on 127.0.0.1:port (shared secret)
      "taskmanagers" -> TaskManagerRegistry (registration, heartbeats, loss)
      "blobserver"   -> BlobServer (job files)
      "collect"      -> CollectRouter (execute_and_collect elements, to local or remote clients)
      "jobmanager"   -> this object (submit, result, cancel, list: the client API)
      "jobmaster/<job id>" -> each running JobMaster (task state updates)
    ResourceManager, Dispatcher
    plugins: the REST API and dashboard (``millstream.web``), when enabled

The embedded MiniCluster (with TaskManager processes) and the standalone
``millstream jobmanager`` process both run one of these. Coordinating code.
"""

from __future__ import annotations

import logging
import pickle
import shutil
import tempfile
import threading
from concurrent.futures import Future
from functools import partial
from typing import Any

from millstream.common import config_options as opts
from millstream.common.configuration import Configuration
from millstream.graph.job_graph import JobGraph
from millstream.runtime.blob import BlobCache, BlobServer
from millstream.runtime.jobmanager.collect import CollectChannels, CollectRouter
from millstream.runtime.jobmanager.collect_result_buffer import result_buffer_kind
from millstream.runtime.jobmanager.dispatcher import Dispatcher
from millstream.runtime.jobmanager.exception_history import ExceptionHistoryEntry
from millstream.runtime.jobmanager.job_master import JobMaster, JobResult
from millstream.runtime.jobmanager.resource_manager import ResourceManager
from millstream.runtime.jobmanager.task_manager_registry import TaskManagerRegistry
from millstream.runtime.plugins import close_plugins, start_plugins
from millstream.runtime.rpc.event_loop import EventLoopThread
from millstream.runtime.rpc.serialized_throwable import dumps_exception
from millstream.runtime.rpc.service import RpcService, current_connection

__all__ = ["JobManagerServices", "open_collect_channels"]

log = logging.getLogger(__name__)

# Services the operations tools add beside the RPC (``module:function(services)``, started
# with the JobManager, returning an object with close() or None when switched off); named
# here, imported when the JobManager starts, so the runtime never imports the tools.
PLUGINS: dict[str, str] = {
    "rest": "millstream.web.rest_server:start_rest_endpoint",
    "prometheus": "millstream.metrics.prometheus:start_job_manager_reporter",
}


def open_collect_channels(collect_channels: Any, job_graph: JobGraph) -> list[str]:
    """Open a channel for every collect sink of ``job_graph`` (showing the results as the
    job's checkpointing allows); returns their ids."""
    ids = []
    kind = result_buffer_kind(job_graph.job_config)
    for collect_id, parallelism in job_graph.collect_sinks():
        collect_channels.open(collect_id, parallelism, kind)
        ids.append(collect_id)
    return ids


def _tell_client(connection: Any, job_id: str, entry: ExceptionHistoryEntry) -> None:
    """Push a restart of the job to the client that submitted it (which may be gone)."""
    connection.call("jobclient", "job_restarting", job_id, entry).add_done_callback(lambda f: f.exception())


def _tell_client_notice(connection: Any, job_id: str, text: str) -> None:
    """Push a notice about the job (it waits for slots) to the client that submitted it."""
    connection.call("jobclient", "job_notice", job_id, text).add_done_callback(lambda f: f.exception())


class JobManagerServices:
    """ResourceManager, Dispatcher, TaskManager registry, blob server and collect channels on RPC."""

    CLIENT_RPC_METHODS = frozenset(
        {
            "submit_job",
            "job_result",
            "cancel_job",
            "list_jobs",
            "task_managers",
            "job_metrics",
            "trigger_savepoint",
            "job_exceptions",
            "rest_address",
            "job_details",
            "job_attempt_metrics",
        }
    )

    def __init__(self, configuration: Configuration, secret: str, collect_channels: CollectChannels) -> None:
        self.configuration = configuration
        self.secret = secret
        self.loop = EventLoopThread("jobmanager-io")
        self.rpc = RpcService(self.loop, secret)
        slot_request_timeout_s = configuration.get(opts.SLOT_REQUEST_TIMEOUT) / 1000
        self.resource_manager = ResourceManager(slot_request_timeout_s)
        self.dispatcher = Dispatcher(self.resource_manager, self.rpc, slot_request_timeout_s)
        self.blob_server = BlobServer()
        self.collect_channels = collect_channels
        self.collect_router = CollectRouter(collect_channels)
        self.registry = TaskManagerRegistry(
            self.resource_manager,
            self.loop,
            configuration.get(opts.HEARTBEAT_INTERVAL) / 1000,
            configuration.get(opts.HEARTBEAT_TIMEOUT) / 1000,
        )
        # made when the first job with user code arrives: a job manager killed before that
        # (or never given one) leaves nothing in the temporary directory
        self._work_dir: str | None = None
        self._blobs = BlobCache(self.blob_server.get_blob, self._make_work_dir)
        self.address: tuple[str, int] | None = None
        self._listening = False
        self.plugins: dict[str, Any] = {}  # name -> a started plugin (it has close()); see wait_for_plugins
        self._plugins_thread: threading.Thread | None = None
        self._plugins_error: BaseException | None = None

    def _make_work_dir(self) -> str:
        self._work_dir = tempfile.mkdtemp(prefix="millstream-jobmanager-")
        return self._work_dir

    def start(self, host: str = "127.0.0.1", port: int = 0) -> tuple[str, int]:
        """Start the components and listen; returns the RPC address."""
        self.resource_manager.start()
        self.dispatcher.start()
        self.loop.start()
        self._listening = True
        self.rpc.register("taskmanagers", self.registry, TaskManagerRegistry.RPC_METHODS)
        self.rpc.register("blobserver", self.blob_server, BlobServer.RPC_METHODS)
        self.rpc.register("collect", self.collect_router, CollectRouter.RPC_METHODS)
        self.rpc.register("jobmanager", self, self.CLIENT_RPC_METHODS)
        self.address = self.rpc.listen(host, port)
        # the plugins start beside what follows (an embedded cluster spawns its TaskManagers):
        # importing the HTTP server must not delay the job
        self._plugins_thread = threading.Thread(
            target=self._start_plugins, name="jobmanager-plugins", daemon=True
        )
        self._plugins_thread.start()
        return self.address

    def _start_plugins(self) -> None:
        """Start the plugins that are switched on (each reads its own options)."""
        try:
            self.plugins.update(start_plugins(PLUGINS, self))
        except BaseException as err:  # raised by wait_for_plugins, on the starting thread
            self._plugins_error = err

    def wait_for_plugins(self, timeout: float = 60.0) -> dict[str, Any]:
        """The started plugins, once they all started.

        Raises:
            OSError: a plugin could not start (its port is taken: one line naming it).
        """
        thread = self._plugins_thread
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                raise TimeoutError(f"the JobManager's plugins did not start within {timeout:.0f} s")
            self._plugins_thread = None
        if self._plugins_error is not None:
            error, self._plugins_error = self._plugins_error, None
            raise error
        return self.plugins

    # -- client API (RPC) -------------------------------------------------------------------

    def submit_job(self, job_graph_bytes: bytes, user_artifacts: tuple[str, ...]) -> str:
        """RPC from a client: install the job's files here, unpickle and start the job."""
        self._blobs.prepare(user_artifacts)  # the JobGraph holds user code
        job_graph: JobGraph = pickle.loads(job_graph_bytes)
        connection = current_connection()
        collect_ids = [collect_id for collect_id, _ in job_graph.collect_sinks()]
        if connection is not None and collect_ids:
            self.collect_router.route_to_client(collect_ids, connection)
        master = self.dispatcher.submit_job(job_graph, tuple(user_artifacts))
        if connection is not None:  # the client prints each restart (its "jobclient" endpoint)
            master.add_failover_listener(partial(_tell_client, connection, job_graph.job_id))
            master.add_notice_listener(partial(_tell_client_notice, connection, job_graph.job_id))
        return job_graph.job_id

    def job_result(self, job_id: str) -> Future[tuple[Any, ...]]:
        """RPC: the job's final (status, name, runtime ms, accumulators, pickled failure,
        exception history)."""
        master = self.dispatcher.job_masters.get(job_id)
        if master is None:
            raise KeyError(f"no running job {job_id}")
        result: Future[tuple[Any, ...]] = Future()

        def done(future: Future[JobResult]) -> None:
            r = future.result()
            failure = dumps_exception(r.failure) if r.failure is not None else None
            result.set_result(
                (
                    r.status.name,
                    r.job_name,
                    r.net_runtime_ms,
                    dict(r.accumulators),
                    failure,
                    r.exception_history,
                )
            )

        master.result.add_done_callback(done)
        return result

    def job_metrics(self, job_id: str) -> Future[dict[str, Any]]:
        """RPC: the running job's task metrics, by subtask."""
        master = self.dispatcher.job_masters.get(job_id)
        if master is None:
            raise KeyError(f"no running job {job_id}")
        return master.request_task_metrics()

    def job_details(self, job_id: str) -> Future[Any]:
        """RPC: a job's JobDetails (what the REST API and the progress view show), also as it
        ended."""
        return self.dispatcher.job_details(job_id)

    def job_attempt_metrics(self, job_id: str) -> Future[dict[str, Any]]:
        """RPC: the running job's task metrics by execution attempt."""
        return self._running(job_id).request_attempt_metrics()

    def _running(self, job_id: str) -> JobMaster:
        master = self.dispatcher.job_masters.get(job_id)
        if master is None:
            raise KeyError(f"no running job {job_id}")
        return master

    def job_exceptions(self, job_id: str) -> Future[tuple[int, list[ExceptionHistoryEntry]]]:
        """RPC: the running job's restarts so far and its exception history."""
        master = self.dispatcher.job_masters.get(job_id)
        if master is None:
            raise KeyError(f"no running job {job_id}")
        return master.exceptions()

    def trigger_savepoint(
        self, job_id: str, directory: str | None, stop: bool, drain: bool = False
    ) -> Future[str]:
        """RPC: take a savepoint of a running job (``stop``: then stop it; ``drain``: after the
        end of event time); its path."""
        master = self.dispatcher.job_masters.get(job_id)
        if master is None:
            raise KeyError(f"no running job {job_id}")
        return master.trigger_savepoint(directory, stop, drain)

    def cancel_job(self, job_id: str) -> None:
        """RPC: cancel a running job."""
        self.dispatcher.cancel_job(job_id)

    def rest_address(self) -> tuple[str, int] | None:
        """RPC: where the REST API listens (None: it is off)."""
        rest = self.wait_for_plugins().get("rest")
        return None if rest is None else tuple(rest.address)

    def list_jobs(self) -> list[tuple[str, str, str]]:
        """RPC: (job id, name, status) of every running job."""
        return [(jid, m.job_graph.job_name, m.status.name) for jid, m in self.dispatcher.job_masters.items()]

    def task_managers(self) -> dict[str, Any]:
        """RPC: registered TaskManagers and their latest reports."""
        return {str(rid): info for rid, info in self.registry.task_managers().items()}

    def submit_local(self, job_graph: JobGraph, user_artifacts: tuple[str, ...]) -> JobMaster:
        """Submit from this process (the embedded MiniCluster)."""
        open_collect_channels(self.collect_channels, job_graph)
        return self.dispatcher.submit_job(job_graph, user_artifacts)

    def start_in_process(self) -> None:
        """Start the components without listening: every TaskManager runs in this process."""
        self.resource_manager.start()
        self.dispatcher.start()
        self._start_plugins()

    def close(self) -> None:
        """Stop TaskManagers' connections, the components and the loop."""
        try:
            self.wait_for_plugins()
        except Exception:  # it failed to start: nothing of it to close
            pass
        close_plugins(self.plugins)
        self.dispatcher.stop()
        self.resource_manager.stop()
        if self._listening:
            self.rpc.close()
        self.loop.stop()
        if self._work_dir is not None:
            shutil.rmtree(self._work_dir, ignore_errors=True)
