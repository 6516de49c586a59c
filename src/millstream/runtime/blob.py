"""Job files for TaskManagers: the JobManager's BlobServer and a TaskManager's BlobCache.

A job's own Python modules (the helpers its script imports, and files added with
``env.add_python_file``) are zipped by the client, stored in the BlobServer under their
SHA-256, and named in every TaskDeploymentDescriptor. Before a task unpickles its
operators, the TaskManager's BlobCache fetches each blob once, unpacks it into its own
directory and puts that directory on ``sys.path`` (Flink ships jars the same way).
Coordinating code.
"""

from __future__ import annotations

import hashlib
import io
import os
import sys
import threading
import zipfile
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["BlobCache", "BlobServer", "job_module_files", "package_files", "package_job_files"]


class BlobServer:
    """Content-addressed blobs held by the JobManager (``blobserver`` RPC endpoint)."""

    RPC_METHODS = frozenset({"get_blob", "put_blob"})

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._blobs: dict[str, bytes] = {}  # under _lock

    def put_blob(self, data: bytes) -> str:
        """Store ``data``; returns its key."""
        key = hashlib.sha256(data).hexdigest()
        with self._lock:
            self._blobs[key] = data
        return key

    def get_blob(self, key: str) -> bytes:
        """The blob stored under ``key``."""
        with self._lock:
            try:
                return self._blobs[key]
            except KeyError:
                raise KeyError(f"no blob {key}") from None


class BlobCache:
    """A TaskManager's unpacked blobs, importable once prepared."""

    def __init__(self, fetch: Callable[[str], bytes], directory: str | Callable[[], str]) -> None:
        """``directory``: where blobs unpack, or a function making it when the first blob
        arrives (a process that never gets one leaves no directory behind)."""
        self._fetch = fetch
        self._directory = directory
        self._lock = threading.Lock()
        self._installed: set[str] = set()  # under _lock

    def prepare(self, keys: Iterable[str]) -> None:
        """Fetch, unpack and put on ``sys.path`` every blob not yet here (task threads)."""
        for key in keys:
            with self._lock:
                if key in self._installed:
                    continue
                data = self._fetch(key)
                if hashlib.sha256(data).hexdigest() != key:
                    raise ValueError(f"blob {key} arrived corrupted")
                if callable(self._directory):
                    self._directory = self._directory()
                target = os.path.join(self._directory, key)
                with zipfile.ZipFile(io.BytesIO(data)) as archive:
                    for name in archive.namelist():
                        resolved = os.path.realpath(os.path.join(target, name))
                        if not resolved.startswith(os.path.realpath(target) + os.sep):
                            raise ValueError(f"blob {key} holds a path outside its directory: {name}")
                    archive.extractall(target)
                sys.path.insert(0, target)
                self._installed.add(key)


def job_module_files(root: str) -> list[tuple[str, str]]:
    """``(path, name in archive)`` of every imported module that lives under ``root``.

    These are the job's own modules (helpers next to the script); the standard library
    and installed packages live elsewhere and are not shipped.
    """
    root = os.path.realpath(root)
    files: dict[str, str] = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if not path or name == "__main__" or not path.endswith(".py") or name.split(".")[0] == "millstream":
            continue
        real = os.path.realpath(path)
        if not real.startswith(root + os.sep) or "site-packages" in real:
            continue
        files[real] = os.path.relpath(real, root)
        # Packages need their __init__ files up to the root.
        parent = os.path.dirname(real)
        while parent.startswith(root + os.sep):
            init = os.path.join(parent, "__init__.py")
            if os.path.exists(init):
                files[init] = os.path.relpath(init, root)
            parent = os.path.dirname(parent)
    return sorted(files.items())


def package_files(entries: Iterable[tuple[str, str]]) -> bytes:
    """A zip of ``(path, name in archive)``; directories are added recursively."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, arcname in entries:
            if os.path.isdir(path):
                for folder, _, names in os.walk(path):
                    for file_name in sorted(names):
                        full = os.path.join(folder, file_name)
                        archive.write(full, os.path.join(arcname, os.path.relpath(full, path)))
            else:
                archive.write(path, arcname)
    return out.getvalue()


def package_job_files(job_graph: Any) -> bytes | None:
    """The zip a client ships with a job: its script's own modules and ``python.files``."""
    entries: list[tuple[str, str]] = []
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    if main_file:
        entries += job_module_files(os.path.dirname(os.path.abspath(main_file)))
    for path in job_graph.job_config.python_files:
        entries.append((path, os.path.basename(path.rstrip(os.sep))))
    return package_files(entries) if entries else None
