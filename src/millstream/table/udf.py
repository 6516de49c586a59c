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
from collections.abc import Callable, Iterable
from typing import Any

from millstream.common.types import Row
from millstream.table.expressions import Compiled, Expression, col
from millstream.table.types import DataType, DataTypes, RowType

__all__ = [
    "FunctionContext",
    "ScalarFunction",
    "TableFunction",
    "UserDefinedScalarFunctionWrapper",
    "UserDefinedTableFunctionWrapper",
    "udf",
    "udtf",
]


class FunctionContext:
    """What ``open`` receives (job parameters)."""

    def __init__(self, job_parameters: dict[str, str] | None = None) -> None:
        self._job_parameters = job_parameters or {}

    def get_job_parameter(self, key: str, default_value: str) -> str:
        """A global job parameter."""
        return self._job_parameters.get(key, default_value)


class ScalarFunction:
    """A scalar function: ``eval(*args)`` returns one value."""

    def open(self, function_context: FunctionContext) -> None:
        """Before the first call."""

    def close(self) -> None:
        """After the last call."""

    def eval(self, *args: Any) -> Any:
        """The value for the arguments."""
        raise NotImplementedError


class TableFunction:
    """A table function: ``eval(*args)`` yields rows (or values)."""

    def open(self, function_context: FunctionContext) -> None:
        """Before the first call."""

    def close(self) -> None:
        """After the last call."""

    def eval(self, *args: Any) -> Iterable[Any]:
        """The rows for the arguments."""
        raise NotImplementedError


def _type(value: DataType | str) -> DataType:
    if isinstance(value, DataType):
        return value
    name = value.strip().upper()
    factory = getattr(DataTypes, name, None)
    if factory is None:
        raise ValueError(f"unknown type {value!r}: give a DataType")
    data_type: DataType = factory()
    return data_type


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
        return _ScalarCall(self, [a if isinstance(a, Expression) else col(a) for a in args])

    @property
    def result_type(self) -> DataType:
        """The type of the values it returns."""
        return self._result_type


class _ScalarCall(Expression):
    def __init__(self, wrapper: UserDefinedScalarFunctionWrapper, args: list[Expression]) -> None:
        self.wrapper, self.args = wrapper, args

    def aggregates(self) -> list[Any]:
        return [a for arg in self.args for a in arg.aggregates()]

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        fns = [a.resolve(names, types).fn for a in self.args]
        call = _Opened(self.wrapper._function)
        return Compiled(lambda row: call(*[f(row) for f in fns]), self.wrapper.result_type, None)


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
        return twin

    def rows_of(self) -> Callable[[Row], list[tuple[Any, ...]]]:
        """A function of an input row to the rows it yields, as tuples."""
        call = _Opened(self._function)
        width = len(self._result_types)

        def rows(row: Row) -> list[tuple[Any, ...]]:
            produced = call(row)
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
    if func_type != "general":
        raise NotImplementedError(f"func_type={func_type!r} (vectorized UDFs) is not supported yet")
    if f is None:
        return functools.partial(udf, input_types=input_types, result_type=result_type, name=name)
    if result_type is None:
        raise ValueError("udf needs its result_type")
    return UserDefinedScalarFunctionWrapper(f, _type(result_type), name)


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
