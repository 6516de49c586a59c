"""A PostgreSQL server on this machine for tests and trials: Debian's ``postgresql``.

Each ``PostgresServer`` is a new database cluster (``initdb``) in a temporary directory,
served on a free port of 127.0.0.1 with ``wal_level = logical`` (so the postgres-cdc source
can decode its changes), password authentication over TCP and one database. It is gone when
it stops::

    with PostgresServer() as server:
        with server.connect() as conn:
            conn.execute("CREATE TABLE users (id INT PRIMARY KEY, name TEXT)")
        ... 'connector' = 'jdbc', 'url' = server.jdbc_url, 'username' = server.user ...

Run one by hand: ``python -m millstream.testing.postgres_server`` prints its address and
serves until interrupted.

The binaries are Debian's (``scripts/setup.sh`` installs the ``postgresql`` package when no
``initdb`` is found): ``initdb`` creates the cluster and ``pg_ctl`` stops it. The server is
started as a plain ``postgres`` child of a watchdog, so that it dies with the test run even
when no teardown runs. PostgreSQL refuses to run as root: under root the cluster belongs to
the ``postgres`` user that Debian's package creates, and the server runs as that user.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any

__all__ = ["PostgresServer", "postgres_bindir"]

START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 30.0


def postgres_bindir() -> str:
    """The directory of PostgreSQL's server binaries (``initdb``, ``postgres``, ``pg_ctl``).

    Debian keeps them in ``/usr/lib/postgresql/<major>/bin`` (not on PATH); the newest
    major version there wins, then an ``initdb`` on PATH."""
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda path: int(path.split("/")[4]) if path.split("/")[4].isdigit() else 0,
    )
    if candidates:
        return os.path.dirname(candidates[-1])
    on_path = shutil.which("initdb")
    if on_path:
        return os.path.dirname(os.path.realpath(on_path))
    raise RuntimeError(
        "PostgreSQL's server binaries (initdb) are not installed: run ./scripts/setup.sh, "
        "which installs Debian's postgresql package"
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _PortTaken(RuntimeError):
    """The server's port was taken by another process before the server bound it."""


