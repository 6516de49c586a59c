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

Which join a condition makes (``join_plans``), as Flink's planner decides: equalities whose
sides read one input each are the keys both inputs are partitioned by (computed keys too:
``MOD(a.id, 4) = b.k``); when the keys equate both inputs' window_start and window_end (also
renamed, as Nexmark q5 and q8 do) and both insert only, a window join (``WindowJoin``), keyed
by the other keys, whose state goes when its window ends; when the time attributes bound each
other, an interval join (``runtime/interval_join.py``); else a regular join.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from millstream.datastream import KeyedProcessFunction
from millstream.datastream.state import MapStateDescriptor
from millstream.table.common.binary_row import BinaryRowKeyType
from millstream.table.common.options import state_ttl_ms, with_ttl
from millstream.table.common.types import DataType
from millstream.table.expression.walk import columns_of, conjuncts
from millstream.table.planner.nodes import DELETE, INSERT, UPDATE_AFTER, PlanNode

if TYPE_CHECKING:
    from millstream.table.planner.planning import PlanningContext

__all__ = ["Join", "join_plans", "keyed_sides", "split_condition"]

_LEFT, _RIGHT = 0, 1


@dataclass(frozen=True)
class Join(PlanNode):
    """``left JOIN right ON condition`` (equality keys plus a residual condition)."""

    left: PlanNode | None = None
    right: PlanNode | None = None
    join_type: str = "INNER"  # INNER, LEFT, RIGHT, FULL
    left_keys: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    right_keys: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    residual: Callable[[tuple[Any, ...]], Any] | None = None
    condition: Any = None  # the whole join condition as an expression (None: every pair)
    # keys compared as IS NOT DISTINCT FROM (INTERSECT / EXCEPT): NULL meets NULL; else a row
    # with a NULL key matches nothing, as SQL's ``=`` (Flink's join filters null keys)
    null_safe: bool = False

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.left is not None and self.right is not None
        function: _JoinFunction
        kind = _SemiJoinFunction if self.join_type in ("SEMI", "ANTI") else _JoinFunction
        function = kind(self.join_type, len(self.left.names), len(self.right.names), self.residual)
        function.null_rejecting = not self.null_safe
        function.ttl_ms = state_ttl_ms(ctx.config)
        return keyed_sides(self, ctx).process(function)


class _JoinFunction(KeyedProcessFunction):
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

    def open(self, runtime_context: Any) -> None:
        ttl = self.ttl_ms  # table.exec.state.ttl: rows idle that long are forgotten
        self.sides = (
            runtime_context.get_map_state(with_ttl(MapStateDescriptor("left", None, None), ttl)),
            runtime_context.get_map_state(with_ttl(MapStateDescriptor("right", None, None), ttl)),
        )

    def _joined(self, side: int, row: tuple[Any, ...], other: tuple[Any, ...] | None) -> tuple[Any, ...]:
        if other is None:
            other = (None,) * self.widths[1 - side]
        return row + other if side == _LEFT else other + row

    def _matches(self, side: int, row: tuple[Any, ...], ctx: Any) -> list[tuple[tuple[Any, ...], list[int]]]:
        """The other side's held rows joining ``row``, with their [count, associations]
        (none when a key of ``row``, the current key, is NULL: ``NULL = x`` is never TRUE)."""
        if self.null_rejecting and None in ctx.get_current_key():
            return []
        residual = self.residual
        found = []
        for other, held in self.sides[1 - side].items():
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
        held_row = state.get(row)
        if adding:
            state.put(row, [1, total] if held_row is None else [held_row[0] + 1, total])
        elif held_row is not None:
            if held_row[0] <= 1:
                state.remove(row)
            else:
                state.put(row, [held_row[0] - 1, held_row[1]])
        return out or None


