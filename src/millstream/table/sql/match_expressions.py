"""The DEFINE and MEASURES expressions of MATCH_RECOGNIZE: values read off the rows of a match
through pattern variables become columns of their own (``$p<i>`` placeholders), of which the
rest of the expression is compiled as any SQL expression; explain prints them as Flink's plan
does (``PREV(A.$1, 0)`` in DEFINE, ``A.id`` / ``LAST(B.v, 0)`` / ``SUM(B.v)`` in MEASURES).

* ``A.price``: ``A``'s last row (in DEFINE of A, the row being tested), ``FIRST(A.price, n)``
  / ``LAST(A.price, n)``: the n-th from the start / the end; ``PREV(A.price, 0)`` (DEFINE
  only; another offset is refused, as Flink refuses physical offsets);
* ``price``: the rows of every variable (in DEFINE the row being tested, in MEASURES the
  match's last row);
* aggregates over one variable's rows (``AVG(A.price)``, ``COUNT(*)``: every row);
* ``MATCH_ROWTIME([rowtime])``, ``MATCH_PROCTIME()``.

Flink's validation messages name what it refuses (several variables in one aggregate,
DISTINCT, FILTER, CLASSIFIER, RUNNING, PREV in MEASURES ...).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from millstream.table.common.types import DataType, DataTypes
from millstream.table.expression.expression import Expression, _Column, _Literal, _Logic, col
from millstream.table.expression.walk import replaced
from millstream.table.functions.aggregate_calls import accumulator_spec, result_type
from millstream.table.planner.explain_expressions import render
from millstream.table.planner.nodes import PlanNode
from millstream.table.runtime.match_recognize import (
    MatchTime,
    Navigation,
    PatternAggregate,
    PatternExpression,
)
from millstream.table.sql.expressions import (
    _AGGREGATES,
    _DIALECT,
    _NILADIC,
    _STATE,
    _aggregate,
    _expression,
    _scope_of,
)
from millstream.table.sql.parser import SqlError

__all__ = ["definitions", "measures"]

# Java's default of a primitive type: what Flink's generated code reads of a missing row of a
# NOT NULL column (a NOT NULL value is never checked for NULL)
_JAVA_DEFAULTS: dict[str, Any] = {
    "TINYINT": 0,
    "SMALLINT": 0,
    "INT": 0,
    "BIGINT": 0,
    "FLOAT": 0.0,
    "DOUBLE": 0.0,
    "BOOLEAN": False,
    "CHAR": "",
    "VARCHAR": "",
}


@dataclass
class _Part:
    """A value read off the match, and how the plan prints it in MEASURES and in DEFINE."""

    part: Navigation | PatternAggregate | MatchTime
    data_type: DataType
    text: str


class _Clause:
    """The expressions of one DEFINE condition (``defined``: its variable) or of MEASURES
    (``defined`` None) over the rows of ``plan`` (the input)."""

    def __init__(self, plan: PlanNode, variables: list[str], defined: str | None, streaming: bool) -> None:
        self.plan, self.variables, self.defined, self.streaming = plan, variables, defined, streaming
        self.parts: list[_Part] = []

    # the rewrite: values of the match become placeholder columns

    def rewrite(self, node: exp.Expression) -> exp.Expression:
        return node.transform(self._replace)

    def _replace(self, node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column):
            variable = node.table or None
            if variable is not None and variable not in self.variables:
                raise SqlError(f"Table '{variable}' not found")
            if node.name not in self.plan.names:
                if variable is not None:
                    raise SqlError(f"Column '{node.name}' not found in table '{variable}'")
                if node.name.upper() in _NILADIC or node.this.quoted:
                    return node  # a call without parentheses (CURRENT_TIME)
                raise SqlError(f"Column '{node.name}' not found in any table")
            return self._navigation(variable, False, 0, _stripped(node, self.variables), plain=True)
        if isinstance(node, exp.Anonymous):
            return self._call(node)
        if type(node) in _AGGREGATES:
            return self._aggregate(node)
        if isinstance(node, exp.Filter) and type(node.this) in _AGGREGATES:
            counted = _aggregate(_stripped(node.this, self.variables), None)
            typed = result_type(counted, self._on_row(counted.operand).data_type)
            raise SqlError(f"Unsupported call: FILTER({typed!r}, BOOLEAN) ")
        return node

    def _call(self, node: exp.Anonymous) -> exp.Expression:
        name = node.name.upper()
        args = list(node.expressions)
        if name in ("FIRST", "LAST", "PREV", "NEXT") and args:
            offset = _offset(args[1]) if len(args) > 1 else (1 if name in ("PREV", "NEXT") else 0)
            variable = self._variable_of(node, args[0], offset)
            if name in ("PREV", "NEXT"):
                if self.defined is None:
                    text = node.sql(dialect=_DIALECT, identify=True)
                    raise SqlError(f"Cannot use PREV/NEXT in MEASURE '{text}'")
                if offset != 0:
                    raise SqlError("Flink does not support physical offsets within partition.")
                return self._navigation(variable, False, 0, _stripped(args[0], self.variables), plain=True)
            inner = _stripped(args[0], self.variables)
            return self._navigation(variable, name == "FIRST", offset, inner, plain=False)
        if name in ("MATCH_ROWTIME", "MATCH_PROCTIME"):
            return self._time(name, args)
        if name == "CLASSIFIER":
            raise SqlError("Unsupported call: CLASSIFIER() ")
        if name == "FINAL" and len(args) == 1:
            return self.rewrite(args[0])
        return node

    def _variable_of(self, call: exp.Expression, argument: exp.Expression, offset: int | None) -> str | None:
        """The one variable ``argument`` reads (None: every variable's rows)."""
        named = {c.table for c in argument.find_all(exp.Column) if c.table}
        if len(named) > 1:
            text = call.sql(dialect=_DIALECT, identify=True)
            if offset is not None and isinstance(call, exp.Anonymous) and len(call.expressions) == 1:
                text = f"{text[:-1]}, {offset})"
            raise SqlError(f"Multiple pattern variables in '{text}'")
        for variable in named:
            if variable not in self.variables:
                raise SqlError(f"Table '{variable}' not found")
        return next(iter(named), None)

    def _placeholder(self, part: _Part) -> exp.Expression:
        self.parts.append(part)
        return exp.Column(this=exp.Identifier(this=f"$p{len(self.parts) - 1}", quoted=True))

    def _navigation(
        self, variable: str | None, first: bool, offset: int, inner: exp.Expression, plain: bool
    ) -> exp.Expression:
        compiled = self._on_row(inner)
        default = None if compiled.data_type.is_nullable() else _JAVA_DEFAULTS.get(compiled.data_type.root)
        part = Navigation(variable, first, offset, compiled.fn, default)
        if plain:
            text = self._row_text(compiled.expression, variable)
            if self.defined is not None:
                text = f"{'PREV' if variable == self.defined else 'LAST'}({text}, 0)"
        else:  # Calcite navigates each operand: LAST(A.x * 2) prints *(LAST(A.x, 0), LAST(2, 0))
            function = "FIRST" if first else "LAST"
            leaves: list[Expression] = []

            def leaf(x: Any) -> Any:
                if type(x) in (_Column, _Literal):
                    leaves.append(x)
                    return col(f"$leaf{len(leaves) - 1}")
                return None

            marked = replaced(compiled.expression, leaf, top_down=True)
            shown = {f"$leaf{i}": self._row_text(x, variable) for i, x in enumerate(leaves)}
            text = render(_flat(marked), lambda n: f"{function}({shown[n]}, {offset})", False)
        return self._placeholder(_Part(part, compiled.data_type, text))

    def _aggregate(self, node: exp.Expression) -> exp.Expression:
        operand = node.this
        if isinstance(operand, exp.Distinct):
            text = node.sql(dialect=_DIALECT, identify=True)
            raise SqlError(f"DISTINCT/ALL not allowed with {text} function")
        variable = self._variable_of(node, node, None)
        call = _aggregate(_stripped(node, self.variables), None)
        compiled = self._on_row(call.operand)
        typed = result_type(call, compiled.data_type)
        spec = accumulator_spec(call, compiled.data_type, typed, reduced=True)
        part = PatternAggregate(variable, spec, compiled.fn, compiled.data_type)
        argument = "" if call.function == "COUNT" and isinstance(operand, exp.Star) else None
        shown = self._row_text(compiled.expression, variable) if argument is None else argument
        text = f"{call.function}({shown})"
        if call.function == "AVG":  # Calcite reduces it to SUM / COUNT in the operand's type
            text = f"CAST(/(SUM({shown}), COUNT({shown})) AS {_sql_type(typed)})"
        return self._placeholder(_Part(part, typed, text))

    def _time(self, name: str, args: list[exp.Expression]) -> exp.Expression:
        if name == "MATCH_PROCTIME":
            proctime = _Part(MatchTime(None), DataTypes.TIMESTAMP_LTZ(3, False), "MATCH_PROCTIME()")
            return self._placeholder(proctime)
        if not args:
            rowtime = _Part(MatchTime("TIMESTAMP"), DataTypes.TIMESTAMP(3, False), "MATCH_ROWTIME()")
            return self._placeholder(rowtime)
        column = args[0]
        if not isinstance(column, exp.Column) or column.name not in self.plan.names:
            raise SqlError(f"MATCH_ROWTIME takes a rowtime attribute, not {column.sql()}")
        index = self.plan.names.index(column.name)
        if index != self.plan.rowtime:
            raise SqlError(f"MATCH_ROWTIME takes a rowtime attribute: '{column.name}' is not the input's")
        data_type = self.plan.types[index]
        return self._placeholder(
            _Part(MatchTime(data_type.root), data_type, f"MATCH_ROWTIME(*.{column.name})")
        )

    # compiling

    def _on_row(self, node: exp.Expression | Expression) -> _Compiled:
        """``node`` (its variables stripped) compiled over a row of the input."""
        expression = node if isinstance(node, Expression) else _in_scope(self.plan, node)
        resolved = expression.resolve(list(self.plan.names), list(self.plan.types))
        return _Compiled(expression, resolved.fn, resolved.data_type)

    def _row_text(self, expression: Expression, variable: str | None) -> str:
        """An expression of a row as the plan prints it: ``A.price`` in MEASURES (a rowtime
        materialized: ``CAST(A.ts AS TIMESTAMP(3))``), ``A.$2`` in DEFINE."""
        names, prefix = list(self.plan.names), variable or "*"

        def ref(name: str) -> str:
            if name not in names:
                return name
            if self.defined is not None:
                return f"{prefix}.${names.index(name)}"
            index = names.index(name)
            if self.streaming and index == self.plan.rowtime:
                return f"CAST({prefix}.{name} AS {self.plan.types[index].nullable()!r})"
            return f"{prefix}.{name}"

        return render(_flat(expression), ref, False)

    def compile(self, node: exp.Expression) -> tuple[Expression, Any, DataType, str]:
        """``node`` with its values of the match as placeholder columns: the expression, its
        function over the placeholders' values, its type, its text as the plan prints it."""
        rewritten = self.rewrite(node.copy())
        names = [f"$p{i}" for i in range(len(self.parts))]
        _STATE.scopes.append({(None, n): n for n in names})
        try:
            expression = _expression(rewritten)
        finally:
            _STATE.scopes.pop()
        resolved = expression.resolve(names, [p.data_type for p in self.parts])
        texts = {n: p.text for n, p in zip(names, self.parts, strict=True)}
        text = render(_flat(expression), lambda n: texts.get(n, n), False)
        return expression, resolved.fn, resolved.data_type, text

    def expression(self, fn: Callable[[tuple[Any, ...]], Any]) -> PatternExpression:
        return PatternExpression([p.part for p in self.parts], fn, self.defined)


@dataclass(frozen=True)
class _Compiled:
    expression: Expression
    fn: Callable[[tuple[Any, ...]], Any]
    data_type: DataType


def _in_scope(plan: PlanNode, node: exp.Expression) -> Expression:
    """``node`` as an expression of the input's columns."""
    _STATE.scopes.append(_scope_of(plan, None))
    try:
        return _expression(node)
    finally:
        _STATE.scopes.pop()


def _stripped(node: exp.Expression, variables: list[str]) -> exp.Expression:
    """``node`` with ``A.price`` read as the row's ``price``."""

    def strip(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Column) and n.table in variables:
            return exp.Column(this=n.this.copy())
        return n

    return node.copy().transform(strip)


def _flat(expression: Expression) -> Expression:
    """``expression`` with nested ANDs (ORs) as one, as Calcite prints them: AND(a, b, c)."""

    def flatten(x: Any) -> Any:
        if type(x) is not _Logic or not any(type(o) is _Logic and o.op == x.op for o in x.operands):
            return None
        same = [o.operands if type(o) is _Logic and o.op == x.op else [o] for o in x.operands]
        return _Logic(x.op, [operand for group in same for operand in group])

    return replaced(expression, flatten)


def _offset(node: exp.Expression) -> int:
    if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
        return int(node.this)
    raise SqlError(f"the offset of FIRST / LAST / PREV / NEXT is an integer literal, not {node.sql()}")


def _sql_type(data_type: DataType) -> str:
    """A type as Calcite prints it in a CAST (INTEGER for INT)."""
    text = repr(data_type.nullable())
    return "INTEGER" if text == "INT" else text


def definitions(
    plan: PlanNode, clause: exp.Expression, variables: list[str], streaming: bool
) -> tuple[dict[str, PatternExpression], list[str], list[str]]:
    """The DEFINE conditions by variable (a variable the pattern does not name is ignored, as
    Flink ignores it) and their texts, physical (``A=...``) and logical."""
    conditions: dict[str, PatternExpression] = {}
    texts, logical = [], []
    for item in clause.args.get("define") or []:
        if not isinstance(item, exp.Alias):
            raise SqlError(f"DEFINE takes 'variable AS condition', not {item.sql()}")
        variable = item.alias
        scope = _Clause(plan, variables, variable, streaming)
        _, fn, data_type, text = scope.compile(item.this)
        if data_type.root != "BOOLEAN":
            raise SqlError("DEFINE clause must be a condition")
        texts.append(f"{variable}={text}")
        logical.append(text)
        if variable in variables:
            conditions[variable] = scope.expression(fn)
    return conditions, texts, logical


def measures(
    plan: PlanNode, clause: exp.Expression, variables: list[str], partition: list[int], streaming: bool
) -> tuple[list[PatternExpression], list[str], list[DataType], list[str], tuple[int | None, int | None]]:
    """The MEASURES: their expressions, names, types, texts (``FINAL(A.id) AS a``) and which
    of them is the output's rowtime (``MATCH_ROWTIME()``) and proctime (``MATCH_PROCTIME()``)."""
    measures: list[PatternExpression] = []
    names: list[str] = []
    types: list[DataType] = []
    texts: list[str] = []
    rowtime = proctime = None
    for item in clause.args.get("measures") or []:
        aliased = item.this
        name = aliased.alias
        scope = _Clause(plan, variables, None, streaming)
        _, fn, data_type, text = scope.compile(aliased.this)
        if item.args.get("window_frame") == "RUNNING":
            raise SqlError(f"Unsupported call: RUNNING({data_type.nullable()!r}) ")
        if [p.text for p in scope.parts] == [text]:  # the value itself: MATCH_ROWTIME() ...
            kind = scope.parts[0].part
            if isinstance(kind, MatchTime) and kind.root is not None and rowtime is None:
                rowtime = len(names)
            if isinstance(kind, MatchTime) and kind.root is None and proctime is None:
                proctime = len(names)
        measures.append(scope.expression(fn))
        names.append(name)
        types.append(data_type)
        texts.append(f"FINAL({text}) AS {name}")
    keys = [plan.names[i] for i in partition]
    clashing = sorted({n for n in names if n in keys or names.count(n) > 1})
    if clashing or not names:
        raise SqlError(f"Columns ambiguously defined: {{{', '.join(clashing)}}}")
    return measures, names, types, texts, (rowtime, proctime)
