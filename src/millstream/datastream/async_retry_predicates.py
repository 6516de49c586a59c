"""Ready-made retry predicates of async I/O, as ``pyflink.datastream.async_retry_predicates``.

Give them to ``AsyncRetryStrategy.fixed_delay`` / ``exponential_backoff`` (bind the expected
type of ``exception_type_predicate`` with ``functools.partial``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["empty_result_predicate", "exception_type_predicate", "has_exception_predicate"]


def empty_result_predicate(result: list[Any] | None) -> bool:
    """Retry when an attempt returned nothing (None or an empty collection)."""
    return result is None or len(result) == 0


def has_exception_predicate(error: BaseException | None) -> bool:
    """Retry on any exception."""
    return error is not None


def exception_type_predicate(error: BaseException | None, expected_error_type: type[BaseException]) -> bool:
    """Retry on exceptions of ``expected_error_type``."""
    return isinstance(error, expected_error_type)
