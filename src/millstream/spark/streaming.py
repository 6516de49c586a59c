"""Unbounded translation: a JobGraph becomes one Spark Structured Streaming query.

Records travel in an envelope: ``tag`` (the data set, or ``collect:<id>``), ``key`` (the
pickled key of the consuming ``key_by`` edge, empty otherwise), ``ts`` (event time, ms),
``evt`` (the same as a timestamp column, for ``withWatermark``) and ``payload`` (the
pickled value).

* The source: an unbounded ``DataGeneratorSource`` becomes Spark's rate source (its
  counter feeds the generator function); a monitored ``FileSource`` of text lines becomes
  ``readStream.text``, in any other format (CSV, JSON Lines, Parquet)
  ``readStream.format("binaryFile")`` of the new files' paths, each file read by the
  format's own reader (the same parsing and error positions as on the embedded runtime;
  the files must be on a file system the executors mount). The rest of the source's
  chain (its timestamp assigner included) runs in ``mapInPandas``.
* Event time: the job's WatermarkStrategy becomes ``withWatermark("evt", bound + 1 ms)``
  (Flink's watermark is max - bound - 1). Spark advances the watermark once per
  micro-batch and drops rows behind it at the stateful operator: late elements never
  reach a window, so a late-data side output cannot be expressed and is rejected.
* A stateless vertex runs its operator chain in ``mapInPandas``. A vertex with several
  input edges (union, connect) reads their union, each row tagged with its operator input.
* A keyed vertex runs in ``groupBy(key).transformWithStateInPandas``: per key, the
  operator chain's keyed state and timers are restored from Spark's state store (a
  RocksDB store with the query's checkpoint location), the key's rows are processed,
  event-time timers are mirrored to Spark timers, and the state is written back; an
  expired Spark timer advances the operator's watermark for that key. It is
  millstream's own operator code, so windows, reduce and KeyedProcessFunction behave as
  on the embedded runtime within Spark's per-batch watermark.
* Collect sinks reach the driver through ``foreachBatch``; file sinks are written there
  too, idempotently per micro-batch (``FileSinkWrite``); ``print`` prints on the executors.

Several keyed operators chain: each keyed operator's output carries the watermark on
(``eventTimeColumnName``), and an operator behind another one processes its rows before
its watermark advances, as Flink forwards a window's result before the watermark that
fired it.

A vertex with a broadcast input (broadcast state) runs as one Spark group holding one
chain per Flink subtask: keyed rows go to the subtask owning their key group, broadcast
rows to every subtask, broadcast rows of a micro-batch first.

Rejected before the query starts, naming the operator: custom watermark generators,
idleness, late-data side outputs, processing-time windows, and sources other than a
monitored FileSource. Without a watermark, keyed process functions run in
Spark's ProcessingTime mode (their processing-time timers become Spark timers); a
processing-time timer in an event-time job fails the query.
"""

from __future__ import annotations

import itertools
import os
import pickle
import queue
import re
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import cloudpickle

from millstream.common.execution_mode import RuntimeExecutionMode
from millstream.connectors.file.source import StreamFormat
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
from millstream.runtime.vertex_host import (
    HeadSnapshot,
    TaskLocation,
    UserFunctionError,
    VertexHost,
    create_channel_selector,
)
from millstream.spark.batch import COLLECT_PREFIX
from millstream.spark.support import UnsupportedStreamingError, check_streaming
from millstream.spark.support import unsupported_streaming as _reject

__all__ = ["ENVELOPE_COLUMNS", "StreamingPlan", "translate_streaming"]

ENVELOPE_COLUMNS = ["tag", "key", "ts", "evt", "payload"]
# ``evt`` = ``ts`` + this shift (2**41 ms, about 70 years). Spark's watermark starts at 0 and
# drops rows at or before it, so without the shift an element at event time 0 (or any
# negative one) would be late in Spark's first micro-batch, where Flink's initial
# watermark (Long.MIN_VALUE) makes nothing late. Spark's timers and watermark are read
# back with the shift removed. Event times in 1900..2191 stay within pandas' range.
EVT_SHIFT = 1 << 41
_MIN_TIMESTAMP = -(2**63)
_BATCH = 1024


