"""A bounded JobGraph -> Spark RDDs, one per vertex, walked in topological order.

Every operator runs inside its vertex's operator chain (``batch.VertexProgram``), so the
translation decides what the chain needs around it: sources start from one empty Spark
partition per subtask, edges become narrow maps or shuffles (``batch.plan_edges``),
collect sinks send their records to the driver. What Spark cannot run bounded (a legacy
``SourceFunction``, an unbounded source) is rejected before anything starts
(``support.check_batch``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from millstream.graph.job_graph import JobGraph, JobVertex
from millstream.spark.batch import COLLECT_PREFIX, EdgeRoute, VertexProgram, plan_edges
from millstream.spark.support import check_batch

__all__ = ["SparkPlan", "translate"]


@dataclass
class SparkPlan:
    """The RDDs of one job and the action that runs them."""

    final: Any  # RDD of (tag, value, timestamp) of the vertices nobody consumes
    collect_ids: list[str]
    counters: dict[str, Any] = field(default_factory=dict)  # vertex name -> Spark accumulator

    def run(self) -> Iterator[tuple[str, Any]]:
        """Run the Spark jobs; yield (collect id, value) of every collected element."""
        prefix = len(COLLECT_PREFIX)
        collected = self.final.filter(_is_collected)
        for tag, value, _ in collected.toLocalIterator(prefetchPartitions=True):
            yield tag[prefix:], value
        if not self.collect_ids:
            return

    def record_counts(self) -> dict[str, int]:
        """Records each vertex emitted."""
        return {name: int(acc.value) for name, acc in self.counters.items()}


def _is_collected(record: tuple[Any, Any, Any]) -> bool:
    tag = record[0]
    return isinstance(tag, str) and tag.startswith(COLLECT_PREFIX)


def _counted(records: Iterator[Any], counter: Any) -> Iterator[Any]:
    n = 0
    for record in records:
        n += 1
        yield record
    counter.add(n)


def translate(job_graph: JobGraph, sc: Any) -> SparkPlan:
    """The Spark RDDs of ``job_graph`` (nothing runs until ``SparkPlan.run``)."""
    check_batch(job_graph)
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark import StorageLevel

    data_sets: dict[str, tuple[JobVertex, int]] = {}
    for vertex in job_graph.vertices:
        for index, ds in enumerate(vertex.produced_data_sets):
            data_sets[ds] = (vertex, index)
    consumers: dict[Any, int] = {}
    for vertex in job_graph.vertices:
        for edge in vertex.inputs:
            producer = data_sets[edge.source_id][0].id
            consumers[producer] = consumers.get(producer, 0) + 1
    rdds: dict[Any, Any] = {}
    counters: dict[str, Any] = {}
    collect_ids = [collect_id for collect_id, _ in job_graph.collect_sinks()]
    for vertex in job_graph.vertices:
        routes = plan_edges(job_graph, vertex, data_sets)
        program = VertexProgram(
            job_graph.job_name,
            vertex,
            job_graph.job_config,
            {ds: i for i, ds in enumerate(vertex.produced_data_sets)},
        )
        counter = counters[vertex.name] = sc.accumulator(0)
        rdd = _vertex_rdd(sc, vertex, routes, program, counter, rdds, data_sets)
        rdd.setName(f"{vertex.name} ({vertex.parallelism})")
        if consumers.get(vertex.id, 0) > 1:
            rdd.persist(StorageLevel.MEMORY_AND_DISK)
        rdds[vertex.id] = rdd
    terminal = [rdds[v.id] for v in job_graph.vertices if consumers.get(v.id, 0) == 0]
    final = terminal[0] if len(terminal) == 1 else sc.union(terminal)
    return SparkPlan(final, collect_ids, counters)


def _vertex_rdd(
    sc: Any,
    vertex: JobVertex,
    routes: list[EdgeRoute],
    program: VertexProgram,
    counter: Any,
    rdds: dict[Any, Any],
    data_sets: dict[str, tuple[JobVertex, int]],
) -> Any:
    n = vertex.parallelism

    def run(index: int, records: Any) -> Iterator[Any]:
        # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
        from pyspark import TaskContext

        ctx = TaskContext.get()
        attempt = ctx.attemptNumber() if ctx is not None else 0
        return _counted(program.run(index, records, attempt), counter)

    if not routes:
        return sc.parallelize(range(n), n).mapPartitionsWithIndex(lambda i, _: run(i, ()))
    producers = [rdds[data_sets[edge.source_id][0].id] for edge in vertex.inputs]
    if len(routes) == 1 and routes[0].narrow:
        route = routes[0]

        def narrow(i: int, it: Iterator[Any]) -> Iterator[Any]:
            ds, index = route.data_set_index, route.input_index
            return run(i, ((index, v, t) for tag, v, t in it if tag == ds))

        return producers[0].mapPartitionsWithIndex(narrow, preservesPartitioning=True)
    routed = [
        producer.mapPartitionsWithIndex(lambda i, it, r=route: r.route(i, it))
        for producer, route in zip(producers, routes, strict=True)
    ]
    shuffled = (routed[0] if len(routed) == 1 else sc.union(routed)).partitionBy(n, _identity)
    return shuffled.values().mapPartitionsWithIndex(run)


def _identity(partition: int) -> int:
    return partition
