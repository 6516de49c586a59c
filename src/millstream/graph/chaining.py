"""The chaining rules, in one predicate (Flink's ``StreamingJobGraphGenerator.isChainable``).

Two operators run in one task, calling each other directly, when all hold:
the downstream operator has exactly one input edge; both are in the same slot-sharing
group; the upstream strategy is not NEVER and the downstream one is ALWAYS; the edge's
partitioner is forward; their parallelism is equal; and chaining is enabled for the job.
An operator that yields to the mailbox (async I/O) is not chained into a chain headed by a
legacy source, whose SourceFunction emits from a thread of its own (Flink's rule for
``YieldingOperatorFactory``).
"""

from __future__ import annotations

from millstream.graph.operator_specs import ChainingStrategy, LegacySourceSpec
from millstream.graph.partitioning import ForwardPartitioner
from millstream.graph.stream_graph import StreamEdge, StreamGraph

__all__ = ["chain_heads", "is_chainable"]


def is_chainable(edge: StreamEdge, graph: StreamGraph) -> bool:
    """Whether ``edge``'s target can be chained to its source."""
    upstream = graph.nodes[edge.source_id]
    downstream = graph.nodes[edge.target_id]
    return (
        graph.chaining_enabled
        and len(graph.in_edges(downstream.id)) == 1
        and upstream.slot_sharing_group == downstream.slot_sharing_group
        and upstream.chaining_strategy is not ChainingStrategy.NEVER
        and downstream.chaining_strategy is ChainingStrategy.ALWAYS
        and isinstance(edge.partitioner, ForwardPartitioner)
        and upstream.parallelism == downstream.parallelism
    )


def chain_heads(graph: StreamGraph) -> dict[int, int]:
    """The head of the chain each node runs in, by node id (topological order)."""
    head_of: dict[int, int] = {}
    for node in graph.topological():
        ins = graph.in_edges(node.id)
        head_of[node.id] = node.id
        if len(ins) == 1 and is_chainable(ins[0], graph):
            head = head_of[ins[0].source_id]
            if not (node.operator.yields and isinstance(graph.nodes[head].operator, LegacySourceSpec)):
                head_of[node.id] = head
    return head_of
