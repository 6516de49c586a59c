"""ColumnarKeyedOperator: a keyed operator whose function takes every key of a batch at once
and fires on watermarks, instead of one call per element and per key and timer.

A ``KeyedProcessFunction`` is called per element with its key set, and per timer; for an
aggregation that closes a window of 60,000 keys that is 60,000 timer calls. A columnar
function (the Table runtime's window aggregation on Arrow, ``KeyedProcessSpec.columnar``)
holds its state for every key in its own columns and is driven by the operator:

* ``process_batch(values, watermark)``: a batch of elements, and the operator's watermark;
* ``on_watermark(timestamp)``: ``[(values, timestamps), ...]`` to emit before the watermark
  goes on;
* ``write_state(backend)``: at a snapshot, its state written into the (cleared) keyed
  backend, key by key, as the function it stands in for keeps it; returns that function's
  pending event-time timers as ``(timestamp, key)``;
* ``read_state(backend, timers)``: after a restore, the restored entries and the timers of
  this subtask's keys read back (called once the function is open).

So a snapshot is the keyed function's snapshot: rescaling by key groups, RocksDB and
savepoints work as for any keyed operator, and either one restores the other's snapshot.
"""

from __future__ import annotations

from typing import Any

from millstream.runtime.operators.base import Emit, OperatorContext, StreamOperator
from millstream.runtime.operators.elements import Watermark
from millstream.runtime.state.heap import VOID_NAMESPACE
from millstream.runtime.state.snapshot import OperatorSnapshot

__all__ = ["ColumnarKeyedOperator"]


class ColumnarKeyedOperator(StreamOperator):
    """See the module docstring."""

    def __init__(self, context: OperatorContext, function: Any, output: Emit, key_selector: Any) -> None:
        super().__init__(context, function)  # the function's open / close are its lifecycle
        self._function = function
        self._output = output
        self._restored_timers: list[tuple[int, Any]] | None = None
        self.create_keyed_backend(key_selector)

    def open(self) -> None:
        """Open the function, then hand it the restored state."""
        super().open()
        if self._restored_timers is not None:
            assert self.keyed_backend is not None
            self._function.read_state(self.keyed_backend, self._restored_timers)
            self._restored_timers = None

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """The whole batch to the function."""
        try:
            self._function.process_batch(values, self.current_watermark)
        except Exception as err:
            raise self.error(0, values) from err
        self.records_in += len(values)

    def process_watermark(self, watermark: Watermark) -> None:
        """Emit what the function fires, then forward the watermark."""
        self.current_watermark = watermark.timestamp
        for values, timestamps in self._function.on_watermark(watermark.timestamp):
            if values:
                self._output(values, timestamps)
        self.emit_watermark(watermark)

    def snapshot_state(
        self, checkpoint_id: int, timestamp: int = 0, canonical: bool = True
    ) -> OperatorSnapshot:
        """The function's state as the keyed function keeps it, and its timers."""
        backend = self.keyed_backend
        assert backend is not None
        backend.clear_all()
        timers = self._function.write_state(backend)
        return OperatorSnapshot(
            self.snapshot_keyed_state(checkpoint_id, canonical),
            [(ts, key, VOID_NAMESPACE) for ts, key in timers],
            [],
            self.snapshot_operator_state(),
            None,
        )

    def restore_state(self, snapshot: OperatorSnapshot) -> None:
        """The keyed state of this subtask's key groups; the function reads it when it opens."""
        super().restore_state(snapshot)
        backend = self.keyed_backend
        assert backend is not None
        self._restored_timers = [(ts, key) for ts, key, _ in snapshot.event_timers if backend.owns(key)]
