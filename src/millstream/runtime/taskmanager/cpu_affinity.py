"""CPU affinity of a TaskManager's task threads.

Under CPython's GIL one process runs Python code on one core at a time, yet the OS
spreads its threads over cores: when the GIL passes from a producing task thread to a
consuming one on another core, every object the consumer touches (and every reference
count it changes, including those of shared objects like small ints) has to travel
between the cores' caches. Keeping all task threads of a TaskManager on one core loses
no Python parallelism and keeps records in that core's cache; benchmarks/word_count.py
measured about 30% more throughput at parallelism 1 on a 2-core machine.

``taskmanager.cpu-affinity``:

* ``auto``: the CPU the TaskManager runs on when its first task starts (the OS chose
  it), or the CPU a MiniCluster assigns to this TaskManager;
* ``none``: the OS schedules task threads freely (choose this when user functions spend
  their time in native code that releases the GIL, e.g. numpy);
* a list like ``3`` or ``2,3``: exactly those CPUs.

Platforms without ``os.sched_setaffinity`` ignore the option.
"""

from __future__ import annotations

import logging
import os

__all__ = ["available_cpus", "current_cpu", "parse_affinity", "pin_current_thread", "resolve"]

log = logging.getLogger(__name__)


def current_cpu() -> int | None:
    """The CPU the calling thread last ran on (Linux), else None."""
    try:
        with open("/proc/thread-self/stat") as f:
            stat = f.read()
    except OSError:
        return None
    # Fields after the command name (which may hold spaces) start at field 3 (state);
    # "processor" is field 39.
    fields = stat[stat.rindex(")") + 2 :].split()
    try:
        return int(fields[39 - 3])
    except (IndexError, ValueError):
        return None


def parse_affinity(value: str) -> frozenset[int] | str:
    """``"auto"`` / ``"none"``, or the set of CPUs listed (``"2,3"``)."""
    text = value.strip().lower()
    if text in ("auto", "none"):
        return text
    try:
        cpus = frozenset(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        cpus = frozenset()
    if not cpus or min(cpus) < 0:
        raise ValueError(
            f"taskmanager.cpu-affinity: expected 'auto', 'none' or a list of CPUs like '0,1', got {value!r}"
        )
    return cpus


def available_cpus() -> int:
    """How many CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def resolve(setting: frozenset[int] | str) -> frozenset[int] | None:
    """The CPUs task threads are pinned to, or None to leave them to the OS."""
    if setting == "none" or not hasattr(os, "sched_setaffinity"):
        return None
    allowed = os.sched_getaffinity(0)
    if isinstance(setting, frozenset):
        chosen = setting & allowed
        if not chosen:
            log.warning("taskmanager.cpu-affinity %s: no such CPU is available; not pinning", sorted(setting))
            return None
        return frozenset(chosen)
    if len(allowed) <= 1:
        return None
    cpu = current_cpu()
    return frozenset({cpu}) if cpu is not None and cpu in allowed else None


def pin_current_thread(cpus: frozenset[int] | None) -> None:
    """Restrict the calling thread to ``cpus`` (no-op for None; failures are logged, not raised)."""
    if cpus is None:
        return
    try:
        os.sched_setaffinity(0, cpus)
    except OSError as err:
        log.debug("could not pin task thread to CPUs %s: %s", sorted(cpus), err)
