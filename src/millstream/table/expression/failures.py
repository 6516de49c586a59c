"""Which expression of a Calc failed on a row, said in one line.

Flink's generated code fails with the exception of the function that failed (``For input
string: 'abc'. Invalid character found.``) under its Calc operator. A Calc here runs its
expressions as one generated function (``runtime/codegen.py``) or on Arrow batches
(``runtime/vectorized.py``); when a row fails, ``evaluation_error`` finds the innermost
expression that raises on it through the expressions' closures (only then: the rows that
pass pay nothing) and names it, the Calc and the row:

    Could not evaluate CAST(s AS INT) in Calc(select=[CAST(s AS INT) AS i]) (subtask
    Source: Values -> FlatMap (1/1)#0) on row +I[abc]: For input string: 'abc'. Invalid
    character found.

The runtime wraps a function's error with its operator and subtask (``UserFunctionError``);
an ``EvaluationError`` says what failed itself and gets the subtask from it
(``describe_failure``). An exception raised in a user's own function (a Python UDF) is left
as it is: its traceback is what the user needs.
"""

from __future__ import annotations

import decimal
import os
from collections.abc import Sequence
from typing import Any

import millstream
from millstream.table.common.printing import row_to_string, summary_string
from millstream.table.common.types import DataType
from millstream.table.expression.walk import children

__all__ = ["EvaluationError", "describe_calc", "evaluation_error", "sql_text"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(millstream.__file__)) + os.sep
_GENERATED = "<millstream calc>"


class EvaluationError(ArithmeticError):
    """A SQL expression could not be evaluated on a row (a CAST of a malformed string, a
    division by zero ...): names the expression, its Calc and the row."""

    def __init__(self, expression: str, calc: str, row: str, reason: str) -> None:
        super().__init__(f"Could not evaluate {expression} in {calc} on row {row}: {reason}")
        self.expression, self.calc, self.row, self.reason = expression, calc, row, reason

    def describe_failure(self, subtask: str) -> str:
        """The line of a failed job, with the subtask the runtime ran the Calc in."""
        where = f"{self.calc} (subtask {subtask})"
        return f"Could not evaluate {self.expression} in {where} on row {self.row}: {self.reason}"


def describe_calc(condition: Any | None, projection: Sequence[Any] | None) -> str:
    """``Calc(select=[a, CAST(s AS INT) AS i], where=[(a > 1)])`` as Flink names a Calc."""
    parts = []
    if projection is not None:
        parts.append(f"select=[{', '.join(map(sql_text, projection))}]")
    if condition is not None:
        parts.append(f"where=[{sql_text(condition)}]")
    return f"Calc({', '.join(parts)})"


def _literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return str(value) if isinstance(value, (int, float, decimal.Decimal)) else repr(value)


def sql_text(expression: Any) -> str:
    """``expression`` written as SQL: ``CAST(s AS INT)``, ``(a + 1)``, ``UPPER(s) AS u``."""
    kind = type(expression).__name__
    operand = getattr(expression, "operand", None)
    if kind == "_Column":
        return str(expression.name)
    if kind == "_Literal":
        return _literal(expression.value)
    if kind == "_Alias":
        return f"{sql_text(operand)} AS {expression.name}"
    if kind == "_Binary":
        return f"({sql_text(expression.left)} {expression.op} {sql_text(expression.right)})"
    if kind == "_Negate":
        return f"-({sql_text(operand)})"
    if kind == "_Logic":
        return "(" + f" {expression.op} ".join(sql_text(o) for o in expression.operands) + ")"
    if kind == "_Not":
        return f"NOT({sql_text(operand)})"
    if kind == "_IsNull":
        return f"{sql_text(operand)} IS {'' if expression.null else 'NOT '}NULL"
    if kind == "_Cast":
        function = "TRY_CAST" if expression.safe else "CAST"
        return f"{function}({sql_text(operand)} AS {summary_string(expression.data_type.nullable())})"
    if kind == "_IfThenElse":
        return (
            f"CASE WHEN {sql_text(expression.condition)} THEN {sql_text(expression.then)} "
            f"ELSE {sql_text(expression.otherwise)} END"
        )
    arguments = getattr(expression, "args", None)
    name = getattr(expression, "name_", None) or getattr(getattr(expression, "wrapper", None), "_name", None)
    if name is not None and arguments is not None:  # a built-in or user function's call
        return f"{name}({', '.join(sql_text(a) for a in arguments)})"
    return repr(expression)


def _raised_by_the_engine(err: BaseException) -> bool:
    """Whether ``err`` was raised in millstream's code (or generated code), not in a user's."""
    tb, last = err.__traceback__, None
    while tb is not None:
        last, tb = tb, tb.tb_next
    if last is None:
        return True
    filename = last.tb_frame.f_code.co_filename
    return filename == _GENERATED or os.path.abspath(filename).startswith(_PACKAGE_DIR)


def _failing(
    expression: Any, names: list[str], types: list[DataType], row: tuple[Any, ...]
) -> tuple[Any, BaseException] | None:
    """The innermost expression of ``expression`` that raises on ``row``, and what it raised."""
    try:
        expression.resolve(names, types).fn(row)
    except Exception as err:
        for child in children(expression):
            inner = _failing(child, names, types, row)
            if inner is not None:
                return inner
        return expression, err
    return None


def _reason(err: BaseException) -> str:
    text = str(err).strip()
    return text if text else type(err).__name__


def evaluation_error(
    names: list[str],
    types: list[DataType],
    condition: Any | None,
    projection: Sequence[Any] | None,
    change: tuple[str, tuple[Any, ...]],
    err: BaseException,
) -> BaseException:
    """What to raise for ``err``, raised evaluating the Calc on ``change``: an EvaluationError
    naming the innermost expression that fails on the row, or ``err`` itself when a user's
    function raised it or no expression fails on its own."""
    if not _raised_by_the_engine(err):
        return err
    kind, row = change
    for expression in ([condition] if condition is not None else []) + list(projection or []):
        found = _failing(expression, names, types, row)
        if found is not None:
            failed, cause = found
            if not _raised_by_the_engine(cause):
                return err
            text = sql_text(failed.operand if type(failed).__name__ == "_Alias" else failed)
            return EvaluationError(
                text, describe_calc(condition, projection), row_to_string(kind, row, types), _reason(cause)
            )
    return err
