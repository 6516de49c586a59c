"""The REST API's token: derived from the cluster's secret, kept where the user's CLI finds it.

Reading the REST API needs nothing (it listens on loopback by default); a request that
changes state (cancel, stop, savepoint) carries ``Authorization: Bearer <token>``, where
the token is an HMAC of the cluster's shared secret: whoever holds the secret (the
cluster's ``secret`` file, ``-D security.secret-file``) can compute it, and the token does
not reveal the secret (which also authenticates the RPC and data connections).

A JobManager serving the REST API writes the token to
``~/.millstream/rest/<host>-<port>.token`` (``$MILLSTREAM_HOME`` instead of
``~/.millstream``), readable by its user only, and removes it when it stops, so
``millstream list/cancel -m HOST:PORT`` from another terminal of the same user needs no
flag. The dashboard gets it once through the address the JobManager prints
(``/?token=...``), which sets a same-site cookie.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

__all__ = [
    "TOKEN_COOKIE",
    "millstream_home",
    "read_token_file",
    "remove_token_file",
    "rest_token",
    "token_file",
    "write_token_file",
]

TOKEN_COOKIE = "millstream-token"
_CONTEXT = b"millstream-rest-v1"


def rest_token(secret: str) -> str:
    """The REST token of a cluster whose shared secret is ``secret``."""
    return hmac.new(secret.encode(), _CONTEXT, hashlib.sha256).hexdigest()


def millstream_home() -> Path:
    """``$MILLSTREAM_HOME``, or ``~/.millstream``."""
    return Path(os.environ.get("MILLSTREAM_HOME") or os.path.expanduser("~/.millstream"))


def token_file(host: str, port: int) -> Path:
    """Where the token of the REST API at ``host:port`` is kept."""
    safe_host = host.replace(":", "_").replace("/", "_")
    return millstream_home() / "rest" / f"{safe_host}-{port}.token"


def write_token_file(host: str, port: int, token: str) -> Path:
    """Write the token (directory 0700, file 0600, replaced atomically); its path."""
    path = token_file(host, port)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path.parent, 0o700)
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    os.replace(temporary, path)
    return path


def read_token_file(host: str, port: int) -> str | None:
    """The token kept for ``host:port`` (loopback names are tried alike), or None."""
    hosts = [host]
    if host in ("localhost", "127.0.0.1", "::1"):
        hosts += [h for h in ("127.0.0.1", "localhost", "::1") if h != host]
    for name in hosts:
        try:
            return token_file(name, port).read_text().strip() or None
        except OSError:
            continue
    return None


def remove_token_file(path: Path) -> None:
    """Remove a token file written by this process (it may be gone already)."""
    try:
        path.unlink()
    except FileNotFoundError:
        pass
