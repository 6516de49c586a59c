"""Task metrics (Flink's task I/O metric group), sampled on request from the task's objects.

``TaskMetricsSampler.sample()`` reads counters the task thread keeps (plain ints read
without locks: a sample may be a moment stale, never torn) and turns the time the task
spent blocked on buffer requests into ``backPressuredTimeMsPerSecond`` since the
previous sample. Coordinating code: called by the TaskExecutor, not per record.
"""

from __future__ import annotations

import time
from typing import Any

from millstream.runtime.operators.elements import MIN_TIMESTAMP

__all__ = ["TASK_METRIC_NAMES", "TaskMetricsSampler"]

# the numeric metrics of a sample, Flink's names (the REST API's and Prometheus' task metrics)
TASK_METRIC_NAMES = (
    "numRecordsIn",
    "numRecordsOut",
    "numBytesIn",
    "numBytesOut",
    "numBuffersIn",
    "numBuffersOut",
    "inPoolUsage",
    "outPoolUsage",
    "numRecordsInPerSecond",
    "numRecordsOutPerSecond",
    "numBytesInPerSecond",
    "numBytesOutPerSecond",
    "backPressuredTimeMsPerSecond",
    "idleTimeMsPerSecond",
    "busyTimeMsPerSecond",
    "isBackPressured",
    "currentInputWatermark",
    "currentOutputWatermark",
)

RATE_WINDOW_S = 1.0


class TaskMetricsSampler:
    """Samples one task's metrics."""

    def __init__(self, task: Any) -> None:
        self._task = task
        # owner: callers of sample (the TaskExecutor's threads; a rate may be a window stale)
        self._last_time = time.monotonic()
        self._last: dict[str, float] = {}  # counter -> its value at the window's start
        self._rates: dict[str, float] | None = None  # per second over the last window
        self._source_bytes: dict[str, int] = {}  # the last figure (its reader closes at the end)

    def _window(self, now: float, counters: dict[str, float]) -> dict[str, float]:
        """Per-second rates of ``counters`` over the last window of at least RATE_WINDOW_S.

        Several readers sample (REST, the progress view, Prometheus): the rates move on
        windows of at least a second, so one reader's sample does not shorten another's."""
        elapsed = max(1e-9, now - self._last_time)
        if self._rates is None or elapsed >= RATE_WINDOW_S:
            self._rates = {
                name: max(0.0, (value - self._last.get(name, 0.0)) / elapsed)
                for name, value in counters.items()
            }
            self._last, self._last_time = dict(counters), now
        return self._rates

    def sample(self) -> dict[str, Any]:
        """The task's metrics now."""
        task = self._task
        stream_task = task._stream_task
        operators = stream_task.chain.operators if stream_task is not None else []
        partitions = list(task._partitions)
        gates = task._input.gates if task._input is not None else []
        channels = [c for g in gates for c in g.channels]
        writers = stream_task.writers if stream_task is not None else []
        processor = getattr(stream_task, "processor", None)
        counts = {
            "numRecordsIn": operators[0].records_in if operators else 0,
            "numRecordsOut": sum(w.records_out for w in writers),
            "numBytesIn": sum(c.bytes_in for c in channels),
            "numBytesOut": sum(s.bytes_added for p in partitions for s in p.subpartitions),
        }
        rates = self._window(
            time.monotonic(),
            {
                **counts,
                "backPressuredTime": sum(p.backpressured_time() for p in partitions) * 1000,
                "idleTime": (processor.idle_time if processor is not None else 0.0) * 1000,
            },
        )
        backpressured = min(1000.0, rates["backPressuredTime"])
        idle = min(1000.0 - backpressured, rates["idleTime"])
        return {
            "task": task.location.describe(),
            "state": task.state.name,
            **counts,
            "numRecordsInPerSecond": round(rates["numRecordsIn"], 1),
            "numRecordsOutPerSecond": round(rates["numRecordsOut"], 1),
            "numBytesInPerSecond": round(rates["numBytesIn"], 1),
            "numBytesOutPerSecond": round(rates["numBytesOut"], 1),
            "numBuffersIn": sum(c.buffers_in for c in channels),
            "numBuffersOut": sum(s.buffers_added for p in partitions for s in p.subpartitions),
            "outPoolUsage": _usage([p.buffer_pool for p in partitions]),
            "inPoolUsage": _usage([g.buffer_pool for g in gates if g.buffer_pool is not None]),
            "backPressuredTimeMsPerSecond": round(backpressured, 1),
            "idleTimeMsPerSecond": round(idle, 1),
            # Flink's: the rest of each second is busy (running records, timers, checkpoints)
            "busyTimeMsPerSecond": round(max(0.0, 1000.0 - backpressured - idle), 1),
            # waiting for a pool buffer, or for a same-process consumer to take a queued batch
            "isBackPressured": any(p.blocked_since or p.buffer_pool.blocked_requesters for p in partitions),
            # the head operator's watermark (what the task's inputs allow), and the last one's
            "currentInputWatermark": operators[0].current_watermark if operators else MIN_TIMESTAMP,
            "currentOutputWatermark": operators[-1].current_watermark if operators else MIN_TIMESTAMP,
            **self._source_progress(operators[0] if operators else None),
            "channels": [_channel(c) for c in channels],
        }

    def _source_progress(self, head: Any) -> dict[str, int]:
        """A file source's bytes read so far (its reader's ``bytes_read()``; once the reader
        closed, the last figure)."""
        bytes_read = getattr(getattr(head, "_reader", None), "bytes_read", None)
        if bytes_read is not None:
            try:
                self._source_bytes = {"sourceBytesRead": int(bytes_read())}
            except Exception:  # a reader closing meanwhile: the last figure
                pass
        return self._source_bytes


def _usage(pools: list[Any]) -> float:
    """Share of the pools' current size that is in use (Flink's in/outPoolUsage)."""
    size = sum(p.pool_size for p in pools)
    if size == 0:
        return 0.0
    used = sum(p.number_of_requested_segments - p.number_of_available_segments for p in pools)
    return round(max(0, used) / size, 3)


def _channel(channel: Any) -> dict[str, Any]:
    info: dict[str, Any] = {
        "index": channel.channel_index,
        "partition": channel.partition_id,
        "buffersIn": channel.buffers_in,
        "bytesIn": channel.bytes_in,
    }
    if hasattr(channel, "credit_announced"):
        info["remote"] = True
        info["creditAnnounced"] = channel.credit_announced
        info["unannouncedCredit"] = channel.unannounced_credit()
        info["backlog"] = channel.last_backlog
    else:
        info["remote"] = False
        info["backlog"] = channel.backlog()
    return info