def _envelope_schema() -> Any:
    from pyspark.sql.types import BinaryType, LongType, StringType, StructField, StructType, TimestampType

    return StructType(
        [
            StructField("tag", StringType()),
            StructField("key", BinaryType()),
            StructField("ts", LongType()),
            StructField("evt", TimestampType()),
            StructField("payload", BinaryType()),
        ]
    )


class _Encoder:
    """Chain outputs -> envelope rows; the key column for the consuming key_by edge."""

    def __init__(self, tag: str, key_selector: Any, pending: list[tuple[Any, ...]]) -> None:
        self._tag = tag
        self._key = key_selector
        self._pending = pending

    def emit(self, values: list[Any], timestamps: list[int] | None) -> None:
        dumps = pickle.dumps
        key = self._key
        tag = self._tag
        stamps = timestamps if timestamps is not None else itertools.repeat(None)
        for value, ts in zip(values, stamps):
            key_bytes = dumps(key(value)) if key is not None else b""
            self._pending.append((tag, key_bytes, ts, dumps(value)))

    def emit_element(self, element: Any) -> None:
        """Watermarks are Spark's (withWatermark), not the chain's."""


class _CollectChannels:
    def __init__(self, pending: list[tuple[Any, ...]]) -> None:
        self._pending = pending

    def channel(self, collect_id: str) -> Any:
        encoder = _Encoder(COLLECT_PREFIX + collect_id, None, self._pending)

        class _Channel:
            def put(self, values: list[Any]) -> None:
                encoder.emit(values, None)

            def producer_finished(self) -> None:
                pass

        return _Channel()


def _frame(rows: list[tuple[Any, ...]]) -> Any:
    import pandas as pd

    frame = pd.DataFrame(rows, columns=["tag", "key", "ts", "payload"])
    frame["ts"] = frame["ts"].astype("Int64")
    frame["evt"] = pd.to_datetime(frame["ts"] + EVT_SHIFT, unit="ms", utc=True)
    return frame[ENVELOPE_COLUMNS]


@dataclass(frozen=True)
class StreamingVertexProgram:
    """One vertex's operator chain, run per micro-batch partition (stateless) or per key."""

    job_name: str
    vertex: JobVertex
    job_config: JobConfig
    outputs: dict[Any, tuple[Any, Any]]  # data set id -> (tag, key selector of its consumer or None)
    file_format: Any = None  # the source's format when files arrive as paths
    generator: Any = None  # an unbounded DataGeneratorSource's function of the index

    def host(
        self, pending: list[tuple[Any, ...]], subtask_index: int = 0, parallelism: int = 1
    ) -> VertexHost:
        """The vertex's chain, opened (as ``subtask_index`` of ``parallelism``), outputs encoded
        into ``pending``."""
        outputs = {ds: _Encoder(tag, key, pending) for ds, (tag, key) in self.outputs.items()}
        host = VertexHost.for_vertex(
            self.job_name,
            self.vertex,
            self.job_config,
            outputs,
            _CollectChannels(pending),
            subtask_index,
            parallelism,
            runtime_mode=RuntimeExecutionMode.STREAMING,
        )
        host.open()
        return host

    def map_batches(self, frames: Iterator[Any], column: str) -> Iterator[Any]:
        """mapInPandas: every row (a ``column`` of text lines, or envelope payloads) through the chain."""
        pending: list[tuple[Any, ...]] = []
        host = self.host(pending)
        handlers = host.inputs()
        try:
            for frame in frames:
                if column == "value":
                    lines = list(frame["value"])
                    for start in range(0, len(lines), _BATCH):
                        handlers[0].process_batch(lines[start : start + _BATCH], None)
                elif column == "path":
                    for path in frame["path"]:
                        self._read_file(_local_path(path), handlers[0])
                elif column == "index":
                    self._generate(list(frame["value"]), handlers[0])
                else:
                    feed_envelopes(handlers, frame)
                if pending:
                    yield _frame(pending)
                    pending.clear()
        finally:
            host.close()

    def _generate(self, indexes: list[int], handler: Any) -> None:
        """The generator function's values of Spark's rate-source indexes, into the chain."""
        fn = self.generator
        for start in range(0, len(indexes), _BATCH):
            values = []
            for index in indexes[start : start + _BATCH]:
                try:
                    values.append(fn(int(index)))
                except Exception as err:
                    location = TaskLocation(self.job_name, self.vertex.name, 0, 1)
                    name = self.vertex.operators[0].name
                    raise UserFunctionError(
                        name, location, int(index), index, "generator function raised", err
                    ) from err
            handler.process_batch(values, None)

    def _read_file(self, path: str, handler: Any) -> None:
        """Every record of one file, read by the source format's own reader, into the chain."""
        fmt = self.file_format
        reader = fmt.create_reader(fmt.units(path, os.path.getsize(path)))
        position = 0
        try:
            while True:
                try:
                    batch = reader.poll(_BATCH)
                except Exception as err:
                    location = TaskLocation(self.job_name, self.vertex.name, 0, 1)
                    name = self.vertex.operators[0].name
                    message = "source reader failed"
                    raise UserFunctionError(name, location, position, path, message, err) from err
                if batch is None:
                    return
                position += len(batch)
                handler.process_batch(batch, None)
        finally:
            reader.close()


