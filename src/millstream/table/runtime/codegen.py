"""Code generation for projections and filters (Flink generates Java for its Calc operators;
this generates Python).

An expression tree evaluated through its closures costs a Python call per node and row. For a
Calc (a filter and a projection over one input) this module writes one Python function whose
body evaluates every expression inline over the row, with SQL's NULL rules spelled out:

    def calc(change):
        r = change[1]
        if not ((None if (_v0 := r[2]) is None else _v0 > 50) is True):
            return ()
        return ((change[0], (r[0], (None if (_v1 := r[2]) is None else _v1 * 1.1))),)

Nodes it does not know are called through their compiled closure (``_f3(r)``), so every
expression can be generated and means exactly what its closure means.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Any

from millstream.table.common.casts import INTEGER_RANGES, to_float32, wrap
from millstream.table.common.types import DataType
from millstream.table.expression import expression as e
from millstream.table.expression.calls import _IfThenElse
from millstream.table.expression.failures import evaluation_error
from millstream.table.expression.resolved import negation
from millstream.table.functions.builtins import BUILTIN_FUNCTIONS, _Call

__all__ = ["calc_function", "expression_code", "predicate_function"]


class _Writer:
    def __init__(self) -> None:
        self.env: dict[str, Any] = {}
        self._ids = itertools.count()

    def name(self, prefix: str) -> str:
        return f"_{prefix}{next(self._ids)}"

    def constant(self, value: Any) -> str:
        if value is None or isinstance(value, (bool, int)) or (isinstance(value, str) and len(value) < 200):
            return repr(value)
        if isinstance(value, float) and value == value and value not in (float("inf"), float("-inf")):
            return repr(value)
        name = self.name("c")
        self.env[name] = value
        return name

    def function(self, fn: Callable[..., Any]) -> str:
        name = self.name("f")
        self.env[name] = fn
        return name


def _null_safe(w: _Writer, operands: list[str], body: Callable[[list[str]], str]) -> str:
    """``body`` over the operands' values, NULL if any is NULL."""
    if not operands:  # a function of no arguments (PI(), UUID())
        return f"({body([])})"
    names = [w.name("v") for _ in operands]
    checks = " or ".join(f"({n} := {o}) is None" for n, o in zip(names, operands, strict=True))
    return f"(None if {checks} else {body(names)})"


_PYTHON_OPERATORS = {
    "+": "+",
    "-": "-",
    "*": "*",
    "=": "==",
    "<>": "!=",
    "<": "<",
    "<=": "<=",
    ">": ">",
    ">=": ">=",
}


