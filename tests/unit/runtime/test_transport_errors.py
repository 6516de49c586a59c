"""A connection to a producer TaskManager that is gone fails with an error naming it and what
it probably means (Flink's "This might indicate that the remote task manager was lost"),
whether nothing listens any more or the peer closes before the handshake."""

from __future__ import annotations

import asyncio
import socket

import pytest

from millstream.runtime.io.network.consumer.remote_input_channel import RemoteTransportError
from millstream.runtime.io.network.transport.client import PartitionRequestClient

pytestmark = pytest.mark.timeout(30)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_nothing_listening_any_more():
    async def attempt() -> None:
        client = PartitionRequestClient(asyncio.get_running_loop(), ("127.0.0.1", _free_port()))
        await client.connect("secret", 5)

    with pytest.raises(
        RemoteTransportError, match=r"Connecting to remote TaskManager 127\.0\.0\.1:\d+ failed.*was lost"
    ):
        asyncio.run(attempt())


def test_the_peer_closes_before_the_handshake():
    async def attempt() -> None:
        async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.close()

        server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            client = PartitionRequestClient(asyncio.get_running_loop(), ("127.0.0.1", port))
            await client.connect("secret", 5)
        finally:
            server.close()
            await server.wait_closed()

    with pytest.raises(
        RemoteTransportError, match=r"The connection to remote TaskManager .* failed.*was lost"
    ):
        asyncio.run(attempt())
