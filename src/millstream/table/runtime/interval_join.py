"""Interval joins: a join of two tables with event-time attributes whose condition bounds one
time by the other (``l.ts BETWEEN r.ts - INTERVAL '5' MINUTE AND r.ts + INTERVAL '1' MINUTE``).

As Flink's ``RowTimeIntervalJoin``: each row waits in keyed state only as long as a row of
the other side could still match it (until the watermark passes the end of its interval), so
state stays bounded; the result is insert-only (outer interval joins emit a row NULL-padded
when it leaves the state without a match); rows already behind the watermark's reach are
late and dropped. Rows keep both time columns; the left one stays the event-time attribute.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from millstream.datastream import KeyedProcessFunction
from millstream.datastream.state import MapStateDescriptor
from millstream.table.common.timestamps import to_epoch_millis
from millstream.table.expression.expression import interval_millis
from millstream.table.planner.nodes import INSERT, PlanNode
from millstream.table.runtime.join import keyed_sides

if TYPE_CHECKING:
    from millstream.table.planner.planning import PlanningContext

__all__ = ["IntervalJoin", "time_bounds"]

_LEFT, _RIGHT = 0, 1


def _time_offset(expression: Any, column: str) -> int | None:
    """``c`` if ``expression`` is ``column``, ``column + interval`` or ``column - interval``."""
    kind = type(expression).__name__
    if kind == "_Alias":
        return _time_offset(expression.operand, column)
    if kind == "_Column":
        return 0 if expression.name == column else None
    if kind == "_Binary" and expression.op in ("+", "-"):
        base = _time_offset(expression.left, column)
        if base is None:
            return None
        try:
            delta = interval_millis(expression.right)
        except ValueError:
            return None
        return base + delta if expression.op == "+" else base - delta
    return None


def time_bounds(conjuncts: list[Any], left_time: str, right_time: str) -> tuple[int, int] | None:
    """(lo, hi) such that the conjuncts require ``right.ts + lo <= left.ts <= right.ts + hi``
    (strict bounds move by 1 ms), or None when they do not bound both sides."""
    lo: int | None = None
    hi: int | None = None
    flip = {">=": "<=", ">": "<", "<=": ">=", "<": ">"}
    for c in conjuncts:
        op = getattr(c, "op", None)
        if op not in flip:
            continue
        left_offset, right_offset = _time_offset(c.left, left_time), _time_offset(c.right, right_time)
        if left_offset is None or right_offset is None:  # right-time op left-time: mirror it
            left_offset, right_offset = _time_offset(c.right, left_time), _time_offset(c.left, right_time)
            if left_offset is None or right_offset is None:
                continue
            op = flip[op]
        # left.ts + lo_off  OP  right.ts + ro_off   <=>   left.ts OP right.ts + (ro_off - lo_off)
        bound = right_offset - left_offset
        if op in (">=", ">"):
            bound += 1 if op == ">" else 0
            lo = bound if lo is None else max(lo, bound)
        else:
            bound -= 1 if op == "<" else 0
            hi = bound if hi is None else min(hi, bound)
    if lo is None or hi is None:
        return None
    return lo, hi


@dataclass(frozen=True)
class IntervalJoin(PlanNode):
    """``left JOIN right`` on keys and a time interval (see the module docstring)."""

    left: PlanNode | None = None
    right: PlanNode | None = None
    join_type: str = "INNER"
    left_keys: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    right_keys: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    condition: Callable[[tuple[Any, ...]], Any] | None = None  # the whole condition
    bounds: tuple[int, int] = (0, 0)
    times: tuple[int, int] = (0, 0)  # the time columns of the left and the right input
    where: Any = None  # the condition as an expression (explain prints it)

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.left is not None and self.right is not None
        if self.left.updating or self.right.updating:
            raise ValueError("an interval join needs insert-only inputs")
        roots = (self.left.types[self.times[0]].root, self.right.types[self.times[1]].root)
        function = _IntervalJoinFunction(
            self.join_type,
            (len(self.left.names), len(self.right.names)),
            self.condition,
            self.bounds,
            self.times,
            roots,
        )
        return keyed_sides(self, ctx).process(function)


class _IntervalJoinFunction(KeyedProcessFunction):
    def __init__(
        self,
        join_type: str,
        widths: tuple[int, int],
        condition: Callable[[tuple[Any, ...]], Any] | None,
        bounds: tuple[int, int],
        times: tuple[int, int],
        roots: tuple[str, str],
    ) -> None:
        self.widths, self.condition, self.bounds, self.times, self.roots = (
            widths,
            condition,
            bounds,
            times,
            roots,
        )
        self.outer = (join_type in ("LEFT", "FULL"), join_type in ("RIGHT", "FULL"))

    def open(self, runtime_context: Any) -> None:
        # per side: time -> [[row, matched], ...]
        self.sides = (
            runtime_context.get_map_state(MapStateDescriptor("left", None, None)),
            runtime_context.get_map_state(MapStateDescriptor("right", None, None)),
        )

    def _joined(self, side: int, row: tuple[Any, ...], other: tuple[Any, ...] | None) -> tuple[Any, ...]:
        if other is None:
            other = (None,) * self.widths[1 - side]
        return row + other if side == _LEFT else other + row

    def _expiry(self, side: int, ts: int) -> int:
        """The watermark after which no row of the other side can match a row at ``ts``."""
        lo, hi = self.bounds
        return ts - lo if side == _LEFT else ts + hi  # left.ts - lo >= right.ts; right.ts + hi >= left.ts

    def process_element(self, value: Any, ctx: Any) -> Any:
        side, _, row = value
        time = row[self.times[side]]
        if time is None:
            return None
        ts = to_epoch_millis(time, self.roots[side])
        timers = ctx.timer_service()
        watermark = timers.current_watermark()
        late = self._expiry(side, ts) <= watermark
        lo, hi = self.bounds
        low, high = (ts - hi, ts - lo) if side == _LEFT else (ts + lo, ts + hi)
        out: list[tuple[str, tuple[Any, ...]]] = []
        matched = False
        other_state = self.sides[1 - side]
        condition = self.condition
        for other_ts, entries in list(other_state.items()):
            if not low <= other_ts <= high:
                continue
            changed = False
            for entry in entries:
                joined = self._joined(side, row, entry[0])
                if condition is None or condition(joined) is True:
                    out.append((INSERT, joined))
                    matched = True
                    if not entry[1]:
                        entry[1] = changed = True
            if changed:
                other_state.put(other_ts, entries)
        if late:
            if self.outer[side] and not matched:
                out.append((INSERT, self._joined(side, row, None)))
            return out or None
        state = self.sides[side]
        entries = state.get(ts) or []
        entries.append([row, matched])
        state.put(ts, entries)
        timers.register_event_time_timer(self._expiry(side, ts))
        return out or None

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        out: list[tuple[str, tuple[Any, ...]]] = []
        for side in (_LEFT, _RIGHT):
            state = self.sides[side]
            for ts, entries in list(state.items()):
                if self._expiry(side, ts) > timestamp:
                    continue
                if self.outer[side]:
                    out.extend(
                        (INSERT, self._joined(side, row, None)) for row, matched in entries if not matched
                    )
                state.remove(ts)
        return out or None
