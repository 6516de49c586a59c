"""User-defined functions of the Table API, as ``pyflink.table.udf``: ``udf`` (scalar) and
``udtf`` (table functions), with ``ScalarFunction`` / ``TableFunction`` to subclass.

``my_udf(col('a'), col('b'))`` is an expression (the function of the arguments' values);
``Table.map(my_udf)`` calls it with each whole row, ``Table.flat_map(my_udtf)`` and
``join_lateral`` take every row a table function yields. Functions run in the tasks, on
the values as PyFlink hands them (``int``, ``str``, ``Row`` ...). ``open(context)`` runs
once per task before the first call.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from typing import Any

from millstream.common.types import Row
from millstream.table.common.types import DataType, DataTypes, RowType
from millstream.table.expression.calls import _Tuple
from millstream.table.expression.expression import AggregateCall, Expression, lit
from millstream.table.expression.resolved import Compiled
from millstream.table.expression.unresolved import UnknownFunctionError
from millstream.table.functions.aggregates import _Filtered
from millstream.table.functions.async_calls import one_row_evaluator
from millstream.table.functions.pandas_values import evaluate_one_row, series_of
from millstream.table.functions.user_defined import (
    AsyncScalarFunction,
    FunctionContext,
    ScalarFunction,
    TableFunction,
)

__all__ = [
    "AggregateFunction",
    "AsyncScalarFunction",
    "FunctionContext",
    "ScalarFunction",
    "TableAggregateFunction",
    "TableFunction",
    "UserDefinedAsyncScalarFunctionWrapper",
    "UserDefinedScalarFunctionWrapper",
    "UserDefinedTableFunctionWrapper",
    "register_function",
    "registered_function",
    "udaf",
    "udf",
    "udtaf",
    "udtf",
]

# functions registered by name (create_temporary_function / create_temporary_system_function)
_REGISTERED: dict[str, Any] = {}


def register_function(name: str, function: Any) -> None:
    """Make ``function`` (a udf, udtf or udaf) callable by ``name`` from SQL and ``call(name)``."""
    if not isinstance(function, (UserDefinedScalarFunctionWrapper, UserDefinedTableFunctionWrapper,
                                 UserDefinedAggregateFunctionWrapper)):  # fmt: skip
        raise TypeError(f"create_temporary_function expects a udf, udtf or udaf, got {function!r}")
    _REGISTERED[name.lower()] = function


def unregister_function(name: str) -> bool:
    """Forget the function registered as ``name``; whether there was one."""
    return _REGISTERED.pop(name.lower(), None) is not None


def registered_function(name: str) -> Any:
    """The function registered as ``name`` (any case)."""
    function = _REGISTERED.get(name.lower())
    if function is None:
        raise UnknownFunctionError(name)
    return function


def _type(value: DataType | str) -> DataType:
    if isinstance(value, DataType):
        return value
    name = value.strip().upper()
    factory = getattr(DataTypes, name, None)
    if factory is None:
        raise ValueError(f"unknown type {value!r}: give a DataType")
    data_type: DataType = factory()
    return data_type


def in_declared_order(value: Any, names: list[str]) -> Any:
    """A function's ROW result as PyFlink's row coder writes it: a Row with field names by the
    declared fields' names (``Row(total=10, number=1)`` for ``ROW<number, total>`` is
    ``(1, 10)``), anything else (a tuple, a Row without names) by position."""
    if not isinstance(value, Row):
        return value
    fields = value._field_names()
    if fields is None or fields == names:
        return value
    missing = [n for n in names if n not in fields]
    if missing:
        raise ValueError(f"Field names {missing} not exist in {fields}.")  # PyFlink's message
    by_name = dict(zip(fields, value, strict=True))
    row = Row(*[by_name[n] for n in names])
    row.set_field_names(names)
    row.set_row_kind(value.get_row_kind())
    return row


class _Opened:
    """A user function opened on first use in its task (one instance per deserialized copy)."""

    def __init__(self, function: Any) -> None:
        self.function = function
        self._call: Callable[..., Any] | None = None

    def __call__(self, *args: Any) -> Any:
        call = self._call
        if call is None:
            function = self.function
            if isinstance(function, (ScalarFunction, TableFunction)):
                function.open(FunctionContext())
                call = function.eval
            else:
                call = function
            self._call = call
        return call(*args)

    def __getstate__(self) -> dict[str, Any]:
        return {"function": self.function, "_call": None}


class UserDefinedScalarFunctionWrapper:
    """A scalar function with its result type; calling it builds an expression."""

    def __init__(self, function: Any, result_type: DataType, name: str | None) -> None:
        self._function = function
        self._result_type = result_type
        self._name = name or getattr(function, "__name__", type(function).__name__)

    def __call__(self, *args: Any) -> Expression:
        return _ScalarCall(self, [a if isinstance(a, Expression) else lit(a) for a in args])

    @property
    def result_type(self) -> DataType:
        """The type of the values it returns."""
        return self._result_type

    @property
    def func_type(self) -> str:
        """``"pandas"`` for a vectorized function, else ``"general"``."""
        return "pandas" if isinstance(self._function, _PandasScalar) else "general"


class UserDefinedAsyncScalarFunctionWrapper(UserDefinedScalarFunctionWrapper):
    """An async scalar function (an ``AsyncScalarFunction`` or an ``async def``) with its
    result type."""


class _ScalarCall(Expression):
    def __init__(self, wrapper: UserDefinedScalarFunctionWrapper, args: list[Expression]) -> None:
        self.wrapper, self.args = wrapper, args

    def aggregates(self) -> list[Any]:
        return [a for arg in self.args for a in arg.aggregates()]

    def window_properties(self) -> list[Any]:
        return [p for arg in self.args for p in arg.window_properties()]

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        compiled = [a.resolve(names, types) for a in self.args]
        fns = [c.fn for c in compiled]
        function = self.wrapper._function
        if isinstance(self.wrapper, UserDefinedAsyncScalarFunctionWrapper):  # a Calc runs it on batches
            awaited = one_row_evaluator(self.wrapper)
            return Compiled(lambda row: awaited(tuple(f(row) for f in fns)), self.wrapper.result_type, None)
        if isinstance(function, _PandasScalar):  # Series of one row (a Calc runs it on batches)
            arg_types = [c.data_type for c in compiled]
            name, result_type = str(self.wrapper._name), self.wrapper.result_type

            def one_row(row: tuple[Any, ...]) -> Any:
                return evaluate_one_row(function, name, arg_types, result_type, tuple(f(row) for f in fns))

            return Compiled(one_row, result_type, None)
        call = _Opened(function)
        result_type = self.wrapper.result_type
        if isinstance(result_type, RowType):
            names = result_type.field_names()
            return Compiled(
                lambda row: in_declared_order(call(*[f(row) for f in fns]), names), result_type, None
            )
        return Compiled(lambda row: call(*[f(row) for f in fns]), result_type, None)


class UserDefinedTableFunctionWrapper:
    """A table function with its result types (its columns ``f0``, ``f1`` ... unless aliased)."""

    def __init__(self, function: Any, result_types: list[DataType], name: str | None) -> None:
        self._function = function
        self._result_types = result_types
        self._name = name or getattr(function, "__name__", type(function).__name__)
        self._aliases: list[str] | None = None

    @property
    def result_types(self) -> list[DataType]:
        """The types of the columns it yields."""
        return list(self._result_types)

    def result_names(self) -> list[str]:
        """The names of its columns."""
        return self._aliases or [f"f{i}" for i in range(len(self._result_types))]

    def alias(self, *names: str) -> UserDefinedTableFunctionWrapper:
        """The same function, its columns named."""
        twin = UserDefinedTableFunctionWrapper(self._function, self._result_types, self._name)
        twin._aliases = list(names)
        twin.arguments = self.arguments
        return twin

    arguments: list[Expression] | None = None  # set by a call: the expressions it is applied to

    def __call__(self, *args: Any) -> UserDefinedTableFunctionWrapper:
        """The function applied to these expressions (``join_lateral(split(col('s')))``)."""
        twin = UserDefinedTableFunctionWrapper(self._function, self._result_types, self._name)
        twin._aliases = self._aliases
        twin.arguments = [a if isinstance(a, Expression) else lit(a) for a in args]
        return twin

    def rows_of(self) -> Callable[..., list[tuple[Any, ...]]]:
        """A function of the call's arguments (an input row, for ``flat_map``) to the rows it
        yields, as tuples."""
        call = _Opened(self._function)
        width = len(self._result_types)

        def rows(*args: Any) -> list[tuple[Any, ...]]:
            produced = call(*args)
            if produced is None:
                return []
            out = []
            for item in produced:
                if isinstance(item, Row):
                    out.append(tuple(item))
                elif isinstance(item, tuple):
                    out.append(item)
                else:
                    out.append((item,) if width == 1 else tuple(item))
            return out

        return rows


def _result_types(result_types: Any) -> list[DataType]:
    if isinstance(result_types, RowType):
        return result_types.field_types()
    if isinstance(result_types, (list, tuple)):
        return [_type(t) for t in result_types]
    return [_type(result_types)]


def udf(
    f: Any = None,
    input_types: Any = None,
    result_type: DataType | str | None = None,
    deterministic: bool | None = None,
    name: str | None = None,
    func_type: str = "general",
) -> Any:
    """A user-defined scalar function (a decorator too: ``@udf(result_type=DataTypes.BIGINT())``)."""
    if func_type not in ("general", "pandas"):
        raise ValueError(f"func_type must be 'general' or 'pandas', got {func_type!r}")
    if f is None:
        return functools.partial(
            udf, input_types=input_types, result_type=result_type, name=name, func_type=func_type
        )
    if result_type is None:
        raise ValueError("udf needs its result_type")
    if isinstance(f, AsyncScalarFunction) or inspect.iscoroutinefunction(f):
        if func_type == "pandas":
            raise ValueError(
                "Async scalar functions do not support pandas func_type. "
                "Please use func_type='general' (default) for async functions."
            )
        return UserDefinedAsyncScalarFunctionWrapper(f, _type(result_type), name)
    if func_type == "pandas":
        f = _PandasScalar(f, _input_types(input_types))
    return UserDefinedScalarFunctionWrapper(f, _type(result_type), name)


def _input_types(input_types: Any) -> list[DataType]:
    if input_types is None:
        return []
    return [_type(t) for t in (input_types if isinstance(input_types, (list, tuple)) else [input_types])]


class _PandasScalar:
    """A vectorized scalar function (``func_type="pandas"``): it takes pandas Series and returns
    a Series of the same length. A Calc calls it once per batch of rows (``runtime/pandas_calc.py``);
    elsewhere it gets Series of one row."""

    def __init__(self, function: Any, types: list[DataType]) -> None:
        self.function, self.types = function, types
        self.__name__ = getattr(function, "__name__", type(function).__name__)


def udtf(
    f: Any = None,
    input_types: Any = None,
    result_types: Any = None,
    deterministic: bool | None = None,
    name: str | None = None,
) -> Any:
    """A user-defined table function (a decorator too: ``@udtf(result_types=[...])``)."""
    if f is None:
        return functools.partial(udtf, input_types=input_types, result_types=result_types, name=name)
    if result_types is None:
        raise ValueError("udtf needs its result_types")
    return UserDefinedTableFunctionWrapper(f, _result_types(result_types), name)


# -- aggregate functions ----------------------------------------------------------------------------------


class AggregateFunction:
    """A user-defined aggregate: an accumulator per group, ``accumulate`` / ``retract`` /
    ``merge`` into it, ``get_value`` its result (``pyflink.table.AggregateFunction``)."""

    def open(self, function_context: FunctionContext) -> None:
        """Before the first call."""

    def close(self) -> None:
        """After the last call."""

    def create_accumulator(self) -> Any:
        """A new accumulator."""
        raise NotImplementedError

    def accumulate(self, accumulator: Any, *args: Any) -> None:
        """Add a row's arguments to the accumulator (in place)."""
        raise NotImplementedError

    def retract(self, accumulator: Any, *args: Any) -> None:
        """Take a row's arguments out (needed over updating inputs)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement retract()")

    def merge(self, accumulator: Any, accumulators: list[Any]) -> None:
        """Add the other accumulators into this one (session windows, slices)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement merge()")

    def get_value(self, accumulator: Any) -> Any:
        """The aggregate's result."""
        raise NotImplementedError

    def get_result_type(self) -> Any:
        """The result's type (or given to udaf)."""
        return None

    def get_accumulator_type(self) -> Any:
        """The accumulator's type."""
        return None


