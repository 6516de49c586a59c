"""How async scalar functions (an ``AsyncScalarFunction`` or a ``udf`` of an ``async def``)
are called: concurrently on an event loop of the subtask, bounded, retried and in order.

Flink splits each async call into a Calc of its own (``AsyncCalcSplitRule``) and runs it in
an ``AsyncWaitOperator`` in ORDERED mode: at most
``table.exec.async-scalar.max-concurrent-operations`` calls in flight, each bounded by
``table.exec.async-scalar.timeout`` (its retries included) and, with the FIXED_DELAY retry
strategy, tried again ``table.exec.async-scalar.max-attempts`` times after
``table.exec.async-scalar.retry-delay`` when it raises; the results leave in the rows' order.
A call that still fails, or times out, fails the task.

Here a Calc with async calls evaluates them over each batch of rows its task receives
(``BatchedCallCalc``, with the pandas calls): the batch's calls run concurrently on an event
loop of the subtask (a thread of its own, so that a function's ``open`` may create clients
bound to that loop), at most the configured number at once, and the batch's results come back
in order before the next batch is taken. No call is in flight between batches, so a
checkpoint barrier never finds one (Flink snapshots its in-flight inputs instead; the result
is the same).

PyFlink 2.3 runs these functions in its Python worker, where the input row object is reused
while calls are in flight: with several rows in flight its results belong to the wrong rows
(seen on a 7-row program: every ``flaky(v)`` computed with the last row's ``v``). This module
keeps Flink's documented semantics instead: each row's result from its own arguments.
"""

from __future__ import annotations

import asyncio
import operator
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from millstream.table.common.options import (
    ASYNC_SCALAR_MAX_ATTEMPTS,
    ASYNC_SCALAR_MAX_CONCURRENT_OPERATIONS,
    ASYNC_SCALAR_RETRY_DELAY,
    ASYNC_SCALAR_RETRY_STRATEGY,
    ASYNC_SCALAR_TIMEOUT,
    option_value,
)
from millstream.table.common.types import DataType
from millstream.table.expression.expression import Expression, _Column
from millstream.table.functions.user_defined import AsyncScalarFunction, FunctionContext

__all__ = ["AsyncColumn", "AsyncOptions", "CallFailed", "one_row_evaluator"]


@dataclass(frozen=True)
class AsyncOptions:
    """The ``table.exec.async-scalar.*`` options a Calc was planned with."""

    capacity: int = ASYNC_SCALAR_MAX_CONCURRENT_OPERATIONS.default
    timeout_ms: int = ASYNC_SCALAR_TIMEOUT.default
    retry: bool = True
    retry_delay_ms: int = ASYNC_SCALAR_RETRY_DELAY.default
    max_attempts: int = ASYNC_SCALAR_MAX_ATTEMPTS.default

    @staticmethod
    def of(config: Any) -> AsyncOptions:
        """The options set in ``config`` (a TableConfig, None: defaults)."""
        return AsyncOptions(
            option_value(config, ASYNC_SCALAR_MAX_CONCURRENT_OPERATIONS),
            option_value(config, ASYNC_SCALAR_TIMEOUT),
            option_value(config, ASYNC_SCALAR_RETRY_STRATEGY) == "FIXED_DELAY",
            option_value(config, ASYNC_SCALAR_RETRY_DELAY),
            option_value(config, ASYNC_SCALAR_MAX_ATTEMPTS),
        )


class CallFailed(Exception):
    """The call for the batch's row ``offset`` failed for good (the cause attached)."""

    def __init__(self, offset: int) -> None:
        super().__init__(offset)
        self.offset = offset


