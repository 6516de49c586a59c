"""MATCH_RECOGNIZE in a query: the clause (``sql/match_syntax.py``) over the plan of its input,
made into the plan node (``planner/match.py``), with Flink's checks and messages.

The DEFINE and MEASURES expressions, which read rows of the match through pattern variables,
are ``sql/match_expressions.py``'s.

The pattern is translated as Flink's planner translates it into a CEP pattern: variables in
sequence, each with its quantifier; alternation, quantified groups, PERMUTE and ``{- -}`` are
refused with Flink's messages, as are patterns that can match no row and greedy quantifiers
at the end.
"""

from __future__ import annotations

from sqlglot import exp

from millstream.table.planner.match import MatchExplain, MatchRecognize
from millstream.table.planner.nodes import PlanNode
from millstream.table.runtime.nfa import (
    MalformedPatternError,
    PatternElement,
    SkipStrategy,
    can_produce_empty_matches,
    compile_nfa,
    pattern_element,
)
from millstream.table.sql.context import SqlContext
from millstream.table.sql.expressions import _expression
from millstream.table.sql.literals import LiteralError, interval_qualifier
from millstream.table.sql.match_expressions import definitions, measures
from millstream.table.sql.match_syntax import PatternNode, parse_pattern
from millstream.table.sql.parser import SqlError

__all__ = ["match_recognize"]

_TIME_POINTS = ("TIMESTAMP", "TIMESTAMP_LTZ", "DATE")
_CONSTANT_INTERVALS = (
    "Only constant intervals with millisecond resolution are supported as time constraints of patterns."
)


def match_recognize(ctx: SqlContext, plan: PlanNode, clause: exp.Expression, joined: bool) -> PlanNode:
    """The plan of ``FROM input MATCH_RECOGNIZE (...)`` over ``plan`` (the input's);
    ``joined``: the FROM clause joins other tables too."""
    _check_input(plan, joined)
    pattern, anchors, variables, subsets = _pattern(clause)
    partition = _partition(plan, clause.args.get("partition_by") or [])
    streaming = not ctx.batch
    skip = _skip(clause.args.get("after"), variables)
    conditions, define, define_logical = definitions(plan, clause, variables, streaming)
    measured, names, types, texts, times = measures(plan, clause, variables + subsets, partition, streaming)
    time_column, proctime, sort_keys, order, order_logical = _order(plan, clause, streaming)
    elements = _elements(pattern)
    within, interval = _within(clause.args.get("within"))
    explain = MatchExplain(
        tuple(texts),
        tuple(define),
        tuple(define_logical),
        pattern.rex(),
        _after_text(skip, False),
        _after_text(skip, True),
        tuple(order),
        tuple(order_logical),
        interval,
        anchors,
    )
    offset, (rowtime, proctime_column) = len(partition), times
    return MatchRecognize(
        [plan.names[i] for i in partition] + names,
        [plan.types[i] for i in partition] + types,
        False,
        plan,
        tuple(partition),
        time_column,
        proctime,
        tuple(sort_keys),
        tuple(elements),
        conditions,
        tuple(measured),
        within,
        skip,
        rowtime=None if rowtime is None else offset + rowtime,
        proctime=None if proctime_column is None else offset + proctime_column,
        explain=explain,
    )


def _check_input(plan: PlanNode, joined: bool) -> None:
    if joined:
        raise SqlError(
            "MATCH_RECOGNIZE over a join is not supported here: match over a subquery "
            "(FROM (SELECT ... JOIN ...) MATCH_RECOGNIZE (...))"
        )
    if plan.updating:
        raise SqlError(
            "Match Recognize doesn't support consuming update and delete changes: its input "
            f"({', '.join(plan.names)}) is an updating table"
        )


