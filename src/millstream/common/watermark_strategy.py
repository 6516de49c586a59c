"""WatermarkStrategy, TimestampAssigner and WatermarkGenerator, as Flink's event-time API.

A ``WatermarkStrategy`` says how timestamps are taken from elements and how watermarks
are generated. The runtime asks it for a ``TimestampAssigner`` and a
``WatermarkGenerator`` per source (or ``assign_timestamps_and_watermarks``) subtask,
exactly as Flink's ``WatermarkStrategy.createTimestampAssigner`` /
``createWatermarkGenerator``; the built-in generators below are Flink's:

- bounded out-of-orderness (and monotonous = bound 0): ``max timestamp - bound - 1``,
  emitted periodically (``pipeline.auto-watermark-interval``);
- no watermarks: only the final watermark at the end of bounded input;
- a user generator from ``for_generator`` (``on_event`` / ``on_periodic_emit``).

``with_idleness`` wraps the generator: without events for the idle timeout the
output is marked idle, so downstream tasks stop waiting for this input.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from millstream.common.time import MIN_TIMESTAMP, Duration

__all__ = [
    "BoundedOutOfOrdernessWatermarks",
    "NoWatermarksGenerator",
    "TimestampAssigner",
    "Watermark",
    "WatermarkGenerator",
    "WatermarkOutput",
    "WatermarkStrategy",
]


class Watermark:
    """A watermark: no element with a timestamp <= ``timestamp`` is expected any more."""

    __slots__ = ("timestamp",)

    def __init__(self, timestamp: int) -> None:
        self.timestamp = timestamp

    def get_timestamp(self) -> int:
        """The watermark's time (epoch ms)."""
        return self.timestamp

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return (Watermark, (self.timestamp,))

    def __eq__(self, other: object) -> bool:
        return type(other) is Watermark and other.timestamp == self.timestamp

    def __hash__(self) -> int:
        return hash(self.timestamp)

    def __repr__(self) -> str:
        return f"Watermark({self.timestamp})"


class TimestampAssigner(ABC):
    """Extracts an event timestamp (epoch ms) from an element."""

    @abstractmethod
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        """The timestamp of ``value``; ``record_timestamp`` is the one it carries, if any."""


class WatermarkOutput(ABC):
    """Where a WatermarkGenerator puts its watermarks (Flink's ``WatermarkOutput``)."""

    @abstractmethod
    def emit_watermark(self, watermark: Watermark | int) -> None:
        """Emit a watermark (ignored unless it is larger than the last one)."""

    @abstractmethod
    def mark_idle(self) -> None:
        """This output will not produce events for a while."""

    @abstractmethod
    def mark_active(self) -> None:
        """This output produces events again."""


class WatermarkGenerator(ABC):
    """Generates watermarks from events and periodically (user-defined strategies)."""

    @abstractmethod
    def on_event(self, event: Any, event_timestamp: int, output: WatermarkOutput) -> None:
        """Called for every event."""

    @abstractmethod
    def on_periodic_emit(self, output: WatermarkOutput) -> None:
        """Called every ``pipeline.auto-watermark-interval`` ms."""


class BoundedOutOfOrdernessWatermarks(WatermarkGenerator):
    """Watermark = highest timestamp seen - bound - 1, emitted periodically (Flink's)."""

    def __init__(self, out_of_orderness_ms: int) -> None:
        if out_of_orderness_ms < 0:
            raise ValueError("max out-of-orderness must not be negative")
        self.out_of_orderness_ms = out_of_orderness_ms
        # Start so that the first watermark is Long.MIN_VALUE, as Flink does.
        self.max_timestamp = MIN_TIMESTAMP + out_of_orderness_ms + 1

    def on_event(self, event: Any, event_timestamp: int, output: WatermarkOutput) -> None:
        """Track the highest timestamp."""
        if event_timestamp > self.max_timestamp:
            self.max_timestamp = event_timestamp

    def on_events(self, timestamps: list[int]) -> None:
        """Track the highest timestamp of a batch (one C-level ``max``)."""
        if timestamps:
            highest = max(timestamps)
            if highest > self.max_timestamp:
                self.max_timestamp = highest

    def on_periodic_emit(self, output: WatermarkOutput) -> None:
        """Emit ``max - bound - 1``."""
        output.emit_watermark(self.max_timestamp - self.out_of_orderness_ms - 1)


