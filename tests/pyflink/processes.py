"""Processes started by a test: each killed (with its children) when the test ends."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable
from typing import Any

import psutil

from millstream.runtime.rpc.event_loop import EventLoopThread
from millstream.runtime.rpc.service import RpcService


class ProcessGroup:
    """Start commands; on exit, kill every process started (and its descendants)."""

    def __init__(self) -> None:
        self.processes: list[subprocess.Popen[str]] = []

    def start(self, args: list[str], **kwargs: Any) -> subprocess.Popen[str]:
        """Start ``args`` with stdout and stderr captured as text."""
        process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            **kwargs,
        )
        self.processes.append(process)
        return process

    def wait_for_port(self, port: int, owner: subprocess.Popen[str], timeout: float = 30.0) -> None:
        """Until something listens on 127.0.0.1:``port``; fails if ``owner`` exits first."""

        def listening() -> bool:
            assert owner.poll() is None, f"exited with {owner.returncode}: {owner.communicate()[1]}"
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return True
            except OSError:
                return False

        wait_until(listening, timeout, f"nothing listens on port {port}")

    def __enter__(self) -> ProcessGroup:
        return self

    def __exit__(self, *exc: object) -> None:
        for process in self.processes:
            try:
                children = psutil.Process(process.pid).children(recursive=True)
            except psutil.NoSuchProcess:
                children = []
            for p in [*children]:
                try:
                    p.kill()
                except psutil.NoSuchProcess:
                    pass
            if process.poll() is None:
                process.kill()
            process.communicate()


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``condition`` (an observable state, not a delay) until true or ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s: {what}")
        time.sleep(0.05)


def list_jobs(port: int, secret: str) -> list[tuple[str, str, str]]:
    """(job id, name, status) of the jobs the JobManager on 127.0.0.1:``port`` runs."""
    loop = EventLoopThread("test-client-io")
    loop.start()
    rpc = RpcService(loop, secret)
    try:
        jobs: list[tuple[str, str, str]] = (
            rpc.connect("127.0.0.1", port).call("jobmanager", "list_jobs").result(10)
        )
        return jobs
    finally:
        rpc.close()
        loop.stop()