def _pattern(clause: exp.Expression) -> tuple[PatternNode, tuple[bool, bool], list[str], list[str]]:
    """The PATTERN without its anchors, whether it had them, the variables its expressions
    read (the pattern's, then those only DEFINE names: a match has no rows of them) and the
    names of SUBSET's unions."""
    try:
        pattern, anchors = _anchored(parse_pattern(clause.args["pattern"].name))
    except ValueError as err:
        raise SqlError(f"SQL parse failed. {err}") from err
    defined = [i.alias for i in clause.args.get("define") or [] if isinstance(i, exp.Alias)]
    variables = pattern.variables()
    variables += [v for v in dict.fromkeys(defined) if v not in variables]
    return pattern, anchors, variables, _subsets(clause.args.get("subset") or [], variables)


def _anchored(pattern: PatternNode) -> tuple[PatternNode, tuple[bool, bool]]:
    """The pattern without its anchors ``^`` / ``$`` (Calcite's strict start and end, which
    Flink does not act on), and whether each was there."""
    items = list(pattern.items) if pattern.kind == "CONCAT" else [pattern]
    starts = bool(items) and items[0].kind == "ANCHOR" and items[0].name == "^"
    ends = bool(items) and items[-1].kind == "ANCHOR" and items[-1].name == "$"
    kept = items[1 if starts else 0 : len(items) - 1 if ends else len(items)]
    if not kept:
        raise ValueError("a PATTERN of anchors only")
    return (kept[0] if len(kept) == 1 else PatternNode("CONCAT", items=tuple(kept))), (starts, ends)


def _subsets(items: list[exp.Expression], variables: list[str]) -> list[str]:
    """The names of SUBSET's unions; MEASURES reads them as variables no row is mapped to (as
    Flink's generated code does: it looks the rows up by the name)."""
    names = []
    for item in items:
        for member in item.this.expressions:
            if member.name not in variables:
                raise SqlError(f"Unknown pattern '{member.name}'")
        names.append(item.alias)
    return names


def _partition(plan: PlanNode, keys: list[exp.Expression]) -> list[int]:
    indexes = []
    for key in keys:
        if not isinstance(key, exp.Column) or key.name not in plan.names:
            raise SqlError(f"PARTITION BY of MATCH_RECOGNIZE takes the input's columns, not {key.sql()}")
        indexes.append(plan.names.index(key.name))
    return indexes


def _order(
    plan: PlanNode, clause: exp.Expression, streaming: bool
) -> tuple[int, bool, list[tuple[int, bool]], list[str], list[str]]:
    """The time column, whether it is a processing-time attribute, the ORDER BY keys as
    ``(column, descending)`` and as explain prints them, checked as Flink's exec node checks
    them (streaming: a time attribute first, ascending; batch: a point in time first)."""
    order = clause.args.get("order")
    items = list(order.expressions) if order is not None else []
    keys: list[tuple[int, bool]] = []
    for item in items:
        column = item.this
        if not isinstance(column, exp.Column) or column.name not in plan.names:
            raise SqlError(f"ORDER BY of MATCH_RECOGNIZE takes the input's columns, not {column.sql()}")
        keys.append((plan.names.index(column.name), bool(item.args.get("desc"))))
    if not keys:
        raise SqlError(
            "You must specify either rowtime or proctime for order by."
            if streaming
            else "You must specify non-empty order by."
        )
    first, descending = keys[0]
    if streaming and first not in (plan.rowtime, plan.proctime):
        raise SqlError("You must specify either rowtime or proctime for order by as the first one.")
    if not streaming and plan.types[first].root not in _TIME_POINTS:
        raise SqlError("You must specify time point for order by as the first one.")
    if descending:
        raise SqlError(
            "Primary sort order of a streaming table must be ascending on time."
            if streaming
            else "Primary sort order of a table must be ascending on time."
        )
    shown = [f"{plan.names[c]} {'DESC' if d else 'ASC'}" for c, d in keys]
    logical = [f"{c} {'DESC-nulls-last' if d else 'ASC-nulls-first'}" for c, d in keys]
    proctime = streaming and first == plan.proctime
    return first, proctime, keys, shown, logical


