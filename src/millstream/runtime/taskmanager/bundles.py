"""Bundles: how many records a task hands to its operator chain before outputs go on.

PyFlink hands records to Python functions in bundles bounded by
``python.fn-execution.bundle.size`` (default 1000 in PyFlink 2.3, ``PythonOptions``) and
``python.fn-execution.bundle.time`` (default 1000 ms). millstream's operators work on
whole batches, so an input batch is a bundle: its outputs leave the chain when the
batch is done. A :class:`BundleSplitter` at each entry of the chain (the source's
output, each network input) cuts batches into bundles:

* never more than ``bundle.size`` records (``1``: one record at a time);
* never longer than ``min(bundle.time, execution.buffer-timeout)``: the splitter times
  every bundle and sizes the next one so that it takes about half that budget at the
  measured cost per record. It starts at one record and doubles while bundles are
  cheap, so a slow function (a call to a service, a sleep) gets small bundles and a
  fast one gets whole batches, at the cost of two clock reads per batch. A chain with a
  vectorized operator (``vectorized = True``: a Calc on Arrow arrays or calling pandas
  UDFs) starts at ``bundle.size`` instead, as PyFlink's Arrow operators fill a batch
  before calling the function; it shrinks like any other when a bundle overruns.

Between the bundles of one batch, the task's output buffers are flushed when the
splitter is working below its largest bundle (slow records: one flush per bundle of
about half the budget) or when the buffer timeout has passed, so outputs produced
before a slow call reach the consumers while the call runs. Processing-time timers
(periodic watermarks) still run between input batches only, as before: a slow
function does not move watermarks generated in the same task relative to its records.
Splitting never changes results: every operator treats a batch as its records in order.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from millstream.runtime.operators.base import Emit

__all__ = ["BundleSplitter", "Bundles"]


class Bundles:
    """The bundle limits of one task and the flush its splitters call between bundles."""

    def __init__(
        self,
        max_size: int,
        max_time_ms: int,
        buffer_timeout_ms: int,
        flush: Callable[[], None],
        clock: Callable[[], float] = time.perf_counter,
        vectorized: bool = False,
    ) -> None:
        budget_ms = float(max_time_ms)
        if buffer_timeout_ms > 0:
            budget_ms = min(budget_ms, float(buffer_timeout_ms))
        self.max_size = max_size
        # a chain with a vectorized operator (pandas UDFs, Arrow calc) starts at whole bundles,
        # as PyFlink fills its Arrow batches: a call per row would cost what vectorizing saves
        self.start_size = max_size if vectorized else 1
        self.target_s = budget_ms / 2000.0  # each bundle aims at half the budget
        self.flush_interval_s = buffer_timeout_ms / 1000.0 if buffer_timeout_ms >= 0 else float("inf")
        self._flush = flush
        self.clock = clock
        self._last_flush = clock()

    def wrap(self, process_batch: Emit) -> Emit:
        """``process_batch`` fed in bundles (a splitter of its own: costs differ per input)."""
        return BundleSplitter(process_batch, self)

    def between_bundles(self, slow: bool) -> None:
        """Flush the outputs of a finished bundle if it was slow or the buffer timeout passed."""
        now = self.clock()
        if slow or now - self._last_flush >= self.flush_interval_s:
            self._flush()
            self._last_flush = now


class BundleSplitter:
    """Calls ``process_batch`` with bundles of a batch, sized by the measured record cost."""

    __slots__ = ("_bundles", "_clock", "_max", "_process", "_target", "size")

    def __init__(self, process_batch: Emit, bundles: Bundles) -> None:
        self._process = process_batch
        self._bundles = bundles
        self._max = bundles.max_size
        self._target = bundles.target_s
        self._clock = bundles.clock
        self.size = bundles.start_size  # learned: starts at one record, doubles while cheap

    def __call__(self, values: list[Any], timestamps: list[int] | None) -> None:
        n = len(values)
        process = self._process
        clock = self._clock
        begin = 0
        while True:
            end = begin + self.size
            if begin == 0 and end >= n:  # the whole batch is one bundle: no copy
                chunk, ts = values, timestamps
            else:
                chunk = values[begin:end]
                ts = None if timestamps is None else timestamps[begin:end]
            start = clock()
            process(chunk, ts)
            self._learn(len(chunk), clock() - start)
            if end >= n:
                return
            self._bundles.between_bundles(self.size < self._max)
            begin = end

    def _learn(self, count: int, elapsed: float) -> None:
        """Shrink at once when a bundle overran; double after a full bundle well within."""
        size = self.size
        target = self._target
        if elapsed > target:
            self.size = min(size, max(1, int(count * target / elapsed)))
        elif count >= size and size < self._max and elapsed * 2 < target:
            self.size = min(self._max, size * 2)
