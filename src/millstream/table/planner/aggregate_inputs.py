"""Projection below an aggregation over a join: the aggregation reads a projection of the join's
columns its keys and arguments read, as the plan Flink's SQL converter makes (an Aggregate over
a Project of its input), so the projection push-down into join inputs
(``rules.prune_join_inputs``) narrows the join's inputs and the scans below them.

::

    GroupAggregate(groupBy=[id, category], select=[MAX(price) ...])
    +- Join(..., select=[id, itemName, description, ..., price, channel, url, ...])
                        │
                        ▼
    GroupAggregate(groupBy=[id, category], select=[MAX(price) ...])
    +- Calc(select=[id, category, price])
       +- Join(..., select=[id, dateTime, expires, category, auction, price, dateTime0])

Without it a join hands an aggregation every column of both inputs (Nexmark q4: ten auction
and seven bid columns for three read), which the join also keeps in its state.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from millstream.table.expression.expression import _Column, col
from millstream.table.expression.walk import children
from millstream.table.planner.aggregate import Aggregate
from millstream.table.planner.nodes import PlanNode
from millstream.table.planner.projection import project
from millstream.table.planner.windows import WindowAggregate

__all__ = ["project_below_aggregations"]

_JOINS = ("Join", "IntervalJoin", "WindowJoin", "TemporalJoin", "LookupJoin")


def project_below_aggregations(node: PlanNode, shared: set[int]) -> PlanNode:
    """An aggregation over a join (not one the join feeds with others) reads a projection of
    the join's columns its keys, its calls' arguments and its time column read."""
    below = getattr(node, "input", None)
    if type(node) not in (Aggregate, WindowAggregate) or below is None or type(below).__name__ not in _JOINS:
        return node
    aggregate: Any = node
    if aggregate.key_expressions is None or aggregate.argument_expressions is None or id(below) in shared:
        return node
    if len(aggregate.argument_expressions) != len(aggregate.calls):  # a call read by its function alone
        return node
    read: set[str] = set()
    for expression in [*aggregate.key_expressions, *aggregate.argument_expressions]:
        _columns(expression, read)
    if type(node) is WindowAggregate:
        read.add(below.names[aggregate.time_column])
    kept = [name for name in below.names if name in read]
    if len(kept) == len(below.names) or not kept:
        return node  # nothing to drop, or no column (a count of pairs)
    narrowed = project(below, [col(n) for n in kept], lambda i: f"EXPR${i}")
    names, types = list(narrowed.names), list(narrowed.types)
    keys = [k.resolve(names, types) for k in aggregate.key_expressions]
    arguments = [a.resolve(names, types) for a in aggregate.argument_expressions]
    calls = [(f, a.fn, t) for (f, _, t), a in zip(aggregate.calls, arguments, strict=True)]
    changes: dict[str, Any] = {"input": narrowed, "keys": [k.fn for k in keys], "calls": calls}
    if type(node) is WindowAggregate:
        changes["time_column"] = names.index(below.names[aggregate.time_column])
    return dataclasses.replace(aggregate, **changes)


def _columns(expression: Any, found: set[str]) -> None:
    if isinstance(expression, _Column):
        found.add(expression.name)
        return
    for child in children(expression):
        _columns(child, found)