def _skip(after: exp.Expression | None, variables: list[str]) -> SkipStrategy:
    """AFTER MATCH SKIP (Calcite's default: TO NEXT ROW)."""
    text = after.name if after is not None else "SKIP TO NEXT ROW"
    if text in ("SKIP PAST LAST ROW", "SKIP TO NEXT ROW"):
        return SkipStrategy(text.removeprefix("SKIP "))
    _, _, side, variable = text.split(" ", 3)
    if variable not in variables:
        raise SqlError(f"Unknown pattern '{variable}'")
    return SkipStrategy(f"TO {side}", variable)


def _after_text(skip: SkipStrategy, logical: bool) -> str:
    if skip.variable is None:
        return f"FLAG(SKIP {skip.kind})" if logical else f"SKIP {skip.kind}"
    side = skip.kind.removeprefix("TO ")
    name = f"_UTF-16LE'{skip.variable}'"
    return f"SKIP TO {side}({name})" if logical else f"SKIP TO {side} {name}"


def _within(node: exp.Expression | None) -> tuple[int, str | None]:
    """WITHIN's length in ms and its text in the logical plan (``3600000:INTERVAL HOUR``)."""
    if node is None:
        return 0, None
    if not isinstance(node, exp.Interval):
        raise SqlError(_CONSTANT_INTERVALS)
    try:
        qualifier = interval_qualifier(node.args["unit"].name)
    except LiteralError as err:
        raise SqlError(str(err)) from err
    if qualifier.year_month:
        raise SqlError(_CONSTANT_INTERVALS)
    value = _expression(node).resolve([], []).fn(())
    millis = round(value.total_seconds() * 1000)
    units = qualifier.start if qualifier.end is None else f"{qualifier.start} TO {qualifier.end}"
    return millis, f"{millis}:INTERVAL {units}"


def _elements(pattern: PatternNode) -> list[PatternElement]:
    """The CEP pattern of the row pattern, variable by variable in order, as Flink's
    ``PatternVisitor`` builds it (and refuses what it cannot), checked as Flink's exec node
    checks it: not able to match no row, no greedy quantifier at the end."""
    elements: list[PatternElement] = []
    try:
        _visit(pattern, elements)
    except MalformedPatternError as err:
        raise SqlError(str(err)) from err
    states, start = compile_nfa(elements)
    if can_produce_empty_matches(states, start):
        raise SqlError(
            "Patterns that can produce empty matches are not supported. There must be at least "
            "one non-optional state."
        )
    if elements[-1].greedy:
        raise SqlError(
            "Greedy quantifiers are not allowed as the last element of a Pattern yet. Finish your "
            "pattern with either a simple variable or reluctant quantifier."
        )
    return elements


def _visit(node: PatternNode, elements: list[PatternElement]) -> None:
    if node.kind == "CONCAT":
        for item in node.items:
            _visit(item, elements)
    elif node.kind == "VAR":
        _variable(node.name, 1, 1, False, elements)
    elif node.kind == "QUANTIFIER":
        inner = node.items[0]
        if inner.kind != "VAR":
            raise SqlError(f"Expression not supported: {inner.rex()} Group patterns are not supported yet.")
        _variable(inner.name, node.low, node.high, node.reluctant, elements)
    elif node.kind == "ALTER":
        raise SqlError(
            f"Expression not supported: {node.rex()}. Currently, CEP doesn't support branching patterns."
        )
    elif node.kind == "PERMUTE":
        raise SqlError(
            f"Expression not supported: {node.rex()}. Currently, CEP doesn't support PERMUTE patterns."
        )
    elif node.kind == "EXCLUDE":
        raise SqlError(
            f"Expression not supported: {node.rex()}. Currently, CEP doesn't support '{{-' '-}}' patterns."
        )
    else:
        raise SqlError(f"Anchor '{node.name}' inside a PATTERN is not supported")


def _variable(name: str, low: int, high: int, reluctant: bool, elements: list[PatternElement]) -> None:
    if any(e.variable == name for e in elements):
        raise SqlError("Pattern variables must be unique. That might change in the future.")
    previous = elements[-1] if elements else None
    elements.append(pattern_element(name, low, high, reluctant, previous))
