"""A small client of the JobManager's REST API, for the ``millstream`` job commands.

``-m HOST:PORT`` names the REST address (Flink's CLI means the same), default
``127.0.0.1:8081``. Requests that change state carry the cluster's token: derived from the
secret (``-D security.secret-file=FILE`` or ``MILLSTREAM_SECRET``), else read from the token
file the JobManager wrote for that address (``~/.millstream/rest``).
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any

from millstream.common import config_options as opts
from millstream.runtime.rpc.wire import load_secret
from millstream.web.auth import read_token_file, rest_token

__all__ = ["RestClient", "RestError", "parse_rest_address"]

DEFAULT_ADDRESS = "127.0.0.1:8081"


class RestError(RuntimeError):
    """The REST API answered with an error, or could not be reached (one line)."""


def parse_rest_address(address: str | None) -> tuple[str, int]:
    """``HOST:PORT`` (or ``http://HOST:PORT``) -> (host, port).

    Raises:
        ValueError: not HOST:PORT.
    """
    text = (address or DEFAULT_ADDRESS).strip().removeprefix("http://").rstrip("/")
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"-m/--jobmanager: expected HOST:PORT of the REST API, got {address!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


class RestClient:
    """Calls one JobManager's REST API."""

    def __init__(self, address: str | None, secret_file: str | None = None, timeout: float = 30.0) -> None:
        self.host, self.port = parse_rest_address(address)
        self._secret_file = secret_file
        self._timeout = timeout

    @property
    def base(self) -> str:
        """``http://host:port``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def _token(self) -> str | None:
        if self._secret_file:
            return rest_token(load_secret(None, self._secret_file, f"-D {opts.SECRET_FILE.key}=FILE"))
        secret = os.environ.get("MILLSTREAM_SECRET")
        if secret:
            return rest_token(secret.strip())
        return read_token_file(self.host, self.port)

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """The decoded JSON answer of ``method path``.

        Raises:
            RestError: the API refused (its error message) or could not be reached.
        """
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if method not in ("GET", "HEAD"):
            token = self._token()
            if token:
                request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as err:
            raise RestError(f"{method} {path}: {err.code} {_errors(err)}") from None
        except (urllib.error.URLError, OSError) as err:
            reason = getattr(err, "reason", err)
            raise RestError(
                f"no REST API answers at {self.host}:{self.port} ({reason}): is a JobManager running "
                "there? (-m HOST:PORT; an embedded job serves it with millstream run --web-ui)"
            ) from None
        return json.loads(text) if text else {}


def _errors(err: urllib.error.HTTPError) -> str:
    try:
        body = json.loads(err.read().decode() or "{}")
    except (ValueError, OSError):
        return err.reason or ""
    errors = body.get("errors") if isinstance(body, dict) else None
    return "; ".join(str(e) for e in errors) if errors else str(err.reason or "")
