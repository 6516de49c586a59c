"""Regular joins of dynamic tables: INNER, LEFT, RIGHT and FULL OUTER, with keyed state.

Both inputs are keyed by the equality part of the join condition and meet in one keyed
operator (so a join runs at any parallelism and its state is checkpointed). Each side keeps
its rows in map state, a row mapped to ``[count, associations]``: how often the row is held,
and for a row of an outer side how many rows of the other side it matches. As Flink's
``StreamingJoinOperator``:

- a row added to one side joins every matching row held by the other (``+I``); a row taken
  out (``-U``/``-D``) withdraws those results (``-D``);
- a row of an outer side with no match is emitted padded with NULLs; when its first match
  arrives the padded row is withdrawn (``-D``) before the joined one is emitted, and when its
  last match goes the padded row comes back.

A join's output is updating whenever an outer side exists or an input is updating.
``table.exec.state.ttl`` bounds the state: a held row not written for that long expires (a
later match no longer finds it), as Flink's idle state retention.
Which join a condition makes is the planner's (:mod:`millstream.table.planner.joins`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.datastream import KeyedProcessFunction
from millstream.datastream.state import ListStateDescriptor, MapStateDescriptor
from millstream.table.common.options import with_ttl
from millstream.table.common.row_kind import DELETE, INSERT, UPDATE_AFTER
from millstream.table.common.timestamps import to_epoch_millis

__all__ = ["LEFT", "RIGHT", "JoinFunction", "SameWindow", "SemiJoinFunction", "WindowJoinFunction"]


LEFT, RIGHT = 0, 1


class JoinFunction(KeyedProcessFunction):
    groups_each_batch = True  # the operator hands each batch's elements of a key together

    def __init__(
        self,
        join_type: str,
        left_width: int,
        right_width: int,
        residual: Callable[[tuple[Any, ...]], Any] | None,
    ) -> None:
        self.join_type = join_type
        self.widths = (left_width, right_width)
        self.residual = residual
        self.outer = (join_type in ("LEFT", "FULL"), join_type in ("RIGHT", "FULL"))
        self.join_type = join_type
        self.ttl_ms = 0
        self.null_rejecting = False  # a NULL equi-key matches nothing (not for INTERSECT / EXCEPT)
        # per side: its input inserts only and the join is INNER, so its rows are appended to a
        # list (no count or association to keep: nothing is taken out, nothing is padded)
        self.appended = (False, False)

    def open(self, runtime_context: Any) -> None:
        ttl = self.ttl_ms  # table.exec.state.ttl: rows idle that long are forgotten
        self.sides = tuple(
            runtime_context.get_list_state(with_ttl(ListStateDescriptor(f"{name}-rows", None), ttl))
            if appended
            else runtime_context.get_map_state(with_ttl(MapStateDescriptor(name, None, None), ttl))
            for name, appended in zip(("left", "right"), self.appended, strict=True)
        )

    def _held(self, side: int) -> Any:
        """(row, [count, associations]) of every row held for ``side``."""
        if self.appended[side]:
            return [(row, [1, 0]) for row in self.sides[side].get()]
        return self.sides[side].items()

    def _joined(self, side: int, row: tuple[Any, ...], other: tuple[Any, ...] | None) -> tuple[Any, ...]:
        if other is None:
            other = (None,) * self.widths[1 - side]
        return row + other if side == LEFT else other + row

    def _matches(self, side: int, row: tuple[Any, ...], ctx: Any) -> list[tuple[tuple[Any, ...], list[int]]]:
        """The other side's held rows joining ``row``, with their [count, associations]
        (none when a key of ``row``, the current key, is NULL: ``NULL = x`` is never TRUE)."""
        if self.null_rejecting and None in ctx.get_current_key():
            return []
        residual = self.residual
        found = []
        for other, held in self._held(1 - side):
            if residual is None or residual(self._joined(side, row, other)) is True:
                found.append((other, held))
        return found

    def process_element(self, value: Any, ctx: Any) -> Any:
        side, kind, row = value
        adding = kind in (INSERT, UPDATE_AFTER)
        state, other_state = self.sides[side], self.sides[1 - side]
        outer, other_outer = self.outer[side], self.outer[1 - side]
        matches = self._matches(side, row, ctx)
        out: list[tuple[str, tuple[Any, ...]]] = []
        result_kind = INSERT if adding else DELETE
        total = 0
        for other, held in matches:
            count, associations = held
            total += count
            for _ in range(count):
                out.append((result_kind, self._joined(side, row, other)))
            if other_outer:  # the other row's padded twin comes and goes with its matches
                padded = self._joined(1 - side, other, None)
                if adding and associations == 0:
                    out[len(out) - count : len(out) - count] = [(DELETE, padded)] * count
                held[1] = associations + (1 if adding else -1)
                if not adding and held[1] == 0:
                    out.extend([(INSERT, padded)] * count)
                other_state.put(other, held)
        if outer and not matches:
            out.append((result_kind, self._joined(side, row, None)))
        if self.appended[side]:
            if not adding:
                raise ValueError(
                    f"the join's {('left', 'right')[side]} input inserts only, yet took out {row}"
                )
            state.add(row)
            return out or None
        held_row = state.get(row)
        if adding:
            state.put(row, [1, total] if held_row is None else [held_row[0] + 1, total])
        elif held_row is not None:
            if held_row[0] <= 1:
                state.remove(row)
            else:
                state.put(row, [held_row[0] - 1, held_row[1]])
        return out or None

    def process_key_group(self, values: list[Any], ctx: Any) -> Any:
        """A key's elements of one batch, as ``process_element`` one after the other. Rows
        inserted into one side of an inner join (the common case) read the other side's
        rows once for all of them, and this side's state once per distinct row (once for
        all of them when the side inserts only)."""
        side = values[0][0]
        if self.join_type == "INNER" and all(v[0] == side and v[1] == INSERT for v in values):
            return self._inserted(side, values, ctx)
        out: list[tuple[str, tuple[Any, ...]]] = []
        for value in values:
            result = self.process_element(value, ctx)
            if result:
                out.extend(result)
        return out or None

    def _inserted(self, side: int, values: list[Any], ctx: Any) -> Any:
        rejected = self.null_rejecting and None in ctx.get_current_key()
        state = self.sides[side]
        if self.appended[side]:  # this side's rows are appended: no per-row match counts
            if rejected:
                out = []
            elif self.appended[1 - side]:  # and the other's are held once each
                out = self._pairs(side, values, self.sides[1 - side].get())
            else:
                out = self._counted_pairs(side, values, list(self._held(1 - side)))
            state.add_all([value[2] for value in values])
            return out or None
        others = [] if rejected else list(self._held(1 - side))
        residual = self.residual
        out = []
        added: dict[tuple[Any, ...], list[int]] = {}  # row -> [times added, its matches]
        for _, _, row in values:
            total = 0
            for other, held in others:
                joined = row + other if side == LEFT else other + row
                if residual is None or residual(joined) is True:
                    count = held[0]
                    total += count
                    out.extend([(INSERT, joined)] * count)
            known = added.get(row)
            added[row] = [1, total] if known is None else [known[0] + 1, total]
        for row, (times, total) in added.items():
            held_row = state.get(row)
            state.put(row, [times, total] if held_row is None else [held_row[0] + times, total])
        return out or None

    def _pairs(self, side: int, values: list[Any], others: list[tuple[Any, ...]]) -> list[Any]:
        """``(+I, joined)`` for each new row of ``side`` and each held row of the other side
        the residual condition accepts (each held row once: an insert-only side)."""
        if not others:
            return []
        residual = self.residual
        if side == LEFT:
            joined = [row + other for _, _, row in values for other in others]
        else:
            joined = [other + row for _, _, row in values for other in others]
        if residual is None:
            return [(INSERT, j) for j in joined]
        return [(INSERT, j) for j in joined if residual(j) is True]

    def _counted_pairs(self, side: int, values: list[Any], others: list[Any]) -> list[Any]:
        """As ``_pairs``, the other side's rows held with ``[count, associations]``."""
        residual = self.residual
        out: list[Any] = []
        for _, _, row in values:
            for other, held in others:
                joined = row + other if side == LEFT else other + row
                if residual is None or residual(joined) is True:
                    out.extend([(INSERT, joined)] * held[0])
        return out


