"""A Calc whose expressions read the operator's watermark (``CURRENT_WATERMARK(ts)``): a
process function that sets the calls' clocks (``expression/watermarks.py``) to the operator's
current watermark before it filters and projects each row, as Flink's generated Calc reads
``ctx.timerService().currentWatermark()``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.common.time import MIN_TIMESTAMP
from millstream.datastream import ProcessFunction
from millstream.table.expression.watermarks import WatermarkClock

__all__ = ["WatermarkCalc"]


class WatermarkCalc(ProcessFunction):
    """``calc`` (a change to the changes it keeps, as for ``flat_map``) with ``clocks`` set to
    the operator's watermark (None before the first one) for each row."""

    def __init__(self, calc: Callable[[Any], Any], clocks: list[WatermarkClock]) -> None:
        self.calc, self.clocks = calc, clocks

    def process_element(self, value: Any, ctx: ProcessFunction.Context) -> Any:
        watermark = ctx.timer_service().current_watermark()
        millis = None if watermark == MIN_TIMESTAMP else watermark
        for clock in self.clocks:
            clock.set(millis)
        return self.calc(value)