def _code(expression: Any, names: list[str], types: list[DataType], w: _Writer) -> str:  # noqa: C901
    kind = type(expression)
    if kind is e._Column:
        if expression.name in names:
            return f"r[{names.index(expression.name)}]"
    elif kind is e._Literal:
        return w.constant(expression.value)
    elif kind is e._Alias:
        return _code(expression.operand, names, types, w)
    elif kind is e._IsNull:
        inner = _code(expression.operand, names, types, w)
        v = w.name("v")
        return f"(({v} := {inner}) is None)" if expression.null else f"(({v} := {inner}) is not None)"
    elif kind is e._Not:
        inner = _code(expression.operand, names, types, w)
        v = w.name("v")
        return f"(None if ({v} := {inner}) is None else not {v})"
    elif kind is e._Logic:
        operands = [_code(o, names, types, w) for o in expression.operands]
        values = [w.name("v") for _ in operands]
        assigned = "".join(f"({v} := {o}), " for v, o in zip(values, operands, strict=True))
        deciding = "True" if expression.op == "OR" else "False"
        other = "False" if expression.op == "OR" else "True"
        decided = " or ".join(f"{v} is {deciding}" for v in values)
        unknown = " or ".join(f"{v} is None" for v in values)
        # evaluate every operand (as the closure does), then SQL's three-valued result
        return f"({deciding} if ({assigned}) and ({decided}) else (None if {unknown} else {other}))"
    elif kind is e._Binary and expression.op in _PYTHON_OPERATORS:
        left_type = expression.left.resolve(names, types).data_type
        right_type = expression.right.resolve(names, types).data_type
        roots = (left_type.root, right_type.root)
        arithmetic = expression.op in ("+", "-", "*")
        # DECIMAL and interval arithmetic convert and round, and so does a comparison of a
        # number with an approximate one (as doubles, or FLOATs): their closures do it
        approximate = ("FLOAT" in roots and "DOUBLE" in roots) or (
            "DECIMAL" in roots and ("FLOAT" in roots or "DOUBLE" in roots)
        )
        intervals_or_decimals = {"INTERVAL_DAY_TIME", "INTERVAL_YEAR_MONTH", "DECIMAL"} & set(roots)
        # a comparison Python's operator computes as Flink does: values of one plain family (a
        # ROW's fields, a text cast to a date, x = x ... are their closures')
        plain = arithmetic or (not approximate and not expression.reflexive() and _plainly_compared(*roots))
        if plain and not (arithmetic and intervals_or_decimals):
            op = _PYTHON_OPERATORS[expression.op]
            left = _code(expression.left, names, types, w)
            right = _code(expression.right, names, types, w)
            if not arithmetic:
                return _null_safe(w, [left, right], lambda v: f"{v[0]} {op} {v[1]}")
            result = expression.resolve(names, types).data_type.root
            return _null_safe(w, [left, right], lambda v: _in_width(w, f"{v[0]} {op} {v[1]}", result))
    elif kind is e._Negate:
        inner = _code(expression.operand, names, types, w)
        negate = w.function(negation(expression.operand.resolve(names, types).data_type))
        return _null_safe(w, [inner], lambda v: f"{negate}({v[0]})")
    elif kind is _IfThenElse and expression.typed_as_branches(names, types):  # else its closure converts
        condition = _code(expression.condition, names, types, w)
        then = _code(expression.then, names, types, w)
        otherwise = _code(expression.otherwise, names, types, w)
        return f"({then} if ({condition}) else {otherwise})"
    elif (
        kind is _Call
        and expression.clock is None  # (a query-level time function reads its call's clock: its closure)
        and getattr(BUILTIN_FUNCTIONS.get(expression.name_), "bind", True) is None
    ):
        spec = BUILTIN_FUNCTIONS[expression.name_]  # (a function bound to its argument types: its closure)
        args = [_code(a, names, types, w) for a in expression.args]
        fn = w.function(spec.impl)
        result = expression.resolve(names, types).data_type.root
        if spec.null_aware:
            return _in_width(w, f"{fn}({', '.join(args)})", result, nullable=True)
        return _null_safe(w, args, lambda v: _in_width(w, f"{fn}({', '.join(v)})", result, nullable=True))
    # anything else: its compiled closure
    compiled = expression.resolve(names, types)
    return f"{w.function(compiled.fn)}(r)"


_PLAIN_FAMILIES = (
    frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL", "NULL"}),  # exactly
    frozenset({"DOUBLE", "NULL"}),  # a DOUBLE with a BIGINT: as doubles (the closure's)
    frozenset({"FLOAT", "NULL"}),
    frozenset({"CHAR", "VARCHAR", "STRING", "NULL"}),
    frozenset({"BINARY", "VARBINARY", "BYTES", "NULL"}),
)


def _plainly_compared(left: str, right: str) -> bool:
    """Whether values of the roots ``left`` and ``right`` compare with Python's operators as
    Flink compares them."""
    if left == right:
        return left not in ("ROW", "ARRAY", "MAP", "MULTISET")
    return any(left in family and right in family for family in _PLAIN_FAMILIES)


def _in_width(w: _Writer, code: str, root: str, nullable: bool = False) -> str:
    """``code``'s number held in the result type ``root`` as Java holds it: an integer wrapped to
    its width (``2147483647 + 1`` on INT is ``-2147483648``), a FLOAT rounded to 32 bits."""
    if root in INTEGER_RANGES:
        low, high = INTEGER_RANGES[root]
        t, wrapped = w.name("t"), w.function(_WRAPPERS[root])
        if nullable:
            return f"({t} if ({t} := {code}) is None or {low} <= {t} <= {high} else {wrapped}({t}))"
        return f"({t} if {low} <= ({t} := {code}) <= {high} else {wrapped}({t}))"
    if root == "FLOAT":
        rounded = w.function(to_float32)
        return f"{rounded}({code})" if not nullable else _null_safe(w, [code], lambda v: f"{rounded}({v[0]})")
    return code


