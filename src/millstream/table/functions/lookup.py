"""Functions by name (Flink's ``FunctionLookup``): a call of a built-in function or of one registered
with ``create_temporary_function``, or of a user-defined function object (PyFlink's ``call``)."""

from __future__ import annotations

from typing import Any

from millstream.table.common.types import DataType
from millstream.table.expression.expression import AggregateCall, Compiled, Expression, WindowProperty, _wrap
from millstream.table.expression.unresolved import UnknownFunctionError
from millstream.table.functions.builtins import call_builtin, is_builtin
from millstream.table.functions.udf import _REGISTERED, UserDefinedAggregateFunctionWrapper

__all__ = ["call"]


class _NamedCall(Expression):
    """A call of a function registered in the TableEnvironment (resolved when planned)."""

    def __init__(self, name: str, args: list[Expression]) -> None:
        self.function_name, self.args = name, args

    def aggregates(self) -> list[AggregateCall]:
        return [a for arg in self.args for a in arg.aggregates()]

    def window_properties(self) -> list[WindowProperty]:
        return [p for arg in self.args for p in arg.window_properties()]

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        function = _REGISTERED.get(self.function_name.lower())
        if function is None:  # the arguments' types say which signature was not found, as Calcite's
            argument_types = [a.resolve(names, types).data_type for a in self.args]
            raise UnknownFunctionError(self.function_name, argument_types)
        return function(*self.args).resolve(names, types)


def call(f: Any, *args: Any) -> Expression:
    """A function by name (a built-in or one registered with ``create_temporary_function``)
    or a user-defined function object, applied to ``args``."""
    if isinstance(f, str):
        if is_builtin(f):
            return call_builtin(f, *args)
        registered = _REGISTERED.get(f.lower())
        if isinstance(registered, UserDefinedAggregateFunctionWrapper):  # an aggregate: planned as one
            return registered(*args)
        return _NamedCall(f, [_wrap(a) for a in args])
    return f(*args)
