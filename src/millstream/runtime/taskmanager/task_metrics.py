"""Task metrics (Flink's task I/O metric group), sampled on request from the task's objects.

``TaskMetricsSampler.sample()`` reads counters the task thread keeps (plain ints read
without locks: a sample may be a moment stale, never torn) and, as Flink's
``TaskIOMetricGroup``, turns the time the task spent back-pressured (blocked on buffer
requests, measured by its result partitions) and idle (its mailbox waiting with nothing to
do, a ``TimerGauge`` of the StreamTask) into ``backPressuredTimeMsPerSecond`` and
``idleTimeMsPerSecond`` since the previous window; the rest of each second is busy
(``busyTimeMsPerSecond``, NaN for a legacy source, whose task thread only waits for the
source thread, as in Flink). The same times accumulated since the task started running are
``accumulateBackPressuredTimeMs``, ``accumulateIdleTimeMs`` and ``accumulateBusyTimeMs``.

A sample also carries the metrics of each operator of the chain (Flink's operator metric
groups: records in and out, input and output watermark, a window's late records dropped),
under ``operators``. Coordinating code: called by the TaskExecutor, not per record.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

from millstream.runtime.operators.elements import MIN_TIMESTAMP

__all__ = [
    "OPERATOR_METRIC_NAMES",
    "OPERATOR_NAME_MAX_LENGTH",
    "TASK_METRIC_NAMES",
    "TaskMetricsSampler",
    "TimerGauge",
]

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
    "accumulateBackPressuredTimeMs",
    "accumulateIdleTimeMs",
    "accumulateBusyTimeMs",
    "isBackPressured",
    "currentInputWatermark",
    "currentOutputWatermark",
)
# the metrics of each operator of a sample, Flink's names on its operator metric groups
OPERATOR_METRIC_NAMES = (
    "numRecordsIn",
    "numRecordsOut",
    "numRecordsInPerSecond",
    "numRecordsOutPerSecond",
    "currentInputWatermark",
    "currentInput1Watermark",
    "currentInput2Watermark",
    "currentOutputWatermark",
    "numLateRecordsDropped",
)

# Flink's operator metric groups truncate longer operator names to this many characters
OPERATOR_NAME_MAX_LENGTH = 80
RATE_WINDOW_S = 1.0


class TimerGauge:
    """Time spent in one state (Flink's ``TimerGauge``): the owner marks where the state
    starts and ends; readers see the total so far, a measurement in progress included (a
    task idle for minutes is idle now, not only once it wakes up).

    Coordinating code: marked around waits, never per record.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._total = 0.0  # under _lock: seconds of finished measurements
        self._since = 0.0  # under _lock: perf_counter at the start of the current one (0: none)

    def mark_start(self) -> None:
        """The state begins (its owner's thread)."""
        with self._lock:
            if not self._since:
                self._since = time.perf_counter()

    def mark_end(self) -> None:
        """The state ends (its owner's thread)."""
        with self._lock:
            if self._since:
                self._total += time.perf_counter() - self._since
                self._since = 0.0

    def accumulated(self) -> float:
        """Seconds spent in the state so far, including a measurement in progress (any thread)."""
        with self._lock:
            ongoing = time.perf_counter() - self._since if self._since else 0.0
            return self._total + ongoing


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
        chain = stream_task.chain if stream_task is not None else None
        operators = chain.operators if chain is not None else []
        partitions = list(task._partitions)
        gates = task._input.gates if task._input is not None else []
        channels = [c for g in gates for c in g.channels]
        writers = stream_task.writers if stream_task is not None else []
        counts = {
            # Flink's task numRecordsIn: what the head operator took from the task's inputs; a
            # source task has none (what a source reads is its operator's numRecordsIn)
            "numRecordsIn": operators[0].records_in if operators and gates else 0,
            "numRecordsOut": sum(w.records_out for w in writers),
            "numBytesIn": sum(c.bytes_in for c in channels),
            "numBytesOut": sum(s.bytes_added for p in partitions for s in p.subpartitions),
        }
        records_out = chain.records_out() if chain is not None else []
        backpressured_s = sum(p.backpressured_time() for p in partitions)
        idle_s = stream_task.idle_time.accumulated() if stream_task is not None else 0.0
        rates = self._window(
            time.monotonic(),
            {**counts, **_operator_counts(operators, records_out), **_times(idle_s, backpressured_s)},
        )
        return {
            "task": task.location.describe(),
            "state": task.state.name,
            **counts,
            "numRecordsInPerSecond": round(rates.get("numRecordsIn", 0.0), 1),
            "numRecordsOutPerSecond": round(rates.get("numRecordsOut", 0.0), 1),
            "numBytesInPerSecond": round(rates.get("numBytesIn", 0.0), 1),
            "numBytesOutPerSecond": round(rates.get("numBytesOut", 0.0), 1),
            "numBuffersIn": sum(c.buffers_in for c in channels),
            "numBuffersOut": sum(s.buffers_added for p in partitions for s in p.subpartitions),
            "outPoolUsage": _usage([p.buffer_pool for p in partitions]),
            "inPoolUsage": _usage([g.buffer_pool for g in gates if g.buffer_pool is not None]),
            **_time_metrics(stream_task, rates, idle_s, backpressured_s),
            # waiting for a pool buffer, or for a same-process consumer to take a queued batch
            "isBackPressured": any(p.blocked_since or p.buffer_pool.blocked_requesters for p in partitions),
            # the head operator's watermark (what the task's inputs allow), and what the last
            # one sent on
            "currentInputWatermark": operators[0].current_watermark if operators else MIN_TIMESTAMP,
            "currentOutputWatermark": operators[-1].output_watermark if operators else MIN_TIMESTAMP,
            **self._source_progress(operators[0] if operators else None),
            "operators": _operator_metrics(chain, records_out, rates),
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


def _operator_counts(operators: list[Any], records_out: list[int]) -> dict[str, float]:
    """Each operator's records in and out, the counters of its record rates."""
    return {
        **{f"{i}.in": operator.records_in for i, operator in enumerate(operators)},
        **{f"{i}.out": n for i, n in enumerate(records_out)},
    }


def _times(idle_s: float, backpressured_s: float) -> dict[str, float]:
    """The accumulated times whose per-second rates are the task's time metrics, in ms."""
    return {"backPressuredTime": backpressured_s * 1000, "idleTime": idle_s * 1000}


def _time_metrics(
    stream_task: Any, rates: dict[str, float], idle_s: float, backpressured_s: float
) -> dict[str, Any]:
    """Flink's back-pressured, idle and busy time of a task: milliseconds per second over the
    last window (whole milliseconds back-pressured and idle, the rest of the second busy), and
    accumulated since the task began to run. Busy time is NaN where it is not measured: a
    legacy source (its task thread only waits for the source thread) or a task not yet
    running."""
    backpressured = int(min(1000.0, rates.get("backPressuredTime", 0.0)))
    idle = int(min(1000.0 - backpressured, rates.get("idleTime", 0.0)))
    measured = stream_task is not None and stream_task.busy_time_enabled
    started = stream_task.started_at if stream_task is not None else 0.0
    idle_ms, backpressured_ms = int(idle_s * 1000), int(backpressured_s * 1000)
    if measured and started:
        running_ms = int((time.perf_counter() - started) * 1000)
        accumulated_busy = float(max(0, running_ms - idle_ms - backpressured_ms))
    else:
        accumulated_busy = math.nan
    return {
        "backPressuredTimeMsPerSecond": backpressured,
        "idleTimeMsPerSecond": idle,
        "busyTimeMsPerSecond": 1000.0 - min(1000, idle + backpressured) if measured else math.nan,
        "accumulateBackPressuredTimeMs": backpressured_ms,
        "accumulateIdleTimeMs": idle_ms,
        "accumulateBusyTimeMs": accumulated_busy,
    }


def _operator_metrics(chain: Any, records_out: list[int], rates: dict[str, float]) -> list[dict[str, Any]]:
    """The metrics of each operator of the chain, head first: its own (``operator_metrics``),
    the records it sent on, and both record rates."""
    if chain is None:
        return []
    metrics = []
    for i, (node_id, operator) in enumerate(zip(chain.node_ids, chain.operators, strict=True)):
        metrics.append(
            {
                "id": node_id,
                "name": operator.name[:OPERATOR_NAME_MAX_LENGTH],
                **operator.operator_metrics(),
                "numRecordsOut": records_out[i],
                "numRecordsInPerSecond": round(rates.get(f"{i}.in", 0.0), 1),
                "numRecordsOutPerSecond": round(rates.get(f"{i}.out", 0.0), 1),
            }
        )
    return metrics


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
