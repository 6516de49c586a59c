"""translate_streaming: an unbounded JobGraph becomes one Structured Streaming query
(sources, stateless and keyed vertices, sinks; see the package docstring).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import replace
from typing import Any

from millstream.connectors.file.source import StreamFormat
from millstream.connectors.kafka.source import KafkaSource
from millstream.graph.job_config import JobConfig
from millstream.graph.job_graph import ChainedOperator, JobGraph, JobVertex
from millstream.graph.operator_specs import (
    CollectSpec,
    KeyedBroadcastProcessSpec,
    KeyedCoProcessSpec,
    KeyedProcessSpec,
    MapSpec,
    OperatorSpec,
    SinkWriterSpec,
    SourceSpec,
    TimestampsWatermarksSpec,
)
from millstream.graph.partitioning import KeyGroupStreamPartitioner
from millstream.spark.batch import COLLECT_PREFIX
from millstream.spark.streaming.client import FileSinkWrite, StreamingPlan
from millstream.spark.streaming.envelope import _envelope_schema
from millstream.spark.streaming.kafka import kafka_frame
from millstream.spark.streaming.keyed import _broadcast_inputs, _keyed_processor
from millstream.spark.streaming.vertex_program import StreamingVertexProgram
from millstream.spark.support import check_streaming
from millstream.spark.support import unsupported_streaming as _reject

__all__ = ["micro_batch_interval_ms", "translate_streaming"]


def _strategy_delay(op: ChainedOperator, strategy: Any) -> int | None:
    if strategy is None or strategy.kind == "none":
        return None
    if strategy.idleness_ms is not None:
        raise _reject(op, "with_idleness has no Spark equivalent (Spark's watermark is global per query)")
    if strategy.kind == "bounded":
        return int(strategy.out_of_orderness_ms) + 1
    if strategy.kind == "monotonous":
        return 1
    delay = getattr(strategy.create_watermark_generator(), "bounded_delay_ms", None)
    if delay is not None:  # watermark = max timestamp - delay (a SQL ``WATERMARK FOR ts AS ts - ...``)
        return int(delay)
    raise _reject(op, "a custom WatermarkGenerator cannot be expressed with Spark's withWatermark")


def _edges(job_graph: JobGraph) -> tuple[dict[Any, tuple[JobVertex, int]], dict[Any, Any], dict[Any, int]]:
    """Producer of each data set, the key selector of its consuming edge, consumers per vertex."""
    data_sets: dict[Any, tuple[JobVertex, int]] = {}
    for vertex in job_graph.vertices:
        for index, ds in enumerate(vertex.produced_data_sets):
            data_sets[ds] = (vertex, index)
    consumer_key: dict[Any, Any] = {}
    consumers: dict[Any, int] = {}
    for vertex in job_graph.vertices:
        single = bool(_broadcast_inputs(vertex))
        for edge in vertex.inputs:
            partitioner = edge.partitioner
            key = partitioner.key_selector if isinstance(partitioner, KeyGroupStreamPartitioner) else None
            consumer_key[edge.source_id] = _single_group if single else key
            producer = data_sets[edge.source_id][0].id
            consumers[producer] = consumers.get(producer, 0) + 1
    return data_sets, consumer_key, consumers


def _single_group(value: Any) -> int:
    """The one group of a broadcast-state vertex: every row of both inputs meets its state."""
    return 0


def translate_streaming(job_graph: JobGraph, spark: Any) -> StreamingPlan:
    """The Structured Streaming query of an unbounded ``job_graph`` (not started).

    Sets the session's state store to RocksDB (transformWithState needs it) and its shuffle
    partitions to the keyed operator's parallelism.
    """
    data_sets, consumer_key, consumers = _edges(job_graph)
    keyed = [v for v in job_graph.vertices if v.operators[0].state_key_selector is not None]
    spark.conf.set(
        "spark.sql.streaming.stateStore.providerClass",
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
    )
    if keyed:
        spark.conf.set("spark.sql.shuffle.partitions", str(max(v.parallelism for v in keyed)))
    frames: dict[Any, Any] = {}
    stateful: set[Any] = set()  # vertices at or behind a keyed (stateful) operator
    delay: int | None = None
    collect_ids = [collect_id for collect_id, _ in job_graph.collect_sinks()]
    file_sinks: list[FileSinkWrite] = []
    for vertex in job_graph.vertices:
        head = vertex.operators[0]
        single = bool(_broadcast_inputs(vertex))
        for op in vertex.operators:
            check_streaming(op, head.state_key_selector is not None, single)
            if isinstance(op.operator, TimestampsWatermarksSpec):
                delay = _strategy_delay(op, op.operator.watermark_strategy)
        outputs = {ds: (ds, consumer_key.get(ds)) for ds in vertex.produced_data_sets}
        vertex = _divert_file_sinks(vertex, job_graph, file_sinks)
        program = StreamingVertexProgram(job_graph.job_name, vertex, job_graph.job_config, outputs)
        if isinstance(head.operator, SourceSpec):
            frame, source_delay = _source_frame(spark, program)
            delay = source_delay if source_delay is not None else delay
        elif not vertex.inputs:
            raise _reject(head, "only a monitored FileSource can feed an unbounded job on Spark so far")
        else:
            behind = any(data_sets[e.source_id][0].id in stateful for e in vertex.inputs)
            frame = _vertex_frame(_inputs_frame(vertex, frames, data_sets), program, delay, behind)
            if behind or head.state_key_selector is not None or single:
                stateful.add(vertex.id)
        frames[vertex.id] = frame
    terminal = [frames[v.id] for v in job_graph.vertices if consumers.get(v.id, 0) == 0]
    result = terminal[0]
    for other in terminal[1:]:
        result = result.unionByName(other)
    trigger_ms = micro_batch_interval_ms(job_graph.job_config)
    location = _checkpoint_location(job_graph)
    temporary = not job_graph.job_config.checkpointing_dir
    return StreamingPlan(result, collect_ids, location, file_sinks, trigger_ms, temporary)


def micro_batch_interval_ms(job_config: JobConfig) -> int:
    """The query's trigger interval: every micro-batch commits the offsets and state to the
    checkpoint location (Structured Streaming's checkpoint), so a job with checkpoints every
    ``interval`` runs a micro-batch every ``interval``; without checkpoints, every 100 ms."""
    checkpointing = job_config.checkpointing
    return checkpointing.interval_ms if checkpointing.enabled else 100


def _checkpoint_location(job_graph: JobGraph) -> str:
    """``<execution.checkpointing.dir>/<job name>``: a job started again under the same name
    resumes from its checkpoint (Spark's offsets and state); a temporary directory if unset."""
    configured = job_graph.job_config.checkpointing_dir
    if not configured:
        return tempfile.mkdtemp(prefix="millstream-spark-checkpoint-")
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", job_graph.job_name) or "job"
    return os.path.join(str(configured).removeprefix("file://"), name)


def _divert_file_sinks(vertex: JobVertex, job_graph: JobGraph, file_sinks: list[FileSinkWrite]) -> JobVertex:
    """Replace each file sink of the chain by a collect output written in ``foreachBatch``."""
    operators = list(vertex.operators)
    for i, op in enumerate(operators):
        if isinstance(op.operator, SinkWriterSpec):
            sink_id = f"sink:{op.node_id}"
            file_sinks.append(FileSinkWrite(COLLECT_PREFIX + sink_id, op.operator, op.name, job_graph.job_id))
            operators[i] = replace(op, operator=CollectSpec(sink_id))
    return replace(vertex, operators=tuple(operators))


def _inputs_frame(
    vertex: JobVertex, frames: dict[Any, Any], data_sets: dict[Any, tuple[JobVertex, int]]
) -> Any:
    """The union of a vertex's input edges, each row's tag set to its operator input ("0"/"1")."""
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark.sql.functions import lit

    unioned = None
    for edge in vertex.inputs:
        upstream = frames[data_sets[edge.source_id][0].id]
        part = upstream.filter(upstream.tag == edge.source_id).withColumn("tag", lit(str(edge.input_index)))
        unioned = part if unioned is None else unioned.unionByName(part)
    return unioned


def _vertex_frame(upstream: Any, program: StreamingVertexProgram, delay: int | None, behind: bool) -> Any:
    """``behind``: the input comes from a keyed operator, whose output carries the watermark on.

    A vertex with a broadcast input runs as one group (all its keys, its broadcast state
    and its timers in one state row): Spark has no state shared between groups.
    """
    single = bool(_broadcast_inputs(program.vertex))
    if program.vertex.operators[0].state_key_selector is None and not single:
        return upstream.mapInPandas(lambda frames: program.map_batches(frames, "payload"), _envelope_schema())
    if delay is not None and not behind:
        upstream = upstream.withWatermark("evt", f"{delay} milliseconds")
    if delay is not None:
        time_mode = "EventTime"
    elif isinstance(program.vertex.operators[0].operator, _PROCESSING_TIMERS):
        time_mode = "ProcessingTime"  # its function may register processing-time timers
    else:
        time_mode = "None"
    return upstream.groupBy("key").transformWithStateInPandas(
        _keyed_processor(program, time_mode, behind),
        _envelope_schema(),
        "Append",
        time_mode,
        eventTimeColumnName="evt" if delay is not None else "",
    )


# keyed operators whose user function may register processing-time timers; without a
# watermark in the job they run in Spark's ProcessingTime mode (Spark keeps running
# micro-batches to fire the timers, so other operators stay in "None")
_PROCESSING_TIMERS = (KeyedProcessSpec, KeyedCoProcessSpec, KeyedBroadcastProcessSpec)


def _source_frame(spark: Any, program: StreamingVertexProgram) -> tuple[Any, int | None]:
    vertex = program.vertex
    head = vertex.operators[0]
    assert isinstance(head.operator, SourceSpec)
    source = head.operator.source
    paths = getattr(source, "paths", None)
    generator = getattr(source, "generator_function", None)
    kafka = isinstance(source, KafkaSource)
    if (
        (getattr(source, "discovery_interval_ms", None) is None or not paths)
        and generator is None
        and not kafka
    ):
        raise _reject(
            head,
            "only a monitored FileSource, a KafkaSource or an unbounded DataGeneratorSource can feed "
            "an unbounded job on Spark",
        )
    strategy = head.operator.watermark_strategy
    delay = _strategy_delay(head, strategy)
    # the source's own timestamp assignment runs as the first operator of the chain
    first: OperatorSpec = TimestampsWatermarksSpec(strategy) if strategy is not None else MapSpec(_identity)
    operators = (replace(head, operator=first), *vertex.operators[1:])
    if kafka:
        chain_program = replace(program, vertex=replace(vertex, operators=operators), kafka_source=source)
        rows = kafka_frame(spark, source)
        frame = rows.mapInPandas(
            lambda batches: chain_program.map_batches(batches, "kafka"), _envelope_schema()
        )
        return frame, delay
    if generator is not None:
        return _generator_frame(
            spark, replace(program, vertex=replace(vertex, operators=operators)), source
        ), delay
    fmt = source.stream_format
    plain_text = type(fmt) is StreamFormat
    chain_program = replace(
        program, vertex=replace(vertex, operators=operators), file_format=None if plain_text else fmt
    )
    reader = spark.readStream.format("text" if plain_text else "binaryFile")
    reader = reader.option("recursiveFileLookup", "true")
    if not plain_text:
        reader = reader.schema(_BINARY_FILE_SCHEMA)
    frames = [reader.load(path.removeprefix("file://")) for path in paths or ()]
    if not plain_text:
        frames = [frame.select("path") for frame in frames]  # the format's reader reads the file
    rows = frames[0]
    for frame in frames[1:]:
        rows = rows.unionByName(frame)
    column = "value" if plain_text else "path"
    frame = rows.mapInPandas(lambda batches: chain_program.map_batches(batches, column), _envelope_schema())
    return frame, delay


def _generator_frame(spark: Any, program: StreamingVertexProgram, source: Any) -> Any:
    """An unbounded DataGeneratorSource: Spark's rate source counts the indexes 0, 1, 2 ...
    (at the source's rate, or ``rate-micro-batch`` steps when unlimited); the generator
    function turns each into its element, as the embedded runtime's reader does."""
    partitions = str(program.vertex.parallelism)
    rate = source.records_per_second
    if rate is None:
        reader = spark.readStream.format("rate-micro-batch").option(
            "rowsPerBatch", str(_UNLIMITED_ROWS_PER_BATCH)
        )
    else:
        reader = spark.readStream.format("rate").option("rowsPerSecond", str(max(1, round(rate))))
    rows = reader.option("numPartitions", partitions).load().select("value")
    chain_program = replace(program, generator=source.generator_function)
    return rows.mapInPandas(lambda batches: chain_program.map_batches(batches, "index"), _envelope_schema())


_UNLIMITED_ROWS_PER_BATCH = 10_000


_BINARY_FILE_SCHEMA = "path STRING, modificationTime TIMESTAMP, length BIGINT, content BINARY"


def _identity(value: Any) -> Any:
    return value
