"""KeyedRunner: a keyed vertex in ``groupBy(key).transformWithStateInPandas``, one Spark group
at a time, its head's keyed state, timers and operator state restored from and saved to
Spark's state store; event-time (or processing-time) timers mirrored to Spark timers.
"""

from __future__ import annotations

import itertools
import pickle
from collections.abc import Iterable, Iterator
from typing import Any

import cloudpickle

from millstream.graph.job_graph import JobVertex
from millstream.runtime.vertex_host import (
    HeadSnapshot,
    create_channel_selector,
)
from millstream.spark.streaming.envelope import (
    EVT_SHIFT,
    _broadcast_first,
    _event_time,
    _frame,
    _stamps,
    feed_envelopes,
    records_only,
)
from millstream.spark.streaming.vertex_program import StreamingVertexProgram
from millstream.spark.support import UnsupportedStreamingError

__all__ = ["KeyedRunner"]


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
        frame = records_only(frame)
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
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
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


def _broadcast_inputs(vertex: JobVertex) -> set[str]:
    """The operator inputs (as envelope tags "0"/"1") of a vertex fed by a broadcast edge."""
    return {
        str(edge.input_index)
        for edge in vertex.inputs
        if type(edge.partitioner).__name__ == "BroadcastPartitioner"
    }
