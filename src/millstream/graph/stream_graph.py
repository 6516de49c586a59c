"""StreamGraph: operators as nodes, partitioners as edges (virtual nodes folded away)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from millstream.common.execution_mode import RuntimeExecutionMode
from millstream.graph.job_config import JobConfig
from millstream.graph.operator_specs import ChainingStrategy, OperatorSpec
from millstream.graph.partitioning import Partitioner
from millstream.graph.transformations import SideOutputTag

__all__ = [
    "StreamEdge",
    "StreamGraph",
    "StreamNode",
    "check_max_parallelism",
    "check_parallelism",
    "default_max_parallelism",
]

UPPER_BOUND_MAX_PARALLELISM = 1 << 15


def check_parallelism(parallelism: int) -> None:
    """An operator's parallelism: at least 1, or -1 (the default)."""
    if not isinstance(parallelism, int) or (parallelism < 1 and parallelism != -1):
        raise ValueError("The parallelism of an operator must be at least 1.")


def check_max_parallelism(max_parallelism: int) -> None:
    """A maximum parallelism (number of key groups): 1 .. 2**15, as Flink's."""
    if not isinstance(max_parallelism, int) or max_parallelism <= 0:
        raise ValueError("The maximum parallelism must be greater than 0.")
    if max_parallelism > UPPER_BOUND_MAX_PARALLELISM:
        raise ValueError(
            f"Maximum parallelism must be smaller than or equal to {UPPER_BOUND_MAX_PARALLELISM}."
        )


def default_max_parallelism(parallelism: int) -> int:
    """Flink's default: parallelism * 1.5 rounded up to a power of two, within [128, 32768]."""
    wanted = parallelism + parallelism // 2
    power = 1
    while power < wanted:
        power <<= 1
    return min(max(power, 128), UPPER_BOUND_MAX_PARALLELISM)


@dataclass(frozen=True, slots=True)
class StreamNode:
    """One operator with its resolved parallelism and placement settings."""

    id: int
    name: str
    operator: OperatorSpec
    parallelism: int
    max_parallelism: int
    slot_sharing_group: str
    chaining_strategy: ChainingStrategy
    buffer_timeout: int | None
    state_key_selector: Any
    uid: str | None
    description: str | None
    output_type: Any

    @property
    def is_source(self) -> bool:
        """True for sources."""
        return self.operator.is_source

    @property
    def is_sink(self) -> bool:
        """True for sinks."""
        return self.operator.is_sink

    def __str__(self) -> str:
        return f"{self.name}-{self.id}"


@dataclass(frozen=True, slots=True)
class StreamEdge:
    """A connection between two nodes: how records are partitioned, from which output."""

    source_id: int
    target_id: int
    partitioner: Partitioner
    output_tag: SideOutputTag | None = None
    type_number: int = 0

    @property
    def edge_id(self) -> str:
        """Stable identity of the edge within its graph."""
        tag = self.output_tag.tag_id if self.output_tag is not None else ""
        edge = f"{self.source_id}_{self.target_id}_{tag}_{self.partitioner}"
        return edge if self.type_number == 0 else f"{edge}_input{self.type_number}"


@dataclass(frozen=True, slots=True)
class StreamGraph:
    """The operator graph of one job, before chaining."""

    job_name: str
    nodes: dict[int, StreamNode]
    edges: tuple[StreamEdge, ...]
    chaining_enabled: bool
    buffer_timeout: int
    job_config: JobConfig

    @property
    def runtime_mode(self) -> RuntimeExecutionMode:
        """STREAMING or BATCH (resolved)."""
        return self.job_config.runtime_mode

    exchange_mode: str = "PIPELINED"  # of every non-chained edge: PIPELINED or BLOCKING

    def in_edges(self, node_id: int) -> list[StreamEdge]:
        """Edges into ``node_id``, in creation order."""
        return [e for e in self.edges if e.target_id == node_id]

    def out_edges(self, node_id: int) -> list[StreamEdge]:
        """Edges out of ``node_id``, in creation order."""
        return [e for e in self.edges if e.source_id == node_id]

    def sources(self) -> list[StreamNode]:
        """Nodes without inputs, by id."""
        targets = {e.target_id for e in self.edges}
        return [n for i, n in sorted(self.nodes.items()) if i not in targets]

    def topological(self) -> Iterator[StreamNode]:
        """Nodes in a topological order (ties by id)."""
        indegree = {i: 0 for i in self.nodes}
        for e in self.edges:
            indegree[e.target_id] += 1
        ready = sorted(i for i, d in indegree.items() if d == 0)
        while ready:
            node_id = ready.pop(0)
            yield self.nodes[node_id]
            for e in self.out_edges(node_id):
                indegree[e.target_id] -= 1
                if indegree[e.target_id] == 0:
                    ready.append(e.target_id)
                    ready.sort()
