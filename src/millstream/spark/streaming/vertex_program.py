"""StreamingVertexProgram: one vertex's operator chain (a ``VertexHost``) run per micro-batch
partition in ``mapInPandas``: text lines, file paths read by the source format's reader,
rate-source indexes through a generator function, or envelope rows.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from millstream.common.execution_mode import RuntimeExecutionMode
from millstream.graph.job_config import JobConfig
from millstream.graph.job_graph import JobVertex
from millstream.runtime.vertex_host import (
    TaskLocation,
    UserFunctionError,
    VertexHost,
)
from millstream.spark.streaming.envelope import (
    _BATCH,
    _CollectChannels,
    _Encoder,
    _frame,
    carried_timestamp,
    feed_envelopes,
    watermark_carriers,
)
from millstream.spark.streaming.kafka import KafkaMessage

__all__ = ["StreamingVertexProgram"]


@dataclass(frozen=True)
class StreamingVertexProgram:
    """One vertex's operator chain, run per micro-batch partition (stateless) or per key."""

    job_name: str
    vertex: JobVertex
    job_config: JobConfig
    outputs: dict[Any, tuple[Any, Any]]  # data set id -> (tag, key selector of its consumer or None)
    file_format: Any = None  # the source's format when files arrive as paths
    generator: Any = None  # an unbounded DataGeneratorSource's function of the index
    kafka_source: Any = None  # a KafkaSource whose messages arrive as rows

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
        tap = _AssignedTimestamps.install(host)
        tags = [tag for tag, _ in self.outputs.values()]
        try:
            for frame in frames:
                carried = None if column in ("value", "path", "index", "kafka") else carried_timestamp(frame)
                if column == "value":
                    lines = list(frame["value"])
                    for start in range(0, len(lines), _BATCH):
                        handlers[0].process_batch(lines[start : start + _BATCH], None)
                elif column == "path":
                    for path in frame["path"]:
                        self._read_file(_local_path(path), handlers[0])
                elif column == "index":
                    self._generate(list(frame["value"]), handlers[0])
                elif column == "kafka":
                    self._deserialize(frame, handlers[0])
                else:
                    feed_envelopes(handlers, frame)
                if tap is not None and tap.largest is not None:
                    carried = tap.largest if carried is None else max(carried, tap.largest)
                if carried is not None:
                    watermark_carriers(tags, carried, pending)
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

    def _deserialize(self, frame: Any, handler: Any) -> None:
        """Kafka messages (rows of the data source) through the source's deserializer into the
        chain, each record with its Kafka timestamp."""
        source = self.kafka_source
        deserialize = source.record_deserializer()
        many = bool(getattr(source.deserializer, "produces_many", False))
        values: list[Any] = []
        timestamps: list[int] = []
        for row in frame.itertuples(index=False, name=None):
            message = KafkaMessage(row)
            try:
                value = deserialize(message)
            except Exception as err:
                location = TaskLocation(self.job_name, self.vertex.name, 0, 1)
                where = f"offset {message.offset()} of partition {message.topic()}-{message.partition()}"
                name = self.vertex.operators[0].name
                raise UserFunctionError(
                    name, location, message.offset(), where, "the record cannot be deserialized", err
                ) from err
            if value is None:
                continue
            if many:
                values.extend(value)
                timestamps.extend([message.timestamp()[1]] * len(value))
            else:
                values.append(value)
                timestamps.append(message.timestamp()[1])
            if len(values) >= _BATCH:
                handler.process_batch(values, timestamps)
                values, timestamps = [], []
        if values:
            handler.process_batch(values, timestamps)

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


class _AssignedTimestamps:
    """The largest timestamp the chain's timestamp assigners gave."""

    def __init__(self) -> None:
        self.largest: int | None = None

    @classmethod
    def install(cls, host: VertexHost) -> _AssignedTimestamps | None:
        tap = cls()
        return tap if host.observe_assigned_timestamps(tap._observe) else None

    def _observe(self, timestamps: list[int]) -> None:
        top = max(timestamps)
        if self.largest is None or top > self.largest:
            self.largest = top


def _local_path(uri: str) -> str:
    """``file:/a/b`` or ``file:///a/b`` (Spark's path column) -> ``/a/b``."""
    if uri.startswith("file:"):
        uri = "/" + uri[len("file:") :].lstrip("/")
    return uri
