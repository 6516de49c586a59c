"""Aggregate calls as an aggregation runs them: what accumulates a call's values (a built-in's
name, ``FILTERED`` / ``DISTINCT`` prefixed, for ``accumulator_for``, or a user-defined
function's accumulator) and the call's result type (Flink's rules for each built-in aggregate,
the declared type of a user's), and the accumulator of a built-in by that name."""

from __future__ import annotations

from typing import Any

from millstream.table.common.types import DataType
from millstream.table.expression.expression import AggregateCall
from millstream.table.expression.resolved import aggregate_result_type
from millstream.table.functions.aggregates import (
    _INTEGRAL,
    DISTINCT,
    FILTERED,
    Accumulator,
    _Avg,
    _Count,
    _DecimalAvg,
    _Distinct,
    _Extreme,
    _Filtered,
    _RetractingExtreme,
    _Sum,
)
from millstream.table.functions.aggregates_more import more_accumulator, more_result_type
from millstream.table.functions.udf import UserAggregateCall

__all__ = ["accumulator_for", "accumulator_spec", "result_type"]


def accumulator_spec(call: AggregateCall, operand_type: DataType) -> Any:
    """What the aggregation runs for ``call`` over values of ``operand_type``."""
    if isinstance(call, UserAggregateCall):
        return call.accumulator_spec(operand_type)
    return (
        (FILTERED if call.where is not None else "") + (DISTINCT if call.is_distinct else "") + call.function
    )


def result_type(call: AggregateCall, operand_type: DataType) -> DataType:
    """Flink's result type of ``call`` over values of ``operand_type``."""
    if isinstance(call, UserAggregateCall):
        return call.result_type(operand_type)
    return aggregate_result_type(call.function, operand_type, more_result_type)


def accumulator_for(function: str, data_type: DataType, retracting: bool) -> Accumulator:
    """The accumulator of ``function`` (COUNT, SUM, AVG, MIN, MAX, each maybe ``DISTINCT`` and
    ``FILTERED``) over values of ``data_type``; ``retracting``: the input is an updating
    changelog (MIN/MAX then keep every value)."""
    if function.startswith(FILTERED):
        return _Filtered(accumulator_for(function[len(FILTERED) :], data_type, retracting))
    if function.startswith(DISTINCT) and not (function == "DISTINCT AVG" and data_type.root in _INTEGRAL):
        return _Distinct(accumulator_for(function[len(DISTINCT) :], data_type, False))
    if function == "COUNT":
        return _Count()
    if function == "SUM":
        return _Sum(data_type.root)
    if function == "AVG":
        if data_type.root == "DECIMAL":
            return _DecimalAvg(max(6, int(data_type.params[1])))
        return _Avg(data_type.root)
    if function == "DISTINCT AVG" and data_type.root in _INTEGRAL:  # Flink sums distinct integers in a BIGINT
        return _Distinct(_Avg("BIGINT", data_type.root))
    if function in ("MIN", "MAX"):
        pick = min if function == "MIN" else max
        return _RetractingExtreme(pick) if retracting else _Extreme(pick)
    more = more_accumulator(function, data_type)
    if more is None:
        raise ValueError(f"unknown aggregate function {function}")
    return more
