"""GROUP BY's grouping sets in SQL, read as Calcite's validator reads them: ``GROUPING SETS
(...)``, ``ROLLUP(...)``, ``CUBE(...)``, ``()`` and their combinations, and the functions
``GROUPING(a, ...)``, ``GROUPING_ID(a, ...)`` and ``GROUP_ID()`` of a select list and HAVING.

A GROUP BY is a list of elements; each element stands for grouping sets, and the GROUP BY's
sets are every combination of one set of each element (``GROUP BY a, ROLLUP(b, c)`` is
``(a, b, c), (a, b), (a)``):

* an expression ``a``: the set ``(a)``; a parenthesized list ``(a, b)``: ``(a, b)``; ``()``:
  the empty set;
* ``ROLLUP(a, b, c)``: ``(a, b, c), (a, b), (a), ()`` (an argument may be a list ``(a, b)``,
  kept together);
* ``CUBE(a, b)``: every subset, ``(a, b), (a), (b), ()``;
* ``GROUPING SETS (e, ...)``: the sets of each element ``e`` (any of the above, nested).

The planner aggregates them in one aggregation over an Expand (``planner/grouping_sets.py``).
A GROUPING function's call is replaced in the select list and HAVING by a placeholder column
the planner computes from the grouping set of each row.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlglot import exp

from millstream.table.expression.expression import Expression, _Column
from millstream.table.expression.walk import fingerprint
from millstream.table.planner.grouping_sets import GroupingCall
from millstream.table.sql.expressions import _expression
from millstream.table.sql.parser import SqlError

__all__ = ["GroupingSets", "grouping_sets"]

_SET_NODES = (exp.GroupingSets, exp.Rollup, exp.Cube)
_FUNCTIONS: dict[type, str] = {exp.Grouping: "GROUPING", exp.GroupingId: "GROUPING_ID"}


@dataclass
class GroupingSets:
    """A GROUP BY's distinct group expressions (``keys``, in order of first appearance), its
    grouping sets as key positions (repeats kept: ``GROUP_ID()`` tells them apart), and the
    GROUPING functions' calls by their placeholder column."""

    keys: list[Expression] = field(default_factory=list)
    sets: list[tuple[int, ...]] = field(default_factory=list)
    calls: dict[str, GroupingCall] = field(default_factory=dict)

    def without(self, columns: tuple[str, ...]) -> GroupingSets | None:
        """These grouping sets with the keys that are ``columns`` taken out (a window's start
        and end: the window aggregation groups by them), a GROUPING function of one 0; None
        when a set leaves one of them out (no window aggregation then: Flink groups the window
        TVF's rows by them as by any column)."""
        gone = [i for i, k in enumerate(self.keys) if type(k) is _Column and k.name in columns]
        if any(i not in s for s in self.sets for i in gone):
            return None
        kept = [i for i in range(len(self.keys)) if i not in gone]

        def moved(i: int | None) -> int | None:
            return None if i is None or i in gone else kept.index(i)

        return GroupingSets(
            [self.keys[i] for i in kept],
            [tuple(kept.index(i) for i in s if i not in gone) for s in self.sets],
            {n: GroupingCall(c.function, tuple(moved(i) for i in c.keys)) for n, c in self.calls.items()},
        )


def grouping_sets(select: exp.Select) -> GroupingSets | None:
    """The grouping sets of ``select``'s GROUP BY, with the GROUPING functions of its select
    list and HAVING replaced by placeholder columns (in place); None for a plain GROUP BY (or
    none) without GROUPING functions. Column references resolve in the current scope (the
    FROM clause's).

    Raises:
        SqlError: a GROUPING function outside an aggregate query, or of an expression that is
            not a group key.
    """
    group = select.args.get("group")
    elements = list(group.expressions) if group is not None else []
    having = select.args.get("having")
    scopes = [*select.expressions, *([having] if having is not None else [])]
    found = [node for scope in scopes for node in _grouping_functions(scope)]
    order = select.args.get("order")
    ordered = _grouping_functions(order) if order is not None else []
    if not found and not ordered and not any(isinstance(e, (*_SET_NODES, exp.Tuple)) for e in elements):
        return None
    if group is None:
        first = (found or ordered)[0]
        raise SqlError(f"{_function_name(first)} operator may only occur in an aggregate query")
    spec = GroupingSets()
    keys = _Keys(spec)
    product: list[frozenset[int]] = [frozenset()]
    for element in elements:
        options = _sets(element, keys.position)
        product = [a | b for a in product for b in options]
    spec.sets = [tuple(sorted(s)) for s in product]
    _placeholders(select, found, ordered, keys)
    return spec


