"""The embedded cluster's TaskManagers: one process per core, as many slots as needed (issue 13.11).

The embedded runtime used to start one TaskManager process per slot: ``-p 32`` started 32
Python processes (8.6 s before the job ran, against 0.7 s for ``-p 2`` on this 2-core
machine), and ``-p 1000`` spent a minute deploying tasks before failing for network buffers.
"""

from __future__ import annotations

import psutil
import pytest

from millstream.common import Configuration, Types
from millstream.common.config_options import ConfigurationError
from millstream.datastream import DataStream, StreamExecutionEnvironment
from millstream.runtime.io.network.buffer_pool import InsufficientBuffersError
from millstream.runtime.jobmanager.resource_manager import NoResourceAvailableError
from millstream.runtime.minicluster import task_manager_layout
from millstream.runtime.taskmanager.cpu_affinity import available_cpus

pytestmark = pytest.mark.timeout(180)


def _conf(settings: dict[str, object] | None = None) -> Configuration:
    return Configuration.from_dict({key: str(value) for key, value in (settings or {}).items()})


def test_one_process_per_core_with_as_many_slots_as_the_job_needs() -> None:
    cores = available_cpus()
    count, slots = task_manager_layout(_conf(), 32)
    assert count == min(32, cores) and count * slots >= 32 and (count - 1) * slots < 32
    assert task_manager_layout(_conf(), 1) == (1, 1)  # never more processes than slots


def test_the_number_of_task_managers_or_slots_can_be_fixed() -> None:
    assert task_manager_layout(_conf({"minicluster.number-of-taskmanagers": 3}), 7) == (3, 3)
    assert task_manager_layout(_conf({"taskmanager.numberOfTaskManagers": 4}), 8) == (4, 2)  # the other name
    assert task_manager_layout(_conf({"taskmanager.numberOfTaskSlots": 2}), 7) == (4, 2)
    fixed = {"minicluster.number-of-taskmanagers": 2, "taskmanager.numberOfTaskSlots": 2}
    with pytest.raises(NoResourceAvailableError, match=r"needs 9 slots.*offer 4"):
        task_manager_layout(_conf(fixed), 9)
    with pytest.raises(ConfigurationError, match=r"taskmanager\.numberOfTaskSlots='0': must be at least 1"):
        task_manager_layout(_conf({"taskmanager.numberOfTaskSlots": 0}), 2)


def _word_count(parallelism: int) -> DataStream:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    words = env.from_collection(["a b c d"] * 50).flat_map(
        lambda line: line.split(), output_type=Types.STRING()
    )
    return words.map(lambda w: (w, 1)).key_by(lambda t: t[0]).reduce(lambda a, b: (a[0], a[1] + b[1]))


def _task_managers(process: psutil.Process) -> set[int]:
    return {p.pid for p in process.children() if "millstream.cluster.taskmanager" in " ".join(p.cmdline())}


def test_parallelism_32_runs_on_one_process_per_core() -> None:
    counted = _word_count(32)
    me = psutil.Process()
    spawned: set[int] = set()
    result: dict[str, int] = {}
    with counted.execute_and_collect() as out:
        for word, n in out:
            spawned |= _task_managers(me)
            result[word] = max(result.get(word, 0), n)
    assert result == {"a": 50, "b": 50, "c": 50, "d": 50}
    assert len(spawned) == min(32, available_cpus())


def test_parallelism_1000_fails_at_once_for_network_buffers_before_any_process_starts() -> None:
    counted = _word_count(1000)
    me = psutil.Process()
    before = {p.pid for p in me.children()}
    # 1002001 for the word count's exchanges, 2000 more for the 1000 -> 1 exchange into the
    # collect sink (one subtask, as Flink's CollectStreamSink)
    with pytest.raises(InsufficientBuffersError, match=r"needs at least 1004001.*numberOfBuffers=2048 each"):
        counted.execute_and_collect()
    assert {p.pid for p in me.children()} == before
