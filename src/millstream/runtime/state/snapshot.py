"""OperatorSnapshot: one operator's state in a checkpoint, as plain picklable data.

Taken by ``StreamOperator.snapshot_state`` on the task thread at a barrier and restored by
``StreamOperator.restore_state`` before the operator opens (Flink's ``initializeState``):
keyed state entries, event- and processing-time timers, operator state (list, union,
broadcast) and what is particular to the operator (``extra``: a source reader's position,
a sink's pending transactions). ``version`` names the layout; a reader refuses others.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["SNAPSHOT_VERSION", "OperatorSnapshot"]

SNAPSHOT_VERSION = 1


class OperatorSnapshot(NamedTuple):
    """One operator's state (the first four fields are also what the Spark runner keeps per
    key group in its state store, as a plain tuple)."""

    keyed: Any = ()
    event_timers: list[tuple[int, Any, Any]] = []
    processing_timers: list[tuple[int, Any, Any]] = []
    operator_state: Any = {}
    extra: Any = None
    version: int = SNAPSHOT_VERSION

    def is_empty(self) -> bool:
        """Nothing to keep."""
        return not (
            self.keyed or self.event_timers or self.processing_timers or self.operator_state or self.extra
        )
