"""Data views for aggregate accumulators, as ``pyflink.table.data_view``: a ``ListView`` or
``MapView`` inside an accumulator holds a list or a map of values (PyFlink backs them with
state; here they live in the accumulator, which is itself keyed state, so they are
checkpointed with it)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["DataView", "ListView", "MapView"]


class DataView:
    """A collection inside an accumulator."""

    def clear(self) -> None:
        """Remove everything."""
        raise NotImplementedError


class ListView(DataView):
    """A list of values (``add``, ``add_all``, ``get``, iteration)."""

    def __init__(self) -> None:
        self._list: list[Any] = []

    def get(self) -> Iterable[Any]:
        """The values, in the order they were added."""
        return self._list

    def add(self, value: Any) -> None:
        """Append one value."""
        self._list.append(value)

    def add_all(self, values: Iterable[Any]) -> None:
        """Append several values."""
        self._list.extend(values)

    def clear(self) -> None:
        self._list = []

    def __iter__(self) -> Iterator[Any]:
        return iter(self._list)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ListView) and other._list == self._list

    def __hash__(self) -> int:
        return hash(tuple(self._list))

    def __repr__(self) -> str:
        return f"ListView({self._list!r})"


class MapView(DataView):
    """A map (``get``, ``put``, ``remove``, ``contains``, ``items`` ...; also ``view[k]``)."""

    def __init__(self) -> None:
        self._map: dict[Any, Any] = {}

    def get(self, key: Any) -> Any:
        """The value of ``key`` (None if absent)."""
        return self._map.get(key)

    def put(self, key: Any, value: Any) -> None:
        """Set ``key``'s value."""
        self._map[key] = value

    def put_all(self, dict_value: dict[Any, Any]) -> None:
        """Set several keys."""
        self._map.update(dict_value)

    def remove(self, key: Any) -> None:
        """Drop ``key`` (nothing if absent)."""
        self._map.pop(key, None)

    def contains(self, key: Any) -> bool:
        """Whether ``key`` has a value."""
        return key in self._map

    def items(self) -> Iterable[tuple[Any, Any]]:
        """The ``(key, value)`` pairs."""
        return self._map.items()

    def keys(self) -> Iterable[Any]:
        """The keys."""
        return self._map.keys()

    def values(self) -> Iterable[Any]:
        """The values."""
        return self._map.values()

    def is_empty(self) -> bool:
        """Whether no key has a value."""
        return not self._map

    def clear(self) -> None:
        self._map = {}

    def __getitem__(self, key: Any) -> Any:
        return self._map[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        self._map[key] = value

    def __delitem__(self, key: Any) -> None:
        del self._map[key]

    def __contains__(self, key: Any) -> bool:
        return key in self._map

    def __iter__(self) -> Iterator[Any]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._map)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MapView) and other._map == self._map

    def __hash__(self) -> int:
        return hash(tuple(sorted(map(repr, self._map.items()))))

    def __repr__(self) -> str:
        return f"MapView({self._map!r})"
