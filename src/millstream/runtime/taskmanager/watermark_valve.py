"""StatusWatermarkValve: per-channel watermarks and idleness -> the input's watermark.

Flink's rules: an input's watermark is the minimum over its *aligned* channels. A channel
that turns idle stops holding the watermark back (it is no longer aligned); when it turns
active again it re-joins once its watermark has caught up with the valve's output. When
every channel is idle the valve emits IDLE (after flushing the highest channel
watermark if the last active channel was the one holding the minimum). Watermarks that
arrive on an idle channel, or that do not advance their channel, are ignored. The
output watermark never goes backwards.
"""

from __future__ import annotations

from collections.abc import Callable

from millstream.runtime.operators.elements import MIN_TIMESTAMP, Watermark, WatermarkStatus

__all__ = ["StatusWatermarkValve"]


class StatusWatermarkValve:
    """Combines the watermarks and statuses of ``num_channels`` channels of one input."""

    def __init__(
        self,
        num_channels: int,
        emit_watermark: Callable[[Watermark], None],
        emit_status: Callable[[WatermarkStatus], None],
    ) -> None:
        self._watermarks = [MIN_TIMESTAMP] * num_channels  # owner: task thread
        self._active = [True] * num_channels
        self._aligned = [True] * num_channels
        self._emit_watermark = emit_watermark
        self._emit_status = emit_status
        self.last_output_watermark = MIN_TIMESTAMP
        self.idle = False

    def input_watermark(self, watermark: Watermark, channel: int) -> None:
        """A watermark arrived on ``channel``."""
        if self.idle or not self._active[channel]:
            return
        ts = watermark.timestamp
        if ts <= self._watermarks[channel]:
            return
        self._watermarks[channel] = ts
        if not self._aligned[channel] and ts >= self.last_output_watermark:
            self._aligned[channel] = True
        self._output_min_of_aligned()

    def input_status(self, status: WatermarkStatus, channel: int) -> None:
        """A status change arrived on ``channel``."""
        if status.idle and self._active[channel]:
            self._active[channel] = False
            self._aligned[channel] = False
            holding = self._watermarks[channel] == self.last_output_watermark
            if not any(self._active):
                if holding:
                    self._output(max(self._watermarks))
                self.idle = True
                self._emit_status(WatermarkStatus.IDLE)
            elif holding:
                self._output_min_of_aligned()
        elif not status.idle and not self._active[channel]:
            self._active[channel] = True
            if self._watermarks[channel] >= self.last_output_watermark:
                self._aligned[channel] = True
            if self.idle:
                self.idle = False
                self._emit_status(WatermarkStatus.ACTIVE)

    def _output_min_of_aligned(self) -> None:
        aligned = [wm for wm, ok in zip(self._watermarks, self._aligned, strict=True) if ok]
        if aligned:
            self._output(min(aligned))

    def _output(self, ts: int) -> None:
        if ts > self.last_output_watermark:
            self.last_output_watermark = ts
            self._emit_watermark(Watermark(ts))
