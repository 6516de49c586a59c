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

from millstream.runtime.executiongraph.execution_graph import ExecutionVertex
from millstream.runtime.jobmanager.scheduler import SchedulingPipelinedRegion

__all__ = ["regions_to_restart"]


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
