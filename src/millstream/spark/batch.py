"""Bounded translation: a JobGraph becomes Spark RDDs with Flink's BATCH semantics.

Each JobVertex (an operator chain) becomes one ``mapPartitionsWithIndex`` whose
partition ``i`` runs subtask ``i`` of the chain with millstream's own operator-chain
code, in BATCH mode, exactly as a TaskManager runs it: a keyed head reads its input
sorted by (key, timestamp) and sees one key's state at a time, timers fire at the end of
each key, a broadcast input is read first, the final watermark follows the input.

Records between vertices are ``(data set index, value, timestamp)`` triples. An edge
into a vertex is either narrow (forward, the vertex's only input: the consumer runs in
the producer's partitions) or a shuffle: the producer side routes every record with the
same channel selector the embedded runtime uses (key groups for ``key_by``, round robin
for rebalance, pointwise ranges for rescale, all partitions for broadcast, partition 0
for global) and ``partitionBy`` moves it to its consumer partition.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from millstream.common.execution_mode import RuntimeExecutionMode
from millstream.graph.job_config import JobConfig
from millstream.graph.job_graph import DistributionPattern, JobEdge, JobGraph, JobVertex
from millstream.graph.partitioning import ForwardPartitioner
from millstream.runtime.vertex_host import (
    KeySelectorError,
    RoundRobinChannelSelector,
    TaskLocation,
    UserFunctionError,
    VertexHost,
    create_channel_selector,
    pointwise_wiring,
)

__all__ = ["COLLECT_PREFIX", "VertexProgram", "plan_edges"]

COLLECT_PREFIX = "collect:"
_BATCH = 1024


class _Output:
    """Stands in for a RecordWriter: gathers a chain output's batches as records."""

    __slots__ = ("_pending", "_tag")

    def __init__(self, tag: Any, pending: list[tuple[Any, Any, Any]]) -> None:
        self._tag = tag
        self._pending = pending

    def emit(self, values: list[Any], timestamps: list[int] | None) -> None:
        tag = self._tag
        if timestamps is None:
            self._pending.extend((tag, v, None) for v in values)
        else:
            self._pending.extend(zip(itertools.repeat(tag), values, timestamps, strict=False))

    def emit_element(self, element: Any) -> None:
        """Watermarks stay inside the vertex: BATCH needs none across vertices."""


class _CollectChannel:
    __slots__ = ("_output",)

    def __init__(self, output: _Output) -> None:
        self._output = output

    def put(self, values: list[Any]) -> None:
        self._output.emit(values, None)

    def producer_finished(self) -> None:
        pass


class _CollectChannels:
    """Collect sinks send their elements to the driver as records of a ``collect:`` data set."""

    def __init__(self, pending: list[tuple[Any, Any, Any]]) -> None:
        self._pending = pending

    def channel(self, collect_id: str) -> _CollectChannel:
        return _CollectChannel(_Output(COLLECT_PREFIX + collect_id, self._pending))


@dataclass(frozen=True)
class VertexProgram:
    """What runs in each Spark partition of one vertex (pickled to the executors)."""

    job_name: str
    vertex: JobVertex
    job_config: JobConfig
    output_index: dict[str, int]  # data set id -> index in the records this vertex emits

    def run(self, subtask: int, records: Iterable[tuple[int, Any, Any]], attempt: int = 0) -> Iterator[Any]:
        """Run subtask ``subtask`` over ``records`` ((input index, value, timestamp)); yield its output."""
        pending: list[tuple[Any, Any, Any]] = []
        outputs = {ds: _Output(index, pending) for ds, index in self.output_index.items()}
        host = VertexHost.for_vertex(
            self.job_name,
            self.vertex,
            self.job_config,
            outputs,
            _CollectChannels(pending),
            subtask,
            attempt_number=attempt,
            runtime_mode=RuntimeExecutionMode.BATCH,
        )
        try:
            host.open()
            if host.is_source:
                for _ in host.run_source():
                    yield from pending
                    pending.clear()
            else:
                yield from self._run_inputs(host, records, pending)
            host.end_input()
            yield from pending
            pending.clear()
        finally:
            host.close()

    def _run_inputs(
        self, host: VertexHost, records: Iterable[tuple[int, Any, Any]], pending: list[Any]
    ) -> Iterator[Any]:
        targets = host.inputs()
        held: list[tuple[int, Any, Any]] = []
        first = host.broadcast_input()  # read before the others (broadcast state)
        for input_index, group in itertools.groupby(records, key=_input_of):
            if first is not None and input_index != first:
                held.extend(group)  # read after the broadcast input, as Flink's BATCH mode does
                continue
            yield from _feed(targets[input_index], group, pending)
        for input_index, group in itertools.groupby(held, key=_input_of):
            yield from _feed(targets[input_index], group, pending)
        host.end_sorted_inputs()
        yield from pending
        pending.clear()


