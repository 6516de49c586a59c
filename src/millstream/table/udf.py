"""User-defined functions, at PyFlink's module path ``pyflink.table.udf``.

The names are defined in :mod:`millstream.table.functions.udf`; millstream's own modules import them
from there, never from here.
"""

from millstream.table.functions.udf import (
    AggregateFunction,
    AsyncScalarFunction,
    FunctionContext,
    ScalarFunction,
    TableAggregateFunction,
    TableFunction,
    UserDefinedAsyncScalarFunctionWrapper,
    UserDefinedScalarFunctionWrapper,
    UserDefinedTableFunctionWrapper,
    register_function,
    registered_function,
    udaf,
    udf,
    udtaf,
    udtf,
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
