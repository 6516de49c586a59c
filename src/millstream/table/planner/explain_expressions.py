"""Expressions as Flink's explain prints them: prefix calls (``>(x, 1)``) in the physical
plan, infix (``(x > 1)``) in the execution plan, literals as Calcite writes them (a string
plainly quoted in the execution plan)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from millstream.table.expression import expression as e
from millstream.table.expression.calls import _IfThenElse, _Tuple
from millstream.table.functions.builtins import _Call
from millstream.table.functions.lookup import _NamedCall
from millstream.table.functions.udf import _ScalarCall

__all__ = ["render"]


_PREFIX_OPS = {
    "=": "=",
    "<>": "<>",
    "<": "<",
    "<=": "<=",
    ">": ">",
    ">=": ">=",
    "+": "+",
    "-": "-",
    "*": "*",
    "/": "/",
    "%": "MOD",
}


def _literal(value: Any, infix: bool) -> str:
    """A literal as Calcite's digest writes it in the plans (``_UTF-16LE'it''s'``) and Flink's
    execution plan prints a string (``'it's'``, as PyFlink 2.3.0's "Optimized Execution Plan")."""
    if value is None:
        return "null:NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"'{value}'" if infix else "_UTF-16LE'" + value.replace("'", "''") + "'"
    if isinstance(
        value, datetime.timedelta
    ):  # Calcite's: milliseconds, then the largest unit that divides them
        millis = round(value.total_seconds() * 1000)
        unit = next((u for u, ms in _UNITS if millis % ms == 0), "SECOND")
        return f"{millis}:INTERVAL {unit}"
    return str(value)


_UNITS = [("DAY", 86_400_000), ("HOUR", 3_600_000), ("MINUTE", 60_000), ("SECOND", 1000)]


def render(expression: Any, ref: Callable[[str], str], infix: bool) -> str:  # noqa: C901
    """``expression`` as Flink prints it: prefix (``>(x, 1)``) or infix (``(x > 1)``);
    ``ref(name)`` prints a column."""

    def go(x: Any) -> str:
        return render(x, ref, infix)

    kind = type(expression)
    if kind is e._Column:
        return ref(expression.name)
    if kind is e._Literal:
        return _literal(expression.value, infix)
    if kind is e._Alias:
        return go(expression.operand)
    if kind is e._Binary:
        op = _PREFIX_OPS.get(expression.op, expression.op)
        if infix and expression.op == "%":  # Flink prints MOD(a, b) for both spellings
            return f"MOD({go(expression.left)}, {go(expression.right)})"
        if infix:
            return f"({go(expression.left)} {expression.op} {go(expression.right)})"
        return f"{op}({go(expression.left)}, {go(expression.right)})"
    if kind is e._Logic:
        parts = [go(o) for o in expression.operands]
        return f"({f' {expression.op} '.join(parts)})" if infix else f"{expression.op}({', '.join(parts)})"
    if kind is e._Not:
        return f"NOT({go(expression.operand)})"
    if kind is e._IsNull:
        test = "IS NULL" if expression.null else "IS NOT NULL"
        return f"{go(expression.operand)} {test}" if infix else f"{test}({go(expression.operand)})"
    if kind is e._Cast:
        return f"CAST({go(expression.operand)} AS {expression.data_type!r})"
    if kind is _IfThenElse:  # CASE(c1, v1, c2, v2, ..., else): Calcite's one call for every WHEN
        parts, branch = [], expression
        while type(branch) is _IfThenElse:
            parts += [go(branch.condition), go(branch.then)]
            branch = branch.otherwise
        return f"CASE({', '.join([*parts, go(branch)])})"
    if isinstance(expression, e.AggregateCall):
        operand = expression.operand
        if type(operand) is _Tuple:
            args = ", ".join(go(i) for i in operand.items)
        elif type(operand) is e._Literal and expression.function == "COUNT":
            args = "*"
        else:
            args = go(operand)
        return f"{expression.function}({args})"
    if kind is _Call:
        return f"{expression.name_}({', '.join(go(a) for a in expression.args)})"
    if kind is _ScalarCall:
        return f"{expression.wrapper._name}({', '.join(go(a) for a in expression.args)})"
    if kind is _NamedCall:
        return f"{expression.function_name}({', '.join(go(a) for a in expression.args)})"
    if kind is e.WindowProperty:
        return expression.column_name()
    if kind is e.OverCall:  # over_aggregate() replaces it by its column before a plan prints
        return f"{go(expression.call)} OVER {expression.window}"
    return repr(expression)


def _named(expression: Any, name: str, ref: Callable[[str], str], infix: bool) -> str:
    text = render(expression, ref, infix)
    inner = expression.operand if type(expression) is e._Alias else expression
    if type(inner) is e._Column and inner.name == name:
        return text
    return f"{text} AS {name}"
