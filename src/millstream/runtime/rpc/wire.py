"""Wire format shared by RPC and data connections: framing and the shared-secret handshake.

::

    frame  = length:u32 | magic:u32 | type:u8 | body      (length counts magic, type, body)

    client                                   server (listener)
      |  <-- HELLO  version, nonce_s (32 B) ---|
      |  --- AUTH   nonce_c, HMAC(secret, "client" | nonce_s | nonce_c) -->
      |  <-- AUTH_OK HMAC(secret, "server" | nonce_c | nonce_s) ---------|   (mutual)
      |  ... frames of the protocol on top (RPC messages, or data-plane messages) ...

Until both sides proved they hold the secret, frames are capped at ``PRE_AUTH_MAX``
bytes and nothing is unpickled: a peer without the secret, or one sending garbage, is
refused (the connection is closed and the attempt logged) and cannot make the listener
allocate or execute anything. The secret never travels; each side proves it with an
HMAC over both nonces, so replaying a recorded handshake fails.

``FrameDecoder`` is sans-IO (fed bytes, returns frames): the asyncio protocols of both
planes and the tests drive it the same way. Coordinating code, except ``FrameDecoder.feed``
which runs once per received chunk.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import os
import secrets
import struct
from collections.abc import Callable

from millstream.common.config_option import ConfigurationError

__all__ = [
    "MAGIC",
    "MAX_FRAME",
    "PRE_AUTH_MAX",
    "AuthenticationError",
    "FrameDecoder",
    "ProtocolError",
    "accept_authenticated",
    "client_handshake",
    "encode_frame",
    "generate_secret",
    "load_secret",
    "peer_name",
    "read_frames",
    "server_handshake",
]

MAGIC = 0x4D534D31  # "MSM1"
VERSION = 1
HEADER = struct.Struct(">IIB")  # length, magic, type
PRE_AUTH_MAX = 256
MAX_FRAME = 256 * 1024 * 1024
NONCE = 32

# Handshake frame types (the protocols on top use types >= 16).
HELLO = 1
AUTH = 2
AUTH_OK = 3


class ProtocolError(Exception):
    """A peer sent bytes that are not a valid frame."""


class AuthenticationError(ProtocolError):
    """A peer failed the shared-secret handshake."""


def generate_secret() -> str:
    """A fresh random secret (hex), e.g. one per MiniCluster."""
    return secrets.token_hex(32)


def load_secret(value: str | None, path: str | None, option: str = "--secret-file FILE") -> str:
    """The secret given directly, or read from ``path`` (first line), or from MILLSTREAM_SECRET.

    Args:
        value: the secret itself, if given.
        path: a file holding it (``~`` is expanded).
        option: how the caller's user names the secret file, for the error message.

    Raises:
        ConfigurationError: no secret, or the file is missing, unreadable or empty (a
            ValueError: one line naming the file and the option).
    """
    if value:
        return value
    if path:
        path = os.path.expanduser(path)
        try:
            with open(path) as f:
                text = f.readline().strip()
        except OSError as err:
            raise ConfigurationError(
                f"cannot read the secret file {path}: {err.strerror or err} ({option})"
            ) from err
        if not text:
            raise ConfigurationError(f"secret file {path} is empty ({option})")
        return text
    env = os.environ.get("MILLSTREAM_SECRET", "").strip()
    if env:
        return env
    raise ConfigurationError(
        f"no shared secret: pass {option} (or set MILLSTREAM_SECRET); every "
        "connection is authenticated because frames carry pickled code"
    )


def encode_frame(msg_type: int, body: bytes | bytearray | memoryview = b"") -> bytes:
    """One frame."""
    return HEADER.pack(HEADER.size - 4 + len(body), MAGIC, msg_type) + bytes(body)


def frame_header(msg_type: int, body_length: int) -> bytes:
    """The header of a frame whose body is written separately (no copy of a large body)."""
    return HEADER.pack(HEADER.size - 4 + body_length, MAGIC, msg_type)


class FrameDecoder:
    """Splits a byte stream into ``(type, body)`` frames."""

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self.max_frame = max_frame  # owner: the connection's loop
        self._buffer = bytearray()  # owner: the connection's loop

    def feed(self, data: bytes | bytearray | memoryview) -> list[tuple[int, bytes]]:
        """Add received bytes; return every frame now complete, in order."""
        buf = self._buffer
        buf += data
        frames: list[tuple[int, bytes]] = []
        pos = 0
        size = len(buf)
        header = HEADER.size
        with memoryview(buf) as view:
            while size - pos >= header:
                length, magic, msg_type = HEADER.unpack_from(buf, pos)
                if magic != MAGIC:
                    raise ProtocolError(f"bad magic number {magic:#010x}: not a millstream peer")
                if length < header - 4 or length > self.max_frame:
                    raise ProtocolError(f"frame of {length} bytes exceeds the limit of {self.max_frame}")
                end = pos + 4 + length
                if end > size:
                    break
                frames.append((msg_type, bytes(view[pos + header : end])))
                pos = end
        if pos:
            del buf[:pos]
        return frames

    @property
    def pending(self) -> int:
        """Bytes received that do not yet form a complete frame."""
        return len(self._buffer)


async def read_frames(
    reader: asyncio.StreamReader, on_frame: Callable[[int, bytes], None], chunk: int = 1 << 16
) -> None:
    """Hand every frame to ``on_frame`` until the peer closes (returns) or misbehaves (raises)."""
    decoder = FrameDecoder()
    while data := await reader.read(chunk):
        for msg_type, body in decoder.feed(data):
            on_frame(msg_type, body)


async def _read_frame(reader: asyncio.StreamReader, decoder: FrameDecoder) -> tuple[int, bytes]:
    """One frame from a stream during the handshake (small, so read in pieces)."""
    head = await reader.readexactly(HEADER.size)
    frames = decoder.feed(head)
    if not frames:
        length = HEADER.unpack(head)[0]
        frames = decoder.feed(await reader.readexactly(length - (HEADER.size - 4)))
    return frames[0]


def _mac(secret: str, label: bytes, first: bytes, second: bytes) -> bytes:
    return hmac.new(secret.encode(), label + first + second, hashlib.sha256).digest()


async def server_handshake(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, secret: str) -> None:
    """Authenticate a connecting peer; raises AuthenticationError/ProtocolError on failure."""
    decoder = FrameDecoder(PRE_AUTH_MAX)
    nonce_s = secrets.token_bytes(NONCE)
    writer.write(encode_frame(HELLO, struct.pack(">H", VERSION) + nonce_s))
    await writer.drain()
    msg_type, body = await _read_frame(reader, decoder)
    if msg_type != AUTH or len(body) != NONCE + 32:
        raise AuthenticationError("expected an AUTH frame")
    nonce_c, proof = body[:NONCE], body[NONCE:]
    if not hmac.compare_digest(proof, _mac(secret, b"client", nonce_s, nonce_c)):
        raise AuthenticationError("wrong shared secret")
    writer.write(encode_frame(AUTH_OK, _mac(secret, b"server", nonce_c, nonce_s)))
    await writer.drain()


async def client_handshake(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, secret: str) -> None:
    """Authenticate to a listener (and check that it holds the secret too)."""
    decoder = FrameDecoder(PRE_AUTH_MAX)
    msg_type, body = await _read_frame(reader, decoder)
    if msg_type != HELLO or len(body) != 2 + NONCE:
        raise AuthenticationError("expected a HELLO frame")
    (version,) = struct.unpack(">H", body[:2])
    if version != VERSION:
        raise AuthenticationError(f"peer speaks protocol version {version}, this is version {VERSION}")
    nonce_s = body[2:]
    nonce_c = secrets.token_bytes(NONCE)
    writer.write(encode_frame(AUTH, nonce_c + _mac(secret, b"client", nonce_s, nonce_c)))
    await writer.drain()
    try:
        msg_type, body = await _read_frame(reader, decoder)
    except (asyncio.IncompleteReadError, ConnectionError) as err:
        raise AuthenticationError(
            "the listener closed the connection during the handshake: is the shared secret the same?"
        ) from err
    if msg_type != AUTH_OK or not hmac.compare_digest(body, _mac(secret, b"server", nonce_c, nonce_s)):
        raise AuthenticationError("the listener failed to prove the shared secret")


def peer_name(writer: asyncio.StreamWriter) -> str:
    """``host:port`` of a connection's peer."""
    peer = writer.get_extra_info("peername")
    return f"{peer[0]}:{peer[1]}" if peer else "?"


async def accept_authenticated(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    secret: str,
    kind: str,
    log: logging.Logger,
    timeout: float = 10.0,
) -> bool:
    """Run the server handshake on an accepted connection; False (closed, logged) if refused.

    A connection closed before saying anything (a port probe) is logged at debug level,
    anything else refused as a warning.
    """
    try:
        await asyncio.wait_for(server_handshake(reader, writer, secret), timeout)
        return True
    except (ProtocolError, asyncio.IncompleteReadError, TimeoutError, OSError) as err:
        peer = peer_name(writer)
        if isinstance(err, asyncio.IncompleteReadError) and not err.partial:
            log.debug("%s connection from %s closed before the handshake", kind, peer)
        else:
            log.warning("refused %s connection from %s: %s", kind, peer, err or type(err).__name__)
        writer.close()
        return False