class _SemiJoinFunction(_JoinFunction):
    """SEMI (``IN`` / ``EXISTS``): a left row while at least one right row matches it; ANTI
    (``NOT EXISTS``): while none does. Each left row is held with its number of matches;
    a match appearing or the last one going emits or withdraws it, as Flink's semi/anti join."""

    def process_element(self, value: Any, ctx: Any) -> Any:
        side, kind, row = value
        adding = kind in (INSERT, UPDATE_AFTER)
        semi = self.join_type == "SEMI"
        out: list[tuple[str, tuple[Any, ...]]] = []
        if side == _LEFT:
            matches = sum(held[0] for _, held in self._matches(_LEFT, row, ctx))
            if (matches > 0) == semi:
                out.append((INSERT if adding else DELETE, row))
            held_row = self.sides[_LEFT].get(row)
            if adding:
                count = 1 if held_row is None else held_row[0] + 1
                self.sides[_LEFT].put(row, [count, matches])
            elif held_row is not None:
                if held_row[0] <= 1:
                    self.sides[_LEFT].remove(row)
                else:
                    self.sides[_LEFT].put(row, [held_row[0] - 1, held_row[1]])
            return out or None
        for left, held in self._matches(_RIGHT, row, ctx):
            count, matches = held
            now = matches + (1 if adding else -1)
            if matches == 0 and now == 1:  # its first match
                out.extend([(INSERT if semi else DELETE, left)] * count)
            elif matches == 1 and now == 0:  # its last match went
                out.extend([(DELETE if semi else INSERT, left)] * count)
            held[1] = now
            self.sides[_LEFT].put(left, held)
        held_row = self.sides[_RIGHT].get(row)
        if adding:
            self.sides[_RIGHT].put(row, [1, 0] if held_row is None else [held_row[0] + 1, 0])
        elif held_row is not None:
            if held_row[0] <= 1:
                self.sides[_RIGHT].remove(row)
            else:
                self.sides[_RIGHT].put(row, [held_row[0] - 1, 0])
        return out or None


_INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT")


def _join_key_type(left: list[Any], right: list[Any]) -> BinaryRowKeyType | None:
    """The key row of an equi-join's exchange, the keys in the condition's order and each of
    the type both sides are cast to (the wider integer); None when the sides' types differ
    otherwise (the keys then hash as Python values)."""
    types: list[DataType] = []
    for lc, rc in zip(left, right, strict=True):
        a, b = lc.data_type, rc.data_type
        if a.root != b.root:
            if a.root not in _INTEGERS or b.root not in _INTEGERS:
                return None
            a = a if _INTEGERS.index(a.root) > _INTEGERS.index(b.root) else b
        types.append(a)
    return BinaryRowKeyType.of(types)


def keyed_sides(join: Any, ctx: PlanningContext) -> Any:
    """Both inputs of a join node as one stream of ``(side, kind, row)``, keyed by each side's
    join keys (no keys: one key, so every row meets every row in one subtask)."""
    left_keys, right_keys = join.left_keys, join.right_keys
    left = join.left.translate(ctx).map(lambda kv: (_LEFT, kv[0], kv[1]))
    right = join.right.translate(ctx).map(lambda kv: (_RIGHT, kv[0], kv[1]))

    def key_of(tagged: tuple[int, str, tuple[Any, ...]]) -> tuple[Any, ...]:
        keys = left_keys if tagged[0] == _LEFT else right_keys
        return tuple([k(tagged[2]) for k in keys])

    return left.union(right).key_by(key_of, join.key_type)


def split_condition(
    condition: Any, left_names: list[str], right_names: list[str]
) -> tuple[list[Any], list[Any], list[Any]]:
    """The equality conjuncts of a join condition whose one side reads only the left input's
    columns and the other only the right's, as (left key expressions, right key expressions),
    and the remaining conjuncts. A key may be computed (``MOD(a.id, 4) = b.k``: Flink's
    planner computes it below the join), so the rows are partitioned by it either way."""
    left_set, right_set = set(left_names), set(right_names)
    left_keys, right_keys, rest = [], [], []
    for c in conjuncts(condition):
        if getattr(c, "op", None) == "=":
            a, b = columns_of(c.left), columns_of(c.right)
            if a and b and a <= left_set and b <= right_set:
                left_keys.append(c.left)
                right_keys.append(c.right)
                continue
            if a and b and b <= left_set and a <= right_set:
                left_keys.append(c.right)
                right_keys.append(c.left)
                continue
        rest.append(c)
    return left_keys, right_keys, rest


