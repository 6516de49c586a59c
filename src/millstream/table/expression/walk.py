"""Walking expression trees (for the planner): an expression's children, a copy with nodes
replaced, and a structural fingerprint."""

from __future__ import annotations

import copy
import datetime
import decimal
from collections.abc import Callable
from typing import Any

from millstream.table.common.types import DataType
from millstream.table.expression.expression import Expression

__all__ = ["children", "columns_of", "conjuncts", "fingerprint", "replaced"]


def children(expression: Any) -> list[Expression]:
    """The expressions directly inside ``expression``."""
    out: list[Expression] = []
    for value in vars(expression).values():
        if isinstance(value, Expression):
            out.append(value)
        elif isinstance(value, (list, tuple)):
            out.extend(v for v in value if isinstance(v, Expression))
    return out


def replaced(
    expression: Any,
    replace: Callable[[Any], Any],
    top_down: bool = False,
    stop: Callable[[Any], bool] | None = None,
) -> Any:
    """``expression`` with the nodes ``replace`` returns something for replaced (copies, the
    original is unchanged). Bottom-up, ``replace`` sees a node after its children; top-down it
    sees the original node and a replaced node's inside is not visited. Nodes ``stop`` accepts
    are kept whole."""
    if stop is not None and stop(expression):
        return expression
    if top_down:
        substitute = replace(expression)
        if substitute is not None:
            return substitute
    copied = None
    for name, value in vars(expression).items():
        if isinstance(value, Expression):
            new: Any = replaced(value, replace, top_down, stop)
        elif isinstance(value, (list, tuple)) and any(isinstance(v, Expression) for v in value):
            new = type(value)(
                replaced(v, replace, top_down, stop) if isinstance(v, Expression) else v for v in value
            )
        else:
            continue
        if new is not value:
            if copied is None:
                copied = copy.copy(expression)
            setattr(copied, name, new)
    node = copied if copied is not None else expression
    if top_down:
        return node
    substitute = replace(node)
    return node if substitute is None else substitute


def fingerprint(expression: Any) -> Any:
    """A value equal for expressions of the same structure (``GROUP BY UPPER(s)`` matches
    ``SELECT UPPER(s)``); expressions holding functions or other objects compare by identity,
    unless the object's class names a ``fingerprint_atom`` (a call's ``QueryClock``)."""
    parts: list[Any] = [type(expression).__name__]
    for name, value in sorted(vars(expression).items()):
        if isinstance(value, Expression):
            parts.append((name, fingerprint(value)))
        elif isinstance(value, (list, tuple)):
            parts.append(
                (name, tuple(fingerprint(v) if isinstance(v, Expression) else _atom(v) for v in value))
            )
        else:
            parts.append((name, _atom(value)))
    return tuple(parts)


# values compared by value (immutable, with an exact repr): literals' values among them
_VALUES = (
    bool,
    int,
    float,
    str,
    bytes,
    decimal.Decimal,
    datetime.date,
    datetime.time,
    datetime.timedelta,
    DataType,
)


def _atom(value: Any) -> Any:
    if value is None or isinstance(value, _VALUES):
        return (type(value).__name__, repr(value))
    atom = getattr(type(value), "fingerprint_atom", None)  # an object equal to all of its kind
    return ("id", id(value)) if atom is None else atom


def conjuncts(condition: Any) -> list[Any]:
    """The operands of a condition's top-level ANDs (the condition itself if it is none)."""
    if getattr(condition, "op", None) == "AND" and hasattr(condition, "operands"):
        return [c for o in condition.operands for c in conjuncts(o)]
    return [condition]


def columns_of(expression: Any) -> set[str]:
    """The names of the columns an expression reads."""
    if type(expression).__name__ == "_Column":
        return {expression.name}
    found: set[str] = set()
    for child in children(expression):
        found |= columns_of(child)
    return found
