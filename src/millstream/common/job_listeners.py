"""Who hears of a job as its client submits it: Flink's ``JobListener.onJobSubmitted``.

``millstream run`` registers one that draws the terminal progress view; every executor
(embedded, cluster) tells the registered listeners of each JobClient it creates, and the
JobClient tells them when it lets go of its job (before ``execute()`` returns), through a
listener's optional ``job_finished(client)``. A listener's failure is logged, never the
job's. Coordinating code.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

__all__ = [
    "notify_job_finished",
    "notify_job_submitted",
    "register_job_listener",
    "unregister_job_listener",
]

log = logging.getLogger(__name__)

_lock = threading.Lock()
_listeners: list[Callable[[Any], None]] = []


def register_job_listener(listener: Callable[[Any], None]) -> None:
    """Call ``listener(job_client)`` for every job submitted from this process from now on."""
    with _lock:
        _listeners.append(listener)


def unregister_job_listener(listener: Callable[[Any], None]) -> None:
    """Stop calling ``listener``."""
    with _lock:
        if listener in _listeners:
            _listeners.remove(listener)


def notify_job_submitted(client: Any) -> None:
    """Tell every listener of ``client`` (a JobClient whose job was just submitted)."""
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        try:
            listener(client)
        except Exception:
            log.warning("a job listener failed", exc_info=True)


def notify_job_finished(client: Any) -> None:
    """Tell every listener that has ``job_finished`` that ``client`` let go of its job."""
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        finished = getattr(listener, "job_finished", None)
        if finished is None:
            continue
        try:
            finished(client)
        except Exception:
            log.warning("a job listener failed", exc_info=True)
