"""WatermarkStrategy and TimestampAssigner, as ``pyflink.common.watermark_strategy``.

The strategy is a declaration carried by source transformations; the runtime's
watermark generation and propagation (periodic emission, idleness, the task valve)
belong to the event-time layer.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from typing import Any

from millstream.common.time import Duration

__all__ = ["TimestampAssigner", "WatermarkGenerator", "WatermarkStrategy"]


class TimestampAssigner(ABC):
    """Extracts an event timestamp (epoch ms) from an element."""

    @abstractmethod
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        """The timestamp of ``value``; ``record_timestamp`` is the one it carries, if any."""


class WatermarkGenerator(ABC):
    """Generates watermarks from events and periodically (user-defined strategies)."""

    @abstractmethod
    def on_event(self, event: Any, event_timestamp: int, output: Any) -> None:
        """Called for every event."""

    @abstractmethod
    def on_periodic_emit(self, output: Any) -> None:
        """Called every ``pipeline.auto-watermark-interval``."""


@dataclass(frozen=True, slots=True)
class WatermarkStrategy:
    """How a source assigns timestamps and generates watermarks.

    ``kind`` is one of ``none``, ``monotonous``, ``bounded`` or ``generator``.
    """

    kind: str
    out_of_orderness_ms: int = 0
    timestamp_assigner: Any = None
    idleness_ms: int | None = None
    generator_supplier: Any = None

    @staticmethod
    def no_watermarks() -> WatermarkStrategy:
        """No watermarks: event-time operators fire only at the end of bounded input."""
        return WatermarkStrategy("none")

    @staticmethod
    def for_monotonous_timestamps() -> WatermarkStrategy:
        """Timestamps ascend: watermark = max timestamp - 1."""
        return WatermarkStrategy("monotonous")

    @staticmethod
    def for_bounded_out_of_orderness(max_out_of_orderness: Duration) -> WatermarkStrategy:
        """Events are at most ``max_out_of_orderness`` late: watermark = max ts - bound - 1."""
        return WatermarkStrategy("bounded", out_of_orderness_ms=max_out_of_orderness.millis)

    @staticmethod
    def for_generator(generator_supplier: Any) -> WatermarkStrategy:
        """A user ``WatermarkGenerator`` made by ``generator_supplier(context)``."""
        return WatermarkStrategy("generator", generator_supplier=generator_supplier)

    def with_timestamp_assigner(self, timestamp_assigner: Any) -> WatermarkStrategy:
        """Use ``timestamp_assigner`` (a TimestampAssigner or a callable) for timestamps."""
        return replace(self, timestamp_assigner=timestamp_assigner)

    def with_idleness(self, idle_timeout: Duration) -> WatermarkStrategy:
        """Mark an input idle after ``idle_timeout`` without events."""
        return replace(self, idleness_ms=idle_timeout.millis)
