"""``millstream taskmanager`` (also the embedded runtime's TaskManager processes) says in
words that it lost its JobManager, instead of printing the bare socket error
("[Errno 104] Connection reset by peer") to the user's terminal."""

from __future__ import annotations

from typing import Any

import pytest

from millstream.cluster import taskmanager


class _LosesItsJobManager:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def start(self) -> None:
        raise ConnectionResetError(104, "Connection reset by peer")

    def close(self) -> None:
        pass


def test_a_taskmanager_that_loses_its_jobmanager_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    secret = tmp_path / "secret"
    secret.write_text("s" * 32)
    monkeypatch.setattr(taskmanager, "TaskManagerRunner", _LosesItsJobManager)
    monkeypatch.setattr(taskmanager.signal, "signal", lambda *args: None)  # this process's stay
    status = taskmanager.main(["--jobmanager", "127.0.0.1:6123", "--secret-file", str(secret), "--managed"])
    assert status == 1
    assert capsys.readouterr().err.strip() == (
        "millstream taskmanager: lost the JobManager at 127.0.0.1:6123 (Connection reset by peer); exiting"
    )
