"""Joins in the plan: regular joins (INNER, LEFT, RIGHT, FULL OUTER, semi and anti), window joins,
interval joins and the null-aware anti join of NOT IN, and which one a condition makes, as Flink's
planner decides (the operators are :mod:`millstream.table.runtime.join` and its neighbours).

Equalities whose sides read one input each are the keys both inputs are partitioned by (computed
keys too: ``MOD(a.id, 4) = b.k``); when the keys equate both inputs' window_start and window_end
(also renamed, as Nexmark q5 and q8 do) and both insert only, a window join (``WindowJoin``),
keyed by the other keys, whose state goes when its window ends; when the time attributes bound each
other, an interval join (``IntervalJoin``); else a regular join (``Join``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from millstream.table.common.binary_row import BinaryRowKeyType
from millstream.table.common.options import state_ttl_ms
from millstream.table.common.types import DataType
from millstream.table.expression.expression import interval_millis
from millstream.table.expression.logic import and_
from millstream.table.expression.walk import columns_of, conjuncts
from millstream.table.planner.nodes import PlanNode, columnar_batches, single_subtask_changelog
from millstream.table.planner.projection import _check_unique
from millstream.table.runtime.change_batch import BatchRows
from millstream.table.runtime.codegen import predicate_function
from millstream.table.runtime.interval_join import IntervalJoinFunction
from millstream.table.runtime.join import (
    LEFT,
    RIGHT,
    JoinFunction,
    SameWindow,
    SemiJoinFunction,
    WindowJoinFunction,
)
from millstream.table.runtime.null_aware_anti_join import NullAwareAntiJoinFunction

if TYPE_CHECKING:
    from millstream.table.planner.planning import PlanningContext

__all__ = [
    "IntervalJoin",
    "Join",
    "NullAwareAntiJoin",
    "WindowJoin",
    "join_plans",
    "keyed_sides",
    "split_condition",
    "time_bounds",
]


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
        function: JoinFunction
        kind = SemiJoinFunction if self.join_type in ("SEMI", "ANTI") else JoinFunction
        function = kind(self.join_type, len(self.left.names), len(self.right.names), self.residual)
        function.null_rejecting = not self.null_safe
        function.ttl_ms = state_ttl_ms(ctx.config)
        if self.join_type == "INNER":
            function.appended = (not self.left.updating, not self.right.updating)
        return keyed_sides(self, ctx).process(function)


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


class _Tagged:
    """A batch of one join input's changes ``(kind, row)`` as ``(side, kind, row)``."""

    def __init__(self, side: int) -> None:
        self.side = side

    def __call__(self, values: list[Any]) -> tuple[list[Any], None]:
        side = self.side
        return [(side, kind, row) for kind, row in values], None


def _side(node: PlanNode, side: int, ctx: PlanningContext) -> Any:
    """A join input's changes as ``(side, kind, row)``: its Arrow batches turned into rows
    with the side at once when it is computed on Arrow, else its rows tagged a batch at a time."""
    batches = columnar_batches(node, ctx)
    if batches is not None:
        return batches._map_batches(BatchRows(list(node.types), side)).name("Rows")
    return node.translate(ctx)._map_batches(_Tagged(side)).name("Map")


def keyed_sides(join: Any, ctx: PlanningContext) -> Any:
    """Both inputs of a join node as one stream of ``(side, kind, row)``, keyed by each side's
    join keys (no keys: one key, so every row meets every row in one subtask)."""
    left_keys, right_keys = join.left_keys, join.right_keys
    left, right = (_side(node, side, ctx) for node, side in ((join.left, LEFT), (join.right, RIGHT)))

    def key_of(tagged: tuple[int, str, tuple[Any, ...]]) -> tuple[Any, ...]:
        keys = left_keys if tagged[0] == LEFT else right_keys
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
    if rest:  # evaluated for every pair that meets: one generated expression
        residual = predicate_function(names, types, rest[0] if len(rest) == 1 else and_(*rest))
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
        function = WindowJoinFunction(self.join_type, widths, self.residual, self.ends, roots)
        function.null_rejecting = True
        return keyed_sides(self, ctx).process(function)


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
        residual=SameWindow(left_window[0], len(left.names) + right_window[0], residual),
        ends=(left_window[1], right_window[1]),
        condition=condition,
        where=(where[0] if len(where) == 1 else and_(*where)) if where else None,
        window=left_window if join_type == "INNER" else None,
    )


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
        function = IntervalJoinFunction(
            self.join_type,
            (len(self.left.names), len(self.right.names)),
            self.condition,
            self.bounds,
            self.times,
            roots,
        )
        return keyed_sides(self, ctx).process(function)


@dataclass(frozen=True)
class NullAwareAntiJoin(PlanNode):
    """``x NOT IN (SELECT y ...)`` with SQL's NULL rules: a left row is kept while the
    subquery is empty, or while its ``x`` is not NULL, no ``y`` equals it and no ``y`` is NULL
    (a NULL makes the predicate UNKNOWN). As Flink's null-aware anti join, which has no
    equality key to partition by, it runs as one subtask."""

    left: PlanNode | None = None
    right: PlanNode | None = None
    value: Callable[[tuple[Any, ...]], Any] | None = None  # x of a left row

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.left is not None and self.right is not None and self.value is not None
        left = self.left.translate(ctx).map(lambda kv: (LEFT, kv[0], kv[1]))
        right = self.right.translate(ctx).map(lambda kv: (RIGHT, kv[0], kv[1]))
        function = NullAwareAntiJoinFunction(self.value)
        function.ttl_ms = state_ttl_ms(ctx.config)
        joined = left.union(right).key_by(lambda tagged: 0).process(function).set_parallelism(1)
        return single_subtask_changelog(joined)
