"""Helpers for connector implementations; the contracts they implement are in
``millstream.common.connector``."""

from __future__ import annotations

import itertools
import time
from typing import Any

__all__ = ["IteratorReader", "check_reader_state_version", "monotonic"]


class IteratorReader:
    """A reader over an iterator of elements, for bounded in-memory sources.

    Its checkpointed position is the number of elements returned; a restored reader skips
    that many (the iterator yields the same elements each time: a collection, a range).
    """

    def __init__(self, iterator: Any) -> None:
        self._iterator = iterator
        self.available_at = 0.0
        self._done = False
        self._returned = 0

    def poll(self, max_records: int) -> list[Any] | None:
        """Next slice of the iterator."""
        if self._done:
            return None
        batch: list[Any] = []
        append = batch.append
        for _, value in zip(range(max_records), self._iterator):
            append(value)
        self._returned += len(batch)
        if len(batch) < max_records:
            self._done = True
            if not batch:
                return None
        return batch

    def snapshot_state(self) -> dict[str, int]:
        """How many elements were returned."""
        return {"version": 1, "returned": self._returned}

    def restore_state(self, state: dict[str, int]) -> None:
        """Skip the elements returned before the checkpoint."""
        check_reader_state_version(state)
        skip = int(state["returned"])
        self._returned = skip
        for _ in itertools.islice(self._iterator, skip):
            pass

    def close(self) -> None:
        """Nothing to release."""
        self._done = True


def check_reader_state_version(state: Any) -> None:
    if not isinstance(state, dict) or state.get("version") != 1:
        raise ValueError(f"source reader state {state!r} is not a version 1 state of this reader")


def monotonic() -> float:
    """Processing-time clock for readers (seconds)."""
    return time.monotonic()
