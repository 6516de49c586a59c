"""A JobManager's blob directory is made when the first job with user code arrives: one
killed before that (the chaos tests kill JobManagers) leaves nothing in the temporary
directory. Full test runs left about five empty ``millstream-jobmanager-*`` directories each."""

from __future__ import annotations

import hashlib
import io
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from millstream.common import Configuration
from millstream.runtime.blob import BlobCache
from millstream.runtime.jobmanager.collect import CollectChannels
from millstream.runtime.jobmanager.job_manager_services import JobManagerServices


def _blob() -> tuple[str, bytes]:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        archive.writestr("job_helper_for_blob_test.py", "VALUE = 7\n")
    raw = data.getvalue()
    return hashlib.sha256(raw).hexdigest(), raw


def test_the_directory_is_made_when_the_first_blob_unpacks(tmp_path: Path) -> None:
    made: list[str] = []

    def make() -> str:
        made.append(str(tmp_path / "blobs"))
        return made[-1]

    key, raw = _blob()
    cache = BlobCache(lambda k: raw, make)
    cache.prepare([])
    assert made == []
    try:
        cache.prepare([key, key])
        assert made == [str(tmp_path / "blobs")]
        assert (tmp_path / "blobs" / key / "job_helper_for_blob_test.py").exists()
    finally:
        sys.path[:] = [p for p in sys.path if not p.startswith(str(tmp_path))]


def test_a_job_manager_without_user_code_leaves_no_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    services = JobManagerServices(Configuration(), "secret", CollectChannels())  # not started: no socket
    try:
        assert list(tmp_path.iterdir()) == []
    finally:
        services.close()
    assert list(tmp_path.iterdir()) == []