def _column(expression: Any) -> str | None:
    return expression.name if type(expression).__name__ == "_Column" else None


def _joined_columns(left: PlanNode, right: PlanNode, join_type: str) -> tuple[list[str], list[DataType]]:
    """A join's columns: the left's then the right's; an outer join's other side nullable."""
    names = list(left.names) + list(right.names)
    types = list(left.types) + list(right.types)
    if join_type in ("LEFT", "FULL"):
        types[len(left.names) :] = [t.nullable() for t in types[len(left.names) :]]
    if join_type in ("RIGHT", "FULL"):
        types[: len(left.names)] = [t.nullable() for t in types[: len(left.names)]]
    return names, types


def join_plans(left: PlanNode, right: PlanNode, join_type: str, condition: Any | None) -> PlanNode:
    """The plan of ``left <join_type> JOIN right ON condition`` (None: every pair): a window
    join, an interval join, or a regular (or semi / anti) join, as the condition says."""
    from millstream.table.planner.projection import _check_unique

    names, types = _joined_columns(left, right, join_type)
    _check_unique(names)
    left_keys: list[Any] = []
    right_keys: list[Any] = []
    rest: list[Any] = []
    if condition is not None:
        compiled = condition.resolve(names, types)
        if compiled.data_type.root != "BOOLEAN":
            raise ValueError(f"a join condition must be BOOLEAN, got {compiled.data_type!r}")
        left_keys, right_keys, rest = split_condition(condition, list(left.names), list(right.names))
    residual = None
    if rest:
        from millstream.table.api.expressions import and_

        residual = (rest[0] if len(rest) == 1 else and_(*rest)).resolve(names, types).fn
    left_compiled = [k.resolve(left.names, left.types) for k in left_keys]
    right_compiled = [k.resolve(right.names, right.types) for k in right_keys]
    common: dict[str, Any] = {
        "left": left,
        "right": right,
        "join_type": join_type,
        "left_keys": [c.fn for c in left_compiled],
        "right_keys": [c.fn for c in right_compiled],
        "key_type": _join_key_type(left_compiled, right_compiled),
    }
    if join_type in ("SEMI", "ANTI"):  # the left rows only
        updating = left.updating or right.updating or join_type == "ANTI"
        return Join(
            list(left.names), list(left.types), updating, residual=residual, condition=condition, **common
        )
    windows = _window_bounds(left, right, left_keys, right_keys)
    if windows is not None:
        return _window_join(
            (left, right),
            join_type,
            (names, types),
            windows,
            condition,
            (left_keys, right_keys),
            (left_compiled, right_compiled),
            rest,
            residual,
        )
    if condition is not None and left.rowtime is not None and right.rowtime is not None:
        from millstream.table.runtime.interval_join import IntervalJoin, time_bounds

        bounds = time_bounds(rest, left.names[left.rowtime], right.names[right.rowtime])
        if bounds is not None:  # both time attributes bounded by each other: an interval join
            times = (left.rowtime, right.rowtime)
            full = condition.resolve(names, types).fn
            return IntervalJoin(
                names,
                types,
                False,
                condition=full,
                bounds=bounds,
                times=times,
                where=condition,
                rowtime=left.rowtime,
                **common,
            )
    updating = left.updating or right.updating or join_type != "INNER"
    return Join(names, types, updating, residual=residual, condition=condition, **common)


