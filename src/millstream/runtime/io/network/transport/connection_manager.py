"""ConnectionManager: a TaskManager's data-plane server and its client connections.

::

    TaskManager A                                  TaskManager B
    ConnectionManager                              ConnectionManager
      server (host:port) <---- one TCP connection ---- client_for(A) (all of B's channels
        ServerConnection                                 reading partitions of A share it)
      client_for(B) ---------- one TCP connection ---> server

Flink's ``NettyConnectionManager``: listeners bind to 127.0.0.1 unless configured
otherwise, every connection passes the shared-secret handshake before a single message
is read, and connections are created on demand by the consuming side, one per producing
TaskManager. Coordinating code on the TaskManager's network loop.
"""

from __future__ import annotations

import asyncio
import logging

from millstream.runtime.io.network.partition.partition_manager import ResultPartitionManager
from millstream.runtime.io.network.transport.client import PartitionRequestClient
from millstream.runtime.io.network.transport.server import ServerConnection, TaskEventPublisher
from millstream.runtime.rpc import wire
from millstream.runtime.rpc.event_loop import EventLoopThread

__all__ = ["ConnectionManager"]

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10.0


class ConnectionManager:
    """Serves this TaskManager's partitions; connects to producers on demand."""

    def __init__(
        self,
        loop: EventLoopThread,
        secret: str,
        partition_manager: ResultPartitionManager,
        events: TaskEventPublisher | None = None,
    ) -> None:
        if not secret:
            raise ValueError("the data plane needs a shared secret")
        self._loop = loop
        self._secret = secret
        self._partitions = partition_manager
        self._events = events
        self._server: asyncio.base_events.Server | None = None  # owner: network loop
        self._clients: dict[tuple[str, int], asyncio.Future[PartitionRequestClient]] = {}  # network loop
        self._connections: set[ServerConnection] = set()  # owner: network loop
        self.address: tuple[str, int] | None = None

    def start(self, host: str = "127.0.0.1", port: int = 0) -> tuple[str, int]:
        """Listen for consumer TaskManagers; returns the bound address."""
        self.address = self._loop.run(self._start(host, port))
        return self.address

    async def _start(self, host: str, port: int) -> tuple[str, int]:
        self._server = await asyncio.start_server(self._accept, host, port)
        name = self._server.sockets[0].getsockname()
        return str(name[0]), int(name[1])

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not await wire.accept_authenticated(reader, writer, self._secret, "data", log, CONNECT_TIMEOUT_S):
            return
        connection = ServerConnection(reader, writer, self._partitions, self._events, wire.peer_name(writer))
        self._connections.add(connection)
        try:
            await connection.serve()
        finally:
            self._connections.discard(connection)

    def client_for(self, address: tuple[str, int]) -> PartitionRequestClient:
        """The (shared) connection to the TaskManager serving at ``address`` (task thread)."""
        return self._loop.run(self._client_for(tuple(address)), CONNECT_TIMEOUT_S + 5)  # type: ignore[arg-type]

    async def _client_for(self, address: tuple[str, int]) -> PartitionRequestClient:
        pending = self._clients.get(address)
        if pending is not None:
            if not pending.done():
                return await asyncio.shield(pending)
            if pending.exception() is None and not pending.result().is_closed:
                return pending.result()
        future: asyncio.Future[PartitionRequestClient] = asyncio.get_running_loop().create_future()
        self._clients[address] = future
        client = PartitionRequestClient(asyncio.get_running_loop(), address)
        try:
            await client.connect(self._secret, CONNECT_TIMEOUT_S)
        except BaseException as err:
            future.set_exception(err)
            future.exception()  # retrieved: a later request retries
            del self._clients[address]
            raise
        future.set_result(client)
        return client

    @property
    def number_of_client_connections(self) -> int:
        """Open connections to producer TaskManagers."""
        return sum(1 for f in self._clients.values() if f.done() and not f.exception())

    def close(self) -> None:
        """Stop serving and close every connection (not from the loop thread)."""
        self._loop.run_if_open(self._close(), 10)

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
        for connection in list(self._connections):
            connection.close()
        for future in self._clients.values():
            if future.done() and future.exception() is None:
                future.result().close()
        self._clients.clear()