def _local_path(uri: str) -> str:
    """``file:/a/b`` or ``file:///a/b`` (Spark's path column) -> ``/a/b``."""
    if uri.startswith("file:"):
        uri = "/" + uri[len("file:") :].lstrip("/")
    return uri


def feed_envelopes(handlers: list[Any], frame: Any) -> None:
    """Envelope rows to the operator input their tag names (``"0"`` / ``"1"``), in batches."""
    values = [pickle.loads(p) for p in frame["payload"]]
    stamps = _stamps(frame)
    inputs = [int(t) for t in frame["tag"]]
    start = 0
    for input_index, group in itertools.groupby(inputs):
        n = len(list(group))
        end = start + n
        for lo in range(start, end, _BATCH):
            hi = min(lo + _BATCH, end)
            handlers[input_index].process_batch(values[lo:hi], None if stamps is None else stamps[lo:hi])
        start = end


def _broadcast_first(frames: list[Any], tags: set[str]) -> Any:
    """One frame of ``frames``' rows, those of the broadcast inputs first (order kept otherwise)."""
    import pandas as pd

    frame = pd.concat(frames, ignore_index=True) if len(frames) != 1 else frames[0]
    order = (~frame["tag"].isin(list(tags))).astype(int)
    return frame.iloc[order.argsort(kind="stable")]


def _stamps(frame: Any) -> list[int] | None:
    if "ts" not in frame or frame["ts"].isna().all():
        return None
    return [-(2**63) if v is None or v != v else int(v) for v in frame["ts"]]