class _UserAccumulator:
    """An AggregateFunction seen as the planner's accumulator operations (its arguments arrive
    as one tuple)."""

    def __init__(self, function: AggregateFunction, declared: list[str] | None = None) -> None:
        self.function = function
        self.declared = declared  # a ROW result's field names: a named Row is read by them
        self.opened = False

    def _open(self) -> AggregateFunction:
        if not self.opened:
            self.function.open(FunctionContext())
            self.opened = True
        return self.function

    def create(self) -> Any:
        return self._open().create_accumulator()

    def add(self, acc: Any, args: tuple[Any, ...]) -> Any:
        self._open().accumulate(acc, *args)
        return acc

    def retract(self, acc: Any, args: tuple[Any, ...]) -> Any:
        self._open().retract(acc, *args)
        return acc

    def merge(self, acc: Any, other: Any) -> Any:
        self._open().merge(acc, [other])
        return acc

    def result(self, acc: Any) -> Any:
        value = self._open().get_value(acc)
        return value if self.declared is None else in_declared_order(value, self.declared)


class _PandasAggregate(AggregateFunction):
    """A vectorized aggregate: the function of the group's values as pandas Series."""

    def __init__(self, function: Callable[..., Any], types: list[DataType] | None = None) -> None:
        self.function = function
        self.types = types or []

    def with_types(self, types: list[DataType]) -> _PandasAggregate:
        """The same aggregate building Series of the arguments' SQL types."""
        return _PandasAggregate(self.function, types)

    def create_accumulator(self) -> Any:
        return []

    def accumulate(self, accumulator: Any, *args: Any) -> None:
        accumulator.append(args)

    def retract(self, accumulator: Any, *args: Any) -> None:
        accumulator.remove(args)

    def merge(self, accumulator: Any, accumulators: list[Any]) -> None:
        for other in accumulators:
            accumulator.extend(other)

    def get_value(self, accumulator: Any) -> Any:
        import pandas as pd  # optional (the spark extra installs it): imported where a pandas aggregate runs

        columns: list[Any] = list(zip(*accumulator, strict=True)) if accumulator else [[] for _ in self.types]
        if self.types:
            series = [series_of(list(c), t) for c, t in zip(columns, self.types, strict=True)]
        else:
            series = [pd.Series(list(c)) for c in columns]
        result = self.function(*series)
        return result.item() if hasattr(result, "item") else result


