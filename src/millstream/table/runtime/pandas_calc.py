"""Vectorized Python scalar functions (``udf(..., func_type="pandas")``) and async scalar
functions (``functions/async_calls.py``) in a Calc: calls evaluated once per chunk of rows.

Flink runs a Calc whose expressions call pandas UDFs in its Arrow Python operator: the
arguments of up to ``python.fn-execution.arrow.batch.size`` rows (default 1000) go to the
function as pandas Series (a ROW argument as a DataFrame), converted from Arrow arrays as
PyFlink's ``arrow_to_pandas`` does (a BIGINT column with NULLs becomes a float Series with
NaN), and the Series it returns (of the same length) comes back through
``pa.Array.from_pandas(s, mask=s.isnull(), type=t)``. The same happens here over each batch of
rows the operator receives:

1. a condition without pandas (or async) calls filters the batch first (row-at-a-time
   generated code), so the functions see only the rows kept;
2. every pandas or async call is evaluated once per chunk of rows, innermost calls first; its
   result becomes an extra column of the rows (``$batched0``, ``$batched1`` ...);
3. the condition (if it has such calls) and the projection run as generated code over the
   rows with those columns, the calls replaced by references to them.

A pandas call anywhere else (an aggregate's argument, a join condition) is evaluated with
Series of one row (``evaluate_one_row``): the same results, without the batch.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from millstream.common.user_code import ElementError
from millstream.table.common.types import DataType
from millstream.table.expression.expression import _Column
from millstream.table.expression.walk import children, replaced
from millstream.table.functions.async_calls import AsyncColumn, AsyncOptions, CallFailed
from millstream.table.functions.lookup import _NamedCall
from millstream.table.functions.pandas_values import _values, series_of
from millstream.table.functions.udf import (
    FunctionContext,
    UserDefinedAsyncScalarFunctionWrapper,
    UserDefinedScalarFunctionWrapper,
    _PandasScalar,
    _ScalarCall,
    registered_function,
)
from millstream.table.runtime.codegen import calc_function

__all__ = ["BatchedCallCalc", "bound_calls", "has_batched_call"]

DEFAULT_ARROW_BATCH_SIZE = 1000  # Flink's python.fn-execution.arrow.batch.size


def _is_pandas_call(expression: Any) -> bool:
    return type(expression) is _ScalarCall and isinstance(expression.wrapper._function, _PandasScalar)


def bound_calls(expression: Any) -> Any:
    """``expression`` with its calls of functions registered by name (SQL's ``f(x)``) bound
    to the function, so that pandas and async calls are seen as such."""

    def bind(node: Any) -> Any:
        if type(node) is not _NamedCall:
            return None
        function = registered_function(node.function_name)
        return function(*node.args) if isinstance(function, UserDefinedScalarFunctionWrapper) else None

    return replaced(expression, bind)


def is_async_call(expression: Any) -> bool:
    """Whether ``expression`` is a call of an async scalar function."""
    wrapper = getattr(expression, "wrapper", None) if type(expression) is _ScalarCall else None
    return isinstance(wrapper, UserDefinedAsyncScalarFunctionWrapper)


def _is_batched_call(expression: Any) -> bool:
    return _is_pandas_call(expression) or is_async_call(expression)


def has_batched_call(expression: Any) -> bool:
    """Whether ``expression`` calls a pandas or an async scalar function anywhere."""
    return _is_batched_call(expression) or any(has_batched_call(c) for c in children(expression))


class _PandasColumn:
    """One pandas call: its function, argument expressions (over the row and the earlier
    calls' columns) and result type."""

    def __init__(self, call: Any, names: list[str], types: list[DataType]) -> None:
        self.function: _PandasScalar = call.wrapper._function
        self.name = call.wrapper._name
        self.result_type: DataType = call.wrapper.result_type
        compiled = [a.resolve(names, types) for a in call.args]
        self.arg_types = [c.data_type for c in compiled]
        # a plain column argument is read by index, anything else through its closure
        self.arg_fns: list[Callable[[tuple[Any, ...]], Any]] = []
        for argument, c in zip(call.args, compiled, strict=True):
            if type(argument) is _Column and argument.name in names:
                index = names.index(argument.name)
                self.arg_fns.append(operator.itemgetter(index))
            else:
                self.arg_fns.append(c.fn)

    def evaluate(self, rows: list[tuple[Any, ...]]) -> list[Any]:
        """The function's results for ``rows``, one per row."""
        # pandas is optional (only the [spark] extra installs it): imported when a pandas function runs
        import pandas as pd

        series = [
            series_of([fn(r) for r in rows], t) for fn, t in zip(self.arg_fns, self.arg_types, strict=True)
        ]
        result = self.function.function(*series)
        if not isinstance(result, (pd.Series, pd.DataFrame)):
            raise TypeError(
                f"The result type of Pandas UDF '{self.name}' must be pandas.Series or "
                f"pandas.DataFrame, got {type(result)}"
            )
        if len(result) != len(rows):
            raise ValueError(
                f"The result length '{len(result)}' of Pandas UDF '{self.name}' is not equal to "
                f"the input length '{len(rows)}'"
            )
        return _values(result, self.result_type)


class BatchedCallCalc:
    """``fn(values) -> (outputs, kept)`` for the batch operator: a Calc calling pandas or
    async UDFs, each call evaluated once per chunk of at most ``batch_size`` rows. The task
    calls ``open`` and ``close`` (the async functions' own, and their event loop)."""

    def __init__(
        self,
        names: list[str],
        types: list[DataType],
        condition: Any | None,
        projection: list[Any] | None,
        batch_size: int = DEFAULT_ARROW_BATCH_SIZE,
        async_options: AsyncOptions | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"python.fn-execution.arrow.batch.size must be positive, got {batch_size}")
        self.batch_size = batch_size
        names, types = list(names), list(types)
        pre_filter = condition is not None and not has_batched_call(condition)
        # a condition without such calls filters first, so the functions see only kept rows
        self._filter = calc_function(names, types, condition, None) if pre_filter else None
        self.columns: list[_PandasColumn | AsyncColumn] = []
        extended_names, extended_types = list(names), list(types)

        def extract(node: Any) -> Any:
            if not _is_batched_call(node):
                return None
            column: _PandasColumn | AsyncColumn
            if _is_pandas_call(node):
                column = _PandasColumn(node, extended_names, extended_types)
            else:
                options = async_options or AsyncOptions()
                column = AsyncColumn(node.wrapper, node.args, extended_names, extended_types, options)
            name = f"$batched{len(self.columns)}"
            self.columns.append(column)
            extended_names.append(name)
            extended_types.append(column.result_type)
            return _Column(name)

        late_condition = None if pre_filter or condition is None else replaced(condition, extract)
        late_projection = None if projection is None else [replaced(p, extract) for p in projection]
        self._calc = calc_function(extended_names, extended_types, late_condition, late_projection)

    def open(self, runtime_context: Any) -> None:
        """Open the async functions (each on its own event loop)."""
        for column in self.columns:
            if isinstance(column, AsyncColumn):
                column.open(FunctionContext())

    def close(self) -> None:
        """Close the async functions."""
        for column in self.columns:
            if isinstance(column, AsyncColumn):
                column.close()

    def __call__(self, values: list[Any]) -> tuple[list[Any], list[int] | None]:
        kept: list[int] | None = None
        if self._filter is not None:
            keep = self._filter
            kept = [i for i, change in enumerate(values) if keep(change)]
            if len(kept) == len(values):
                kept = None
            else:
                values = [values[i] for i in kept]
        out: list[Any] = []
        taken: list[int] = []
        calc = self._calc
        step = self.batch_size
        for start in range(0, len(values), step):
            chunk = values[start : start + step]
            rows = [change[1] for change in chunk]
            for column in self.columns:
                try:
                    results = column.evaluate(rows)
                except CallFailed as failed:  # name the row whose call failed
                    offset = start + failed.offset
                    raise ElementError(kept[offset] if kept is not None else offset) from failed.__cause__
                rows = [r + (v,) for r, v in zip(rows, results, strict=True)]
            for offset, (change, row) in enumerate(zip(chunk, rows, strict=True)):
                produced = calc((change[0], row))
                if produced:
                    out.extend(produced)
                    taken.append(start + offset)
        if len(taken) == len(values):
            return out, kept
        return out, [kept[i] for i in taken] if kept is not None else taken
