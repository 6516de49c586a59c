"""The JobManager's REST API (Flink's paths and JSON) and the web dashboard, on aiohttp.

It runs on the JobManager's event loop (the thread of its RPC), so it adds no thread of
its own; every document is built from what the Dispatcher and the JobMasters report
(``JobDetails``, task metrics sampled by the TaskManagers, the TaskManager registry), read
through their own threads (``call_async``), never by touching their state from here.

Reading is open to whoever reaches the listener (``rest.bind-address``, loopback by
default); a request that changes state (cancel, stop, savepoint) needs the cluster's token
(``auth.py``): ``Authorization: Bearer <token>`` or the dashboard's cookie, else 401
(none given) or 403 (a wrong one). ``openapi.json`` (kept beside this module, served at
``/openapi.json``) describes every path; a test checks they agree.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web

from millstream import __version__
from millstream.common import rest_options
from millstream.common.configuration import Configuration
from millstream.runtime.log_files import process_log_files, read_log_file
from millstream.web import flink_json
from millstream.web.auth import TOKEN_COOKIE, remove_token_file, rest_token, write_token_file

__all__ = ["RestEndpoint", "start_rest_endpoint"]

log = logging.getLogger(__name__)

METRICS_TIMEOUT_S = 5.0  # a TaskManager that does not answer leaves its tasks' metrics out
TASK_MANAGER_TIMEOUT_S = 30.0  # a request to one TaskManager (its logs)
UNANSWERED = "unansweredTaskManagers"  # the TaskManagers whose tasks' metrics are missing
CALL_TIMEOUT_S = 30.0
SAVEPOINT_TRIGGERS = 64  # the newest savepoint requests whose status is kept
_TERMINAL = ("FINISHED", "CANCELED", "FAILED")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _now() -> int:
    return int(time.time() * 1000)


def _json(body: Any, status: int = 200) -> web.Response:
    return web.json_response(body, status=status, dumps=lambda v: json.dumps(v, default=str))


def _error(status: int, message: str) -> web.Response:
    return _json({"errors": [message]}, status)


def _metrics_answer(body: Any, unanswered: tuple[str, ...]) -> web.Response:
    """A document built from the tasks' metrics, naming the TaskManagers that did not send
    theirs (a key of a JSON object, and a header for any document)."""
    if unanswered and isinstance(body, dict):
        body = {**body, UNANSWERED: list(unanswered)}
    response = _json(body)
    if unanswered:
        response.headers["Millstream-Unanswered-TaskManagers"] = ", ".join(unanswered)
    return response


def _not_found(message: str) -> web.HTTPNotFound:
    return web.HTTPNotFound(text=json.dumps({"errors": [message]}), content_type="application/json")


async def _wait(future: Future[Any], timeout: float = CALL_TIMEOUT_S) -> Any:
    return await asyncio.wait_for(asyncio.wrap_future(future), timeout)


class RestEndpoint:
    """Serves the REST API and the dashboard for one JobManager."""

    def __init__(self, services: Any, configuration: Configuration, secret: str) -> None:
        self._services = services
        self._configuration = configuration
        self._token = rest_token(secret)
        self._triggers: OrderedDict[str, tuple[str, Future[str]]] = OrderedDict()  # loop thread
        self._runner: web.AppRunner | None = None
        self._token_path: Path | None = None
        self.address: tuple[str, int] | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> tuple[str, int]:
        """Listen on ``rest.bind-address:rest.port``; the address it listens on.

        Raises:
            OSError: the port cannot be listened on (one line naming it).
        """
        host = self._configuration.get(rest_options.REST_BIND_ADDRESS)
        port = self._configuration.get(rest_options.REST_PORT)
        loop = self._services.loop
        loop.start()
        try:
            self.address = loop.run(self._start(host, port), timeout=30)
        except OSError as err:
            raise OSError(
                err.errno, f"the REST API cannot listen on {host}:{port}: {err.strerror or err}"
            ) from None
        self._token_path = write_token_file(self.address[0], self.address[1], self._token)
        log.info("REST API and web dashboard listening at %s", self.url)
        return self.address

    async def _start(self, host: str, port: int) -> tuple[str, int]:
        app = web.Application(middlewares=[self._authenticate])
        self._routes(app)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, host, port, reuse_address=True)
        await site.start()
        self._runner = runner
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        bound = sockets[0].getsockname() if sockets else (host, port)
        return str(bound[0]), int(bound[1])

    @property
    def url(self) -> str:
        """``http://host:port``."""
        assert self.address is not None
        host, port = self.address
        return f"http://{host if ':' not in host else f'[{host}]'}:{port}"

    @property
    def dashboard_url(self) -> str:
        """The dashboard's address with the token (opening it lets the page cancel and stop)."""
        return f"{self.url}/?token={self._token}"

    def close(self) -> None:
        """Stop listening; remove the token file."""
        runner, self._runner = self._runner, None
        if runner is not None:
            try:
                self._services.loop.run_if_open(runner.cleanup(), timeout=10)
            except Exception:
                log.debug("closing the REST API failed", exc_info=True)
        if self._token_path is not None:
            remove_token_file(self._token_path)
            self._token_path = None

    # -- authentication ----------------------------------------------------------------------

    @web.middleware
    async def _authenticate(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return await handler(request)
        header = request.headers.get("Authorization", "")
        given = header[7:].strip() if header.startswith("Bearer ") else request.cookies.get(TOKEN_COOKIE)
        if not given:
            return _error(
                401,
                "this request changes the cluster's state: it needs the cluster's token "
                "(Authorization: Bearer <token>; millstream's CLI finds it in ~/.millstream/rest)",
            )
        if not hmac.compare_digest(given.encode(), self._token.encode()):
            return _error(403, "the token does not match this cluster's")
        return await handler(request)

    # -- routes ------------------------------------------------------------------------------

    def _routes(self, app: web.Application) -> None:
        get, add = app.router.add_get, app.router.add_route
        get("/config", self._config)
        get("/overview", self._overview)
        get("/jobs", self._jobs)
        get("/jobs/overview", self._jobs_overview)
        get("/jobs/{jobid}", self._job)
        add("PATCH", "/jobs/{jobid}", self._cancel)
        get("/jobs/{jobid}/plan", self._plan)
        get("/jobs/{jobid}/exceptions", self._exceptions)
        get("/jobs/{jobid}/checkpoints", self._checkpoints)
        get("/jobs/{jobid}/checkpoints/config", self._checkpoint_config)
        get("/jobs/{jobid}/checkpoints/details/{checkpointid}", self._checkpoint_details)
        get("/jobs/{jobid}/vertices/{vertexid}", self._vertex)
        get("/jobs/{jobid}/vertices/{vertexid}/backpressure", self._backpressure)
        get("/jobs/{jobid}/vertices/{vertexid}/watermarks", self._watermarks)
        get("/jobs/{jobid}/vertices/{vertexid}/metrics", self._vertex_metrics)
        add("POST", "/jobs/{jobid}/savepoints", self._trigger_savepoint)
        get("/jobs/{jobid}/savepoints/{triggerid}", self._savepoint_status)
        add("POST", "/jobs/{jobid}/stop", self._stop)
        get("/taskmanagers", self._task_managers)
        get("/taskmanagers/{taskmanagerid}", self._task_manager)
        get("/taskmanagers/{taskmanagerid}/logs", self._task_manager_logs)
        get("/taskmanagers/{taskmanagerid}/logs/{logname}", self._task_manager_log)
        get("/jobmanager/logs", self._job_manager_logs)
        get("/jobmanager/logs/{logname}", self._job_manager_log)
        get("/openapi.json", self._openapi)
        get("/", self._index)
        app.router.add_static("/static/", Path(str(resources.files("millstream.web") / "static")))

    # -- reading the JobManager -------------------------------------------------------------

    async def _jobs_now(self) -> tuple[list[Any], list[Any]]:
        masters, archived = await _wait(self._services.dispatcher.jobs())
        return masters, archived

    async def _job_and_metrics(
        self, job_id: str, metrics: bool = True
    ) -> tuple[Any, dict[str, Any], tuple[str, ...]]:
        """(JobDetails, live metrics by attempt, the TaskManagers that did not send theirs
        within ``METRICS_TIMEOUT_S``) of a job; raises HTTPNotFound."""
        masters, archived = await self._jobs_now()
        master = next((m for m in masters if m.job_graph.job_id == job_id), None)
        if master is None:
            details = next((d for d in reversed(archived) if d.job_id == job_id), None)
            if details is None:
                raise _not_found(f"Job {job_id} not found")
            return details, {}, ()
        details = await _wait(master.details())
        if not metrics:
            return details, {}, ()
        try:  # the JobMaster answers within the time with what came, naming who did not answer
            report = await _wait(master.request_task_metrics_report(METRICS_TIMEOUT_S), CALL_TIMEOUT_S)
        except TimeoutError:
            log.warning("task metrics of job %s did not come within %.0f s", job_id, CALL_TIMEOUT_S)
            return details, {}, ()
        return details, report.metrics, report.unanswered

    async def _master(self, job_id: str) -> Any:
        masters, archived = await self._jobs_now()
        master = next((m for m in masters if m.job_graph.job_id == job_id), None)
        if master is not None:
            return master
        ended = next((d for d in reversed(archived) if d.job_id == job_id), None)
        if ended is not None:
            raise web.HTTPConflict(
                text=json.dumps({"errors": [f"Job {job_id} is not running: it is {ended.status}"]}),
                content_type="application/json",
            )
        raise _not_found(f"Job {job_id} not found")

    # -- cluster -------------------------------------------------------------------------------

    async def _config(self, request: web.Request) -> web.Response:
        offset = -time.altzone if time.daylight and time.localtime().tm_isdst else -time.timezone
        return _json(
            {
                "refresh-interval": self._configuration.get(rest_options.WEB_REFRESH_INTERVAL),
                "timezone-name": time.tzname[0],
                "timezone-offset": offset * 1000,
                "flink-version": f"millstream {__version__}",
                "flink-revision": "",
                "features": {
                    "web-submit": False,
                    "web-cancel": True,
                    "web-rescale": False,
                    "web-history": False,
                },
            }
        )

    async def _overview(self, request: web.Request) -> web.Response:
        masters, archived = await self._jobs_now()
        managers, slots, free = await _wait(self._services.resource_manager.slot_report())
        statuses = [m.status.name for m in masters] + [d.status for d in archived]
        return _json(flink_json.overview(managers, slots, free, statuses))

    async def _jobs(self, request: web.Request) -> web.Response:
        masters, archived = await self._jobs_now()
        jobs = [{"id": m.job_graph.job_id, "status": m.status.name} for m in masters]
        jobs += [{"id": d.job_id, "status": d.status} for d in archived]
        return _json({"jobs": jobs})

    async def _jobs_overview(self, request: web.Request) -> web.Response:
        masters, archived = await self._jobs_now()
        now = _now()
        running = [await _wait(m.details()) for m in masters]
        entries = [flink_json.job_overview(d, now) for d in [*running, *reversed(archived)]]
        return _json({"jobs": entries})

    # -- one job -------------------------------------------------------------------------------

    async def _job(self, request: web.Request) -> web.Response:
        details, live, unanswered = await self._job_and_metrics(request.match_info["jobid"])
        return _metrics_answer(flink_json.job_detail(details, live, _now()), unanswered)

    async def _plan(self, request: web.Request) -> web.Response:
        details, _, _ = await self._job_and_metrics(request.match_info["jobid"], metrics=False)
        return _json({"plan": flink_json.plan(details)})

    async def _exceptions(self, request: web.Request) -> web.Response:
        details, _, _ = await self._job_and_metrics(request.match_info["jobid"], metrics=False)
        return _json(flink_json.exceptions(details))

    async def _checkpoints(self, request: web.Request) -> web.Response:
        details, _, _ = await self._job_and_metrics(request.match_info["jobid"], metrics=False)
        return _json(flink_json.checkpoints(details))

    async def _checkpoint_config(self, request: web.Request) -> web.Response:
        details, _, _ = await self._job_and_metrics(request.match_info["jobid"], metrics=False)
        if not details.checkpoint_config.get("enabled"):
            return _error(404, "Checkpointing is not enabled for this job")
        return _json(flink_json.checkpoint_config(details))

    async def _checkpoint_details(self, request: web.Request) -> web.Response:
        details, _, _ = await self._job_and_metrics(request.match_info["jobid"], metrics=False)
        wanted = request.match_info["checkpointid"]
        for entry in flink_json.checkpoints(details)["history"]:
            if str(entry["id"]) == wanted:
                return _json(entry)
        return _error(404, f"Could not find checkpointing statistics for checkpoint {wanted}")

    async def _vertex_document(
        self, request: web.Request, build: Callable[[Any, str, dict[str, Any]], Any]
    ) -> web.Response:
        details, live, unanswered = await self._job_and_metrics(request.match_info["jobid"])
        vertex_id = request.match_info["vertexid"]
        body = build(details, vertex_id, live)
        if body is None:
            return _error(404, f"Vertex {vertex_id} not found in job {details.job_id}")
        return _metrics_answer(body, unanswered)

    async def _vertex(self, request: web.Request) -> web.Response:
        return await self._vertex_document(
            request, lambda d, v, live: flink_json.vertex_detail(d, v, live, _now())
        )

    async def _backpressure(self, request: web.Request) -> web.Response:
        return await self._vertex_document(
            request, lambda d, v, live: flink_json.backpressure(d, v, live, _now())
        )

    async def _watermarks(self, request: web.Request) -> web.Response:
        return await self._vertex_document(request, flink_json.watermarks)

    async def _vertex_metrics(self, request: web.Request) -> web.Response:
        get = request.query.get("get")
        names = [n for n in get.split(",") if n] if get is not None else None
        return await self._vertex_document(
            request, lambda d, v, live: flink_json.vertex_metric_values(d, v, live, names)
        )

    # -- changing a job ------------------------------------------------------------------------

    async def _cancel(self, request: web.Request) -> web.Response:
        mode = request.query.get("mode", "cancel")
        if mode != "cancel":
            return _error(400, f"mode must be 'cancel', got {mode!r}")
        job_id = request.match_info["jobid"]
        await self._master(job_id)
        self._services.dispatcher.cancel_job(job_id)
        log.info("Job %s cancelled through the REST API from %s", job_id, request.remote)
        return _json({}, 202)

    async def _body(self, request: web.Request) -> dict[str, Any]:
        if not request.can_read_body:
            return {}
        try:
            body = await request.json()
        except (ValueError, json.JSONDecodeError):
            raise web.HTTPBadRequest(
                text=json.dumps({"errors": ["the request body is not JSON"]}), content_type="application/json"
            ) from None
        if not isinstance(body, dict):
            raise web.HTTPBadRequest(
                text=json.dumps({"errors": ["the request body must be a JSON object"]}),
                content_type="application/json",
            )
        return body

    def _remember(self, job_id: str, future: Future[str]) -> str:
        trigger_id = uuid.uuid4().hex
        self._triggers[trigger_id] = (job_id, future)
        while len(self._triggers) > SAVEPOINT_TRIGGERS:
            self._triggers.popitem(last=False)
        return trigger_id

    async def _trigger_savepoint(self, request: web.Request) -> web.Response:
        job_id = request.match_info["jobid"]
        body = await self._body(request)
        master = await self._master(job_id)
        directory = body.get("target-directory")
        future = master.trigger_savepoint(directory, False, False)
        if body.get("cancel-job"):  # Flink's cancel-with-savepoint: cancel once it is taken
            dispatcher = self._services.dispatcher
            future.add_done_callback(lambda f: f.exception() is None and dispatcher.cancel_job(job_id))
        return _json({"request-id": self._remember(job_id, future)}, 202)

    async def _stop(self, request: web.Request) -> web.Response:
        job_id = request.match_info["jobid"]
        body = await self._body(request)
        master = await self._master(job_id)
        future = master.trigger_savepoint(body.get("targetDirectory"), True, bool(body.get("drain")))
        return _json({"request-id": self._remember(job_id, future)}, 202)

    async def _savepoint_status(self, request: web.Request) -> web.Response:
        job_id, trigger_id = request.match_info["jobid"], request.match_info["triggerid"]
        entry = self._triggers.get(trigger_id)
        if entry is None or entry[0] != job_id:
            return _error(
                404, f"There is no savepoint operation with triggerId={trigger_id} for job {job_id}"
            )
        future = entry[1]
        if not future.done():
            return _json({"status": {"id": "IN_PROGRESS"}})
        error = future.exception()
        if error is not None:
            cause = {"class": type(error).__name__, "stack-trace": str(error), "serialized-throwable": ""}
            return _json({"status": {"id": "COMPLETED"}, "operation": {"failure-cause": cause}})
        return _json({"status": {"id": "COMPLETED"}, "operation": {"location": future.result()}})

    # -- TaskManagers --------------------------------------------------------------------------

    async def _task_manager_entries(self) -> list[dict[str, Any]]:
        registry = self._services.registry
        infos = registry.task_managers()
        slots = await _wait(self._services.resource_manager.slots_by_task_manager())
        now = _now()
        return [
            flink_json.task_manager(rid, info, slots.get(rid, {}), now) for rid, info in sorted(infos.items())
        ]

    async def _task_managers(self, request: web.Request) -> web.Response:
        entries = await self._task_manager_entries()
        for entry in entries:
            entry.pop("metrics", None)
            entry.pop("allocatedSlots", None)
        return _json({"taskmanagers": entries})

    async def _task_manager(self, request: web.Request) -> web.Response:
        wanted = request.match_info["taskmanagerid"]
        for entry in await self._task_manager_entries():
            if entry["id"] == wanted:
                return _json(entry)
        return _error(404, f"TaskManager {wanted} not found")

    async def _call_task_manager(self, tm_id: str, method: str, *args: Any) -> Any:
        """``method(*args)`` on TaskManager ``tm_id``; raises HTTPNotFound (no such TaskManager),
        HTTPGatewayTimeout (it did not answer: it hangs, or is overloaded) or
        HTTPServiceUnavailable (its connection is gone), each naming it."""
        try:
            future = self._services.registry.call_task_manager(tm_id, method, *args)
        except KeyError:
            raise web.HTTPNotFound(
                text=json.dumps({"errors": [f"TaskManager {tm_id} not found"]}),
                content_type="application/json",
            ) from None
        try:
            return await _wait(future, TASK_MANAGER_TIMEOUT_S)
        except TimeoutError:
            message = f"TaskManager {tm_id} did not answer within {TASK_MANAGER_TIMEOUT_S:.0f} s"
            raise web.HTTPGatewayTimeout(
                text=json.dumps({"errors": [message]}), content_type="application/json"
            ) from None
        except ConnectionError as err:
            raise web.HTTPServiceUnavailable(
                text=json.dumps({"errors": [f"TaskManager {tm_id} is not reachable: {err}"]}),
                content_type="application/json",
            ) from None

    async def _task_manager_logs(self, request: web.Request) -> web.Response:
        files = await self._call_task_manager(request.match_info["taskmanagerid"], "log_files")
        return _json({"logs": files})

    async def _task_manager_log(self, request: web.Request) -> web.Response:
        tm_id, name = request.match_info["taskmanagerid"], request.match_info["logname"]
        try:
            text = await self._call_task_manager(tm_id, "read_log", name)
        except FileNotFoundError:
            return _error(404, f"TaskManager {tm_id} has no log file {name}")
        return web.Response(text=text, content_type="text/plain")

    async def _job_manager_logs(self, request: web.Request) -> web.Response:
        return _json({"logs": process_log_files()})

    async def _job_manager_log(self, request: web.Request) -> web.Response:
        name = request.match_info["logname"]
        try:
            text = read_log_file(name)
        except FileNotFoundError:
            return _error(404, f"the JobManager has no log file {name}")
        return web.Response(text=text, content_type="text/plain")

    # -- documents -----------------------------------------------------------------------------

    async def _openapi(self, request: web.Request) -> web.Response:
        text = (resources.files("millstream.web") / "openapi.json").read_text()
        return web.Response(text=text, content_type="application/json")

    async def _index(self, request: web.Request) -> web.StreamResponse:
        token = request.query.get("token")
        if token is not None:  # the printed address: keep the token in a cookie, drop it from the URL
            if not hmac.compare_digest(token.encode(), self._token.encode()):
                return _error(403, "the token does not match this cluster's")
            response = web.Response(status=302, headers={"Location": "/"})
            response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="Strict")
            return response
        page = (resources.files("millstream.web") / "static" / "index.html").read_text()
        return web.Response(text=page, content_type="text/html")


def start_rest_endpoint(services: Any) -> RestEndpoint | None:
    """The JobManager's REST endpoint when ``rest.enabled`` (a plugin of JobManagerServices);
    None when it is off.

    Raises:
        OSError: the port cannot be listened on.
    """
    configuration: Configuration = services.configuration
    if not configuration.get(rest_options.REST_ENABLED):
        return None
    endpoint = RestEndpoint(services, configuration, services.secret)
    endpoint.start()
    return endpoint
