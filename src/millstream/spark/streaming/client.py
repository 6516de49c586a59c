"""The started query's side: file sinks written in ``foreachBatch`` (idempotently per
micro-batch), collect sinks delivered to the client, and the JobClient of the query.
"""

from __future__ import annotations

import os
import pickle
import queue
import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from millstream.common.connector import WriterContext
from millstream.common.job_execution_result import JobExecutionException, JobStatus
from millstream.graph.job_graph import JobGraph
from millstream.graph.operator_specs import (
    SinkWriterSpec,
)
from millstream.spark.batch import COLLECT_PREFIX
from millstream.spark.failures import job_failure
from millstream.spark.streaming.envelope import _BATCH

__all__ = ["FileSinkWrite", "StreamingJobClient", "StreamingPlan"]


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
    # micro-batch trigger: each micro-batch commits offsets and state to the checkpoint
    # location, so the job's checkpoint interval is the trigger interval (100 ms without)
    trigger_ms: int = 100
    temporary: bool = False  # the checkpoint location is a temporary directory: removed at the end

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
            .trigger(processingTime=f"{self.trigger_ms} milliseconds")
            .start()
        )


class StreamingJobClient:
    """An unbounded job running as a Structured Streaming query: runs until cancelled."""

    def __init__(self, job_graph: JobGraph, plan: StreamingPlan) -> None:
        self._job_graph = job_graph
        self._queues: dict[str, queue.Queue[Any]] = {cid: queue.Queue() for cid in plan.collect_ids}
        self._cancelled = threading.Event()
        self.started = time.monotonic()
        self._temporary = plan.checkpoint_location if plan.temporary else None
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
            raise job_failure(self._job_graph, Exception(str(error)))

    def get_job_execution_result(self, timeout: float | None = None) -> Any:
        """Wait for the query to stop (it runs until cancelled); raise if it failed."""
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
        self._remove_temporary()
        self._raise_if_failed()
        raise JobExecutionException(self._job_graph.job_id, "Job was cancelled")

    def result_done(self) -> bool:
        """Whether the query stopped."""
        return not self.query.isActive

    def get_job_status(self) -> Any:
        """RUNNING, or how the query ended."""
        if self.query.isActive:
            return JobStatus.RUNNING
        if self.query.exception() is not None:
            return JobStatus.FAILED
        return JobStatus.CANCELED

    def spark_status(self) -> dict[str, Any]:
        """The query's latest micro-batch (Structured Streaming's progress) for the view."""
        progress = self.query.lastProgress or {}
        return {
            "name": self._job_graph.job_name,
            "id": self._job_graph.job_id,
            "streaming": {
                "batch": progress.get("batchId", -1),
                "input_rows": progress.get("numInputRows", 0),
                "input_rows_per_second": progress.get("inputRowsPerSecond", 0.0),
                "processed_rows_per_second": progress.get("processedRowsPerSecond", 0.0),
                "watermark": (progress.get("eventTime") or {}).get("watermark", ""),
                "state_rows": sum(op.get("numRowsTotal", 0) for op in progress.get("stateOperators", [])),
                "trigger_active": bool(self.query.status.get("isTriggerActive")),
            },
            "jobs": [],
            "stages": [],
        }

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
        self._remove_temporary()

    def close(self, interrupted: bool = False) -> None:
        """Stop the query if it still runs (``interrupted``: after Ctrl-C, the same)."""
        self.cancel()

    def _remove_temporary(self) -> None:
        """Remove a temporary checkpoint location once the query stopped (no later run can
        resume from a directory named at random)."""
        if self._temporary is not None and not self.query.isActive:
            shutil.rmtree(self._temporary, ignore_errors=True)
            self._temporary = None
