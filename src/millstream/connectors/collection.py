"""A bounded, non-parallel source over an in-memory collection (``from_collection``)."""

from __future__ import annotations

from typing import Any

from millstream.common.connector import ReaderContext
from millstream.connectors.base import IteratorReader

__all__ = ["CollectionSource"]


class CollectionSource:
    """Emits the elements of a list in order, from one subtask."""

    def __init__(self, elements: list[Any]) -> None:
        self.elements = list(elements)

    def is_bounded(self) -> bool:
        """Always bounded."""
        return True

    def create_reader(self, context: ReaderContext) -> IteratorReader:
        """A reader over all elements (subtask 0) or none."""
        return IteratorReader(iter(self.elements if context.subtask_index == 0 else ()))