class KeyedRunner:
    """Runs a keyed vertex one Spark group at a time with the group's state from Spark's store.

    A keyed vertex has one group per key and one chain. A vertex with a broadcast input
    has a single group holding ``parallelism`` chains, one per Flink subtask: keyed rows go
    to the subtask owning their key group, broadcast rows to every subtask (so, as in
    Flink, ``process_broadcast_element`` runs once per parallel instance).
    """

    def __init__(self, program: StreamingVertexProgram, time_mode: str, behind: bool = False) -> None:
        # Spark's time mode of the operator: "EventTime" (the job has a watermark: event-time
        # timers become Spark timers), "ProcessingTime" (processing-time timers do), "None"
        self._time_mode = time_mode
        self._fired_until = -(2**63)
        # a broadcast-state vertex reads the broadcast rows of a micro-batch first (as
        # Flink's BATCH mode does): rules published with the data they apply to take effect
        self._broadcast_first = _broadcast_inputs(program.vertex)
        # behind a keyed operator: its rows were emitted before the watermark that fired them
        # moved on (Flink forwards a window's result, then the watermark), so they are
        # processed first and the watermark advances after them
        self._behind = behind
        self._pending: list[tuple[Any, ...]] = []
        vertex = program.vertex
        n = vertex.parallelism if self._broadcast_first else 1
        # every subtask its own copy of the user functions (as every Flink task deserializes its own)
        copies = [program] + [cloudpickle.loads(cloudpickle.dumps(program)) for _ in range(n - 1)]
        self._hosts = [copy.host(self._pending, i, n) for i, copy in enumerate(copies)]
        self._handlers = [host.inputs() for host in self._hosts]
        self._routes = (
            [create_channel_selector(edge.partitioner, n) for edge in sorted(vertex.inputs, key=_input_index)]
            if n > 1
            else None
        )
        self._name = vertex.operators[0].name

    def _restore(self, blob: Any) -> None:
        snapshots = pickle.loads(blob) if blob is not None else [HeadSnapshot()] * len(self._hosts)
        for host, snapshot in zip(self._hosts, snapshots, strict=True):
            host.restore_head(HeadSnapshot(*snapshot))

    def _save(self, state: Any, handle: Any) -> None:
        snapshots = [host.snapshot_head() for host in self._hosts]
        if self._time_mode != "ProcessingTime" and any(s.processing_timers for s in snapshots):
            raise UnsupportedStreamingError(
                f"operator '{self._name}' registered a processing-time timer in an event-time "
                "job: a Spark stateful operator runs in one time mode (both timer kinds in one "
                "function cannot run on Spark)"
            )
        if any(not snapshot.is_empty() for snapshot in snapshots):
            state.update((pickle.dumps([tuple(snapshot) for snapshot in snapshots]),))
        else:
            state.clear()
        if self._time_mode == "None":
            return
        if self._time_mode == "EventTime":
            wanted = {ts + EVT_SHIFT for snapshot in snapshots for ts, _, _ in snapshot.event_timers}
            fired = self._hosts[0].head.current_watermark + EVT_SHIFT
        else:
            wanted = {ts for snapshot in snapshots for ts, _, _ in snapshot.processing_timers}
            fired = self._fired_until
        registered = set(handle.listTimers())
        # timers up to the watermark (or the clock) expired: Spark dropped them already
        for ts in registered - wanted:
            if ts > fired:
                handle.deleteTimer(ts)
        for ts in wanted - registered:
            handle.registerTimer(ts)

    def _advance(self, watermark: int) -> None:
        for host in self._hosts:
            host.advance_watermark(watermark)

    def _feed(self, frame: Any) -> None:
        if self._routes is None:
            feed_envelopes(self._handlers[0], frame)
            return
        values = [pickle.loads(p) for p in frame["payload"]]
        stamps = _stamps(frame)
        inputs = [int(t) for t in frame["tag"]]
        start = 0
        for input_index, group in itertools.groupby(inputs):
            end = start + len(list(group))
            routed = self._routes[input_index].route(
                values[start:end], None if stamps is None else stamps[start:end]
            )
            for subtask, part, part_stamps in routed:
                self._handlers[subtask][input_index].process_batch(part, part_stamps)
            start = end

    def on_rows(self, rows: Iterator[Any], watermark: int, state: Any, handle: Any) -> Iterator[Any]:
        """The group's new rows."""
        self._restore(state.get()[0] if state.exists() else None)
        if not self._behind:
            self._advance(watermark)
        frames: Iterable[Any] = rows
        if self._broadcast_first:
            frames = [_broadcast_first(list(rows), self._broadcast_first)]
        for frame in frames:
            self._feed(frame)
        if self._behind:
            self._advance(watermark)
        self._save(state, handle)
        yield from self._flush()

    def on_timer(self, watermark: int, expiry: int, state: Any, handle: Any) -> Iterator[Any]:
        """A Spark timer of the group expired: the watermark (or the clock) passed ``expiry``."""
        self._restore(state.get()[0] if state.exists() else None)
        self._advance(watermark)
        if self._time_mode == "ProcessingTime":
            self._fired_until = expiry
            for host in self._hosts:
                host.advance_processing_time(expiry)
        self._save(state, handle)
        yield from self._flush()

    def _flush(self) -> Iterator[Any]:
        if self._pending:
            frame = _frame(self._pending)
            self._pending.clear()
            yield frame

    def close(self) -> None:
        """Close the chains."""
        for host in self._hosts:
            host.close()


def _input_index(edge: Any) -> int:
    return int(edge.input_index)


def _keyed_processor(program: StreamingVertexProgram, time_mode: str, behind: bool) -> Any:
    from pyspark.sql.streaming import StatefulProcessor
    from pyspark.sql.types import BinaryType, StructField, StructType

    class MillstreamKeyedProcessor(StatefulProcessor):
        def init(self, handle: Any) -> None:
            self.handle = handle
            schema = StructType([StructField("state", BinaryType())])
            self.state = handle.getValueState("millstream-keyed-state", schema)
            self.runner = KeyedRunner(program, time_mode, behind)

        def handleInputRows(self, key: Any, rows: Any, timerValues: Any) -> Any:
            watermark = _event_time(timerValues.getCurrentWatermarkInMs())
            yield from self.runner.on_rows(rows, watermark, self.state, self.handle)

        def handleExpiredTimer(self, key: Any, timerValues: Any, expiredTimerInfo: Any) -> Any:
            expiry = expiredTimerInfo.getExpiryTimeInMs()
            watermark = _event_time(timerValues.getCurrentWatermarkInMs())
            if time_mode == "EventTime":
                expiry = _event_time(expiry)
                watermark = max(watermark, expiry)
            yield from self.runner.on_timer(watermark, expiry, self.state, self.handle)

        def close(self) -> None:
            self.runner.close()

    return MillstreamKeyedProcessor()


