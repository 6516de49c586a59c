"""RpcService: authenticated, bidirectional RPC between the JobManager, TaskManagers and clients.

::

    process A (e.g. TaskManager)                      process B (e.g. JobManager)
    RpcConnection.call("resourcemanager", "register_task_executor", ...)
        --RpcRequest(call_id, target, method, args)-->  RpcService._dispatch
                                                          endpoint = endpoints[target]
                                                          getattr(endpoint, method)(*args)
        <--RpcResponse(call_id, ok, value)------------   (a Future result is awaited)
    ... and B calls A's endpoints over the same connection ("taskexecutor", ...)

A connection is established by either side (the TaskManager connects to the JobManager),
authenticated with the shared secret (``wire``), then carries cloudpickled requests and
responses both ways. Only methods an endpoint lists in ``register(..., methods)`` can be
called, and they must not block: they queue work on the endpoint's main thread and
return a value or a ``concurrent.futures.Future``. During a call,
``current_connection()`` is the connection it came on (for registrations that call
back). A lost connection fails every pending call with ``RpcConnectionLost`` and tells
the close listeners.

Coordinating code: everything here runs on the process's EventLoopThread except the
thread-safe ``call`` / ``tell`` entry points.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import logging
import pickle
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import cloudpickle

from millstream.runtime.rpc import wire
from millstream.runtime.rpc.event_loop import EventLoopThread
from millstream.runtime.rpc.serialized_throwable import dumps_exception, loads_exception

__all__ = [
    "RemoteGateway",
    "RpcConnection",
    "RpcConnectionLost",
    "RpcService",
    "current_connection",
]

log = logging.getLogger(__name__)

RPC_REQUEST = 16
RPC_RESPONSE = 17
HANDSHAKE_TIMEOUT_S = 10.0
READ_CHUNK = 1 << 16

_current: contextvars.ContextVar[RpcConnection | None] = contextvars.ContextVar(
    "rpc_connection", default=None
)


def current_connection() -> RpcConnection | None:
    """The connection the RPC being dispatched arrived on (None outside a dispatch)."""
    return _current.get()


class RpcConnectionLost(ConnectionError):
    """The peer went away before answering."""


@dataclass(frozen=True, slots=True)
class RpcRequest:
    """A method call on a remote endpoint."""

    call_id: int
    target: str
    method: str
    args: tuple[Any, ...]
    one_way: bool


@dataclass(frozen=True, slots=True)
class RpcResponse:
    """The result of a call: a value, or a pickled exception when ``ok`` is false."""

    call_id: int
    ok: bool
    value: Any


class RpcService:
    """A process's RPC endpoints and connections, on its network loop."""

    def __init__(self, loop: EventLoopThread, secret: str) -> None:
        if not secret:
            raise ValueError("RPC needs a shared secret")
        self.loop = loop
        self.secret = secret
        self._lock = threading.Lock()
        self._endpoints: dict[str, tuple[Any, frozenset[str]]] = {}  # under _lock
        self._connections: set[RpcConnection] = set()  # owner: loop thread
        self._servers: list[asyncio.base_events.Server] = []  # owner: loop thread
        self.on_connection: Callable[[RpcConnection], None] | None = None

    # -- endpoints --------------------------------------------------------------------------

    def register(self, name: str, endpoint: Any, methods: frozenset[str] | set[str]) -> None:
        """Expose ``methods`` of ``endpoint`` under ``name``."""
        with self._lock:
            self._endpoints[name] = (endpoint, frozenset(methods))

    def unregister(self, name: str) -> None:
        """Stop exposing ``name``."""
        with self._lock:
            self._endpoints.pop(name, None)

    def _lookup(self, name: str) -> tuple[Any, frozenset[str]] | None:
        with self._lock:
            return self._endpoints.get(name)

    # -- connections ------------------------------------------------------------------------

    def listen(self, host: str, port: int = 0) -> tuple[str, int]:
        """Accept authenticated connections on ``host:port`` (0 = a free port); returns the address."""
        return self.loop.run(self._listen(host, port))

    async def _listen(self, host: str, port: int) -> tuple[str, int]:
        server = await asyncio.start_server(self._accept, host, port)
        self._servers.append(server)
        sockname = server.sockets[0].getsockname()
        return str(sockname[0]), int(sockname[1])

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not await wire.accept_authenticated(reader, writer, self.secret, "RPC", log, HANDSHAKE_TIMEOUT_S):
            return
        connection = RpcConnection(self, reader, writer, wire.peer_name(writer))
        self._connections.add(connection)
        if self.on_connection is not None:
            self.on_connection(connection)
        await connection.serve()

    def connect(self, host: str, port: int, timeout: float = 10.0) -> RpcConnection:
        """An authenticated connection to a listener (blocking; not from the loop thread)."""
        return self.loop.run(self._connect(host, port), timeout + 1)

    async def _connect(self, host: str, port: int, timeout: float = 10.0) -> RpcConnection:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        try:
            await asyncio.wait_for(wire.client_handshake(reader, writer, self.secret), timeout)
        except BaseException:
            writer.close()
            raise
        connection = RpcConnection(self, reader, writer, f"{host}:{port}")
        self._connections.add(connection)
        connection.serve_task = asyncio.ensure_future(connection.serve())
        return connection

    def _forget(self, connection: RpcConnection) -> None:
        self._connections.discard(connection)

    def close(self) -> None:
        """Stop listening and close every connection (blocking; not from the loop thread)."""
        self.loop.run_if_open(self._close(), 10)

    async def _close(self) -> None:
        for server in self._servers:
            server.close()
        for connection in list(self._connections):
            connection._close_now()
        self._servers.clear()


