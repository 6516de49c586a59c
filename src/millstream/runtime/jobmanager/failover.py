"""Region failover: what a failed task restarts (Flink's RestartPipelinedRegionFailoverStrategy).

A pipelined region is a set of subtasks joined by pipelined exchanges: they run together
and none can be restarted alone. When a task fails, its region restarts, and with it every
region that already started consuming (through a blocking result) from a restarting
region, transitively. Regions upstream keep their finished blocking results, which the
restarted regions read again; regions elsewhere (a separate pipeline of the same job)
keep running. ``jobmanager.execution.failover-strategy: full`` restarts every task
instead, and so does a lost TaskManager (its blocking results are gone with it).

The restarted subtasks get new attempts in the same slots and their state from the
latest completed checkpoint (or none); the job stays RUNNING meanwhile.
"""

from __future__ import annotations

from millstream.runtime.executiongraph.execution_graph import Execution, ExecutionVertex
from millstream.runtime.executiongraph.intermediate_result import IntermediateResultPartition
from millstream.runtime.ids import ResultPartitionID
from millstream.runtime.jobmanager.deployment_descriptors import partition_id
from millstream.runtime.jobmanager.scheduler import SchedulingPipelinedRegion

__all__ = ["attempts_ended", "new_attempts", "regions_to_restart"]


def regions_to_restart(
    regions: list[SchedulingPipelinedRegion], failed: ExecutionVertex
) -> list[SchedulingPipelinedRegion]:
    """The region of ``failed`` and every started region consuming from a restarting one."""
    region_of = {id(ev): region for region in regions for ev in region.vertices}
    restart = [region_of[id(failed)]]
    chosen = {id(restart[0])}
    queue = list(restart)
    while queue:
        region = queue.pop()
        produced = {id(partition) for ev in region.vertices for partition in ev.produced}
        for other in regions:
            if id(other) in chosen or not other.scheduled:
                continue
            if any(id(partition) in produced for partition in other.consumed_blocking):
                chosen.add(id(other))
                restart.append(other)
                queue.append(other)
    return [region for region in regions if id(region) in chosen]


def attempts_ended(region: SchedulingPipelinedRegion) -> bool:
    """Every current attempt of the region is over (it can restart)."""
    return all(
        ev.current_execution is None or ev.current_execution.state.is_terminal for ev in region.vertices
    )


def new_attempts(
    regions: list[SchedulingPipelinedRegion],
    executions: dict[str, Execution],
    partitions: dict[ResultPartitionID, IntermediateResultPartition],
) -> dict[int, str]:
    """A new attempt of every subtask of ``regions`` in its old one's slot, registered in
    ``executions`` (the old one removed) with its partitions (not consumable yet), the
    regions ready to be scheduled again; the old attempt ids, by ``id(execution vertex)``."""
    ended: dict[int, str] = {}
    for region in regions:
        region.scheduled = False
        for ev in region.vertices:
            old = ev.current_execution
            assert old is not None
            ended[id(ev)] = old.attempt_id
            del executions[old.attempt_id]
            execution = ev.new_execution()
            execution.assigned_resource = old.assigned_resource
            executions[execution.attempt_id] = execution
            for partition in ev.produced:
                partition.consumable = False
                partitions[partition_id(ev, partition.partition_id)] = partition
    return ended
