"""Stream elements other than record batches, as they travel in-band with the records.

A record batch is a ``(values, timestamps)`` tuple (timestamps parallel to values, or
None). Between batches a channel carries ``Watermark`` (event-time progress, from
``millstream.common.watermark_strategy``) and ``WatermarkStatus`` (the channel turned
idle or active, Flink's stream status) elements.
"""

from __future__ import annotations

from typing import Any

from millstream.common.time import MAX_TIMESTAMP, MIN_TIMESTAMP
from millstream.common.watermark_strategy import Watermark

__all__ = ["MAX_TIMESTAMP", "MAX_WATERMARK", "MIN_TIMESTAMP", "Watermark", "WatermarkStatus"]

#: The final watermark: a finished bounded input fires every event-time timer.
MAX_WATERMARK = Watermark(MAX_TIMESTAMP)


class WatermarkStatus:
    """IDLE: the sender will not send records or watermarks for a while; ACTIVE: it will."""

    __slots__ = ("idle",)

    IDLE: WatermarkStatus
    ACTIVE: WatermarkStatus

    def __init__(self, idle: bool) -> None:
        self.idle = idle

    @property
    def is_active(self) -> bool:
        """True for ACTIVE."""
        return not self.idle

    def __reduce__(self) -> tuple[Any, tuple[bool]]:
        return (_status, (self.idle,))

    def __repr__(self) -> str:
        return "WatermarkStatus.IDLE" if self.idle else "WatermarkStatus.ACTIVE"


def _status(idle: bool) -> WatermarkStatus:
    return WatermarkStatus.IDLE if idle else WatermarkStatus.ACTIVE


WatermarkStatus.IDLE = WatermarkStatus(True)
WatermarkStatus.ACTIVE = WatermarkStatus(False)