class RpcConnection:
    """One authenticated connection; calls go both ways."""

    def __init__(
        self, service: RpcService, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, peer: str
    ) -> None:
        self.service = service
        self.peer = peer
        self._reader = reader
        self._writer = writer
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._pending: dict[int, Future[Any]] = {}  # under _lock
        self._closed = False  # under _lock
        self._close_listeners: list[Callable[[RpcConnection], None]] = []  # under _lock
        self.serve_task: asyncio.Future[None] | None = None  # owner: loop thread

    @property
    def closed(self) -> bool:
        """Whether the connection is gone."""
        with self._lock:
            return self._closed

    def add_close_listener(self, listener: Callable[[RpcConnection], None]) -> None:
        """``listener(connection)`` runs on the loop when the connection closes (at once if closed)."""
        with self._lock:
            if not self._closed:
                self._close_listeners.append(listener)
                return
        listener(self)

    # -- outgoing ---------------------------------------------------------------------------

    def call(self, target: str, method: str, *args: Any) -> Future[Any]:
        """Call ``target.method(*args)`` on the peer; the future holds the result (any thread)."""
        future: Future[Any] = Future()
        call_id = next(self._ids)
        with self._lock:
            if self._closed:
                future.set_exception(RpcConnectionLost(f"connection to {self.peer} is closed"))
                return future
            self._pending[call_id] = future
        self._send(RpcRequest(call_id, target, method, args, False), future)
        return future

    def tell(self, target: str, method: str, *args: Any) -> None:
        """Call without waiting for (or receiving) a result (any thread)."""
        self._send(RpcRequest(next(self._ids), target, method, args, True), None)

    def _send(self, message: RpcRequest | RpcResponse, future: Future[Any] | None) -> None:
        is_request = isinstance(message, RpcRequest)
        try:
            body = cloudpickle.dumps(message)
        except Exception as err:
            if is_request:
                if future is not None:  # the caller learns that its arguments cannot travel
                    self._resolve(message.call_id, False, dumps_exception(err))
                    return
                raise
            body = cloudpickle.dumps(RpcResponse(message.call_id, False, dumps_exception(err)))
        frame = wire.encode_frame(RPC_REQUEST if is_request else RPC_RESPONSE, body)
        self.service.loop.call_soon(self._write, frame)

    def _write(self, frame: bytes) -> None:
        if not self._writer.is_closing():
            self._writer.write(frame)

    def gateway(self, target: str) -> RemoteGateway:
        """A proxy calling ``target``'s methods on the peer."""
        return RemoteGateway(self, target)

    # -- incoming ---------------------------------------------------------------------------

    async def serve(self) -> None:
        """Read frames until the connection ends (loop thread)."""
        try:
            await wire.read_frames(self._reader, self._on_frame, READ_CHUNK)
        except (wire.ProtocolError, pickle.UnpicklingError) as err:
            log.warning("closing RPC connection to %s: %s", self.peer, err)
        except (ConnectionError, OSError) as err:
            log.debug("RPC connection to %s lost: %s", self.peer, err)
        except asyncio.CancelledError:
            pass
        finally:
            self._close_now()

    def _on_frame(self, msg_type: int, body: bytes) -> None:
        message = pickle.loads(body)
        if msg_type == RPC_REQUEST and isinstance(message, RpcRequest):
            self._dispatch(message)
        elif msg_type == RPC_RESPONSE and isinstance(message, RpcResponse):
            self._resolve(message.call_id, message.ok, message.value)
        else:
            raise wire.ProtocolError(f"unexpected RPC frame type {msg_type}")

    def _dispatch(self, request: RpcRequest) -> None:
        entry = self.service._lookup(request.target)
        if entry is None or request.method not in entry[1]:
            what = "endpoint" if entry is None else "method"
            self._reply_error(request, LookupError(f"no RPC {what} {request.target}.{request.method}"))
            return
        token = _current.set(self)
        try:
            result = getattr(entry[0], request.method)(*request.args)
        except BaseException as err:
            self._reply_error(request, err)
            return
        finally:
            _current.reset(token)
        if request.one_way:
            if isinstance(result, Future):
                result.add_done_callback(lambda f: _log_failure(request, f))
            return
        if isinstance(result, Future):
            result.add_done_callback(lambda f: self._reply_future(request, f))
        else:
            self._send(RpcResponse(request.call_id, True, result), None)

    def _reply_future(self, request: RpcRequest, future: Future[Any]) -> None:
        err = future.exception()
        if err is not None:
            self._reply_error(request, err)
        else:
            self._send(RpcResponse(request.call_id, True, future.result()), None)

    def _reply_error(self, request: RpcRequest, err: BaseException) -> None:
        if request.one_way:
            log.warning("one-way RPC %s.%s failed: %s", request.target, request.method, err)
            return
        self._send(RpcResponse(request.call_id, False, dumps_exception(err)), None)

    def _resolve(self, call_id: int, ok: bool, value: Any) -> None:
        with self._lock:
            future = self._pending.pop(call_id, None)
        if future is None or future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(loads_exception(value))

    # -- closing ----------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection (any thread)."""
        self.service.loop.call_soon(self._close_now)

    def _close_now(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            pending, self._pending = self._pending, {}
            listeners, self._close_listeners = self._close_listeners, []
        self._writer.close()
        self.service._forget(self)
        # Listeners first: whoever watches the peer learns why before its pending calls fail.
        for listener in listeners:
            try:
                listener(self)
            except Exception:
                log.exception("close listener of RPC connection to %s failed", self.peer)
        lost = RpcConnectionLost(f"connection to {self.peer} lost")
        for future in pending.values():
            if not future.done():
                future.set_exception(lost)


def _log_failure(request: RpcRequest, future: Future[Any]) -> None:
    err = future.exception()
    if err is not None:
        log.warning("one-way RPC %s.%s failed: %s", request.target, request.method, err)


class RemoteGateway:
    """``gateway.method(*args)`` -> Future, calling ``target.method`` on the peer."""

    __slots__ = ("connection", "target")

    def __init__(self, connection: RpcConnection, target: str) -> None:
        self.connection = connection
        self.target = target

    def __getattr__(self, method: str) -> Callable[..., Future[Any]]:
        if method.startswith("_"):
            raise AttributeError(method)

        def invoke(*args: Any) -> Future[Any]:
            return self.connection.call(self.target, method, *args)

        return invoke