def _event_time(spark_ms: int) -> int:
    """A Spark watermark or event-time timer (shifted) as Flink event time; 0 (Spark's
    initial watermark) is Flink's Long.MIN_VALUE."""
    return spark_ms - EVT_SHIFT if spark_ms > 0 else _MIN_TIMESTAMP


# -- checks ---------------------------------------------------------------------------------


def _strategy_delay(op: ChainedOperator, strategy: Any) -> int | None:
    if strategy is None or strategy.kind == "none":
        return None
    if strategy.idleness_ms is not None:
        raise _reject(op, "with_idleness has no Spark equivalent (Spark's watermark is global per query)")
    if strategy.kind == "bounded":
        return int(strategy.out_of_orderness_ms) + 1
    if strategy.kind == "monotonous":
        return 1
    raise _reject(op, "a custom WatermarkGenerator cannot be expressed with Spark's withWatermark")


# -- the query ------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileSinkWrite:
    """A file sink of an unbounded job, written in ``foreachBatch``: its records reach the sink
    tagged ``collect:sink:<node>``; each micro-batch's partitions write part files whose
    names derive from the job, the batch id and the partition, so a replayed batch rewrites
    the same files instead of adding duplicates (idempotent per batch)."""

    tag: str
    spec: SinkWriterSpec
    name: str
    job_id: str

    def write(self, batch: Any, batch_id: int) -> None:
        """Write this sink's rows of one micro-batch, partition by partition, on the executors."""
        rows = batch.filter(batch.tag == self.tag).select("payload")
        rows.rdd.mapPartitionsWithIndex(lambda i, it: self._write_partition(batch_id, i, it)).count()

    def _write_partition(self, batch_id: int, index: int, rows: Iterator[Any]) -> Iterator[int]:
        from millstream.common.connector import WriterContext

        values = [pickle.loads(row["payload"]) for row in rows]
        if not values:
            return iter(())
        context = WriterContext(index, 1, 0, self.name, part_uid=f"{self.job_id}-batch{batch_id}")
        writer = self.spec.sink.create_writer(context, self.spec.renderer())
        try:
            for start in range(0, len(values), _BATCH):
                writer.write_batch(values[start : start + _BATCH])
            writer.finish()
        finally:
            writer.close()
        return iter((len(values),))


@dataclass
class StreamingPlan:
    """The streaming DataFrame of collected records, and how to start the query."""

    frame: Any
    collect_ids: list[str]
    checkpoint_location: str
    file_sinks: list[FileSinkWrite] = field(default_factory=list)

    def start(self, on_record: Any) -> Any:
        """Start the query; ``on_record(collect_id, value)`` for every collected element (driver)."""
        prefix = len(COLLECT_PREFIX)

        sink_tags = [s.tag for s in self.file_sinks]
        marker = os.path.join(self.checkpoint_location, "millstream-delivered-batch")

        def delivered() -> int:
            try:
                with open(marker) as f:
                    return int(f.read().strip() or -1)
            except FileNotFoundError:
                return -1

        def deliver(batch: Any, batch_id: int) -> None:
            if self.file_sinks:
                # several actions on the batch (each sink, then the collected rows): Spark's
                # guide asks foreachBatch to persist a batch used more than once
                batch = batch.persist()
            try:
                deliver_batch(batch, batch_id)
            finally:
                if self.file_sinks:
                    batch.unpersist()

        def deliver_batch(batch: Any, batch_id: int) -> None:
            for sink in self.file_sinks:
                sink.write(batch, batch_id)  # idempotent: a replayed batch rewrites its files
            # a batch replayed after a restart runs again (its state must commit) but its
            # collected records were delivered already
            replayed = batch_id <= delivered()
            collected = batch.filter(batch.tag.startswith(COLLECT_PREFIX))
            for tag in sink_tags:
                collected = collected.filter(collected.tag != tag)
            for row in collected.toLocalIterator():
                if not replayed:
                    on_record(row["tag"][prefix:], pickle.loads(row["payload"]))
            os.makedirs(self.checkpoint_location, exist_ok=True)
            with open(marker + ".tmp", "w") as f:
                f.write(str(batch_id))
            os.replace(marker + ".tmp", marker)

        return (
            self.frame.writeStream.foreachBatch(deliver)
            .option("checkpointLocation", self.checkpoint_location)
            .trigger(processingTime="100 milliseconds")
            .start()
        )


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