class SemiJoinFunction(JoinFunction):
    """SEMI (``IN`` / ``EXISTS``): a left row while at least one right row matches it; ANTI
    (``NOT EXISTS``): while none does. Each left row is held with its number of matches;
    a match appearing or the last one going emits or withdraws it, as Flink's semi/anti join."""

    def process_element(self, value: Any, ctx: Any) -> Any:
        side, kind, row = value
        adding = kind in (INSERT, UPDATE_AFTER)
        semi = self.join_type == "SEMI"
        out: list[tuple[str, tuple[Any, ...]]] = []
        if side == LEFT:
            matches = sum(held[0] for _, held in self._matches(LEFT, row, ctx))
            if (matches > 0) == semi:
                out.append((INSERT if adding else DELETE, row))
            held_row = self.sides[LEFT].get(row)
            if adding:
                count = 1 if held_row is None else held_row[0] + 1
                self.sides[LEFT].put(row, [count, matches])
            elif held_row is not None:
                if held_row[0] <= 1:
                    self.sides[LEFT].remove(row)
                else:
                    self.sides[LEFT].put(row, [held_row[0] - 1, held_row[1]])
            return out or None
        for left, held in self._matches(RIGHT, row, ctx):
            count, matches = held
            now = matches + (1 if adding else -1)
            if matches == 0 and now == 1:  # its first match
                out.extend([(INSERT if semi else DELETE, left)] * count)
            elif matches == 1 and now == 0:  # its last match went
                out.extend([(DELETE if semi else INSERT, left)] * count)
            held[1] = now
            self.sides[LEFT].put(left, held)
        held_row = self.sides[RIGHT].get(row)
        if adding:
            self.sides[RIGHT].put(row, [1, 0] if held_row is None else [held_row[0] + 1, 0])
        elif held_row is not None:
            if held_row[0] <= 1:
                self.sides[RIGHT].remove(row)
            else:
                self.sides[RIGHT].put(row, [held_row[0] - 1, 0])
        return out or None


