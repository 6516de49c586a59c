"""The base classes of user-defined functions, as ``pyflink.table.udf`` has them: what ``open``
receives (``FunctionContext``), scalar and async scalar functions and table functions (the
aggregate functions are ``udf.py``'s, with their accumulators)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["AsyncScalarFunction", "FunctionContext", "ScalarFunction", "TableFunction"]


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


class AsyncScalarFunction:
    """A scalar function whose ``eval(*args)`` is a coroutine (``async def``): a Calc calls it
    for many rows at once, at most ``table.exec.async-scalar.max-concurrent-operations`` in
    flight, and emits the results in the rows' order (``async_calls.py``)."""

    def open(self, function_context: FunctionContext) -> None:
        """Before the first call."""

    def close(self) -> None:
        """After the last call."""

    async def eval(self, *args: Any) -> Any:
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
