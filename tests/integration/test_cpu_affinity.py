"""taskmanager.cpu-affinity: where a TaskManager's task threads run."""

from __future__ import annotations

import os

import pytest

from millstream.runtime.taskmanager import cpu_affinity
from tests.conftest import make_env

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity"), reason="needs sched_setaffinity (Linux)"
)

AFFINITY = "taskmanager.cpu-affinity"


def _cpus_seen_by_tasks(affinity: str, parallelism: int = 2, mode: str = "processes") -> set[frozenset[int]]:
    env = make_env(parallelism, **{AFFINITY: affinity, "minicluster.mode": mode})
    seen = (
        env.from_collection(list(range(200)))
        .map(lambda _: frozenset(os.sched_getaffinity(0)))
        .rebalance()
        .map(lambda cpus: (cpus, frozenset(os.sched_getaffinity(0))))
        .execute_and_collect()
    )
    with seen:
        return {cpus for pair in seen for cpus in pair}


def test_listed_cpus_pin_every_task_thread_and_leave_the_callers_thread_alone():
    allowed = frozenset(os.sched_getaffinity(0))
    cpu = min(allowed)
    assert _cpus_seen_by_tasks(str(cpu)) == {frozenset({cpu})}
    assert frozenset(os.sched_getaffinity(0)) == allowed


def test_auto_keeps_a_task_managers_threads_on_one_cpu_and_task_managers_apart():
    allowed = frozenset(os.sched_getaffinity(0))
    seen = _cpus_seen_by_tasks("auto")  # two TaskManager processes, one slot each
    assert all(len(cpus) == 1 and cpus <= allowed for cpus in seen)
    assert len(seen) == min(2, len(allowed))


def test_auto_in_one_process_keeps_all_task_threads_on_one_cpu():
    seen = _cpus_seen_by_tasks("auto", mode="threads")
    assert len(seen) == 1
    (cpus,) = seen
    assert len(cpus) == 1 and cpus <= frozenset(os.sched_getaffinity(0))


def test_none_leaves_task_threads_to_the_os():
    assert _cpus_seen_by_tasks("none") == {frozenset(os.sched_getaffinity(0))}


def test_a_legacy_source_thread_inherits_the_tasks_cpus():
    from millstream.datastream.functions import SourceFunction

    class Affinity(SourceFunction):
        def run(self, ctx):
            ctx.collect(frozenset(os.sched_getaffinity(0)))

        def cancel(self):
            pass

    cpu = max(os.sched_getaffinity(0))
    env = make_env(1, **{AFFINITY: str(cpu)})
    with env.add_source(Affinity()).execute_and_collect() as results:
        assert list(results) == [frozenset({cpu})]


def test_bad_setting_is_a_clear_error():
    with pytest.raises(ValueError, match=r"taskmanager\.cpu-affinity"):
        cpu_affinity.parse_affinity("fast")
    with pytest.raises(ValueError, match=r"taskmanager\.cpu-affinity"):
        cpu_affinity.parse_affinity("-1")
    env = make_env(1, **{AFFINITY: "first"})
    env.from_collection([1]).print()
    with pytest.raises(ValueError, match="expected 'auto', 'none' or a list of CPUs"):
        env.execute("bad affinity")


def test_parse_and_resolve():
    assert cpu_affinity.parse_affinity(" Auto ") == "auto"
    assert cpu_affinity.parse_affinity("none") == "none"
    assert cpu_affinity.parse_affinity("2, 3") == frozenset({2, 3})
    assert cpu_affinity.resolve("none") is None
    allowed = frozenset(os.sched_getaffinity(0))
    assert cpu_affinity.resolve(allowed | {4096}) == allowed
    assert cpu_affinity.resolve(frozenset({4096})) is None
    assert cpu_affinity.current_cpu() in allowed
