"""The operators of GROUP BY aggregation (Flink's GroupAggFunction) and of the table aggregation
of ``flat_aggregate`` (the plan nodes are :mod:`millstream.table.planner.aggregate`).

A group aggregation keeps, per key, the number of rows it holds, one accumulator per
aggregate call and the row it emitted last (keyed state, so it takes part in checkpoints):
streaming, it emits Flink's changelog (``+I`` for a new group, ``-U``/``+U`` when the result
changes, nothing when it does not, ``-D`` when the group's last row is retracted); BATCH, it
emits each group's final row once (a timer at the end of the key).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.common.types import Row
from millstream.datastream import KeyedProcessFunction
from millstream.datastream.state import ValueStateDescriptor
from millstream.table.common.options import (
    with_ttl,
)
from millstream.table.common.row_kind import DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE
from millstream.table.common.types import DataType
from millstream.table.functions.aggregate_calls import accumulator_for

__all__ = ["OPEN_GLOBAL_GROUP", "GroupAggregateFunction", "TableAggregateFunction"]

_MAX_TIMESTAMP = 2**63 - 1

OPEN_GLOBAL_GROUP: tuple[str, tuple[Any, ...]] = ("", ())
"""The element the plan adds to a BATCH global aggregation's input (no GROUP BY keys): it opens
the one group without adding a row, so the aggregation emits its row over an empty input."""


# -- group aggregation ---------------------------------------------------------------------------------


class GroupAggregateFunction(KeyedProcessFunction):
    """The group aggregation of one key (see the module docstring)."""

    def __init__(
        self,
        calls: list[tuple[str, Callable[[tuple[Any, ...]], Any], DataType]],
        retracting: bool,
        batch: bool,
        key_count: int,
    ) -> None:
        self.calls = calls
        self.retracting = retracting
        self.batch = batch
        self.key_count = key_count
        self.ttl_ms = 0  # table.exec.state.ttl (streaming)
        self.key_group_size = 0  # >0: the operator hands it key groups (mini-batch, BATCH)
        self.key_group_latency_ms = 0  # ... of the elements held at most this long

    def open(self, runtime_context: Any) -> None:
        self.state = runtime_context.get_state(
            with_ttl(ValueStateDescriptor("group"), getattr(self, "ttl_ms", 0))
        )
        self.accumulators = [
            accumulator_for(f, t, self.retracting) if isinstance(f, str) else f for f, _, t in self.calls
        ]
        self.arguments = [fn for _, fn, _ in self.calls]
        self.pairs = list(zip(self.accumulators, self.arguments, strict=True))

    def process_element(self, value: Any, ctx: Any) -> Any:
        return self.process_key_group([value], ctx)

    def process_key_group(self, values: list[Any], ctx: Any) -> Any:
        """The changes of one key (one, or a mini-batch's): the state read and written once,
        one update emitted for them all (Flink's MiniBatchGroupAggFunction)."""
        held = self.state.value()
        if held is None:
            held = [0, [a.create() for a in self.accumulators], None]
        accs = held[1]
        pairs = self.pairs
        for kind, row in values:
            if not kind:  # OPEN_GLOBAL_GROUP: the group exists, with no row
                continue
            adding = kind in (INSERT, UPDATE_AFTER)
            held[0] += 1 if adding else -1
            for i, (acc, argument) in enumerate(pairs):
                argument_value = argument(row)
                accs[i] = acc.add(accs[i], argument_value) if adding else acc.retract(accs[i], argument_value)
        if self.batch:
            self.state.update(held)
            if held[2] is None:
                held[2] = True
                ctx.timer_service().register_event_time_timer(_MAX_TIMESTAMP)
            return None
        previous = held[2]
        if held[0] <= 0:
            self.state.clear()
            return [(DELETE, previous)] if previous is not None else None
        result = self._result(ctx.get_current_key(), accs)
        held[2] = result
        self.state.update(held)
        if previous is None:
            return [(INSERT, result)]
        if previous == result:
            return None
        return [(UPDATE_BEFORE, previous), (UPDATE_AFTER, result)]

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        held = self.state.value()
        if held is None or (held[0] <= 0 and self.key_count):  # the global group: a row even if empty
            return None
        return [(INSERT, self._result(ctx.get_current_key(), held[1]))]

    def _result(self, key: tuple[Any, ...], accs: list[Any]) -> tuple[Any, ...]:
        return tuple(key) + tuple(a.result(acc) for a, acc in zip(self.accumulators, accs, strict=True))


class TableAggregateFunction(KeyedProcessFunction):
    """Keeps the group's accumulator; after each bundle of a key's rows (one row without
    bundles) withdraws the rows emitted before (-D) and emits the function's current rows
    (+I), as Flink's table aggregation."""

    def __init__(self, function: Any, names: list[str], arguments: Any = None) -> None:
        # arguments: a function of a row to the call's argument values (None: the whole row)
        self.function, self.names, self.arguments = function, names, arguments
        self.key_group_size = 0  # >0: the operator hands it a bundle's rows by key
        self.key_group_latency_ms = 0

    def open(self, runtime_context: Any) -> None:
        self.state = runtime_context.get_state(ValueStateDescriptor("table_aggregate"))

    def process_element(self, value: Any, ctx: Any) -> Any:
        return self.process_key_group([value], ctx)

    def process_key_group(self, values: list[Any], ctx: Any) -> Any:
        """The changes of one key: accumulated (or retracted) in order, then one emission."""
        held = self.state.value()
        acc, emitted = (self.function.create_accumulator(), []) if held is None else held
        for kind, fields in values:
            if self.arguments is not None:
                args = self.arguments(fields)
            else:
                row = Row(*fields)
                row.set_field_names(self.names)
                args = (row,)
            if kind in (INSERT, UPDATE_AFTER):
                self.function.accumulate(acc, *args)
            else:
                self.function.retract(acc, *args)
        key = tuple(ctx.get_current_key())
        rows = [
            key + (tuple(r) if isinstance(r, (tuple, list, Row)) else (r,))
            for r in self.function.emit_value(acc)
        ]
        self.state.update([acc, rows])
        out = [(DELETE, r) for r in emitted] + [(INSERT, r) for r in rows]
        return out or None
