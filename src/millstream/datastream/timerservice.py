"""TimerService, as ``pyflink.datastream.timerservice``: what ``ctx.timer_service()`` offers.

The interface for type annotations and documentation; the runtime hands process functions
its own implementation of these methods.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

__all__ = ["TimerService"]


class TimerService(ABC):
    """The current times and the timers of the current key."""

    @abstractmethod
    def current_processing_time(self) -> int:
        """The current processing time (epoch ms)."""

    @abstractmethod
    def current_watermark(self) -> int:
        """The current event-time watermark."""

    @abstractmethod
    def register_processing_time_timer(self, timestamp: int) -> None:
        """Call ``on_timer`` when the processing time passes ``timestamp``."""

    @abstractmethod
    def register_event_time_timer(self, timestamp: int) -> None:
        """Call ``on_timer`` when the watermark passes ``timestamp``."""

    def delete_processing_time_timer(self, timestamp: int) -> None:  # noqa: B027 - optional, as in PyFlink
        """Delete the processing-time timer at ``timestamp`` of the current key, if any."""

    def delete_event_time_timer(self, timestamp: int) -> None:  # noqa: B027 - optional, as in PyFlink
        """Delete the event-time timer at ``timestamp`` of the current key, if any."""
