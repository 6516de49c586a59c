"""Hashable forms of keys Python cannot hash: ``key_by(lambda t: [t[0]])``.

PyFlink keys records by the serialized key, so any picklable key works there: a list, a
dict, a tuple holding a list, an object without ``__hash__``. millstream keeps keys as
Python values in dicts (keyed state, timers, windows, reductions). The keyed runtime
meets such a key where a dict lookup raises ``TypeError``, and only there calls
``hashable_key``: ordinary keys never pass through this module.

The hashable form of a key is one key with another form exactly when PyFlink's would be:
when their plain keys pickle to the same bytes (``HashableKey.pickled``), which also give
its key group (the one PyFlink computes). Otherwise it is the key: a ``HashableList`` is
a list equal to the list, so user code handed the key (``ctx.get_current_key()`` in
``on_timer``, a window function's ``key``) sees a list where it gave a list. Any other
object without a hash becomes a ``PickledKey``, which hands attribute access on to it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cloudpickle

__all__ = [
    "HashableByteArray",
    "HashableDict",
    "HashableKey",
    "HashableList",
    "HashableSet",
    "HashableTuple",
    "PickledKey",
    "hashable_key",
    "hashing_key_selector",
    "plain_key",
]


class HashableKey:
    """What the hashable forms share: identity is the pickled plain key, as PyFlink's (two
    forms are one key when their keys pickle to the same bytes, and then they are in the
    same key group); compared with anything else, a form compares as its key."""

    __slots__ = ()

    def plain(self) -> Any:
        """The key as the user's key selector returned it."""
        raise NotImplementedError

    def pickled(self) -> bytes:
        """The plain key's pickled bytes (what PyFlink hashes and compares)."""
        data: bytes | None = getattr(self, "_bytes", None)
        if data is None:
            data = cloudpickle.dumps(self.plain(), protocol=5)
            setattr(self, "_bytes", data)  # noqa: B010 - each form declares the slot
        return data

    def __hash__(self) -> int:
        return hash(self.pickled())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HashableKey):
            return self.pickled() == other.pickled()
        return bool(self.plain() == other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __reduce__(self) -> Any:  # the bytes are not pickled with it
        return (type(self), (self.plain(),))


class HashableList(HashableKey, list):  # type: ignore[misc]
    """A list key."""

    __slots__ = ("_bytes",)

    def plain(self) -> list[Any]:
        """The key as a plain list."""
        return list(self)


class HashableDict(HashableKey, dict):  # type: ignore[misc]
    """A dict key."""

    __slots__ = ("_bytes",)

    def plain(self) -> dict[Any, Any]:
        """The key as a plain dict."""
        return dict(self)


class HashableSet(HashableKey, set):  # type: ignore[misc]
    """A set key."""

    __slots__ = ("_bytes",)

    def plain(self) -> set[Any]:
        """The key as a plain set."""
        return set(self)


class HashableByteArray(HashableKey, bytearray):  # type: ignore[misc]
    """A bytearray key."""

    __slots__ = ("_bytes",)

    def plain(self) -> bytearray:
        """The key as a plain bytearray."""
        return bytearray(self)


class HashableTuple(HashableKey, tuple):
    """A tuple key holding unhashable values (a tuple subclass keeps its bytes in its dict)."""

    def plain(self) -> tuple[Any, ...]:
        """The key as a plain tuple."""
        return tuple(self)


class PickledKey(HashableKey):
    """Any other unhashable key; attribute access goes to the key."""

    __slots__ = ("_bytes", "value")

    def __init__(self, value: Any) -> None:
        self.value = value

    def __getattr__(self, name: str) -> Any:
        return getattr(self.value, name)

    def plain(self) -> Any:
        """The key itself."""
        return self.value

    def __repr__(self) -> str:
        return repr(self.value)


def hashable_key(key: Any) -> Any:
    """The hashable form of an unhashable ``key`` (equal to it; see the module's docstring)."""
    if isinstance(key, list):
        return HashableList(key)
    if isinstance(key, dict):
        return HashableDict(key)
    if isinstance(key, set):
        return HashableSet(key)
    if isinstance(key, bytearray):
        return HashableByteArray(key)
    if isinstance(key, tuple):
        return HashableTuple(key)
    return PickledKey(key)


def plain_key(key: Any) -> Any:
    """``key`` as the user's key selector returned it (what PyFlink pickles and hashes)."""
    return key.plain() if isinstance(key, HashableKey) else key


def hashing_key_selector(key_selector: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``key_selector`` giving the hashable form of each unhashable key: what an operator
    that keeps keys in its own dicts switches to once it met one (a call more per record)."""

    def key(value: Any) -> Any:
        k = key_selector(value)
        try:
            hash(k)
        except TypeError:
            return hashable_key(k)
        return k

    return key