def _input_of(record: tuple[int, Any, Any]) -> int:
    return record[0]


def _feed(handler: Any, group: Iterable[tuple[int, Any, Any]], pending: list[Any]) -> Iterator[Any]:
    process = handler.process_batch
    while True:
        chunk = list(itertools.islice(group, _BATCH))
        if not chunk:
            return
        values = [r[1] for r in chunk]
        timestamps = [r[2] for r in chunk]
        if all(t is None for t in timestamps):
            process(values, None)
        else:
            process(values, [-(2**63) if t is None else t for t in timestamps])
        if pending:
            yield from pending
            pending.clear()


# -- edges ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class EdgeRoute:
    """How the records of one data set reach the consumer partitions of one edge."""

    data_set_index: int
    input_index: int
    partitioner: Any
    pattern: DistributionPattern
    producers: int
    consumers: int
    operator_name: str

    @property
    def narrow(self) -> bool:
        """Forward with equal parallelism: consumer partition i reads producer partition i."""
        return isinstance(self.partitioner, ForwardPartitioner) and self.producers == self.consumers

    def route(
        self, producer: int, records: Iterator[tuple[Any, Any, Any]]
    ) -> Iterator[tuple[int, tuple[int, Any, Any]]]:
        """(consumer partition, (input index, value, timestamp)) for this edge's records of ``producer``."""
        ds = self.data_set_index
        mine: Iterator[tuple[Any, Any]] = ((v, t) for tag, v, t in records if tag == ds)
        selector, targets = self._selector(producer)
        index = self.input_index
        while True:
            chunk = list(itertools.islice(mine, _BATCH))
            if not chunk:
                return
            values = [v for v, _ in chunk]
            stamps = [t for _, t in chunk]
            try:
                routed = selector.route(values, stamps)
            except KeySelectorError as err:
                raise UserFunctionError(
                    self.operator_name,
                    TaskLocation("", self.operator_name, producer, self.producers),
                    err.index,
                    err.element,
                    message=str(err),
                ) from err.__cause__
            for channel, vals, ts in routed:
                target = targets[channel] if targets is not None else channel
                for v, t in zip(vals, ts, strict=True):
                    yield target, (index, v, t)

    def _selector(self, producer: int) -> tuple[Any, list[int] | None]:
        if self.pattern is DistributionPattern.POINTWISE:
            wiring = pointwise_wiring(self.producers, self.consumers)
            targets = [j for j, reads in enumerate(wiring) for p, _ in reads if p == producer]
            return RoundRobinChannelSelector(len(targets), 0), targets
        return create_channel_selector(self.partitioner, self.consumers), None


def plan_edges(
    job_graph: JobGraph, vertex: JobVertex, data_set_index: dict[str, tuple[JobVertex, int]]
) -> list[EdgeRoute]:
    """The routes of ``vertex``'s input edges."""
    routes = []
    for edge in vertex.inputs:
        producer, index = data_set_index[edge.source_id]
        routes.append(_route(edge, producer, vertex, index))
    return routes


def _route(edge: JobEdge, producer: JobVertex, consumer: JobVertex, index: int) -> EdgeRoute:
    return EdgeRoute(
        data_set_index=index,
        input_index=edge.input_index,
        partitioner=edge.partitioner,
        pattern=edge.distribution,
        producers=producer.parallelism,
        consumers=consumer.parallelism,
        operator_name=producer.name,
    )
