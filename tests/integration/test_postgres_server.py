"""The PostgreSQL test server itself (what the JDBC and postgres-cdc tests stand on): a new
cluster on a free 127.0.0.1 port with logical WAL and password logins, gone with its
directory when it stops, and never outliving the process that started it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import psycopg
import pytest

from millstream.testing.postgres_server import PostgresServer

pytestmark = pytest.mark.timeout(180)


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1.0)
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_a_new_cluster_serves_one_database_with_logical_wal_and_password_logins():
    with PostgresServer() as server:
        directory = server._dir
        assert server.jdbc_url == f"jdbc:postgresql://127.0.0.1:{server.port}/millstream"
        server.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)", "INSERT INTO t VALUES (1, 'a')")
        assert server.query("SELECT id, v FROM t") == [(1, "a")]
        assert server.query("SHOW wal_level") == [("logical",)]
        assert server.query("SHOW listen_addresses") == [("127.0.0.1",)]
        # a logical replication slot with Flink CDC's decoding plugin can be made
        assert server.query("SELECT slot_name FROM pg_create_logical_replication_slot('s', 'pgoutput')") == [
            ("s",)
        ]
        wrong = server.dsn.replace(f"password={server.password}", "password=wrong")
        with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
            psycopg.connect(wrong, connect_timeout=10).close()
        port = server.port
    assert not _port_open(port)
    assert directory is not None and not os.path.exists(directory)


def test_the_server_dies_with_the_process_that_started_it():
    """A test run killed by a signal runs no teardown: the server's watchdog kills it."""
    program = (
        "import time\n"
        "from millstream.testing.postgres_server import PostgresServer\n"
        "server = PostgresServer().start()\n"
        "print(server.port, flush=True)\n"
        "time.sleep(600)\n"
    )
    starter = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True)
    try:
        port = int(starter.stdout.readline())  # type: ignore[union-attr]
        assert _port_open(port)
    finally:
        os.kill(starter.pid, signal.SIGKILL)
        starter.wait(30)
    deadline = time.monotonic() + 60
    while _port_open(port):
        assert time.monotonic() < deadline, "the server outlived the process that started it"
        time.sleep(0.1)  # polling an observable condition, bounded by the deadline


def test_a_server_whose_free_port_was_taken_meanwhile_starts_on_another():
    server = PostgresServer()
    taken = server.port
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", taken))
        squatter.listen()
        with server:
            assert server.port != taken
            assert server.query("SELECT 1") == [(1,)]
