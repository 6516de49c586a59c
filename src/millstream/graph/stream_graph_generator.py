"""Transformations -> StreamGraph.

Each transformation resolves to "endpoints": the (node, partitioner, side-output tag)
triples that a downstream operator connects to. Partition, union and side-output
transformations only rewrite endpoints, so they vanish into edge properties, as in
Flink's StreamGraphGenerator.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from operator import itemgetter
from typing import Any

from millstream.common.execution_mode import RuntimeExecutionMode
from millstream.graph.job_config import JobConfig
from millstream.graph.operator_specs import CombineSpec, ReduceSpec
from millstream.graph.partitioning import (
    ForwardPartitioner,
    KeyGroupStreamPartitioner,
    Partitioner,
    RebalancePartitioner,
    key_type_of,
    typed_key_selector,
)
from millstream.graph.stream_graph import (
    StreamEdge,
    StreamGraph,
    StreamNode,
    default_max_parallelism,
)
from millstream.graph.transformations import (
    OneInputTransformation,
    PartitionTransformation,
    SideOutputTag,
    SideOutputTransformation,
    SinkTransformation,
    SourceTransformation,
    Transformation,
    TwoInputTransformation,
    UnionTransformation,
)

__all__ = ["GraphSettings", "IllegalGraphError", "generate_stream_graph"]

DEFAULT_SLOT_SHARING_GROUP = "default"


class IllegalGraphError(ValueError):
    """The program describes a graph Flink would reject (e.g. forward across parallelism)."""


@dataclass(frozen=True, slots=True)
class GraphSettings:
    """Environment settings that shape the graph."""

    job_name: str
    parallelism: int
    max_parallelism: int
    chaining_enabled: bool
    buffer_timeout: int
    job_config: JobConfig = field(default_factory=JobConfig)
    batch_shuffle_mode: str = "ALL_EXCHANGES_BLOCKING"
    batch_combine_max_keys: int = 0  # BATCH: combiner size before a keyed reduce (0: none)

    @property
    def runtime_mode(self) -> RuntimeExecutionMode:
        """STREAMING or BATCH (resolved)."""
        return self.job_config.runtime_mode


BATCH_SHUFFLE_MODES = ("ALL_EXCHANGES_BLOCKING", "ALL_EXCHANGES_PIPELINED")


def exchange_mode(settings: GraphSettings) -> str:
    """PIPELINED, or BLOCKING for a BATCH job whose shuffle mode is ALL_EXCHANGES_BLOCKING (Flink's)."""
    mode = settings.batch_shuffle_mode.upper()
    if mode not in BATCH_SHUFFLE_MODES:
        raise ValueError(
            f"execution.batch-shuffle-mode: {settings.batch_shuffle_mode!r} is not supported; "
            f"use one of {', '.join(BATCH_SHUFFLE_MODES)}"
        )
    if settings.job_config.batch and mode == "ALL_EXCHANGES_BLOCKING":
        return "BLOCKING"
    return "PIPELINED"


@dataclass(frozen=True, slots=True)
class _Endpoint:
    node_id: int
    partitioner: Partitioner | None
    tag: SideOutputTag | None


class _Builder:
    def __init__(self, transformations: dict[int, Transformation], settings: GraphSettings) -> None:
        self.transformations = transformations
        self.settings = settings
        self.nodes: dict[int, StreamNode] = {}
        self.edges: list[StreamEdge] = []
        self.resolved: dict[int, list[_Endpoint]] = {}
        self._synthetic = 0

    def transform(self, t: Transformation) -> list[_Endpoint]:
        if t.id in self.resolved:
            return self.resolved[t.id]
        match t:
            case PartitionTransformation():
                result = [replace(e, partitioner=t.partitioner) for e in self._input(t.input)]
            case UnionTransformation():
                result = [e for i in t.union_inputs for e in self._input(i)]
            case SideOutputTransformation():
                result = [replace(e, tag=t.tag) for e in self._input(t.input)]
            case SourceTransformation():
                result = [_Endpoint(self._add_node(t, [], None), None, None)]
            case OneInputTransformation():
                original = self._input(t.input)
                inputs = self._combined(t, original)
                node_id = self._add_node(t, inputs, t.state_key_selector)
                if inputs != original:  # the reduce reads the combiners' (key, partial) pairs
                    assert isinstance(t.operator, ReduceSpec)
                    node = self.nodes[node_id]
                    pair_key = inputs[0].partitioner.key_selector  # type: ignore[union-attr]
                    operator = replace(t.operator, combined=True)
                    self.nodes[node_id] = replace(node, operator=operator, state_key_selector=pair_key)
                self._connect(inputs, node_id)
                result = [_Endpoint(node_id, None, None)]
            case TwoInputTransformation():
                inputs1 = self._input(t.input1)
                inputs2 = self._input(t.input2)
                node_id = self._add_node(t, inputs1 + inputs2, t.state_key_selector1)
                self._connect(inputs1, node_id, 0)
                self._connect(inputs2, node_id, 1)
                result = [_Endpoint(node_id, None, None)]
            case SinkTransformation():
                inputs = self._input(t.input)
                node_id = self._add_node(t, inputs, None)
                self._connect(inputs, node_id)
                result = [_Endpoint(node_id, None, None)]
            case _:
                raise IllegalGraphError(f"unsupported transformation {type(t).__name__}")
        self.resolved[t.id] = result
        return result

    def _combined(self, t: OneInputTransformation, inputs: list[_Endpoint]) -> list[_Endpoint]:
        """BATCH: a keyed reduce's shuffled inputs go through a combiner chained to their
        producer (``execution.batch.combine.max-keys``), which sends ``(key, partial)``
        pairs keyed by their first field; other inputs as they are."""
        max_keys = self.settings.batch_combine_max_keys
        if not (
            self.settings.job_config.batch
            and max_keys > 0
            and isinstance(t.operator, ReduceSpec)
            and inputs
            and all(isinstance(e.partitioner, KeyGroupStreamPartitioner) for e in inputs)
        ):
            return inputs
        pair_key = typed_key_selector(itemgetter(0), key_type_of(t.state_key_selector))
        spec = CombineSpec(
            t.operator.function, t.operator.method, key_selector=t.state_key_selector, max_keys=max_keys
        )
        combined = []
        for endpoint in inputs:
            upstream = self.nodes[endpoint.node_id]
            node_id = self._next_synthetic_id()
            self.nodes[node_id] = StreamNode(
                id=node_id,
                name=f"Combine({t.name})",
                operator=spec,
                parallelism=upstream.parallelism,
                max_parallelism=upstream.max_parallelism,
                slot_sharing_group=upstream.slot_sharing_group,
                chaining_strategy=spec.chaining,
                buffer_timeout=upstream.buffer_timeout,
                state_key_selector=None,
                uid=None,
                description=None,
                output_type=None,  # (key, partial) pairs
            )
            self.edges.append(StreamEdge(endpoint.node_id, node_id, ForwardPartitioner(), endpoint.tag, 0))
            partitioner = replace(endpoint.partitioner, key_selector=pair_key)  # type: ignore[type-var]
            combined.append(_Endpoint(node_id, partitioner, None))
        return combined

    def _next_synthetic_id(self) -> int:
        """An id for a node no transformation made (after every transformation's id)."""
        self._synthetic += 1
        return max(self.transformations, default=0) + self._synthetic

    def _input(self, input_id: int) -> list[_Endpoint]:
        return self.transform(self.transformations[input_id])

    def _add_node(self, t: Any, inputs: list[_Endpoint], key_selector: Any) -> int:
        parallelism = t.parallelism if t.parallelism > 0 else self.settings.parallelism
        if t.non_parallel:
            parallelism = 1
        max_parallelism = t.max_parallelism
        if max_parallelism <= 0:
            max_parallelism = self.settings.max_parallelism
        if max_parallelism <= 0:
            max_parallelism = default_max_parallelism(parallelism)
        if parallelism > max_parallelism:
            raise IllegalGraphError(
                f"The parallelism ({parallelism}) of operator '{t.name}' is larger than its "
                f"maximum parallelism ({max_parallelism})."
            )
        chaining = t.chaining_strategy or t.operator.chaining
        self.nodes[t.id] = StreamNode(
            id=t.id,
            name=t.name,
            operator=t.operator,
            parallelism=parallelism,
            max_parallelism=max_parallelism,
            slot_sharing_group=self._slot_sharing_group(t.slot_sharing_group, inputs),
            chaining_strategy=chaining,
            buffer_timeout=t.buffer_timeout,
            state_key_selector=key_selector,
            uid=t.uid,
            description=t.description,
            output_type=t.output_type,
        )
        return t.id

    def _slot_sharing_group(self, specified: str | None, inputs: list[_Endpoint]) -> str:
        if specified is not None:
            return specified
        groups = {self.nodes[e.node_id].slot_sharing_group for e in inputs}
        if len(groups) == 1:
            return groups.pop()
        return DEFAULT_SLOT_SHARING_GROUP

    def _connect(self, inputs: list[_Endpoint], target_id: int, type_number: int = 0) -> None:
        target = self.nodes[target_id]
        for endpoint in inputs:
            upstream = self.nodes[endpoint.node_id]
            partitioner = endpoint.partitioner
            if partitioner is None:
                same = upstream.parallelism == target.parallelism
                partitioner = ForwardPartitioner() if same else RebalancePartitioner()
            elif isinstance(partitioner, ForwardPartitioner):
                if upstream.parallelism != target.parallelism:
                    raise IllegalGraphError(
                        "Forward partitioning does not allow change of parallelism. Upstream "
                        f"operation: {upstream} parallelism: {upstream.parallelism}, downstream "
                        f"operation: {target} parallelism: {target.parallelism} You must use "
                        "another partitioning strategy, such as broadcast, rebalance, shuffle "
                        "or global."
                    )
            elif isinstance(partitioner, KeyGroupStreamPartitioner):
                partitioner = replace(partitioner, max_parallelism=target.max_parallelism)
            self.edges.append(StreamEdge(endpoint.node_id, target_id, partitioner, endpoint.tag, type_number))


def generate_stream_graph(transformations: dict[int, Transformation], settings: GraphSettings) -> StreamGraph:
    """Build the StreamGraph of every transformation the program created."""
    builder = _Builder(transformations, settings)
    for t in sorted(transformations.values(), key=lambda t: t.id):
        builder.transform(t)
    return StreamGraph(
        job_name=settings.job_name,
        nodes=builder.nodes,
        edges=tuple(builder.edges),
        chaining_enabled=settings.chaining_enabled,
        buffer_timeout=settings.buffer_timeout,
        job_config=settings.job_config,
        exchange_mode=exchange_mode(settings),
    )
