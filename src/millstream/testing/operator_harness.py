"""Operator test harness: drive one operator by hand with elements, watermarks and time.

``OperatorHarness.of(stream)`` builds the runtime operator of the transformation that
produced ``stream`` (a window, a KeyedProcessFunction ...) exactly as a task would, with
a manual processing-time clock. Tests then push elements with timestamps, watermarks
and processing-time advances in any order, and read what the operator emitted::

    h = OperatorHarness.of(env.from_collection([]).key_by(k).window(w).reduce(f))
    h.process_element(("a", 1), 1000)
    h.process_watermark(9999)
    assert h.records() == [(("a", 1), 9999)]
"""

from __future__ import annotations

from typing import Any

from millstream.common.execution_mode import RuntimeExecutionMode
from millstream.graph.job_config import JobConfig
from millstream.graph.state_backend import StateBackendSettings
from millstream.runtime.vertex_host import (
    OperatorSnapshot,
    StreamOperator,
    VertexHost,
    Watermark,
    WatermarkStatus,
)

__all__ = ["OperatorHarness"]


class _SideOutputs(dict):
    """Captures every side output, whatever its tag."""

    def __init__(self, harness: OperatorHarness) -> None:
        super().__init__()
        self._harness = harness

    def get(self, tag_id: Any, default: Any = None) -> Any:
        def emit(values: list[Any], timestamps: list[int] | None) -> None:
            captured = self._harness.side_outputs.setdefault(tag_id, [])
            for i, v in enumerate(values):
                captured.append((v, None if timestamps is None else timestamps[i]))

        return emit


class OperatorHarness:
    """One operator, its outputs captured, its processing time set by hand."""

    def __init__(
        self,
        spec: Any,
        key_selector: Any = None,
        name: str = "operator under test",
        parallelism: int = 1,
        subtask_index: int = 0,
        max_parallelism: int = 128,
        runtime_mode: RuntimeExecutionMode = RuntimeExecutionMode.STREAMING,
        processing_time: int = 0,
        restored_state: OperatorSnapshot | None = None,
        state_backend: str = "hashmap",
    ) -> None:
        """``restored_state``: a snapshot of ``snapshot()`` the operator starts from, as after
        a recovery (restored before it opens); ``state_backend``: hashmap or rocksdb (the
        operator's RocksDB instance is deleted by ``close``)."""
        self.now_ms = processing_time
        self.output: list[tuple[str, Any, Any]] = []  # ("record", value, ts) | ("watermark", ts, None)
        self.side_outputs: dict[str, list[tuple[Any, int | None]]] = {}
        self.host = VertexHost.for_operator(
            spec,
            self._emit,
            _SideOutputs(self),
            key_selector,
            name,
            subtask_index,
            parallelism,
            max_parallelism,
            JobConfig(runtime_mode=runtime_mode, state_backend=StateBackendSettings(type=state_backend)),
            clock=lambda: self.now_ms / 1000.0,
        )
        self.timers = self.host.timers
        self.operator: StreamOperator = self.host.head
        self.operator.emit_watermark = self._emit_watermark
        self.operator.emit_watermark_status = self._emit_status
        if restored_state is not None:
            self.operator.restore_state(restored_state)
        self.host.open()

    def snapshot(self, checkpoint_id: int = 1) -> OperatorSnapshot:
        """The operator's state, as a checkpoint barrier would take it now."""
        return self.operator.snapshot_state(checkpoint_id)

    @classmethod
    def of(cls, stream: Any, **kwargs: Any) -> OperatorHarness:
        """The operator that produces ``stream`` (its key selector if keyed)."""
        t = stream._transformation
        return cls(t.operator, getattr(t, "state_key_selector", None), name=t.name, **kwargs)

    def _emit(self, values: list[Any], timestamps: list[int] | None) -> None:
        for i, v in enumerate(values):
            self.output.append(("record", v, None if timestamps is None else timestamps[i]))

    def _emit_watermark(self, watermark: Watermark) -> None:
        self.output.append(("watermark", watermark.timestamp, None))

    def _emit_status(self, status: WatermarkStatus) -> None:
        self.output.append(("status", "IDLE" if status.idle else "ACTIVE", None))

    # -- input ---------------------------------------------------------------------------

    def process_element(self, value: Any, timestamp: int | None = None) -> None:
        """One element (with an event timestamp, or none)."""
        self.operator.process_batch([value], None if timestamp is None else [timestamp])

    def process_elements(self, elements: list[tuple[Any, int]]) -> None:
        """Several ``(value, timestamp)`` elements as one batch."""
        self.operator.process_batch([v for v, _ in elements], [t for _, t in elements])

    def process_watermark(self, timestamp: int) -> None:
        """A watermark."""
        self.operator.process_watermark(Watermark(timestamp))

    # two-input operators (connect, broadcast, interval join): input 1 or 2

    def _input(self, method: str, input_index: int) -> Any:
        if input_index not in (1, 2) or not hasattr(self.operator, f"{method}2"):
            raise ValueError(f"operator '{self.operator.name}' has no input {input_index}")
        return getattr(self.operator, f"{method}{input_index}")

    def process_element_of(self, input_index: int, value: Any, timestamp: int | None = None) -> None:
        """One element of input 1 or 2 of a two-input operator."""
        self._input("process_batch", input_index)([value], None if timestamp is None else [timestamp])

    def process_watermark_of(self, input_index: int, timestamp: int) -> None:
        """A watermark of input 1 or 2 of a two-input operator."""
        self._input("process_watermark", input_index)(Watermark(timestamp))

    def process_status_of(self, input_index: int, idle: bool) -> None:
        """Input 1 or 2 of a two-input operator turned idle (or active again)."""
        status = WatermarkStatus.IDLE if idle else WatermarkStatus.ACTIVE
        self._input("process_watermark_status", input_index)(status)

    def set_processing_time(self, now_ms: int) -> None:
        """Move the clock and fire due processing-time timers."""
        self.now_ms = now_ms
        self.timers.fire_due()

    def end_input(self) -> None:
        """The end of input: the final watermark, then ``finish``."""
        if hasattr(self.operator, "process_watermark2"):
            self.process_watermark_of(1, 2**63 - 1)
            self.process_watermark_of(2, 2**63 - 1)
        else:
            self.process_watermark(2**63 - 1)
        self.host.end_input()

    def close(self) -> None:
        """Close the operator."""
        self.host.close()

    # -- output --------------------------------------------------------------------------

    def records(self) -> list[tuple[Any, int | None]]:
        """(value, timestamp) of every emitted record, in order; they are then forgotten."""
        out = [(v, ts) for kind, v, ts in self.output if kind == "record"]
        self.output = [o for o in self.output if o[0] != "record"]
        return out

    def values(self) -> list[Any]:
        """The emitted values, in order; they are then forgotten."""
        return [v for v, _ in self.records()]

    def watermarks(self) -> list[int]:
        """The emitted watermarks, in order."""
        return [v for kind, v, _ in self.output if kind == "watermark"]
