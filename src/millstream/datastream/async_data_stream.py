"""AsyncDataStream: async I/O on a DataStream, as ``pyflink.datastream.async_data_stream``.

``ordered_wait`` / ``unordered_wait`` append an async wait operator (Flink's
``AsyncWaitOperator``) calling ``AsyncFunction.async_invoke`` for every element on the
subtask's asyncio event loop: at most ``capacity`` elements are in flight, and the task takes
no more input while they are (back-pressure); an element whose call takes longer than
``timeout`` gets ``AsyncFunction.timeout(value)``'s results (by default the job fails).
ORDERED emits results in input order; UNORDERED as they complete, but never across a
watermark. The elements in flight are part of a checkpoint and are called again after a
restore. The ``_with_retry`` variants try a call again per an ``AsyncRetryStrategy``.
"""

from __future__ import annotations

import inspect
from typing import Any

from millstream.common.typeinfo import TypeInformation
from millstream.datastream.async_retry_strategies import NO_RETRY_STRATEGY, AsyncRetryStrategy
from millstream.datastream.data_stream import DataStream
from millstream.datastream.functions import AsyncFunction
from millstream.graph.operator_specs import AsyncWaitSpec

__all__ = ["AsyncDataStream"]

OPERATOR_NAME = "async wait operator"  # PyFlink's name of the operator


class AsyncDataStream:
    """Static helpers applying an ``AsyncFunction`` to a DataStream."""

    @staticmethod
    def unordered_wait(
        data_stream: DataStream,
        async_function: AsyncFunction[Any, Any],
        timeout: Any,
        capacity: int = 100,
        output_type: TypeInformation | None = None,
    ) -> DataStream:
        """Results in the order the calls complete (watermarks still hold them back)."""
        return AsyncDataStream.unordered_wait_with_retry(
            data_stream, async_function, timeout, NO_RETRY_STRATEGY, capacity, output_type
        )

    @staticmethod
    def unordered_wait_with_retry(
        data_stream: DataStream,
        async_function: AsyncFunction[Any, Any],
        timeout: Any,
        async_retry_strategy: AsyncRetryStrategy[Any],
        capacity: int = 100,
        output_type: TypeInformation | None = None,
    ) -> DataStream:
        """``unordered_wait``, a call tried again per ``async_retry_strategy``."""
        return _async_wait(
            data_stream, async_function, timeout, async_retry_strategy, capacity, output_type, ordered=False
        )

    @staticmethod
    def ordered_wait(
        data_stream: DataStream,
        async_function: AsyncFunction[Any, Any],
        timeout: Any,
        capacity: int = 100,
        output_type: TypeInformation | None = None,
    ) -> DataStream:
        """Results in the order of the input elements."""
        return AsyncDataStream.ordered_wait_with_retry(
            data_stream, async_function, timeout, NO_RETRY_STRATEGY, capacity, output_type
        )

    @staticmethod
    def ordered_wait_with_retry(
        data_stream: DataStream,
        async_function: AsyncFunction[Any, Any],
        timeout: Any,
        async_retry_strategy: AsyncRetryStrategy[Any],
        capacity: int = 100,
        output_type: TypeInformation | None = None,
    ) -> DataStream:
        """``ordered_wait``, a call tried again per ``async_retry_strategy``."""
        return _async_wait(
            data_stream, async_function, timeout, async_retry_strategy, capacity, output_type, ordered=True
        )


def _async_wait(
    data_stream: DataStream,
    async_function: AsyncFunction[Any, Any],
    timeout: Any,
    strategy: AsyncRetryStrategy[Any],
    capacity: int,
    output_type: TypeInformation | None,
    ordered: bool,
) -> DataStream:
    """Check the arguments as PyFlink does, then append the async wait operator."""
    if not inspect.iscoroutinefunction(getattr(async_function, "async_invoke", None)):
        raise Exception(
            f"Method 'async_invoke' of class '{type(async_function)}' should be declared as 'async def'."
        )
    if strategy is None:
        raise Exception("Async retry strategy should not be None.")
    timeout_ms = timeout.to_milliseconds()
    if strategy is not NO_RETRY_STRATEGY and timeout_ms <= 0:
        raise Exception("Timeout should be configured when do async with retry.")
    predicate = strategy.get_retry_predicate()
    if predicate is None:
        raise Exception(f"Retry predicate of the async retry strategy '{type(strategy)}' is None.")
    if not isinstance(capacity, int) or capacity <= 0:
        raise ValueError("The number of concurrent async operation should be greater than 0.")
    retries = predicate.result_predicate() is not None or predicate.exception_predicate() is not None
    spec = AsyncWaitSpec(async_function, max(timeout_ms, 0), capacity, ordered, strategy if retries else None)
    return data_stream._one_input(OPERATOR_NAME, spec, output_type)