class NoWatermarksGenerator(WatermarkGenerator):
    """Generates no watermarks."""

    def on_event(self, event: Any, event_timestamp: int, output: WatermarkOutput) -> None:
        """Nothing."""

    def on_periodic_emit(self, output: WatermarkOutput) -> None:
        """Nothing."""


def _call_assigner(assigner: Any) -> Callable[[Any, int], int]:
    if isinstance(assigner, TimestampAssigner) or hasattr(assigner, "extract_timestamp"):
        method: Callable[[Any, int], int] = assigner.extract_timestamp
        return method
    if callable(assigner):
        return assigner
    raise TypeError("the timestamp assigner must be a TimestampAssigner or a callable (value, ts) -> ts")


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
        millis = _millis(max_out_of_orderness)
        if millis < 0:
            raise ValueError("max out-of-orderness must not be negative")
        return WatermarkStrategy("bounded", out_of_orderness_ms=millis)

    @staticmethod
    def for_generator(generator_supplier: Any) -> WatermarkStrategy:
        """A user ``WatermarkGenerator``: ``generator_supplier(context)`` or a generator class/object."""
        return WatermarkStrategy("generator", generator_supplier=generator_supplier)

    def with_timestamp_assigner(self, timestamp_assigner: Any) -> WatermarkStrategy:
        """Use ``timestamp_assigner`` (a TimestampAssigner or a callable) for timestamps."""
        _call_assigner(timestamp_assigner)
        return replace(self, timestamp_assigner=timestamp_assigner)

    def with_idleness(self, idle_timeout: Duration) -> WatermarkStrategy:
        """Mark an input idle after ``idle_timeout`` without events."""
        millis = _millis(idle_timeout)
        if millis <= 0:
            raise ValueError("the idle timeout must be positive")
        return replace(self, idleness_ms=millis)

    def with_watermark_alignment(
        self, watermark_group: str, max_allowed_watermark_drift: Any, update_interval: Any = None
    ) -> WatermarkStrategy:
        """Watermark alignment across sources is not supported."""
        raise NotImplementedError("watermark alignment (FLIP-182) is not supported")

    # -- what the runtime asks for -------------------------------------------------------

    def create_timestamp_assigner(self) -> Callable[[Any, int], int] | None:
        """``extract(value, record_timestamp)``, or None to keep the records' timestamps."""
        if self.timestamp_assigner is None:
            return None
        return _call_assigner(self.timestamp_assigner)

    def create_watermark_generator(self, context: Any = None) -> WatermarkGenerator:
        """A fresh generator for one subtask."""
        if self.kind == "bounded":
            return BoundedOutOfOrdernessWatermarks(self.out_of_orderness_ms)
        if self.kind == "monotonous":
            return BoundedOutOfOrdernessWatermarks(0)
        if self.kind == "none":
            return NoWatermarksGenerator()
        supplier = self.generator_supplier
        if isinstance(supplier, WatermarkGenerator):
            return supplier
        if isinstance(supplier, type):
            generator = supplier()
        elif hasattr(supplier, "create_watermark_generator"):
            generator = supplier.create_watermark_generator(context)
        else:
            generator = supplier(context)
        if not (hasattr(generator, "on_event") and hasattr(generator, "on_periodic_emit")):
            raise TypeError("for_generator: the supplier must return a WatermarkGenerator")
        return generator


def _millis(duration: Any) -> int:
    if isinstance(duration, int):
        return duration
    to_ms = getattr(duration, "to_milliseconds", None)
    if to_ms is None:
        raise TypeError(f"expected a Duration, got {type(duration).__name__}")
    return int(to_ms())
