"""Vectorized Python scalar functions (``udf(..., func_type="pandas")``) and async scalar
functions (``runtime/async_calc.py``) in a Calc: calls evaluated once per chunk of rows.

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

import datetime
import operator
from collections.abc import Callable
from typing import Any

from millstream.common.user_code import ElementError
from millstream.table.common.types import DataType, RowType
from millstream.table.expression.expression import _Column
from millstream.table.expression.walk import children, replaced
from millstream.table.functions.udf import FunctionContext, _PandasScalar, _ScalarCall
from millstream.table.runtime.async_calc import AsyncColumn, AsyncOptions, CallFailed, is_async_call
from millstream.table.runtime.codegen import calc_function

__all__ = [
    "BatchedCallCalc",
    "bound_calls",
    "data_frame_of",
    "evaluate_one_row",
    "has_batched_call",
    "series_of",
]

DEFAULT_ARROW_BATCH_SIZE = 1000  # Flink's python.fn-execution.arrow.batch.size


def _is_pandas_call(expression: Any) -> bool:
    return type(expression) is _ScalarCall and isinstance(expression.wrapper._function, _PandasScalar)


def bound_calls(expression: Any) -> Any:
    """``expression`` with its calls of functions registered by name (SQL's ``f(x)``) bound
    to the function, so that pandas and async calls are seen as such."""
    from millstream.table.expression.calls import _NamedCall
    from millstream.table.functions.udf import UserDefinedScalarFunctionWrapper, registered_function

    def bind(node: Any) -> Any:
        if type(node) is not _NamedCall:
            return None
        function = registered_function(node.function_name)
        return function(*node.args) if isinstance(function, UserDefinedScalarFunctionWrapper) else None

    return replaced(expression, bind)


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


def series_of(values: list[Any], data_type: DataType) -> Any:
    """A column's values as PyFlink hands them to a pandas function: through Arrow."""
    import pyarrow as pa

    if isinstance(data_type, RowType):
        import pandas as pd

        names = data_type.field_names()
        columns = [
            series_of([None if v is None else v[i] for v in values], t).rename(n)
            for i, (n, t) in enumerate(zip(names, data_type.field_types(), strict=True))
        ]
        return pd.concat(columns, axis=1)
    arrow_type = _arrow_type(data_type)
    return pa.array(values, type=arrow_type).to_pandas(date_as_object=True)


def _arrow_type(data_type: DataType) -> Any:
    import pyarrow as pa

    if data_type.root in ("TIMESTAMP", "TIMESTAMP_LTZ"):  # naive wall-clock values (common/timestamps.py)
        return pa.timestamp("us")
    if data_type.root == "NULL":
        return pa.null()
    try:
        return data_type.to_arrow()
    except (KeyError, AttributeError, TypeError):
        return None  # Arrow infers it


def data_frame_of(names: list[str], types: list[DataType], rows: list[tuple[Any, ...]]) -> Any:
    """A table's rows as the pandas DataFrame ``Table.to_pandas`` returns: through Arrow, typed
    as PyFlink's ``to_arrow_type`` types the columns (INT int32, FLOAT float32, TIMESTAMP(p)
    in seconds, ms, us or ns by its precision), TIMESTAMP_LTZ columns localized to the session
    (this process's) time zone; no rows: an empty frame of the columns, as PyFlink's."""
    import pandas as pd
    import pyarrow as pa

    if not rows:
        return pd.DataFrame.from_records([], columns=names)
    arrays = [pa.array([r[i] for r in rows], type=_pandas_arrow_type(t)) for i, t in enumerate(types)]
    frame = pa.Table.from_arrays(arrays, names=[f"${i}" for i in range(len(names))]).to_pandas()
    frame.columns = list(names)  # the names as they are (a duplicate too)
    zone = datetime.datetime.now().astimezone().tzinfo
    for i, t in enumerate(types):
        if t.root == "TIMESTAMP_LTZ":
            frame[frame.columns[i]] = frame.iloc[:, i].dt.tz_localize(zone)
    return frame


def _pandas_arrow_type(data_type: DataType) -> Any:
    import pyarrow as pa

    root, params = data_type.root, data_type.params
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ", "TIME"):
        precision = int(params[0]) if params else (6 if root != "TIME" else 0)
        unit = "s" if precision == 0 else "ms" if precision <= 3 else "us" if precision <= 6 else "ns"
        if root != "TIME":
            return pa.timestamp(unit)
        return pa.time32(unit) if unit in ("s", "ms") else pa.time64(unit)
    return _arrow_type(data_type)


def _values(result: Any, data_type: DataType) -> list[Any]:
    """The function's Series (a DataFrame for a ROW result) as the column's Python values."""
    import pandas as pd
    import pyarrow as pa

    if isinstance(result, pd.DataFrame):
        if not isinstance(data_type, RowType):
            raise TypeError(f"a pandas UDF returned a DataFrame for a {data_type!r} result")
        columns = [_values(result[result.columns[i]], t) for i, t in enumerate(data_type.field_types())]
        return list(zip(*columns, strict=True)) if columns else [() for _ in range(len(result))]
    array = pa.Array.from_pandas(result, mask=result.isnull(), type=_arrow_type(data_type))
    values: list[Any] = array.to_pylist()
    return values


def evaluate_one_row(
    function: _PandasScalar,
    name: str,
    arg_types: list[DataType],
    result_type: DataType,
    args: tuple[Any, ...],
) -> Any:
    """A pandas call outside a Calc: Series of one value each, the Series' one result."""
    import pandas as pd

    result = function.function(*(series_of([a], t) for a, t in zip(args, arg_types, strict=True)))
    if not isinstance(result, (pd.Series, pd.DataFrame)):
        raise TypeError(
            f"The result type of Pandas UDF '{name}' must be pandas.Series or "
            f"pandas.DataFrame, got {type(result)}"
        )
    if len(result) != 1:
        raise ValueError(
            f"The result length '{len(result)}' of Pandas UDF '{name}' is not equal to the input length '1'"
        )
    return _values(result, result_type)[0]


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
                column = AsyncColumn(node, extended_names, extended_types, async_options or AsyncOptions())
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