class UserAggregateCall(AggregateCall):
    """A call of a user-defined aggregate function (``udaf``) on argument expressions."""

    def __init__(self, wrapper: Any, args: list[Expression], where: Expression | None = None) -> None:
        super().__init__(wrapper._name, _Tuple(args), where=where)
        self.wrapper = wrapper

    def filtered(self, where: Expression) -> UserAggregateCall:
        """This call with a ``FILTER (WHERE where)`` condition."""
        assert self.where is None
        return UserAggregateCall(self.wrapper, list(self.operand.items), where)  # type: ignore[attr-defined]

    def accumulator_spec(self, operand_type: DataType) -> Any:
        """The accumulator of the user's function (the rows a FILTER leaves out skipped)."""
        function = self.wrapper._function
        if hasattr(function, "with_types"):  # a pandas aggregate builds Series of the argument types
            types = operand_type.field_types() if isinstance(operand_type, RowType) else []
            function = function.with_types(types)
        result = self.wrapper.result_type
        accumulator = _UserAccumulator(
            function, result.field_names() if isinstance(result, RowType) else None
        )
        if self.where is not None:  # the rows the condition leaves out arrive as SKIP
            return _Filtered(accumulator)  # type: ignore[arg-type]
        return accumulator

    def result_type(self, operand_type: DataType) -> DataType:
        """The user's declared result type."""
        return self.wrapper.result_type


