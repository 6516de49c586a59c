"""The TaskDeploymentDescriptor of a subtask's attempt: what its TaskManager needs to run it.

Its produced partitions (ids made from the attempt, so a restarted attempt's partitions are
new ones), its input gates with one channel per producer subpartition (where the producer
runs and its data address), and whether each consumer runs in the same TaskManager (then
records go as objects, not serialized). Built on the JobMaster's main thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.graph.job_graph import JobGraph, ResultPartitionType
from millstream.runtime.deployment import (
    InputChannelDeploymentDescriptor,
    InputGateDeploymentDescriptor,
    ResultPartitionDeploymentDescriptor,
    TaskDeploymentDescriptor,
)
from millstream.runtime.executiongraph.execution_graph import Execution, ExecutionVertex
from millstream.runtime.ids import ResourceID, ResultPartitionID
from millstream.runtime.rpc.gateways import SlotOffer

__all__ = ["deployment_descriptor", "partition_id"]


def partition_id(producer: ExecutionVertex, partition: str) -> ResultPartitionID:
    """The id of a partition of the producer's current attempt."""
    execution = producer.current_execution
    assert execution is not None
    return ResultPartitionID(f"{partition}@{execution.attempt_id}")


def deployment_descriptor(
    job_graph: JobGraph,
    user_artifacts: tuple[str, ...],
    ev: ExecutionVertex,
    execution: Execution,
    offer: SlotOffer,
    slot_of: Callable[[Execution], SlotOffer | None],
    restored_state: Any,
) -> TaskDeploymentDescriptor:
    """The descriptor of ``execution`` (an attempt of ``ev``) in the slot ``offer``."""

    def blocking(result_id: Any) -> bool:
        return job_graph.data_sets[result_id].result_type is ResultPartitionType.BLOCKING

    def data_address(producer: ExecutionVertex) -> tuple[str, int] | None:
        current = producer.current_execution
        producer_offer = slot_of(current) if current is not None else None
        return producer_offer.data_address if producer_offer is not None else None

    produced = tuple(
        ResultPartitionDeploymentDescriptor(
            partition_id(p.producer, p.partition_id),
            p.result.id,
            p.partition_number,
            p.num_subpartitions,
            # A blocking result is always serialized: it goes to files.
            () if blocking(p.result.id) else _local_consumers(p, offer),
            job_graph.data_sets[p.result.id].result_type,
        )
        for p in ev.produced
    )
    gates = []
    for edge, execution_edges in zip(ev.job_vertex.job_vertex.inputs, ev.inputs):
        channels = tuple(
            InputChannelDeploymentDescriptor(
                partition_id(e.source.producer, e.source.partition_id),
                e.subpartition_index,
                ResourceID(e.source.producer.current_execution.assigned_resource or ""),  # type: ignore[union-attr]
                data_address(e.source.producer),
            )
            for e in execution_edges
        )
        gates.append(InputGateDeploymentDescriptor(edge.source_id, edge.input_index, channels))
    vertex = ev.job_vertex.job_vertex
    return TaskDeploymentDescriptor(
        job_id=job_graph.job_id,
        job_name=job_graph.job_name,
        task_name=vertex.name,
        parallelism=vertex.parallelism,
        max_parallelism=vertex.max_parallelism,
        execution_attempt_id=execution.attempt_id,
        attempt_number=execution.attempt_number,
        subtask_index=ev.subtask_index,
        allocation_id=offer.allocation_id,
        produced_partitions=produced,
        input_gates=tuple(gates),
        job_config=job_graph.job_config,
        user_artifacts=user_artifacts,
        restored_state=restored_state,
    )


def _local_consumers(partition: Any, offer: SlotOffer) -> tuple[bool, ...]:
    """Per subpartition, whether its consumer runs in the producer's TaskManager."""
    local = [False] * partition.num_subpartitions
    for edge in partition.consumers:
        consumer = edge.target.current_execution
        local[edge.subpartition_index] = (
            consumer is not None and consumer.assigned_resource == offer.resource_id
        )
    return tuple(local)
