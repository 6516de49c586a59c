"""Boolean logic and conditionals of expression trees: ``and_``, ``or_``, ``not_`` (SQL's three-valued
logic) and ``if_then_else`` (PyFlink's functions of these names, re-exported by
``millstream.table.expressions``; the layers below the API build conditions with them)."""

from __future__ import annotations

from typing import Any

from millstream.table.expression.calls import _IfThenElse
from millstream.table.expression.expression import (
    Expression,
    _Logic,
    _Not,
    _wrap,
)

__all__ = ["and_", "if_then_else", "not_", "or_"]

_ONE = object()  # and_ / or_ of one operand (PyFlink requires two; the planner builds such)


def and_(predicate0: Any, predicate1: Any = _ONE, *predicates: Any) -> Expression:
    """``predicate0 AND predicate1 AND predicates...`` (SQL's three-valued logic)."""
    operands = [predicate0] if predicate1 is _ONE else [predicate0, predicate1, *predicates]
    return _Logic("AND", [_wrap(p) for p in operands])


def or_(predicate0: Any, predicate1: Any = _ONE, *predicates: Any) -> Expression:
    """``predicate0 OR predicate1 OR predicates...`` (SQL's three-valued logic)."""
    operands = [predicate0] if predicate1 is _ONE else [predicate0, predicate1, *predicates]
    return _Logic("OR", [_wrap(p) for p in operands])


def not_(expression: Any) -> Expression:
    """``NOT expression``."""
    return _Not(_wrap(expression))


def if_then_else(condition: Any, if_true: Any, if_false: Any) -> Expression:
    """``CASE WHEN condition THEN if_true ELSE if_false END``."""
    return _IfThenElse(_wrap(condition), _wrap(if_true), _wrap(if_false))