class UserDefinedAggregateFunctionWrapper:
    """An aggregate function with its result type; calling it builds an aggregate call."""

    def __init__(self, function: Any, result_type: DataType, name: str | None, pandas: bool) -> None:
        self._function = _PandasAggregate(function) if pandas else function
        self._result_type = result_type
        self._name = name or getattr(function, "__name__", type(function).__name__)
        self._aliases: list[str] | None = None

    @property
    def result_type(self) -> DataType:
        """The type of its result."""
        return self._result_type

    def alias(self, *names: str) -> UserDefinedAggregateFunctionWrapper:
        """The same function, its ROW result's fields named (``aggregate(f.alias('a', 'b'))``)."""
        twin = UserDefinedAggregateFunctionWrapper.__new__(UserDefinedAggregateFunctionWrapper)
        twin.__dict__.update(self.__dict__)
        twin._aliases = list(names)
        return twin

    def __call__(self, *args: Any) -> Any:
        return UserAggregateCall(self, [a if isinstance(a, Expression) else lit(a) for a in args])


def udaf(
    f: Any = None,
    input_types: Any = None,
    result_type: DataType | str | None = None,
    accumulator_type: Any = None,
    deterministic: bool | None = None,
    name: str | None = None,
    func_type: str = "general",
) -> Any:
    """A user-defined aggregate function: an ``AggregateFunction``, or with
    ``func_type="pandas"`` a function of pandas Series returning one value (a decorator too)."""
    if func_type not in ("general", "pandas"):
        raise ValueError(f"func_type must be 'general' or 'pandas', got {func_type!r}")
    if f is None:
        options = {"result_type": result_type, "accumulator_type": accumulator_type, "func_type": func_type}
        return functools.partial(udaf, input_types=input_types, name=name, **options)
    if result_type is None and isinstance(f, AggregateFunction):
        result_type = f.get_result_type()
    if result_type is None:
        raise ValueError("udaf needs its result_type")
    return UserDefinedAggregateFunctionWrapper(f, _type(result_type), name, func_type == "pandas")


