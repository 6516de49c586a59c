"""Functions by name (Flink's ``FunctionLookup``): a call of a built-in function or of one registered
with ``create_temporary_function``, or of a user-defined function object (PyFlink's ``call``)."""

from __future__ import annotations

from typing import Any

from millstream.table.expression.calls import _builtin, _NamedCall
from millstream.table.expression.expression import (
    Expression,
    _wrap,
)

__all__ = ["call"]


def call(f: Any, *args: Any) -> Expression:
    """A function by name (a built-in or one registered with ``create_temporary_function``)
    or a user-defined function object, applied to ``args``."""
    if isinstance(f, str):
        from millstream.table.functions.builtins import is_builtin

        if is_builtin(f):
            return _builtin(f, *args)
        from millstream.table.functions.udf import _REGISTERED, UserDefinedAggregateFunctionWrapper

        registered = _REGISTERED.get(f.lower())
        if isinstance(registered, UserDefinedAggregateFunctionWrapper):  # an aggregate: planned as one
            return registered(*args)
        return _NamedCall(f, [_wrap(a) for a in args])
    return f(*args)