def _broadcast_inputs(vertex: JobVertex) -> set[str]:
    """The operator inputs (as envelope tags "0"/"1") of a vertex fed by a broadcast edge."""
    return {
        str(edge.input_index)
        for edge in vertex.inputs
        if type(edge.partitioner).__name__ == "BroadcastPartitioner"
    }


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
    return StreamingPlan(result, collect_ids, _checkpoint_location(job_graph), file_sinks)


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
    if (getattr(source, "discovery_interval_ms", None) is None or not paths) and generator is None:
        raise _reject(
            head,
            "only a monitored FileSource or an unbounded DataGeneratorSource can feed an unbounded "
            "job on Spark",
        )
    strategy = head.operator.watermark_strategy
    delay = _strategy_delay(head, strategy)
    # the source's own timestamp assignment runs as the first operator of the chain
    first: OperatorSpec = TimestampsWatermarksSpec(strategy) if strategy is not None else MapSpec(_identity)
    operators = (replace(head, operator=first), *vertex.operators[1:])
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


class StreamingJobClient:
    """An unbounded job running as a Structured Streaming query: runs until cancelled."""

    def __init__(self, job_graph: JobGraph, plan: StreamingPlan) -> None:
        self._job_graph = job_graph
        self._queues: dict[str, queue.Queue[Any]] = {cid: queue.Queue() for cid in plan.collect_ids}
        self._cancelled = threading.Event()
        self.query = plan.start(self._deliver)

    def _deliver(self, collect_id: str, value: Any) -> None:
        q = self._queues.get(collect_id)
        if q is not None:
            q.put(value)

    def collect(self, collect_id: str) -> Iterator[Any]:
        """Collected elements as micro-batches complete; ends when the query stops."""
        q = self._queues[collect_id]
        while True:
            try:
                yield q.get(timeout=0.1)
            except queue.Empty:
                if not self.query.isActive:
                    self._raise_if_failed()
                    return

    def _raise_if_failed(self) -> None:
        error = self.query.exception()
        if error is not None:
            from millstream.spark.runner import _job_failure

            raise _job_failure(self._job_graph, Exception(str(error)))

    def get_job_execution_result(self, timeout: float | None = None) -> Any:
        """Wait for the query to stop (it runs until cancelled); raise if it failed."""
        from millstream.common.job_execution_result import JobExecutionException

        # wait in short steps: a Python signal (Ctrl-C, a test timeout) is handled between them
        deadline = None if timeout is None else time.monotonic() + timeout
        finished = False
        while not finished:
            step = 1.0 if deadline is None else max(0.0, min(1.0, deadline - time.monotonic()))
            try:
                finished = bool(self.query.awaitTermination(step))
            except Exception:
                finished = True
            if deadline is not None and time.monotonic() >= deadline:
                break
        if not finished:
            raise TimeoutError(f"job '{self._job_graph.job_name}' still runs on Spark")
        self._raise_if_failed()
        raise JobExecutionException(self._job_graph.job_id, "Job was cancelled")

    def cancel(self) -> None:
        """Stop the query, after the micro-batch in flight (if any) finished, within 10 s."""
        self._cancelled.set()
        deadline = time.monotonic() + 10
        while (
            self.query.isActive and self.query.status.get("isTriggerActive") and time.monotonic() < deadline
        ):
            time.sleep(0.05)  # let the batch commit: a stopped batch is replayed on restart
        if self.query.isActive:
            self.query.stop()

    def close(self, interrupted: bool = False) -> None:
        """Stop the query if it still runs (``interrupted``: after Ctrl-C, the same)."""
        self.cancel()
