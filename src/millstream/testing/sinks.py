"""Sinks for tests and benchmarks."""

from __future__ import annotations

from typing import Any

__all__ = ["DiscardingSink"]


class DiscardingSink:
    """Drops every record, as Flink's ``DiscardingSink`` (a batch writer: no call per record,
    so what is measured or watched is the pipeline before it)."""

    def create_writer(self, context: Any, renderer: Any) -> DiscardingSink:
        """Each subtask's writer (this sink itself: it keeps nothing)."""
        return self

    def write_batch(self, values: list[Any]) -> None:
        """Drop the batch."""

    def finish(self) -> None:
        """Nothing to flush."""

    def close(self) -> None:
        """Nothing to release."""
