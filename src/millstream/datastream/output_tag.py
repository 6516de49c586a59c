"""OutputTag: names a side output (``yield tag, value`` / ``get_side_output(tag)``)."""

from __future__ import annotations

from typing import Any

from millstream.graph.transformations import SideOutputTag

__all__ = ["OutputTag"]


class OutputTag(SideOutputTag):
    """A named, optionally typed side output of a process-style function."""

    def __init__(self, tag_id: str, type_info: Any = None) -> None:
        super().__init__(tag_id, type_info)