class WindowJoinFunction(KeyedProcessFunction):
    def __init__(
        self,
        join_type: str,
        widths: tuple[int, int],
        residual: Callable[[tuple[Any, ...]], Any] | None,
        ends: tuple[int, int],
        roots: tuple[str, str],
    ) -> None:
        self.widths, self.residual, self.ends, self.roots = widths, residual, ends, roots
        self.outer = (join_type in ("LEFT", "FULL"), join_type in ("RIGHT", "FULL"))
        self.null_rejecting = False  # a NULL equi-key matches nothing

    def open(self, runtime_context: Any) -> None:
        # per side: window end -> rows, in arrival order
        self.sides = (
            runtime_context.get_map_state(MapStateDescriptor("left", None, None)),
            runtime_context.get_map_state(MapStateDescriptor("right", None, None)),
        )

    def process_element(self, value: Any, ctx: Any) -> Any:
        side, _, row = value
        end = to_epoch_millis(row[self.ends[side]], self.roots[side])
        timers = ctx.timer_service()
        if end - 1 < timers.current_watermark():
            return None  # its window was joined already: late
        state = self.sides[side]
        rows = state.get(end) or []
        rows.append(row)
        state.put(end, rows)
        timers.register_event_time_timer(end - 1)
        return None

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        end = timestamp + 1
        lefts, rights = self.sides[LEFT].get(end) or [], self.sides[RIGHT].get(end) or []
        self.sides[LEFT].remove(end)
        self.sides[RIGHT].remove(end)
        residual = self.residual
        out: list[tuple[str, tuple[Any, ...]]] = []
        matched_right = [False] * len(rights)
        left_pad, right_pad = (None,) * self.widths[0], (None,) * self.widths[1]
        # rows whose key (the current one) is NULL match nothing; an outer side's are padded
        joinable = [] if self.null_rejecting and None in ctx.get_current_key() else rights
        for left in lefts:
            matched = False
            for i, right in enumerate(joinable):
                joined = left + right
                if residual is None or residual(joined) is True:
                    out.append((INSERT, joined))
                    matched = matched_right[i] = True
            if not matched and self.outer[LEFT]:
                out.append((INSERT, left + right_pad))
        if self.outer[RIGHT]:
            out.extend(
                (INSERT, left_pad + right) for right, m in zip(rights, matched_right, strict=True) if not m
            )
        return out or None


class SameWindow:
    """A window join's residual condition: both rows of the same window (equal window_start;
    the window_end is the join's), and the rest of the ON condition TRUE."""

    def __init__(
        self, left_start: int, right_start: int, rest: Callable[[tuple[Any, ...]], Any] | None
    ) -> None:
        self.left_start, self.right_start, self.rest = left_start, right_start, rest

    def __call__(self, row: tuple[Any, ...]) -> Any:
        if row[self.left_start] != row[self.right_start]:
            return False
        return True if self.rest is None else self.rest(row)
