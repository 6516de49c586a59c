"""This process's log files: what ``/taskmanagers/:id/logs`` and ``/jobmanager/logs`` list.

A JobManager or TaskManager started by ``millstream cluster start`` writes its output to
``jobmanager.log`` / ``taskmanager-<n>.log`` (its stderr and stdout are that file). The
process finds its own log files through its standard streams: a stream that is a regular
file is a log file (one of a terminal or a pipe is not). They are read through the
process (by RPC for a TaskManager), so logs of another host are shown too.
Coordinating code.
"""

from __future__ import annotations

import os
import stat
from typing import Any

__all__ = ["process_log_files", "read_log_file"]

READ_LIMIT = 1024 * 1024  # bytes of a log served at most (its end)


def _paths() -> dict[str, str]:
    paths: dict[str, str] = {}
    for fd in (2, 1):  # stderr first: the log; stdout when it is a file of its own (.out)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            path = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if os.path.isfile(path):
            paths.setdefault(os.path.basename(path), path)
    return paths


def process_log_files() -> list[dict[str, Any]]:
    """Name, size and modification time (epoch ms) of each log file of this process."""
    out = []
    for name, path in sorted(_paths().items()):
        try:
            info = os.stat(path)
        except OSError:
            continue
        out.append({"name": name, "size": info.st_size, "mtime": int(info.st_mtime * 1000)})
    return out


def read_log_file(name: str, limit: int = READ_LIMIT) -> str:
    """The last ``limit`` bytes of log file ``name`` (one ``process_log_files`` lists).

    Raises:
        FileNotFoundError: no log file of this process has that name.
    """
    path = _paths().get(name)
    if path is None:
        raise FileNotFoundError(f"no log file {name!r}")
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - limit))
        return f.read().decode("utf-8", errors="replace")