_WRAPPERS: dict[str, Callable[[int], int]] = {
    root: functools.partial(wrap, root=root) for root in INTEGER_RANGES
}


def expression_code(expression: Any, names: list[str], types: list[DataType]) -> tuple[str, dict[str, Any]]:
    """Python source of ``expression`` over a row ``r`` and the names it needs."""
    w = _Writer()
    return _code(expression, names, types, w), w.env


def calc_function(
    names: list[str],
    types: list[DataType],
    condition: Any | None,
    projection: list[Any] | None,
) -> Callable[[tuple[str, tuple[Any, ...]]], tuple[Any, ...]]:
    """One function of a change ``(kind, row)`` to the changes of filtering it by
    ``condition`` (TRUE keeps it) and projecting it to ``projection`` (None: unchanged):
    ``()`` or a 1-tuple, for ``flat_map``."""
    w = _Writer()
    lines = ["def calc(change):", "    r = change[1]"]
    if condition is not None:
        lines.append(f"    if (_keep := {_code(condition, names, types, w)}) is not True:")
        lines.append("        return ()")
    if projection is None:
        lines.append("    return (change,)")
    else:
        items = [_code(p, names, types, w) for p in projection]
        row = "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        lines.append(f"    return ((change[0], {row}),)")
    return _Calc("\n".join(lines), w.env, (names, types, condition, projection))


def predicate_function(
    names: list[str], types: list[DataType], condition: Any
) -> Callable[[tuple[Any, ...]], Any]:
    """One function of a row to the value of ``condition`` over it (TRUE, FALSE or None), as
    the condition's compiled closure computes it: a join's residual condition, evaluated for
    every pair of rows that meet, in one generated expression instead of a call per node."""
    w = _Writer()
    source = f"def calc(r):\n    return {_code(condition, names, types, w)}"
    return _Predicate(source, w.env, (names, types, condition, None))


class _Calc:
    """A generated calc function: shipped to the tasks as its source and the values it names,
    compiled where it runs. A row it fails on raises an error naming the expression that
    failed (``expression/failures.py``: ``calc`` is the Calc's columns and expressions)."""

    def __init__(self, source: str, env: dict[str, Any], calc: tuple[Any, ...]) -> None:
        self.source, self.env, self.calc = source, env, calc
        self._fn: Callable[[tuple[str, tuple[Any, ...]]], tuple[Any, ...]] | None = None

    def _compiled(self) -> Callable[[Any], Any]:
        fn = self._fn
        if fn is None:
            namespace: dict[str, Any] = dict(self.env)
            exec(compile(self.source, "<millstream calc>", "exec"), namespace)
            fn = self._fn = namespace["calc"]
        return fn

    def __call__(self, change: tuple[str, tuple[Any, ...]]) -> tuple[Any, ...]:
        fn = self._fn or self._compiled()
        try:
            return fn(change)
        except Exception as err:
            names, types, condition, projection = self.calc
            failure = evaluation_error(names, types, condition, projection, change, err)
            if failure is err:
                raise
            raise failure from err

    def __getstate__(self) -> dict[str, Any]:
        return {"source": self.source, "env": self.env, "calc": self.calc, "_fn": None}


class _Predicate(_Calc):
    """A generated condition over a row (``predicate_function``); a row it fails on raises
    the error naming the failing expression, as a Calc's condition does."""

    def __call__(self, row: Any) -> Any:
        fn = self._fn or self._compiled()
        try:
            return fn(row)
        except Exception as err:
            names, types, condition, _ = self.calc
            failure = evaluation_error(names, types, condition, None, ("+I", row), err)
            if failure is err:
                raise
            raise failure from err
