"""Text, JSON and DOT views of the StreamGraph and the JobGraph.

``stream_graph_json`` is Flink's execution-plan format (``env.get_execution_plan()``):
nodes with id, type, pact, contents, parallelism and predecessors with ship_strategy.
"""

from __future__ import annotations

import json
from typing import Any

from millstream.graph.job_graph import JobGraph
from millstream.graph.stream_graph import StreamGraph

__all__ = [
    "job_graph_dot",
    "job_graph_json",
    "job_graph_text",
    "stream_graph_dot",
    "stream_graph_json",
    "stream_graph_text",
]


def _pact(graph: StreamGraph, node_id: int) -> str:
    node = graph.nodes[node_id]
    if node.is_source:
        return "Data Source"
    if node.is_sink:
        return "Data Sink"
    return "Operator"


def stream_graph_plan(graph: StreamGraph) -> dict[str, Any]:
    """The plan as a dict in Flink's JSON plan layout."""
    nodes = []
    for node in graph.topological():
        entry: dict[str, Any] = {
            "id": node.id,
            "type": node.name,
            "pact": _pact(graph, node.id),
            "contents": node.description or node.name,
            "parallelism": node.parallelism,
        }
        preds = [
            {"id": e.source_id, "ship_strategy": str(e.partitioner), "side": "second"}
            for e in graph.in_edges(node.id)
        ]
        if preds:
            entry["predecessors"] = preds
        nodes.append(entry)
    return {"nodes": nodes}


def stream_graph_json(graph: StreamGraph) -> str:
    """Flink's JSON execution plan of the StreamGraph."""
    return json.dumps(stream_graph_plan(graph), indent=2)


def stream_graph_text(graph: StreamGraph) -> str:
    """One line per node and edge."""
    lines = [f"StreamGraph '{graph.job_name}'"]
    for node in graph.topological():
        lines.append(
            f"  [{node.id}] {node.name}  parallelism={node.parallelism} "
            f"max={node.max_parallelism} slot-group={node.slot_sharing_group} "
            f"chaining={node.chaining_strategy.value}"
        )
        for e in graph.out_edges(node.id):
            tag = f" side-output={e.output_tag.tag_id}" if e.output_tag is not None else ""
            lines.append(f"      --{e.partitioner}{tag}--> [{e.target_id}]")
    return "\n".join(lines)


def stream_graph_dot(graph: StreamGraph) -> str:
    """Graphviz DOT of the StreamGraph."""
    lines = [f"digraph {json.dumps(graph.job_name)} {{", "  rankdir=LR;", "  node [shape=box];"]
    for node in graph.topological():
        label = f"{node.name}\\nparallelism {node.parallelism}"
        lines.append(f'  n{node.id} [label="{_escape(label)}"];')
    for e in graph.edges:
        lines.append(f'  n{e.source_id} -> n{e.target_id} [label="{e.partitioner}"];')
    lines.append("}")
    return "\n".join(lines)


def job_graph_plan(graph: JobGraph) -> dict[str, Any]:
    """The JobGraph as a dict: vertices with chained operators and input edges."""
    return {
        "jid": graph.job_id,
        "name": graph.job_name,
        "vertices": [
            {
                "id": v.id,
                "name": v.name,
                "parallelism": v.parallelism,
                "maxParallelism": v.max_parallelism,
                "slotSharingGroup": v.slot_sharing_group,
                "operators": [op.name for op in v.operators],
                "inputs": [
                    {
                        "dataSet": e.source_id,
                        "producer": graph.data_sets[e.source_id].producer_id,
                        "ship_strategy": e.ship_strategy_name,
                        "distribution": e.distribution.value,
                    }
                    for e in v.inputs
                ],
            }
            for v in graph.vertices
        ],
    }


def job_graph_json(graph: JobGraph) -> str:
    """JSON view of the JobGraph."""
    return json.dumps(job_graph_plan(graph), indent=2)


def job_graph_text(graph: JobGraph) -> str:
    """One block per vertex."""
    names = {v.id: v.name for v in graph.vertices}
    lines = [f"JobGraph '{graph.job_name}' ({len(graph.vertices)} vertices)"]
    for v in graph.vertices:
        lines.append(f"  {v.name}  parallelism={v.parallelism} slot-group={v.slot_sharing_group}")
        for e in v.inputs:
            producer = names[graph.data_sets[e.source_id].producer_id]
            lines.append(f"      <--{e.ship_strategy_name} ({e.distribution.value})-- {producer}")
    return "\n".join(lines)


def job_graph_dot(graph: JobGraph) -> str:
    """Graphviz DOT of the JobGraph."""
    index = {v.id: i for i, v in enumerate(graph.vertices)}
    lines = [f"digraph {json.dumps(graph.job_name)} {{", "  rankdir=LR;", "  node [shape=box];"]
    for v in graph.vertices:
        label = f"{v.name}\\nparallelism {v.parallelism}"
        lines.append(f'  v{index[v.id]} [label="{_escape(label)}"];')
    for v in graph.vertices:
        for e in v.inputs:
            producer = index[graph.data_sets[e.source_id].producer_id]
            lines.append(f'  v{producer} -> v{index[v.id]} [label="{e.ship_strategy_name}"];')
    lines.append("}")
    return "\n".join(lines)


def _escape(text: str) -> str:
    return text.replace('"', '\\"')
