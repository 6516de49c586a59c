"""Aggregate calls as an aggregation runs them: what accumulates a call's values (a built-in's
name, ``NOT NULL`` / ``FILTERED`` / ``SORTED`` / ``DISTINCT`` prefixed, for
``accumulator_for``, or a user-defined function's accumulator) and the call's result type
(Flink's rules for each built-in aggregate, the declared type of a user's), and the
accumulator of a built-in by that name."""

from __future__ import annotations

from typing import Any

from millstream.table.common.types import DataType
from millstream.table.common.variant import check_orderable
from millstream.table.expression.expression import AggregateCall
from millstream.table.expression.resolved import aggregate_result_type
from millstream.table.functions.aggregates import (
    _INTEGRAL,
    DISTINCT,
    FILTERED,
    NOT_NULL,
    SORTED,
    Accumulator,
    _Avg,
    _Count,
    _DecimalAvg,
    _Distinct,
    _Extreme,
    _Filtered,
    _NotNull,
    _RetractingExtreme,
    _Sum,
)
from millstream.table.functions.aggregates_more import (
    VARIANCES,
    keeps_nullability,
    may_be_null,
    more_accumulator,
    more_result_type,
)
from millstream.table.functions.udf import UserAggregateCall

__all__ = ["REDUCED_AVG", "accumulator_for", "accumulator_spec", "reduces_averages", "result_type"]

REDUCED_AVG = "AVG REDUCED"  # AVG as SUM(x) / COUNT(x) in x's type (beside a variance)


def reduces_averages(calls: list[AggregateCall]) -> bool:
    """Whether Calcite's AggregateReduceFunctionsRule rewrites an aggregation of ``calls``: one
    of them is a variance or a standard deviation (then AVG is reduced too)."""
    return any(not isinstance(c, UserAggregateCall) and c.function in VARIANCES for c in calls)


def accumulator_spec(
    call: AggregateCall,
    operand_type: DataType,
    result: DataType | None = None,
    ordered: bool = False,
    reduced: bool = False,
) -> Any:
    """What the aggregation runs for ``call`` over values of ``operand_type``: ``result``, the
    call's result type (a NOT NULL one may need Java's default for a NULL it computes);
    ``ordered``: a DISTINCT call folds its distinct values in ascending order (BATCH's);
    ``reduced``: the aggregation holds a variance, so Calcite's AggregateReduceFunctionsRule
    makes AVG a SUM in the operand's type (wrapping) by a COUNT (PyFlink 2.3.0 averages the
    TINYINTs 127 and 1 to 64 alone, to -64 beside VAR_POP)."""
    if isinstance(call, UserAggregateCall):
        return call.accumulator_spec(operand_type)
    function = REDUCED_AVG if reduced and call.function == "AVG" else call.function
    spec = (
        (FILTERED if call.where is not None else "")
        + (SORTED if ordered and call.is_distinct else "")
        + (DISTINCT if call.is_distinct else "")
        + function
    )
    if result is not None and not result.is_nullable() and may_be_null(call.function, operand_type):
        return NOT_NULL + spec
    return spec


def result_type(call: AggregateCall, operand_type: DataType, grouped: bool = False) -> DataType:
    """Flink's result type of ``call`` over values of ``operand_type``; ``grouped``: in a group
    that is never empty (a GROUP BY's, an OVER window's that always holds its row), where a
    NOT NULL operand makes SUM, AVG, MIN, MAX, FIRST_VALUE, LAST_VALUE and the variances NOT
    NULL when there is no FILTER (PyFlink 2.3.0 types SUM(x) GROUP BY k INT NOT NULL, and INT
    without the GROUP BY)."""
    if isinstance(call, UserAggregateCall):
        return call.result_type(operand_type)
    if call.is_distinct:  # DISTINCT groups the values
        check_orderable(operand_type)
    if call.function in ("MIN", "MAX") and operand_type.root == "VARIANT":  # PyFlink 2.3.0's message
        raise TypeError(
            f"{call.function.capitalize()} aggregate function does not support type: ''VARIANT''."
        )
    typed = aggregate_result_type(call.function, operand_type, more_result_type)
    if grouped and call.where is None and not operand_type.is_nullable() and keeps_nullability(call.function):
        return typed.not_null()
    return typed


def accumulator_for(function: str, data_type: DataType, retracting: bool) -> Accumulator:
    """The accumulator of ``function`` (COUNT, SUM, AVG, MIN, MAX ..., each maybe ``DISTINCT``
    (``SORTED``), ``FILTERED`` and ``NOT NULL``) over values of ``data_type``; ``retracting``:
    the input is an updating changelog (MIN/MAX then keep every value)."""
    if function.startswith(NOT_NULL):
        inner = function[len(NOT_NULL) :]
        return _NotNull(accumulator_for(inner, data_type, retracting), inner, _result_root(inner, data_type))
    if function.startswith(FILTERED):
        return _Filtered(accumulator_for(function[len(FILTERED) :], data_type, retracting))
    ordered = function.startswith(SORTED)
    if ordered:
        function = function[len(SORTED) :]
    if function.startswith(DISTINCT) and not (function == "DISTINCT AVG" and data_type.root in _INTEGRAL):
        return _Distinct(accumulator_for(function[len(DISTINCT) :], data_type, False), ordered)
    if function == "COUNT":
        return _Count()
    if function == "SUM":
        return _Sum(data_type.root)
    if function in ("AVG", "DISTINCT AVG"):
        average = _average(data_type)
        return average if function == "AVG" else _Distinct(average, ordered)
    if function in (REDUCED_AVG, DISTINCT + REDUCED_AVG):  # SUM(x) / COUNT(x), in x's type
        summed = _Avg(data_type.root) if data_type.root in _INTEGRAL else _average(data_type)
        return summed if function == REDUCED_AVG else _Distinct(summed, ordered)
    if function in ("MIN", "MAX"):
        pick = min if function == "MIN" else max
        return _RetractingExtreme(pick) if retracting else _Extreme(pick)
    more = more_accumulator(function, data_type)
    if more is None:
        raise ValueError(f"unknown aggregate function {function}")
    return more


def _average(data_type: DataType) -> Accumulator:
    """AVG's accumulator: a DECIMAL's to DECIMAL(38, max(6, s)), integers summed in a BIGINT
    (PyFlink 2.3.0 averages the TINYINTs 127 and 127 to 127), then divided as Java divides."""
    if data_type.root == "DECIMAL":
        return _DecimalAvg(max(6, int(data_type.params[1])))
    if data_type.root in _INTEGRAL:
        return _Avg("BIGINT", data_type.root)
    return _Avg(data_type.root)


def _result_root(function: str, data_type: DataType) -> str:
    bare = function.split(DISTINCT)[-1].replace(REDUCED_AVG, "AVG")
    return aggregate_result_type(bare, data_type, more_result_type).root