class TableAggregateFunction(AggregateFunction):
    """A user-defined table aggregate: ``emit_value(accumulator)`` yields the group's rows
    (``pyflink.table.TableAggregateFunction``)."""

    def emit_value(self, accumulator: Any) -> Iterable[Any]:
        """The rows of the group."""
        raise NotImplementedError


class UserDefinedTableAggregateFunctionWrapper:
    """A table aggregate function with its result type (ROW: its columns)."""

    def __init__(self, function: TableAggregateFunction, result_type: DataType, name: str | None) -> None:
        self._function = function
        self._result_type = result_type
        self._name = name or type(function).__name__
        self._aliases: list[str] | None = None

    def result_names(self) -> list[str]:
        """Its columns' names."""
        if self._aliases:
            return list(self._aliases)
        if isinstance(self._result_type, RowType):
            return self._result_type.field_names()
        return ["f0"]

    def result_types(self) -> list[DataType]:
        """Its columns' types."""
        return _result_types(self._result_type)

    arguments: list[Expression] | None = None  # set by a call: the expressions it is applied to

    def alias(self, *names: str) -> UserDefinedTableAggregateFunctionWrapper:
        """The same function, its columns named."""
        twin = UserDefinedTableAggregateFunctionWrapper(self._function, self._result_type, self._name)
        twin._aliases = list(names)
        twin.arguments = self.arguments
        return twin

    def __call__(self, *args: Any) -> UserDefinedTableAggregateFunctionWrapper:
        """The function applied to these expressions (``flat_aggregate(top2(col('v')))``): its
        ``accumulate`` gets their values, not the whole row."""
        twin = self.alias(*self._aliases) if self._aliases else self.alias()
        twin._aliases = self._aliases
        twin.arguments = [a if isinstance(a, Expression) else lit(a) for a in args]
        return twin


def udtaf(
    f: Any = None,
    input_types: Any = None,
    result_type: DataType | str | None = None,
    accumulator_type: Any = None,
    deterministic: bool | None = None,
    name: str | None = None,
    func_type: str = "general",
) -> Any:
    """A user-defined table aggregate function (``TableAggregateFunction``)."""
    if f is None:
        return functools.partial(udtaf, input_types=input_types, result_type=result_type, name=name)
    if result_type is None:
        result_type = f.get_result_type()
    if result_type is None:
        raise ValueError("udtaf needs its result_type")
    return UserDefinedTableAggregateFunctionWrapper(f, _type(result_type), name)
