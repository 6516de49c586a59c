"""``CURRENT_WATERMARK(rowtime)``: the watermark of the operator evaluating the call, as Flink's
``CurrentWatermarkCallGen`` reads ``ctx.timerService().currentWatermark()`` in the Calc; NULL
before the operator has a watermark. Its type is the rowtime attribute's with precision 3,
nullable (``TIMESTAMP(3)`` or ``TIMESTAMP_LTZ(3)``).

The call holds a ``WatermarkClock``; the Calc that evaluates it (``runtime/watermark_calc.py``)
sets the clock to its current watermark before each row. A clock holds one value per thread, so
subtasks running as threads of one process do not see each other's watermark.
"""

from __future__ import annotations

import threading
from typing import Any

from millstream.table.common.printing import summary_string
from millstream.table.common.timestamps import from_epoch_millis
from millstream.table.common.types import DataType
from millstream.table.expression.expression import Compiled, Expression
from millstream.table.expression.walk import children

__all__ = ["CurrentWatermark", "WatermarkClock", "current_watermarks", "watermark_clocks"]

_TIME_ATTRIBUTE_ROOTS = ("TIMESTAMP", "TIMESTAMP_LTZ")


class WatermarkClock:
    """The current watermark (epoch ms, None: none yet) of the operator evaluating a
    ``CURRENT_WATERMARK`` call in this thread. All clocks are equal as expression parts
    (``fingerprint_atom``), as ``QueryClock``'s are."""

    fingerprint_atom = ("WatermarkClock",)

    def __init__(self) -> None:
        self._local = threading.local()

    def set(self, millis: int | None) -> None:
        """The watermark the operator has now (None: none yet)."""
        self._local.millis = millis

    def get(self) -> int | None:
        """The watermark set last in this thread."""
        return getattr(self._local, "millis", None)

    def __getstate__(self) -> dict[str, Any]:
        return {"clock": "watermark"}  # not empty: pickle calls __setstate__ only for a true state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._local = threading.local()  # a copy starts without a watermark

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WatermarkClock)

    def __hash__(self) -> int:
        return hash(WatermarkClock)


class CurrentWatermark(Expression):
    """``current_watermark(col('ts'))`` / SQL's ``CURRENT_WATERMARK(ts)`` of the rowtime attribute
    ``operand`` (a select checks that it is one: ``check_time_attributes``)."""

    def __init__(self, operand: Expression) -> None:
        self.operand = operand
        self.clock = WatermarkClock()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        kind = self.operand.resolve(names, types).data_type
        if kind.root not in _TIME_ATTRIBUTE_ROOTS:
            raise ValueError(
                "CURRENT_WATERMARK() must be called with a single rowtime attribute argument, but "
                f"'{summary_string(kind)}' cannot be a time attribute."
            )
        root, clock = kind.root, self.clock

        def watermark(row: tuple[Any, ...]) -> Any:
            millis = clock.get()
            return None if millis is None else from_epoch_millis(millis, root)

        return Compiled(watermark, DataType(root, True, 3), None)

    def __repr__(self) -> str:
        return f"CURRENT_WATERMARK({self.operand!r})"


def current_watermarks(expression: Any) -> list[CurrentWatermark]:
    """The ``CURRENT_WATERMARK`` calls inside ``expression``."""
    found = [expression] if isinstance(expression, CurrentWatermark) else []
    for child in children(expression):
        found.extend(current_watermarks(child))
    return found


def watermark_clocks(expressions: list[Any]) -> list[WatermarkClock]:
    """The clocks of the ``CURRENT_WATERMARK`` calls in ``expressions`` (a Calc sets them)."""
    return [call.clock for e in expressions if e is not None for call in current_watermarks(e)]