class _Keys:
    """The group keys of a GROUP BY being read: each distinct expression once, in order."""

    def __init__(self, spec: GroupingSets) -> None:
        self.spec = spec
        self.fingerprints: list[object] = []

    def position(self, node: exp.Expression) -> int:
        """The position of the key ``node`` is (a new key when no earlier one is the same)."""
        expression = _expression(node)
        key = fingerprint(expression)
        if key not in self.fingerprints:
            self.fingerprints.append(key)
            self.spec.keys.append(expression)
        return self.fingerprints.index(key)

    def call(self, node: exp.Expression) -> GroupingCall:
        """A GROUPING function's call, its arguments as key positions.

        Raises:
            SqlError: an argument is not a group key.
        """
        arguments = list(node.expressions) if isinstance(node, (exp.Grouping, exp.GroupingId)) else []
        positions = []
        for argument in arguments:
            key = fingerprint(_expression(argument))
            if key not in self.fingerprints:
                raise SqlError(f"Argument to {_function_name(node)} operator must be a grouped expression")
            positions.append(self.fingerprints.index(key))
        return GroupingCall(_function_name(node), tuple(positions))


def _placeholders(
    select: exp.Select, found: list[exp.Expression], ordered: list[exp.Expression], keys: _Keys
) -> None:
    """Each GROUPING function's call ``found`` in the select list and HAVING replaced by its
    placeholder column (``keys.spec.calls``); each ``ordered`` (in ORDER BY) by the column of
    the select item computing it.

    Raises:
        SqlError: an ORDER BY of a GROUPING function no select item computes.
    """
    calls = keys.spec.calls
    items = {}  # a select item's GROUPING call -> the item's column name
    for i, item in enumerate(select.expressions):
        inner = item.this if isinstance(item, exp.Alias) else item
        if _function_name(inner):
            items[id(inner)] = item.alias or f"EXPR${i}"
    columns: dict[GroupingCall, str] = {}
    for node in found:
        name = f"$g{len(calls)}"
        calls[name] = keys.call(node)
        if id(node) in items:
            columns.setdefault(calls[name], items[id(node)])
        # in parentheses: an unaliased call is still named EXPR$<position>, not the placeholder
        node.replace(exp.Paren(this=exp.column(exp.to_identifier(name, quoted=True))))
    for node in ordered:
        column = columns.get(keys.call(node))
        if column is None:
            raise SqlError(
                f"ORDER BY {node.sql()}: order by a select item that computes it "
                f"(SELECT ..., {node.sql()} AS g ... ORDER BY g)"
            )
        node.replace(exp.column(exp.to_identifier(column, quoted=True)))


def _sets(element: exp.Expression, key: Callable[[exp.Expression], int]) -> list[frozenset[int]]:
    """The grouping sets one GROUP BY element stands for, as positions ``key`` gives its
    expressions."""

    def together(node: exp.Expression) -> frozenset[int]:  # a ROLLUP / CUBE argument
        members = node.expressions if isinstance(node, exp.Tuple) else [node]
        return frozenset(key(m) for m in members)

    if isinstance(element, exp.Tuple):
        return [frozenset(key(m) for m in element.expressions)]
    if isinstance(element, exp.Rollup):
        parts = [together(a) for a in element.expressions]
        return [frozenset().union(*parts[:n]) for n in range(len(parts), -1, -1)]
    if isinstance(element, exp.Cube):
        parts = [together(a) for a in element.expressions]
        return [
            frozenset().union(*(p for p, chosen in zip(parts, mask, strict=True) if chosen))
            for mask in itertools.product((True, False), repeat=len(parts))
        ]
    if isinstance(element, exp.GroupingSets):
        return [s for member in element.expressions for s in _sets(member, key)]
    return [frozenset([key(element)])]


def _grouping_functions(node: exp.Expression) -> list[exp.Expression]:
    """The GROUPING / GROUPING_ID / GROUP_ID calls in ``node``, not in a subquery's own SELECT."""
    found: list[exp.Expression] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if _function_name(current):
            found.append(current)
            continue
        for child in current.iter_expressions():
            if not isinstance(child, (exp.Select, exp.Subquery)):
                stack.append(child)
    return found


def _function_name(node: exp.Expression) -> str:
    """``GROUPING``, ``GROUPING_ID`` or ``GROUP_ID`` for a call of one (else '')."""
    name = _FUNCTIONS.get(type(node))
    if name is not None:
        return name
    if isinstance(node, exp.Anonymous) and node.name.upper() == "GROUP_ID" and not node.expressions:
        return "GROUP_ID"
    return ""