class PostgresServer:
    """One PostgreSQL server on 127.0.0.1, in a temporary directory, with logical WAL
    (``settings``: server settings that replace or add to the defaults, e.g.
    ``{"wal_level": "replica"}``)."""

    def __init__(
        self,
        port: int = 0,
        user: str = "millstream",
        password: str = "millstream",
        settings: dict[str, str] | None = None,
    ) -> None:
        self._settings = dict(settings or {})  # server settings over the defaults (wal_level ...)
        self._any_port = not port
        self.port = port or _free_port()
        self.user = user
        self.password = password
        self.database = "millstream"
        self.host = "127.0.0.1"
        self._dir: str | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._bindir = ""
        self._as_root = os.geteuid() == 0

    # -- addresses ------------------------------------------------------------------------

    @property
    def jdbc_url(self) -> str:
        """The server's database as a JDBC URL (``jdbc:postgresql://127.0.0.1:port/db``)."""
        return f"jdbc:postgresql://{self.host}:{self.port}/{self.database}"

    @property
    def dsn(self) -> str:
        """libpq's connection string for the server's database (psycopg, psql)."""
        return (
            f"host={self.host} port={self.port} dbname={self.database} "
            f"user={self.user} password={self.password}"
        )

    def connect(self, autocommit: bool = True, **kwargs: Any) -> Any:
        """A psycopg connection to the server's database (autocommit by default)."""
        # psycopg is optional (the [postgres] extra): imported when a server is used
        import psycopg

        return psycopg.connect(self.dsn, autocommit=autocommit, **kwargs)

    def execute(self, *statements: str) -> None:
        """Run SQL statements on the server's database, each committed."""
        with self.connect() as conn:
            for statement in statements:
                conn.execute(statement.encode())  # bytes: psycopg's literal SQL, no placeholders

    def query(self, statement: str) -> list[tuple[Any, ...]]:
        """The rows of one query."""
        with self.connect() as conn:
            return list(conn.execute(statement.encode()).fetchall())

    # -- life cycle ----------------------------------------------------------------------

    def _run_as_owner(self, command: list[str]) -> list[str]:
        """``command`` run as the cluster's owner: ``postgres`` under root (exec, no fork)."""
        if not self._as_root:
            return command
        return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", *command]

    def _initdb(self) -> None:
        self._bindir = postgres_bindir()
        self._dir = tempfile.mkdtemp(prefix="millstream-postgres-")
        data = os.path.join(self._dir, "data")
        password_file = os.path.join(self._dir, "password")
        with open(password_file, "w") as out:
            out.write(self.password + "\n")
        if self._as_root:
            owner = pwd.getpwnam("postgres")
            for path in (self._dir, password_file):
                os.chown(path, owner.pw_uid, owner.pw_gid)
        command = [
            os.path.join(self._bindir, "initdb"),
            "-D",
            data,
            "-U",
            self.user,
            f"--pwfile={password_file}",
            "--auth-host=scram-sha-256",
            "--auth-local=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        ]
        done = subprocess.run(
            self._run_as_owner(command), capture_output=True, timeout=START_TIMEOUT_S, check=False
        )
        if done.returncode != 0:
            printed = (done.stdout + done.stderr).decode(errors="replace")[-2000:]
            raise RuntimeError(f"initdb of the PostgreSQL test server failed ({done.returncode}): {printed}")

    def start(self, timeout_s: float = START_TIMEOUT_S) -> PostgresServer:
        """Create the cluster, start the server and wait until its database accepts logins.

        A free port is found by binding and releasing it, so another process may take it
        before the server binds it: the server then starts again on another free port."""
        if self._dir is None:
            self._initdb()
            self._start_server(timeout_s)
            if self._database_missing():
                self._admin_execute(f"CREATE DATABASE {self.database}")
        return self

    def _admin_connect(self) -> Any:
        """A connection to the cluster's ``postgres`` database (there before ours)."""
        # psycopg is optional (the [postgres] extra): imported when a server is used
        import psycopg

        conninfo = self.dsn.replace(f"dbname={self.database}", "dbname=postgres")
        return psycopg.connect(conninfo, autocommit=True, connect_timeout=2)

    def _admin_execute(self, statement: str) -> None:
        with self._admin_connect() as conn:
            conn.execute(statement.encode())

    def _database_missing(self) -> bool:
        with self._admin_connect() as conn:
            found = conn.execute(b"SELECT 1 FROM pg_database WHERE datname = 'millstream'").fetchone()
        return found is None

    def _start_server(self, timeout_s: float) -> None:
        for attempt in range(5):
            try:
                self._launch(timeout_s)
                return
            except _PortTaken:
                if not self._any_port or attempt == 4:
                    raise
                self.port = _free_port()

    def _launch(self, timeout_s: float) -> None:
        assert self._dir is not None
        data = os.path.join(self._dir, "data")
        log_path = os.path.join(self._dir, "server.log")
        settings = {
            "listen_addresses": self.host,
            "port": str(self.port),
            "unix_socket_directories": self._dir,
            "wal_level": "logical",
            "max_replication_slots": "16",
            "max_wal_senders": "16",
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "max_connections": "100",
            "shared_buffers": "32MB",
            **self._settings,
        }
        server = [os.path.join(self._bindir, "postgres"), "-D", data]
        for name, value in settings.items():
            server += ["-c", f"{name}={value}"]
        # under a watchdog that kills the server if this process dies without stop() (a test
        # run killed by a signal), so no server outlives its user
        watchdog = [sys.executable, "-m", "millstream.testing._orphan_watchdog", str(os.getpid())]
        log = open(log_path, "wb")  # noqa: SIM115 - the server's own output, read by log()
        if self._as_root:
            owner = pwd.getpwnam("postgres")
            os.chown(log_path, owner.pw_uid, owner.pw_gid)
        with log:
            self._process = subprocess.Popen(
                [*watchdog, *self._run_as_owner(server)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout_s
        while True:
            if self._process.poll() is not None:
                printed = self.log()
                code = self._process.returncode
                self._process = None
                if "could not bind" in printed or "Address already in use" in printed:
                    raise _PortTaken(f"port {self.port} was taken before the PostgreSQL test server bound it")
                self.stop()
                raise RuntimeError(f"the PostgreSQL test server exited with {code}: {printed}")
            if self._accepts_logins():
                return
            if time.monotonic() > deadline:
                printed = self.log()
                self.stop()
                raise RuntimeError(f"the PostgreSQL test server did not start in {timeout_s} s: {printed}")
            time.sleep(0.1)

    def _accepts_logins(self) -> bool:
        try:
            with self._admin_connect():
                return True
        except Exception:  # psycopg.OperationalError while the server starts
            return False

    def log(self) -> str:
        """What the server printed (its last 2,000 characters)."""
        if self._dir is None:
            return ""
        try:
            with open(os.path.join(self._dir, "server.log"), "rb") as log:
                return log.read().decode(errors="replace")[-2000:]
        except FileNotFoundError:
            return ""

    def stop(self) -> None:
        """Stop the server (``pg_ctl stop -m immediate``) and delete its cluster."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            assert self._dir is not None
            stop = [os.path.join(self._bindir, "pg_ctl"), "stop", "-D", os.path.join(self._dir, "data")]
            with contextlib.suppress(subprocess.TimeoutExpired, OSError):
                subprocess.run(
                    self._run_as_owner([*stop, "-m", "immediate", "-w", "-t", str(int(STOP_TIMEOUT_S))]),
                    capture_output=True,
                    timeout=STOP_TIMEOUT_S + 5,
                    check=False,
                )
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # the watchdog (and the server, if left)
            process.wait(timeout=STOP_TIMEOUT_S)
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    with PostgresServer() as server:
        print(
            f"PostgreSQL on {server.host}:{server.port}: {server.jdbc_url} user={server.user} "
            f"password={server.password} (Ctrl-C stops it)",
            flush=True,
        )
        with contextlib.suppress(KeyboardInterrupt):
            while server._process is not None and server._process.poll() is None:
                time.sleep(1.0)


if __name__ == "__main__":
    main()
