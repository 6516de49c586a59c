"""This process's CPU and memory, as Flink's ``Status.JVM.*`` metrics report a JVM's.

A TaskManager sends it with every heartbeat answer (the REST API's ``/taskmanagers``
shows it); the JobManager reports its own. Coordinating code: read on request.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import psutil

__all__ = ["process_report"]

_lock = threading.Lock()
_process: psutil.Process | None = None


def process_report() -> dict[str, Any]:
    """CPU load of this process since the previous report (share of one core, 0..cores),
    its resident memory, threads, and the machine's cores and memory."""
    global _process
    with _lock:
        if _process is None or _process.pid != os.getpid():  # a forked child: its own
            _process = psutil.Process()
            _process.cpu_percent(None)  # the first call starts the measurement
        process = _process
        with process.oneshot():
            memory = process.memory_info()
            cpu = process.cpu_percent(None) / 100
            threads = process.num_threads()
            cpu_time = sum(process.cpu_times()[:2])
    machine = psutil.virtual_memory()
    return {
        "pid": os.getpid(),
        "cpuLoad": round(cpu, 3),
        "cpuTime": round(cpu_time, 3),
        "rss": memory.rss,
        "threads": threads,
        "cpuCores": psutil.cpu_count() or 1,
        "physicalMemory": machine.total,
        "freeMemory": machine.available,
        "timestamp": int(time.time() * 1000),
    }
