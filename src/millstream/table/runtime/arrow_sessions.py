"""SESSION window aggregation over a columnar scan's Arrow batches, a key's rows at a time.

::

    ChangeBatch ──► SessionGroups ──► key_by(key) ──► GroupedSessionAggregate
                    keys, times and arguments          a key's rows of the batch in their order,
                    on Arrow; the rows of a batch      its sessions read and written once,
                    grouped by key                     the timers of the sessions left set

A session aggregation's cost is per row: the key's sessions read and written, a timer
deleted and set, the row turned into Python values and routed by key. A batch of a columnar
scan holds the rows between two watermarks, so every row of it meets the same watermark:
grouping the batch's rows by key before the exchange hands the keyed operator one element per
key and batch (Nexmark q11: about 60 bidders in a batch of 1,840 bids), and the operator runs
the row path's rules (``SessionAggregate``) over the rows in their order: a row opens ``[ts,
ts + gap)``, merges every session it touches, and is late (dropped) when the session it would
make ends at or before the watermark. The sessions, windows and rows are the row path's;
windows of different keys that end at the same millisecond may fire in another order.

Only aggregates whose accumulators merge exactly are taken (COUNT, SUM of integers, MIN / MAX
of ordered values: ``arrow_window.exact_aggregate``), with keys and arguments Arrow computes as
the row path does; anything else keeps the row path.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from millstream.table.common.row_kind import INSERT
from millstream.table.common.types import DataType
from millstream.table.runtime.arrow_window import exact_aggregate
from millstream.table.runtime.change_batch import ChangeBatch
from millstream.table.runtime.vectorized import (
    _evaluate,
    arrow_type_exact,
    as_array,
    int64_numpy,
    python_values,
    vectorizable,
)
from millstream.table.runtime.window_operators import SessionAggregate

__all__ = ["GroupedSessionAggregate", "SessionGroups", "session_groups"]


def session_groups(node: Any) -> SessionGroups | None:
    """The grouping of a SESSION window aggregation ``node``'s input batches, or None when a
    part of it has no exact Arrow equal (it then runs on rows)."""
    source = node.input
    if node.key_expressions is None or node.argument_expressions is None or source is None:
        return None
    names, types = list(source.names), list(source.types)
    time_type = types[node.time_column]
    if time_type.root not in ("TIMESTAMP", "TIMESTAMP_LTZ") or not arrow_type_exact(time_type):
        return None
    for (function, _, argument_type), argument in zip(node.calls, node.argument_expressions, strict=True):
        if not isinstance(function, str) or not exact_aggregate(function, argument_type):
            return None
        if not vectorizable(argument, names, types):
            return None
    for key in node.key_expressions:
        resolved = key.resolve(names, types)
        if not vectorizable(key, names, types) or resolved.data_type.root in ("ROW", "ARRAY", "MAP"):
            return None
    return SessionGroups(
        names, types, node.time_column, list(node.key_expressions), list(node.argument_expressions)
    )


class SessionGroups:
    """``fn(batches) -> (groups, kept)`` for the batch operator before the keyed exchange: each
    ``ChangeBatch``'s rows as ``(INSERT, (key, rows))`` elements, one per key, ``rows`` its
    rows' ``(epoch millis, argument values)`` in order; the keys in the order of their last
    row (the order the row path last sets their timers in). A row without a time is in no
    window, as on the row path."""

    def __init__(
        self, names: list[str], types: list[DataType], time_column: int, keys: list[Any], arguments: list[Any]
    ) -> None:
        self.names, self.types, self.time_column = names, types, time_column
        self.keys, self.arguments = keys, arguments

    def __call__(self, values: list[Any]) -> tuple[list[Any], list[int]]:
        out: list[Any] = []
        kept: list[int] = []
        for index, element in enumerate(values):
            assert isinstance(element, ChangeBatch)
            groups = self._groups(element)
            out.extend(groups)
            kept.extend([index] * len(groups))
        return out, kept

    def _column(self, expression: Any, batch: Any, size: int) -> list[Any]:
        value = _evaluate(expression, self.names, batch.column, size, self.types)
        return python_values(as_array(value, size), expression.resolve(self.names, self.types).data_type)

    def _groups(self, element: ChangeBatch) -> list[Any]:
        batch = element.batch
        size = batch.num_rows
        if not size:
            return []
        time = batch.column(self.time_column)
        millis = int64_numpy(time.cast(pa.timestamp(time.type.unit)).cast(pa.int64())).tolist()
        valid = None if not time.null_count else time.is_valid().to_pylist()
        keys = list(zip(*[self._column(k, batch, size) for k in self.keys], strict=True)) or [()] * size
        arguments = list(zip(*[self._column(a, batch, size) for a in self.arguments], strict=True))
        if not arguments:
            arguments = [()] * size
        groups: dict[Any, list[Any]] = {}
        for position, (key, at, values) in enumerate(zip(keys, millis, arguments, strict=True)):
            if valid is not None and not valid[position]:
                continue
            rows = groups.get(key)
            if rows is None:
                rows = groups[key] = []
            else:
                del groups[key]  # a key moves behind the keys whose last row came before its
                groups[key] = rows
            rows.append((at, values))
        return [(INSERT, (key, rows)) for key, rows in groups.items()]


class GroupedSessionAggregate(SessionAggregate):
    """``SessionAggregate`` over ``SessionGroups``' elements: a key's rows of one batch, each
    merged into the key's sessions as the row path merges a row."""

    def process_element(self, value: Any, ctx: Any) -> Any:
        timers = ctx.timer_service()
        before: list[list[Any]] = self.sessions.value() or []
        sessions, changed = self._merged(value[1][1], list(before), timers.current_watermark())
        if not changed:  # every row late: nothing changes
            return None
        self.sessions.update(sessions)
        ends = {s[1] for s in before}  # the ends the key's timers are set at
        after = {s[1] for s in sessions}
        for end in ends - after:  # sessions merged into others: their timers go
            timers.delete_event_time_timer(end - 1)
        for session in sessions:
            if session[1] not in ends:
                timers.register_event_time_timer(session[1] - 1)
        return None

    def _merged(
        self, rows: list[Any], sessions: list[list[Any]], watermark: int
    ) -> tuple[list[list[Any]], bool]:
        """The key's ``sessions`` with ``rows`` merged in, in order; whether any row was not late."""
        gap = self.spec.size
        made: set[int] = set()  # the sessions made here (state's own are copied, never changed)
        for at, arguments in rows:
            start, end = at, at + gap
            only = sessions[0] if len(sessions) == 1 and id(sessions[0]) in made else None
            if only is not None and only[0] <= end and only[1] >= start:  # the one session grows
                if max(end, only[1]) - 1 > watermark:
                    only[0], only[1], only[2] = min(only[0], start), max(end, only[1]), only[2] + 1
                    self._add_values(only[3], arguments)
                continue  # else late
            touching = [s for s in sessions if s[0] <= end and s[1] >= start]
            merged_end = max([end, *(s[1] for s in touching)])
            if merged_end - 1 <= watermark:
                continue  # late
            accs = self._fresh()
            for old in sorted(touching, key=lambda s: s[0]):
                self._merge(accs, old[3])
            self._add_values(accs, arguments)
            merged_start = min([start, *(s[0] for s in touching)])
            session = [merged_start, merged_end, sum(s[2] for s in touching) + 1, accs]
            sessions = [s for s in sessions if not any(s is t for t in touching)] + [session]
            made.add(id(session))
        sessions.sort(key=lambda s: s[0])
        return sessions, bool(made)

    def _add_values(self, accs: list[Any], arguments: tuple[Any, ...]) -> None:
        for i, (acc, argument) in enumerate(zip(self.accumulators, arguments, strict=True)):
            accs[i] = acc.add(accs[i], argument)