class _Loop:
    """An event loop running in a daemon thread; ``run`` waits for a coroutine's result."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="async-udf", daemon=True)
        self._thread.start()

    def run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        if not self._thread.is_alive():
            self.loop.close()


class AsyncColumn:
    """One async call of a Calc: its function, argument expressions and result type; its
    ``evaluate(rows)`` is the list of results for a chunk of rows, in their order."""

    def __init__(
        self,
        wrapper: Any,
        arguments: list[Expression],
        names: list[str],
        types: list[DataType],
        options: AsyncOptions,
    ) -> None:
        self.function = wrapper._function
        self.name = str(wrapper._name)
        self.result_type: DataType = wrapper.result_type
        self.options = options
        self.arg_fns: list[Callable[[tuple[Any, ...]], Any]] = []
        for argument in arguments:
            if type(argument) is _Column and argument.name in names:  # read by index
                self.arg_fns.append(operator.itemgetter(names.index(argument.name)))
            else:
                self.arg_fns.append(argument.resolve(names, types).fn)
        self._loop: _Loop | None = None
        self._eval: Callable[..., Any] | None = None

    def open(self, function_context: FunctionContext) -> None:
        """Open the function (``AsyncScalarFunction.open``) on the subtask's loop thread."""
        self._loop = _Loop()
        function = self.function
        if isinstance(function, AsyncScalarFunction):
            self._loop.run(_call_open(function, function_context))
            self._eval = function.eval
        else:
            self._eval = function

    def close(self) -> None:
        """Close the function and stop the loop."""
        loop, self._loop = self._loop, None
        if loop is None:
            return
        try:
            if isinstance(self.function, AsyncScalarFunction):
                self.function.close()
        finally:
            loop.close()

    def evaluate(self, rows: list[tuple[Any, ...]]) -> list[Any]:
        """The function's results for ``rows``, in order.

        Raises:
            CallFailed: a call failed for good; its row's offset, the error as the cause.
        """
        if self._loop is None:
            self.open(FunctionContext())
        assert self._loop is not None
        arguments = [tuple([fn(r) for fn in self.arg_fns]) for r in rows]
        results: list[Any] = self._loop.run(self._all(arguments))
        return results

    async def _all(self, arguments: list[tuple[Any, ...]]) -> list[Any]:
        semaphore = asyncio.Semaphore(self.options.capacity)

        async def one(offset: int, args: tuple[Any, ...]) -> Any:
            async with semaphore:  # the timeout starts when the call does, as Flink's queue
                try:
                    return await asyncio.wait_for(self._attempts(args), self.options.timeout_ms / 1000)
                except TimeoutError as err:
                    timeout = TimeoutError(
                        f"Async function call of '{self.name}' has timed out after "
                        f"{self.options.timeout_ms} ms (table.exec.async-scalar.timeout) for input: {args!r}"
                    )
                    raise CallFailed(offset) from timeout.with_traceback(err.__traceback__)
                except Exception as err:
                    raise CallFailed(offset) from err

        tasks = [asyncio.ensure_future(one(i, a)) for i, a in enumerate(arguments)]
        try:
            return list(await asyncio.gather(*tasks))
        except CallFailed:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            # the first row's failure in input order, as an ordered queue would surface it
            first = min((t for t in tasks if _failed(t)), key=lambda t: t.exception().offset)  # type: ignore[union-attr]
            failure = first.exception()
            assert failure is not None
            failure.__suppress_context__ = True  # its cause (the user's error) stays
            raise failure from failure.__cause__

    async def _attempts(self, args: tuple[Any, ...]) -> Any:
        """One call, tried again ``max_attempts`` times after ``retry_delay`` while it raises
        (FIXED_DELAY: every exception is retried, as Flink's async scalar operator)."""
        assert self._eval is not None
        attempt = 1
        while True:
            try:
                result = self._eval(*args)
                return (await result) if asyncio.iscoroutine(result) else result
            except Exception:
                if not self.options.retry or attempt > self.options.max_attempts:
                    raise
            attempt += 1
            await asyncio.sleep(self.options.retry_delay_ms / 1000)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_loop": None, "_eval": None}


def _failed(task: asyncio.Future[Any]) -> bool:
    return not task.cancelled() and isinstance(task.exception(), CallFailed)


async def _call_open(function: AsyncScalarFunction, context: FunctionContext) -> None:
    function.open(context)


def one_row_evaluator(wrapper: Any) -> Callable[[tuple[Any, ...]], Any]:
    """An async call outside a Calc (a join condition, an aggregate's argument): awaited row
    by row, with the default options; the function is opened on the first call."""
    column = AsyncColumn(wrapper, [], [], [], AsyncOptions())

    def evaluate(args: tuple[Any, ...]) -> Any:
        column.arg_fns = [operator.itemgetter(i) for i in range(len(args))]
        try:
            return column.evaluate([args])[0]
        except CallFailed as failed:
            raise failed.__cause__ from None  # type: ignore[misc]

    return evaluate
