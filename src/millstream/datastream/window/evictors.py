"""Evictors: drop elements from a window's buffer before or after its function runs."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from millstream.common.time import Time, TimestampedValue
from millstream.datastream.window.windows import _ms

__all__ = ["CountEvictor", "DeltaEvictor", "Evictor", "TimeEvictor"]

# -- evictors -----------------------------------------------------------------------------


class Evictor(ABC):
    """Removes elements from a window's buffer before and/or after the window function runs.

    ``elements`` is the window's buffer (a list of ``TimestampedValue``): remove from it in
    place.
    """

    @abstractmethod
    def evict_before(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """Before the window function."""

    @abstractmethod
    def evict_after(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """After the window function."""


class CountEvictor(Evictor):
    """Keeps at most ``max_count`` elements (the most recent ones)."""

    def __init__(self, max_count: int, do_evict_after: bool = False) -> None:
        self.max_count = max_count
        self.do_evict_after = do_evict_after

    @staticmethod
    def of(max_count: int, do_evict_after: bool = False) -> CountEvictor:
        """Keep ``max_count`` elements."""
        return CountEvictor(max_count, do_evict_after)

    def _evict(self, elements: list[TimestampedValue], size: int) -> None:
        if size > self.max_count:
            del elements[: size - self.max_count]

    def evict_before(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """Evict unless configured to evict after."""
        if not self.do_evict_after:
            self._evict(elements, size)

    def evict_after(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """Evict if configured to evict after."""
        if self.do_evict_after:
            self._evict(elements, size)


class TimeEvictor(Evictor):
    """Keeps elements within ``window_size`` ms of the newest element's timestamp."""

    def __init__(self, window_size: int, do_evict_after: bool = False) -> None:
        self.window_size = window_size
        self.do_evict_after = do_evict_after

    @staticmethod
    def of(window_size: Time, do_evict_after: bool = False) -> TimeEvictor:
        """Keep ``window_size`` of time."""
        return TimeEvictor(_ms(window_size), do_evict_after)

    def _evict(self, elements: list[TimestampedValue]) -> None:
        stamped = [e.timestamp for e in elements if e.timestamp is not None]
        if not stamped or len(stamped) != len(elements):
            return
        cutoff = max(stamped) - self.window_size
        elements[:] = [e for e in elements if e.get_timestamp() > cutoff]

    def evict_before(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """Evict unless configured to evict after."""
        if not self.do_evict_after:
            self._evict(elements)

    def evict_after(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """Evict if configured to evict after."""
        if self.do_evict_after:
            self._evict(elements)


class DeltaEvictor(Evictor):
    """Evicts elements whose ``delta_function(element, last element)`` >= ``threshold``."""

    def __init__(self, threshold: float, delta_function: Any, do_evict_after: bool = False) -> None:
        self.threshold = threshold
        get_delta = getattr(delta_function, "get_delta", None)
        self.delta_function: Callable[[Any, Any], float] = get_delta or delta_function
        self.do_evict_after = do_evict_after

    @staticmethod
    def of(threshold: float, delta_function: Any, do_evict_after: bool = False) -> DeltaEvictor:
        """Evict elements too far (by ``delta_function``) from the newest one."""
        return DeltaEvictor(threshold, delta_function, do_evict_after)

    def _evict(self, elements: list[TimestampedValue]) -> None:
        if not elements:
            return
        last = elements[-1].value
        delta = self.delta_function
        elements[:] = [e for e in elements if delta(e.value, last) < self.threshold]

    def evict_before(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """Evict unless configured to evict after."""
        if not self.do_evict_after:
            self._evict(elements)

    def evict_after(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """Evict if configured to evict after."""
        if self.do_evict_after:
            self._evict(elements)
