"""SlotSharingGroup, as ``pyflink.datastream.SlotSharingGroup`` (name; resources accepted)."""

from __future__ import annotations

from typing import Any

__all__ = ["SlotSharingGroup"]


class SlotSharingGroup:
    """A named group of operators whose subtasks may share a slot."""

    def __init__(self, name: str, **resources: Any) -> None:
        self._name = name
        self._resources = resources

    def get_name(self) -> str:
        """The group's name."""
        return self._name

    @staticmethod
    def builder(name: str) -> _Builder:
        """A builder (resource settings are accepted and ignored)."""
        return _Builder(name)


class _Builder:
    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, item: str) -> Any:
        if item.startswith("set_"):
            return lambda *a, **k: self
        raise AttributeError(item)

    def build(self) -> SlotSharingGroup:
        return SlotSharingGroup(self._name)