@dataclass(frozen=True)
class WindowJoin(PlanNode):
    """A join of two windowed tables on ``window_start`` / ``window_end`` (and keys): each
    window's rows are joined once the watermark passes the window's end, as Flink's window
    join; insert-only, outer joins pad the rows without a match in their window, late rows
    (of windows already joined) are dropped."""

    left: PlanNode | None = None
    right: PlanNode | None = None
    join_type: str = "INNER"
    left_keys: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    right_keys: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    residual: Callable[[tuple[Any, ...]], Any] | None = None
    ends: tuple[int, int] = (0, 0)  # the window_end columns of the left and the right input
    condition: Any = None  # the whole ON condition, as an expression
    where: Any = None  # the ON condition but the window bounds' equalities (explain prints it)

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.left is not None and self.right is not None
        if self.left.updating or self.right.updating:
            raise ValueError("a window join needs insert-only windowed inputs")
        roots = (self.left.types[self.ends[0]].root, self.right.types[self.ends[1]].root)
        widths = (len(self.left.names), len(self.right.names))
        function = _WindowJoinFunction(self.join_type, widths, self.residual, self.ends, roots)
        function.null_rejecting = True
        return keyed_sides(self, ctx).process(function)


class _WindowJoinFunction(KeyedProcessFunction):
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
        from millstream.table.common.timestamps import to_epoch_millis

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
        lefts, rights = self.sides[_LEFT].get(end) or [], self.sides[_RIGHT].get(end) or []
        self.sides[_LEFT].remove(end)
        self.sides[_RIGHT].remove(end)
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
            if not matched and self.outer[_LEFT]:
                out.append((INSERT, left + right_pad))
        if self.outer[_RIGHT]:
            out.extend(
                (INSERT, left_pad + right) for right, m in zip(rights, matched_right, strict=True) if not m
            )
        return out or None


def _window_bounds(
    left: PlanNode, right: PlanNode, left_keys: list[Any], right_keys: list[Any]
) -> tuple[list[int], tuple[int, int], tuple[int, int]] | None:
    """When the equi-keys equate both sides' window_start and window_end (wherever a
    projection moved or renamed them: Flink's window property propagation) and both sides
    insert only, a window join: the positions of the other key pairs, and each side's
    (window_start, window_end) columns. Else None."""
    if left.window is None or right.window is None or left.updating or right.updating:
        return None
    pairs = [(_column(lk), _column(rk)) for lk, rk in zip(left_keys, right_keys, strict=True)]
    bounds = [(left.names[lw], right.names[rw]) for lw, rw in zip(left.window, right.window, strict=True)]
    if any(bound not in pairs for bound in bounds):
        return None
    others = [i for i, pair in enumerate(pairs) if pair not in bounds]
    return others, left.window, right.window


def _window_join(
    inputs: tuple[PlanNode, PlanNode],
    join_type: str,
    columns: tuple[list[str], list[DataType]],
    bounds: tuple[list[int], tuple[int, int], tuple[int, int]],
    condition: Any,
    keys: tuple[list[Any], list[Any]],
    compiled: tuple[list[Any], list[Any]],
    rest: list[Any],
    residual: Callable[[tuple[Any, ...]], Any] | None,
) -> PlanNode:
    """A window join keyed, as Flink's, by the equi-keys other than the window bounds (none:
    one subtask joins every window); a window's rows pair when their window_start is equal
    too, and the rest of the condition (``residual``) holds."""
    from millstream.table.api.expressions import and_

    left, right = inputs
    names, types = columns
    others, left_window, right_window = bounds
    left_keys = [compiled[0][i] for i in others]
    right_keys = [compiled[1][i] for i in others]
    where = [keys[0][i] == keys[1][i] for i in others] + rest  # as Flink prints a window join's
    return WindowJoin(
        names,
        types,
        False,
        left=left,
        right=right,
        join_type=join_type,
        left_keys=[c.fn for c in left_keys],
        right_keys=[c.fn for c in right_keys],
        key_type=_join_key_type(left_keys, right_keys),
        residual=_SameWindow(left_window[0], len(left.names) + right_window[0], residual),
        ends=(left_window[1], right_window[1]),
        condition=condition,
        where=(where[0] if len(where) == 1 else and_(*where)) if where else None,
        window=left_window if join_type == "INNER" else None,
    )


class _SameWindow:
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
