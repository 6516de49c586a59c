"""Retry strategies of async I/O, as ``pyflink.datastream.async_retry_strategies``.

An ``AsyncRetryStrategy`` says whether a failed attempt of ``AsyncFunction.async_invoke``
is tried again (``can_retry(current_attempts)``, attempts counted from 1), after how long
(``get_backoff_time_millis``), and on what (its ``AsyncRetryPredicate``: a predicate of
the results, one of the exception). ``AsyncRetryStrategy.fixed_delay`` and
``exponential_backoff`` build PyFlink's two strategies; ``no_restart()`` is
``NO_RETRY_STRATEGY``. The ABCs are defined here and re-exported by ``functions`` (PyFlink's
path for them), so that their builders need no import of this module at call time.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Generic, TypeVar

__all__ = [
    "NO_RETRY_STRATEGY",
    "AsyncRetryPredicate",
    "AsyncRetryStrategy",
    "ExponentialBackoffDelayRetryStrategy",
    "FixedDelayRetryStrategy",
    "NoRetryStrategy",
    "RetryPredicate",
]

OUT = TypeVar("OUT")

ResultPredicate = Callable[[list[Any]], bool]
ExceptionPredicate = Callable[[Exception], bool]


class AsyncRetryPredicate(ABC, Generic[OUT]):
    """When an attempt is tried again: a predicate of its results or of its exception."""

    @abstractmethod
    def result_predicate(self) -> ResultPredicate | None:
        """True for results that call for another attempt (None: results never do)."""

    @abstractmethod
    def exception_predicate(self) -> ExceptionPredicate | None:
        """True for exceptions that call for another attempt (None: exceptions never do)."""


class AsyncRetryStrategy(ABC, Generic[OUT]):
    """Whether, when and on what an async attempt is tried again."""

    @abstractmethod
    def can_retry(self, current_attempts: int) -> bool:
        """Whether another attempt may follow attempt number ``current_attempts`` (from 1)."""

    @abstractmethod
    def get_backoff_time_millis(self, current_attempts: int) -> int:
        """How long to wait before the attempt after ``current_attempts``."""

    @abstractmethod
    def get_retry_predicate(self) -> AsyncRetryPredicate[OUT]:
        """The predicates that decide whether an attempt's outcome is retried."""

    @staticmethod
    def no_restart() -> AsyncRetryStrategy[Any]:
        """Never retry (``NO_RETRY_STRATEGY``)."""
        return NO_RETRY_STRATEGY

    @staticmethod
    def fixed_delay(
        max_attempts: int,
        backoff_time_millis: int,
        result_predicate: ResultPredicate | None,
        exception_predicate: ExceptionPredicate | None,
    ) -> AsyncRetryStrategy[Any]:
        """Retry after ``backoff_time_millis`` each time, while ``current_attempts <= max_attempts``."""
        return FixedDelayRetryStrategy(
            max_attempts, backoff_time_millis, result_predicate, exception_predicate
        )

    @staticmethod
    def exponential_backoff(
        max_attempts: int,
        initial_delay: int,
        max_retry_delay: int,
        multiplier: float,
        result_predicate: ResultPredicate | None,
        exception_predicate: ExceptionPredicate | None,
    ) -> AsyncRetryStrategy[Any]:
        """Retry after ``initial_delay`` ms, then each delay ``multiplier`` times the last, at
        most ``max_retry_delay``, while ``current_attempts <= max_attempts``."""
        return ExponentialBackoffDelayRetryStrategy(
            max_attempts, initial_delay, max_retry_delay, multiplier, result_predicate, exception_predicate
        )


class RetryPredicate(AsyncRetryPredicate[OUT]):
    """The two predicates as given (either may be None)."""

    def __init__(
        self, result_predicate: ResultPredicate | None, exception_predicate: ExceptionPredicate | None
    ) -> None:
        self._result_predicate = result_predicate
        self._exception_predicate = exception_predicate

    def result_predicate(self) -> ResultPredicate | None:
        """The predicate of results, or None."""
        return self._result_predicate

    def exception_predicate(self) -> ExceptionPredicate | None:
        """The predicate of exceptions, or None."""
        return self._exception_predicate


