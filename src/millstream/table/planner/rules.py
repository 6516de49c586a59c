"""Rewrite phases a plan goes through before it runs, and before ``explain`` prints it (so
explain prints what runs), as the logical rule phases of Flink's planner.

Each phase is a named function of a plan node (and of the set of nodes that feed more than
one consumer) to a plan node, applied bottom-up to every node.
A phase never changes a node in place: a node whose input changed is copied, and a node met
twice (a view used twice) is rewritten once, so sub-plan reuse still finds it shared.

Phases:

- **filter push-down into join inputs** (Flink's ``FlinkFilterJoinRule``): the conjuncts of a
  filter above a join that read one input's columns only are applied to that input (below an
  INNER join, to either; below a LEFT join, to the left; below a RIGHT join, to the right),
  where they reach the scan (a columnar scan filters on Arrow) and the join keeps fewer rows
  in its state; over a regular INNER join, the conjuncts reading both inputs become part of
  its condition (so time bounds in a WHERE make it an interval join, as in Flink). Conjuncts
  that are not deterministic (``RAND()``, the clock, user functions) stay where they are.
- **join condition push-down** (Flink's ``JoinConditionPushRule``): the conjuncts of a
  regular join's ON condition that read one input's columns are applied to that input, where
  a row failing them could not be in the result anyway (either input of an INNER join, the
  padded input of an outer join, ...).
- **filter push-down through projections** (Calcite's ``FilterProjectTransposeRule``): a
  filter over a projection is applied to the projection's input, over the expressions the
  projection computes.
- **identity projection removal** (Calcite's ``ProjectRemoveRule``): a projection that
  hands on its input's columns unchanged is dropped.
- **projection push-down into join inputs** (Flink's ``ProjectJoinTransposeRule``): below a
  projection over a join, each input keeps the columns the projection and the join condition
  read only, so the join holds narrower rows and a columnar scan reads fewer fields.
- **Calc merging** (Flink's ``FlinkCalcMergeRule``): a projection over a projection is one,
  its expressions over the lower one's input (one function per row instead of two), unless
  that would compute a non-trivial expression of the lower one twice.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, cast

from millstream.table.expression.expression import Expression, _Column, col
from millstream.table.expression.logic import and_
from millstream.table.expression.walk import children, columns_of, conjuncts, replaced
from millstream.table.functions.builtins import _Call
from millstream.table.planner.aggregate_inputs import project_below_aggregations
from millstream.table.planner.joins import join_plans
from millstream.table.planner.nodes import Filter, PlanNode, Project
from millstream.table.planner.projection import project
from millstream.table.planner.scan_push_down import PLAN_PHASES as SCAN_PHASES
from millstream.table.planner.temporal_joins import prune_temporal_join_inputs

__all__ = ["PHASES", "optimize"]

_INPUTS = ("input", "left", "right")
# built-in functions whose value is not a function of their arguments
_NOT_DETERMINISTIC = {
    "RAND",
    "RAND_INTEGER",
    "UUID",
    "NOW",
    "CURRENT_TIMESTAMP",
    "CURRENT_TIME",
    "CURRENT_DATE",
    "CURRENT_ROW_TIMESTAMP",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "PROCTIME",
    "UNIX_TIMESTAMP",
}


def optimize(plans: list[PlanNode]) -> list[PlanNode]:
    """``plans`` (one job's: they may share nodes) after every phase, then the push-downs into
    table scans (``planner/scan_push_down.py``), which read the whole plan."""
    for _, phase in PHASES:
        shared = _shared(plans)
        done: dict[int, PlanNode] = {}
        plans = [_bottom_up(plan, phase, shared, done) for plan in plans]
    for _, rewrite in SCAN_PHASES:
        plans = rewrite(plans)
    return plans


def _shared(plans: list[PlanNode]) -> set[int]:
    """The nodes with more than one consumer (by id): translated once, their stream feeding
    each (``planner/reuse.py``)."""
    parents: dict[int, int] = {}
    seen: set[int] = set()
    stack = list(plans)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for child in node.plan_inputs():
            parents[id(child)] = parents.get(id(child), 0) + 1
            stack.append(child)
    return {key for key, count in parents.items() if count > 1}


def _bottom_up(
    node: PlanNode,
    phase: Callable[[PlanNode, set[int]], PlanNode],
    shared: set[int],
    done: dict[int, PlanNode],
) -> PlanNode:
    key = id(node)
    if key in done:
        return done[key]
    done[key] = node  # a node reached again through itself stays as it is
    changed: dict[str, Any] = {}
    for name in _INPUTS:
        child = getattr(node, name, None)
        if isinstance(child, PlanNode):
            new = _bottom_up(child, phase, shared, done)
            if new is not child:
                changed[name] = new
    inputs = getattr(node, "inputs", None)  # a Union's
    if isinstance(inputs, tuple) and inputs:
        new_inputs = tuple(_bottom_up(child, phase, shared, done) for child in inputs)
        if any(new is not old for new, old in zip(new_inputs, inputs, strict=True)):
            changed["inputs"] = new_inputs
    current: PlanNode = dataclasses.replace(cast(Any, node), **changed) if changed else node
    result = phase(current, shared)
    done[key] = result
    return result


# -- filter push-down into join inputs --------------------------------------------------------------------

_PUSHABLE_SIDES = {"INNER": (0, 1), "LEFT": (0,), "RIGHT": (1,)}


def push_filters_into_joins(node: PlanNode, shared: set[int]) -> PlanNode:
    """A filter over a join, its conjuncts of one input's columns applied to that input; over
    a regular INNER join, the conjuncts reading both inputs join its condition, which may then
    make it an interval join (``a.ts BETWEEN b.ts - INTERVAL '2' SECOND AND b.ts`` in a WHERE)."""
    join = getattr(node, "input", None)
    if not isinstance(node, Filter) or node.expression is None or join is None:
        return node
    if type(join).__name__ not in ("Join", "WindowJoin", "IntervalJoin"):
        return node
    sides = _PUSHABLE_SIDES.get(join.join_type, ())
    inputs = (join.left, join.right)
    names = (set(inputs[0].names), set(inputs[1].names))
    pushed: tuple[list[Expression], list[Expression]] = ([], [])
    kept: list[Expression] = []
    across: list[Expression] = []
    into_condition = type(join).__name__ == "Join" and join.join_type == "INNER"
    for conjunct in conjuncts(node.expression):
        side = _one_side(conjunct, sides, names)
        read = columns_of(conjunct)
        if side is not None:
            pushed[side].append(conjunct)
        elif into_condition and read & names[0] and read & names[1] and _deterministic(conjunct):
            across.append(conjunct)
        else:
            kept.append(conjunct)
    if not pushed[0] and not pushed[1] and not across:
        return node
    new_inputs = [_filtered(inputs[s], pushed[s]) for s in (0, 1)]
    new_join = dataclasses.replace(join, left=new_inputs[0], right=new_inputs[1])
    if across:
        parts = ([join.condition] if join.condition is not None else []) + across
        condition = parts[0] if len(parts) == 1 else and_(*parts)
        replanned = join_plans(new_inputs[0], new_inputs[1], "INNER", condition)
        if replanned.updating == join.updating and list(replanned.names) == list(join.names):
            new_join = replanned
        else:
            kept += across
    return _filtered(new_join, kept)


# the inputs a join's ON conjunct over one input's columns may be applied to: an input whose
# rows a failed conjunct removes from the result anyway (Calcite's canPush*FromWithin). Not
# the preserved input of an outer join (its row stays, padded with NULLs), nor an anti join's
# left input (a row matching nothing stays).
_WITHIN_SIDES = {"INNER": (0, 1), "LEFT": (1,), "RIGHT": (0,), "SEMI": (0, 1), "ANTI": (1,)}


def push_join_conditions(node: PlanNode, shared: set[int]) -> PlanNode:
    """A regular join's ON conjuncts that read one input's columns only, applied to that input
    where the join type allows (``_WITHIN_SIDES``): ``a JOIN b ON a.k = b.k AND b.state = 'CA'``
    filters ``b`` before the join, which then keeps fewer rows in its state (Flink's
    ``JoinConditionPushRule``). A comma join's WHERE becomes its condition when the SQL is
    translated, so this also moves ``FROM a, b WHERE a.k = b.k AND a.x = 1``'s ``a.x = 1``."""
    if type(node).__name__ != "Join" or not isinstance(getattr(node, "condition", None), Expression):
        return node
    join: Any = node
    sides = _WITHIN_SIDES.get(join.join_type, ())
    names = (set(join.left.names), set(join.right.names))
    pushed: tuple[list[Expression], list[Expression]] = ([], [])
    kept: list[Expression] = []
    for conjunct in conjuncts(join.condition):
        side = _one_side(conjunct, sides, names)
        if side is None:
            kept.append(conjunct)
        else:
            pushed[side].append(conjunct)
    if not pushed[0] and not pushed[1]:
        return node
    condition = None if not kept else kept[0] if len(kept) == 1 else and_(*kept)
    left, right = (_filtered(side, pushed[s]) for s, side in enumerate((join.left, join.right)))
    replanned = join_plans(left, right, join.join_type, condition)
    if type(replanned) is not type(join) or replanned.updating != join.updating:
        return node
    if list(replanned.names) != list(join.names):
        return node
    return replanned


def _one_side(conjunct: Expression, sides: tuple[int, ...], names: tuple[set[str], set[str]]) -> int | None:
    """The join input (0: left, 1: right, of ``sides``) whose columns are all ``conjunct``
    reads, when it is deterministic and may be applied to that input alone; else None."""
    read = columns_of(conjunct)
    side = next((s for s in sides if read and read <= names[s]), None)
    return side if side is not None and _deterministic(conjunct) else None


def _filtered(node: PlanNode, conjuncts: list[Expression]) -> PlanNode:
    """``node``'s rows where every conjunct is TRUE (``node`` itself when there are none)."""
    if not conjuncts:
        return node
    return Filter.over(node, conjuncts[0] if len(conjuncts) == 1 else and_(*conjuncts))


def _deterministic(expression: Any) -> bool:
    """Built-in operators and functions other than the clock and random numbers (a user
    function may count its calls: it is evaluated where the query put it)."""
    kind = type(expression).__module__
    if isinstance(expression, _Call):
        if expression.name_.upper() in _NOT_DETERMINISTIC:
            return False
    elif kind not in ("millstream.table.expression.expression", "millstream.table.expression.calls") or type(
        expression
    ).__name__ in ("_NamedCall", "UserAggregateCall", "AggregateCall", "OverCall"):
        return False
    return all(_deterministic(c) for c in children(expression))


# -- filter push-down through projections ------------------------------------------------------------------


def push_filters_through_projections(node: PlanNode, shared: set[int]) -> PlanNode:
    """A filter over a projection applied below it, to the projection's input, its columns
    replaced by the expressions the projection computes them with (Calcite's
    ``FilterProjectTransposeRule``): the projection then computes only the rows kept, and the
    Calc merging phase can make one Calc of a projection, a filter and a projection (a join
    condition's conjunct pushed onto a view's computed column). Not below a projection that
    feeds other consumers too (it is computed once for all), nor when the condition reads a
    value that is not a deterministic built-in expression of the input."""
    below = getattr(node, "input", None)
    if not isinstance(node, Filter) or node.expression is None or type(below) is not Project:
        return node
    if id(below) in shared or below.expressions is None or below.input is None or below.updating:
        return node
    inner = dict(zip(below.names, below.expressions, strict=True))
    read = columns_of(node.expression)
    if not read <= inner.keys() or not all(_deterministic(_unaliased(inner[n])) for n in read):
        return node
    condition = replaced(
        node.expression,
        lambda x: _unaliased(inner[x.name]) if isinstance(x, _Column) else None,
        top_down=True,
    )
    # as far down as it goes, one filter with any it meets (the rules to their fixpoint)
    pushed = merge_filters(Filter.over(below.input, condition), shared)
    return dataclasses.replace(below, input=push_filters_through_projections(pushed, shared))


# -- filter merging ------------------------------------------------------------------------------------------


def merge_filters(node: PlanNode, shared: set[int]) -> PlanNode:
    """A filter over a filter as one filter, the lower one's conjuncts first (Calcite's
    ``FilterMergeRule``): a view's filter and the query's are one Calc, and both reach a scan
    together. Not when the lower one feeds other consumers too."""
    below = getattr(node, "input", None)
    if type(node) is not Filter or type(below) is not Filter or id(below) in shared:
        return node
    if node.expression is None or below.expression is None or below.input is None:
        return node
    return _filtered(below.input, conjuncts(below.expression) + conjuncts(node.expression))


# -- Calc merging -------------------------------------------------------------------------------------------

# expressions that read a value the input holds: computing them twice costs nothing
_TRIVIAL = {"_Column", "_Literal", "AggregateCall", "WindowProperty", "OverCall"}


def merge_projections(node: PlanNode, shared: set[int]) -> PlanNode:
    """A projection over a projection as one projection over the lower one's input (not when
    the lower one feeds other consumers too: it is computed once for all of them, and a scan
    read once)."""
    below = getattr(node, "input", None)
    if not isinstance(node, Project) or not isinstance(below, Project) or id(below) in shared:
        return node
    if node.expressions is None or below.expressions is None or below.input is None:
        return node
    if type(node) is not Project or type(below) is not Project:
        return node
    inner = dict(zip(below.names, below.expressions, strict=True))
    uses: dict[str, int] = {}
    for expression in node.expressions:
        for name in _column_uses(expression):
            uses[name] = uses.get(name, 0) + 1
    for name, count in uses.items():
        if name not in inner:
            return node
        value = _unaliased(inner[name])
        if count > 1 and type(value).__name__ not in _TRIVIAL:
            return node
        if not _deterministic(value):
            return node
    merged = [
        replaced(e, lambda x: _unaliased(inner[x.name]) if isinstance(x, _Column) else None, top_down=True)
        for e in node.expressions
    ]
    source = below.input
    compiled = [e.resolve(list(source.names), list(source.types)) for e in merged]
    if [c.data_type for c in compiled] != list(node.types):
        return node  # a cast the lower projection made would be lost
    return dataclasses.replace(node, input=source, functions=[c.fn for c in compiled], expressions=merged)


def remove_identity_projections(node: PlanNode, shared: set[int]) -> PlanNode:
    """A projection that hands on its input's columns unchanged, in order and by name, is its
    input (Calcite's ``ProjectRemoveRule``)."""
    below = getattr(node, "input", None)
    if type(node) is not Project or node.expressions is None or below is None:
        return node
    if list(node.names) != list(below.names) or list(node.types) != list(below.types):
        return node
    if not all(
        type(_unaliased(e)) is _Column and _unaliased(e).name == n
        for e, n in zip(node.expressions, node.names, strict=True)
    ):
        return node
    if (node.rowtime, node.proctime, node.window) != (below.rowtime, below.proctime, below.window):
        return node
    return below


def _column_uses(expression: Any) -> list[str]:
    if isinstance(expression, _Column):
        return [expression.name]
    return [name for child in children(expression) for name in _column_uses(child)]


def _unaliased(expression: Any) -> Any:
    while type(expression).__name__ == "_Alias":
        expression = expression.operand
    return expression


# -- projection push-down into join inputs ------------------------------------------------------------------


def prune_join_inputs(node: PlanNode, shared: set[int]) -> PlanNode:
    """A projection over a join (and a filter between them), the join's inputs narrowed to the
    columns the projection, the filter and the join condition read (an input that feeds other
    consumers too is left whole: narrowing it would cost a projection of every row)."""
    if not isinstance(node, Project) or node.expressions is None or node.input is None:
        return node
    middle = node.input if isinstance(node.input, Filter) and node.input.expression is not None else None
    join: Any = middle.input if middle is not None else node.input
    if type(join).__name__ not in ("Join", "WindowJoin", "IntervalJoin") or join is None:
        return node
    condition = join.condition
    if condition is not None and not isinstance(condition, Expression):
        return node  # an interval join's compiled condition: only its expression could be read
    read: set[str] = set()
    for expression in [*node.expressions, *([middle.expression] if middle is not None else [])]:
        read |= columns_of(expression)
    assert middle is None or middle.expression is not None
    if condition is not None:
        read |= columns_of(condition)
    inputs = [join.left, join.right]
    kept = [
        list(side.names) if id(side) in shared else [n for n in side.names if n in read] for side in inputs
    ]
    if all(len(k) == len(side.names) for k, side in zip(kept, inputs, strict=True)) or not all(kept):
        return node  # nothing to drop, or an input of no columns (a count of pairs)
    narrowed = [
        side if len(k) == len(side.names) else project(side, [col(n) for n in k], lambda i: f"EXPR${i}")
        for k, side in zip(kept, inputs, strict=True)
    ]
    new_join = join_plans(narrowed[0], narrowed[1], join.join_type, condition)
    if type(new_join) is not type(join) or new_join.updating != join.updating:
        return node
    top = (
        new_join if middle is None or middle.expression is None else _filtered(new_join, [middle.expression])
    )
    compiled = [e.resolve(list(top.names), list(top.types)) for e in node.expressions]
    if [c.data_type for c in compiled] != list(node.types):
        return node
    return dataclasses.replace(node, input=top, functions=[c.fn for c in compiled])


PHASES: list[tuple[str, Callable[[PlanNode, set[int]], PlanNode]]] = [
    ("filter push-down into join inputs", push_filters_into_joins),
    ("join condition push-down into join inputs", push_join_conditions),
    ("filter push-down through projections", push_filters_through_projections),
    ("filter merging", merge_filters),
    ("projection below aggregations over joins", project_below_aggregations),
    ("projection push-down into join inputs", prune_join_inputs),
    ("projection push-down into temporal join inputs", prune_temporal_join_inputs),
    ("Calc merging", merge_projections),
    ("identity projection removal", remove_identity_projections),
]
