"""Helpers for connector implementations; the contracts they implement are in
``millstream.common.connector``."""

from __future__ import annotations

import time
from typing import Any

__all__ = ["IteratorReader", "monotonic"]


class IteratorReader:
    """A reader over an iterator of elements, for bounded in-memory sources."""

    def __init__(self, iterator: Any) -> None:
        self._iterator = iterator
        self.available_at = 0.0
        self._done = False

    def poll(self, max_records: int) -> list[Any] | None:
        """Next slice of the iterator."""
        if self._done:
            return None
        batch: list[Any] = []
        append = batch.append
        for _, value in zip(range(max_records), self._iterator):
            append(value)
        if len(batch) < max_records:
            self._done = True
            if not batch:
                return None
        return batch

    def close(self) -> None:
        """Nothing to release."""
        self._done = True


def monotonic() -> float:
    """Processing-time clock for readers (seconds)."""
    return time.monotonic()