class NoRetryStrategy(AsyncRetryStrategy[OUT]):
    """Never retry."""

    def can_retry(self, current_attempts: int) -> bool:
        """Never."""
        return False

    def get_backoff_time_millis(self, current_attempts: int) -> int:
        """-1: no backoff."""
        return -1

    def get_retry_predicate(self) -> AsyncRetryPredicate[OUT]:
        """Neither predicate."""
        return RetryPredicate(None, None)


class FixedDelayRetryStrategy(AsyncRetryStrategy[OUT]):
    """The same delay before every retry."""

    def __init__(
        self,
        max_attempts: int,
        backoff_time_millis: int,
        result_predicate: ResultPredicate | None,
        exception_predicate: ExceptionPredicate | None,
    ) -> None:
        if not max_attempts > 0:
            raise AssertionError("max_attempts should be greater than zero.")
        if not backoff_time_millis > 0:
            raise AssertionError("backoff_time_millis should be greater than zero.")
        self._max_attempts = max_attempts
        self._backoff_time_millis = backoff_time_millis
        self._result_predicate = result_predicate
        self._exception_predicate = exception_predicate

    def can_retry(self, current_attempts: int) -> bool:
        """While ``current_attempts <= max_attempts``."""
        return current_attempts <= self._max_attempts

    def get_backoff_time_millis(self, current_attempts: int) -> int:
        """The fixed delay."""
        return self._backoff_time_millis

    def get_retry_predicate(self) -> AsyncRetryPredicate[OUT]:
        """The predicates given to the builder."""
        return RetryPredicate(self._result_predicate, self._exception_predicate)


class ExponentialBackoffDelayRetryStrategy(AsyncRetryStrategy[OUT]):
    """Delays growing by ``multiplier`` from ``initial_delay`` up to ``max_retry_delay``.

    As PyFlink's (and Flink's), the last delay is kept by the strategy, so the elements of a
    subtask share it: a first retry starts again from ``initial_delay``.
    """

    def __init__(
        self,
        max_attempts: int,
        initial_delay: int,
        max_retry_delay: int,
        multiplier: float,
        result_predicate: ResultPredicate | None,
        exception_predicate: ExceptionPredicate | None,
    ) -> None:
        for name, value in (
            ("max_attempts", max_attempts),
            ("initial_delay", initial_delay),
            ("max_retry_delay", max_retry_delay),
            ("multiplier", multiplier),
        ):
            if not value > 0:
                raise AssertionError(f"{name} should be greater than zero.")
        self._max_attempts = max_attempts
        self._initial_delay = initial_delay
        self._max_retry_delay = max_retry_delay
        self._multiplier = multiplier
        self._result_predicate = result_predicate
        self._exception_predicate = exception_predicate
        self._last_retry_delay = initial_delay

    def can_retry(self, current_attempts: int) -> bool:
        """While ``current_attempts <= max_attempts``."""
        return current_attempts <= self._max_attempts

    def get_backoff_time_millis(self, current_attempts: int) -> int:
        """``initial_delay`` after the first attempt, then the last delay times ``multiplier``
        (at most ``max_retry_delay``)."""
        if current_attempts <= 1:
            self._last_retry_delay = self._initial_delay
            return self._last_retry_delay
        backoff = int(min(self._last_retry_delay * self._multiplier, self._max_retry_delay))
        self._last_retry_delay = backoff
        return backoff

    def get_retry_predicate(self) -> AsyncRetryPredicate[OUT]:
        """The predicates given to the builder."""
        return RetryPredicate(self._result_predicate, self._exception_predicate)


NO_RETRY_STRATEGY: AsyncRetryStrategy[Any] = NoRetryStrategy()
