"""GROUP BY GROUPING SETS / ROLLUP / CUBE planned as Flink's planner plans them
(``DecomposeGroupingSetsRule`` with ``ExpandUtil``): one aggregation over an ``Expand`` of its
input, instead of one aggregation per grouping set.

::

    SELECT k, x, GROUPING_ID(k, x) AS g, SUM(x) AS s FROM t GROUP BY ROLLUP(k, x)

    Calc(select=[k, x, CASE(=($e, 0), 0, CASE(=($e, 1), 1, 3)) AS g, s])
    +- GroupAggregate(groupBy=[k, x, $e], select=[k, x, $e, SUM(x_0) AS s])
       +- Exchange(distribution=[hash[k, x, $e]])
          +- Expand(projects=[{k, x, 0 AS $e, x AS x_0}, {k, null AS x, 1 AS $e, x AS x_0},
                              {null AS k, null AS x, 3 AS $e, x AS x_0}])
             +- Calc(select=[k, x])

* Below the Expand, a projection of the group keys (an expression key computed once, as a
  column) and the columns the aggregate calls read.
* The Expand (``runtime/expand.py``) emits each row once per grouping set, the keys the set
  leaves out NULL, with the set's expand id ``$e``: a bit per key, the first key's the highest,
  set when the set leaves the key out (``ExpandUtil.genExpandId``). The grouping sets are in
  Calcite's order, which is the order of their ids.
* A key an aggregate call reads that some set leaves out is read from a copy of the column
  the Expand keeps whole (``x_0``): ``SUM(x)`` sums every ``x`` of the group, not the NULLs the
  Expand put in its place.
* The aggregation groups by the keys and ``$e``: a key the Expand nulled never meets a NULL of
  the data. ``GROUPING(a, ...)`` and ``GROUPING_ID(a, ...)`` are a CASE on ``$e``: per set,
  a bit per argument, set when the set leaves it out; ``GROUP_ID()`` is 0.
* One grouping set needs no Expand: the aggregation groups by its keys, the others are NULL.
* A grouping set listed n times (``GROUPING SETS ((k), (k), ())``) gives its groups n times,
  ``GROUP_ID()`` 0 to n - 1: Calcite plans a UNION ALL of aggregations whose sets are distinct,
  the n-th with ``GROUP_ID()`` n - 1.

Streaming, the aggregation is an updating group aggregation as any other; a retraction of an
input row retracts it from every set's group. Over a window TVF, ``GROUP BY window_start,
window_end, ROLLUP(k)`` is a window aggregation per set: the Expand carries the time column
(last, as Flink's), and the window aggregation groups by the keys and ``$e``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from millstream.table.common.types import DataTypes
from millstream.table.common.window_spec import WindowSpec
from millstream.table.expression.expression import AggregateCall, Expression, _Alias, _Column, col, lit
from millstream.table.expression.logic import if_then_else, or_
from millstream.table.expression.walk import children, columns_of, fingerprint, replaced
from millstream.table.planner.columnar import ArrowPlan, columnar_plan
from millstream.table.planner.nodes import PlanNode, columnar_scan
from millstream.table.planner.projection import aggregate, grouped_expression, project
from millstream.table.planner.set_operations import union_all
from millstream.table.planner.windows import window_aggregate
from millstream.table.runtime.expand import ExpandBatches, ExpandRows

if TYPE_CHECKING:
    from millstream.table.planner.planning import PlanningContext

__all__ = [
    "EXPAND_ID",
    "Expand",
    "GroupingCall",
    "WindowGrouping",
    "expand_arrow_plan",
    "expand_terms",
    "grouping_sets_select",
]

EXPAND_ID = "$e"  # the expand id's column, as Flink names it
_MAX_KEYS = 63  # the ids are a BIGINT's bits (DecomposeGroupingSetsRule: "group count must be less than 64")


@dataclass(frozen=True)
class GroupingCall:
    """``GROUPING(a, ...)``, ``GROUPING_ID(a, ...)`` (``keys``: the arguments' key positions;
    None: a key every set has, a window's start or end) or ``GROUP_ID()`` in a select list, read
    through the placeholder column the SQL front end put in its place."""

    function: str
    keys: tuple[int | None, ...] = ()


@dataclass(frozen=True)
class WindowGrouping:
    """The window of a window aggregation of grouping sets (``GROUP BY window_start,
    window_end, ROLLUP(k)`` over a window TVF): its spec, the time column of the TVF's input it
    windows, the window columns' names (start, end, time)."""

    spec: WindowSpec
    time_column: str
    properties: tuple[str, str, str]


@dataclass(frozen=True)
class Expand(PlanNode):
    """Flink's Expand: each row once per projection. ``projections[j][c]``: the input column
    output column ``c`` of copy ``j`` reads (None: NULL), the expand id's column left out;
    ``ids[j]``: copy ``j``'s expand id, in column ``id_column``."""

    input: PlanNode | None = None
    projections: tuple[tuple[int | None, ...], ...] = ()
    ids: tuple[int, ...] = ()
    id_column: int = 0

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None
        scanned = columnar_scan(self, ctx)  # the scan's Arrow batches expanded (expand_arrow_plan)
        if scanned is not None:
            return scanned
        expand = ExpandRows(self.projections, self.ids, self.id_column, len(self.input.names))
        return self.input.translate(ctx)._map_batches(expand).name("Expand")


def expand_arrow_plan(node: Expand, below: ArrowPlan | None, reuse: Any) -> ArrowPlan | None:
    """How the Expand's rows come as Arrow batches: its input's batches (a columnar scan and
    the Calc nodes above it, ``below``), or a columnar scan of the file table it reads directly
    (the projection below it pushed into the scan), each batch expanded on Arrow
    (``ExpandBatches``); None when its input's rows are no Arrow batches."""
    source = node.input
    assert source is not None
    scan = None
    if below is None:  # the scan alone: a columnar scan of it, the Expand the top of the chain
        identity = project(source, [col(n) for n in source.names], lambda i: source.names[i])
        below = columnar_plan(identity, reuse)
        scan = None if below is None else below.scan
    if below is None:
        return None
    batches = below.translate
    expand = ExpandBatches(node.projections, node.ids, node.id_column)

    def translate(ctx: Any) -> Any:
        return batches(ctx)._map_batches(expand).name("Expand")

    return ArrowPlan(translate, scan)


def expand_terms(node: Expand) -> list[str]:
    """The Expand as Flink's explain prints it: ``projects=[{k, null AS x, 1 AS $e}, ...]``."""
    assert node.input is not None
    inputs, names = list(node.input.names), list(node.names)
    copies = []
    for projection, value in zip(node.projections, node.ids, strict=True):
        items = []
        for c, source in enumerate(projection):
            name = names[c if c < node.id_column else c + 1]
            if source is None:
                items.append(f"null AS {name}")
            else:
                items.append(name if inputs[source] == name else f"{inputs[source]} AS {name}")
        items.insert(node.id_column, f"{value} AS {EXPAND_ID}")
        copies.append("{" + ", ".join(items) + "}")
    return [f"projects=[{', '.join(copies)}]"]


def expand_id(key_count: int, grouping_set: Sequence[int]) -> int:
    """A grouping set's expand id: a bit per key, the first key's the highest, set when the
    set leaves the key out (Flink's ``ExpandUtil.genExpandId``)."""
    value = 0
    for key in range(key_count):
        if key not in grouping_set:
            value |= 1 << (key_count - 1 - key)
    return value


def grouping_sets_select(
    plan: PlanNode,
    keys: list[Expression],
    sets: list[tuple[int, ...]],
    calls: dict[str, GroupingCall],
    selected: list[Expression],
    batch: bool,
    window: WindowGrouping | None = None,
) -> PlanNode:
    """``SELECT selected FROM plan GROUP BY GROUPING SETS (sets)``: ``keys`` the distinct group
    expressions, ``sets`` each grouping set (as written, repeats kept) as key positions,
    ``calls`` the GROUPING functions read through placeholder columns of ``selected``; with a
    ``window``, a window aggregation of ``plan`` (a window TVF's input) per window and set.

    Raises:
        ValueError: more than 63 group keys (the expand ids' bits).
    """
    if len(keys) > _MAX_KEYS:
        raise ValueError(f"group count must be less than 64, got {len(keys)} grouping keys")
    carried = window.time_column if window is not None else None
    below, key_names = _projected(plan, keys, selected, carried)
    if carried in key_names:
        raise ValueError(f"the window's time column {carried} cannot be a key of its grouping sets")
    selected = [grouped_expression(e, keys, key_names) for e in selected]
    _check_grouped(selected, {*key_names, *calls, *(window.properties if window is not None else ())})
    grouped = _Grouped(below, key_names, calls, selected, batch, window)
    counts = Counter(tuple(sorted(s)) for s in sets)
    branches = []
    for group_id in range(max(counts.values())):
        distinct = sorted(
            {s for s, n in counts.items() if n > group_id}, key=lambda s: expand_id(len(keys), s)
        )
        branches.append(grouped.branch(distinct, group_id))
    result = branches[0]
    for branch in branches[1:]:
        result = union_all(result, branch)
    return result


@dataclass
class _Grouped:
    """The aggregations of ``below`` (the keys ``key_names`` its first columns): group
    aggregations, or window aggregations per ``window``."""

    below: PlanNode
    key_names: list[str]
    calls: dict[str, GroupingCall]
    selected: list[Expression]
    batch: bool
    window: WindowGrouping | None

    def branch(self, sets: list[tuple[int, ...]], group_id: int) -> PlanNode:
        """One aggregation over distinct grouping ``sets``, with ``GROUP_ID()`` ``group_id``."""
        below, key_names, calls = self.below, self.key_names, self.calls
        if len(sets) == 1:  # one grouping set: a plain aggregation, the keys it leaves out NULL
            kept = sets[0]
            missing = {
                key_names[i]: below.types[i].nullable() for i in range(len(key_names)) if i not in kept
            }
            grouping = {n: lit(_grouping_value(call, kept, group_id), _BIGINT) for n, call in calls.items()}
            nulls = {n: lit(None, t) for n, t in missing.items()}
            selected = [_outside_calls(e, {**grouping, **nulls}) for e in self.selected]
            return self._aggregate(below, [col(key_names[i]) for i in kept], selected)
        common = set.intersection(*(set(s) for s in sets))
        read = set().union(*(columns_of(c) for e in self.selected for c in e.aggregates()))
        duplicated = [i for i, name in enumerate(key_names) if i not in common and name in read]
        trailing = [] if self.window is None else [below.names.index(self.window.time_column)]
        expand = _expand(below, len(key_names), sets, duplicated, trailing)
        copies = {key_names[i]: expand.names[expand.id_column + 1 + n] for n, i in enumerate(duplicated)}
        grouping = {n: _grouping_case(call, sets, len(key_names), group_id) for n, call in calls.items()}
        selected = [_in_calls(_outside_calls(e, grouping), copies) for e in self.selected]
        return self._aggregate(expand, [col(n) for n in key_names] + [col(EXPAND_ID)], selected)

    def _aggregate(self, node: PlanNode, keys: list[Expression], selected: list[Expression]) -> PlanNode:
        window = self.window
        if window is None:
            return aggregate(node, keys, selected, self.batch)
        time_column = node.names.index(window.time_column)
        return window_aggregate(node, window.spec, time_column, keys, selected, window.properties, self.batch)


_BIGINT = DataTypes.BIGINT(False)


def _check_grouped(selected: list[Expression], grouped: set[str]) -> None:
    """Every column ``selected`` reads outside aggregate calls is a key (or ``grouped``).

    Raises:
        ValueError: one is not, as Calcite's validator says it.
    """
    found: list[str] = []

    def visit(node: Any) -> None:
        if type(node) is _Column and node.name not in grouped:
            found.append(node.name)
        elif not isinstance(node, AggregateCall):
            for child in children(node):
                visit(child)

    for expression in selected:
        visit(expression)
    if found:
        raise ValueError(f"Expression '{found[0]}' is not being grouped")


def _projected(
    plan: PlanNode, keys: list[Expression], selected: list[Expression], carried: str | None
) -> tuple[PlanNode, list[str]]:
    """The keys as the first columns (an expression key computed, named as the select item
    that is the same expression, else ``$f<i>``), then the other columns the aggregate calls
    read, in the input's order, and the ``carried`` column (a window's time); and the keys'
    names. None of it when that is the input."""
    aliases = {fingerprint(e.operand): e.name for e in selected if type(e) is _Alias}
    taken = set(plan.names)
    key_names: list[str] = []
    items: list[Expression] = []
    for position, key in enumerate(keys):
        if type(key) is _Column:
            key_names.append(key.name)
            items.append(key)
            continue
        name = aliases.get(fingerprint(key))
        if name is None or name in taken or name in key_names:
            name = f"$f{position}"
        key_names.append(name)
        items.append(key.alias(name))
    read = set().union(*(columns_of(c) for e in selected for c in e.aggregates()))
    items += [col(n) for n in plan.names if (n in read or n == carried) and n not in key_names]
    if [getattr(i, "name", None) for i in items] == list(plan.names) and all(
        type(i) is _Column for i in items
    ):
        return plan, key_names
    return project(plan, items, lambda i: f"$f{i}"), key_names


def _expand(
    below: PlanNode, key_count: int, sets: list[tuple[int, ...]], duplicated: list[int], trailing: list[int]
) -> Expand:
    """The Expand of ``below`` (its first ``key_count`` columns the keys) for ``sets``: its
    columns, the expand id, a copy of each ``duplicated`` key (named ``x_0`` as Flink's), then
    the ``trailing`` columns (a window's time, last as in Flink's Expand)."""
    taken = set(below.names) | {EXPAND_ID}
    copy_names = []
    for i in duplicated:
        name, n = f"{below.names[i]}_0", 0
        while name in taken:
            n += 1
            name = f"{below.names[i]}_{n}"
        taken.add(name)
        copy_names.append(name)
    leading = [c for c in range(len(below.names)) if c not in trailing]
    left_out = {i for i in range(key_count) if any(i not in s for s in sets)}
    types = [below.types[c].nullable() if c in left_out else below.types[c] for c in leading]
    projections = tuple(
        tuple(c if c >= key_count or c in s else None for c in leading) + tuple(duplicated) + tuple(trailing)
        for s in sets
    )
    order = [*leading, *duplicated, *trailing]  # the input column behind each output column but $e
    time = {"rowtime": below.rowtime, "proctime": below.proctime}
    at = {k: None if c is None or c not in trailing else len(order) - len(trailing) + trailing.index(c) + 1
          for k, c in time.items()}  # fmt: skip
    return Expand(
        [*(below.names[c] for c in leading), EXPAND_ID, *copy_names, *(below.names[c] for c in trailing)],
        [*types, _BIGINT, *(below.types[c] for c in (*duplicated, *trailing))],
        below.updating,
        below,
        projections,
        tuple(expand_id(key_count, s) for s in sets),
        len(leading),
        rowtime=at["rowtime"],
        proctime=at["proctime"],
    )


def _grouping_value(call: GroupingCall, grouping_set: Sequence[int], group_id: int) -> int:
    """A GROUPING function's value for the rows of one grouping set."""
    if call.function == "GROUP_ID":
        return group_id
    value = 0
    for key in call.keys:
        value = (value << 1) + (0 if key is None or key in grouping_set else 1)
    return value


def _grouping_case(
    call: GroupingCall, sets: list[tuple[int, ...]], key_count: int, group_id: int
) -> Expression:
    """A GROUPING function over the expand id: ``CASE WHEN $e = id THEN value ... ELSE value``
    (the sets with one value under one condition), a literal when every set has the same."""
    values = [_grouping_value(call, s, group_id) for s in sets]
    ids = [expand_id(key_count, s) for s in sets]
    result = lit(values[-1], _BIGINT)
    runs: list[tuple[int, list[int]]] = []  # consecutive sets of one value
    for value, i in zip(values[:-1], ids[:-1], strict=True):
        if runs and runs[-1][0] == value:
            runs[-1][1].append(i)
        else:
            runs.append((value, [i]))
    if runs and runs[-1][0] == values[-1]:  # the ELSE's own sets need no condition
        runs.pop()
    for value, matched in reversed(runs):
        tests = [col(EXPAND_ID) == lit(i, _BIGINT) for i in matched]
        condition = tests[0] if len(tests) == 1 else or_(*tests)
        result = if_then_else(condition, lit(value, _BIGINT), result)
    return result


def _outside_calls(expression: Expression, columns: dict[str, Expression]) -> Expression:
    """``expression`` with the named columns outside aggregate calls replaced."""

    def substitute(node: Any) -> Any:
        return columns.get(node.name) if type(node) is _Column else None

    return replaced(expression, substitute, top_down=True, stop=lambda n: isinstance(n, AggregateCall))


def _in_calls(expression: Expression, copies: dict[str, str]) -> Expression:
    """``expression`` with the aggregate calls reading the copies of the keys they read."""
    if not copies:
        return expression

    def renamed(node: Any) -> Any:
        return _Column(copies[node.name]) if type(node) is _Column and node.name in copies else None

    def in_call(node: Any) -> Any:
        return replaced(node, renamed) if isinstance(node, AggregateCall) else None

    return replaced(expression, in_call, top_down=True)
