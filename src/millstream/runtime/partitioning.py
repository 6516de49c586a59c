"""Channel selectors: one per partitioner, routing whole element batches to channels.

``route(values, timestamps)`` returns ``[(channel, values, timestamps), ...]``; the
semantics per element are Flink's (round-robin, random, key groups ...), the work is
done per batch: slicing for round-robin, one pass for keyed routing with a small cache
of key -> channel (keys repeat; the hash is a pure function of the key).

Per-record path: no allocation per element beyond the per-channel lists.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from millstream.common.hashable_keys import hashable_key
from millstream.graph.partitioning import (
    BroadcastPartitioner,
    CustomPartitionerWrapper,
    ForwardPartitioner,
    GlobalPartitioner,
    KeyGroupStreamPartitioner,
    Partitioner,
    RebalancePartitioner,
    RescalePartitioner,
    ShufflePartitioner,
    key_type_of,
)
from millstream.runtime.state.key_groups import key_group_function

__all__ = ["ChannelSelector", "KeySelectorError", "create_channel_selector"]

Routed = list[tuple[int, list[Any], list[int] | None]]
_KEY_CACHE_LIMIT = 65536


class KeySelectorError(Exception):
    """A key selector or custom partitioner raised on an element (index in ``.index``)."""

    def __init__(self, index: int, element: Any, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.element = element


class ChannelSelector:
    """Routes batches to ``num_channels`` channels."""

    is_broadcast = False

    def __init__(self, num_channels: int) -> None:
        self.num_channels = num_channels

    def route(self, values: list[Any], timestamps: list[int] | None) -> Routed:
        """Split a batch by channel."""
        raise NotImplementedError


class SingleChannelSelector(ChannelSelector):
    """Everything to one channel (forward, global, or any selector over one channel)."""

    def __init__(self, num_channels: int, channel: int = 0) -> None:
        super().__init__(num_channels)
        self.channel = channel

    def route(self, values: list[Any], timestamps: list[int] | None) -> Routed:
        """The whole batch to ``channel``."""
        return [(self.channel, values, timestamps)]


class BroadcastChannelSelector(ChannelSelector):
    """The whole batch to every channel."""

    is_broadcast = True

    def route(self, values: list[Any], timestamps: list[int] | None) -> Routed:
        """The same batch for each channel."""
        return [(c, values, timestamps) for c in range(self.num_channels)]


class RoundRobinChannelSelector(ChannelSelector):
    """Element i of the stream to channel ``(start + i) % n`` (rebalance, rescale)."""

    def __init__(self, num_channels: int, start: int) -> None:
        super().__init__(num_channels)
        self._next = start  # owner: producing task thread

    def route(self, values: list[Any], timestamps: list[int] | None) -> Routed:
        """Strided slices: one per channel."""
        n = self.num_channels
        start = self._next
        self._next = (start + len(values)) % n
        routed: Routed = []
        for offset in range(min(n, len(values))):
            channel = (start + offset) % n
            ts = timestamps[offset::n] if timestamps is not None else None
            routed.append((channel, values[offset::n], ts))
        return routed


def _group(values: list[Any], timestamps: list[int] | None, channels: list[int], n: int) -> Routed:
    buckets: list[list[Any]] = [[] for _ in range(n)]
    if timestamps is None:
        appends = [b.append for b in buckets]
        for v, c in zip(values, channels):
            appends[c](v)
        return [(c, b, None) for c, b in enumerate(buckets) if b]
    ts_buckets: list[list[int]] = [[] for _ in range(n)]
    for v, t, c in zip(values, timestamps, channels):
        buckets[c].append(v)
        ts_buckets[c].append(t)
    return [(c, b, ts_buckets[c]) for c, b in enumerate(buckets) if b]


class ShuffleChannelSelector(ChannelSelector):
    """A uniformly random channel per element."""

    def __init__(self, num_channels: int) -> None:
        super().__init__(num_channels)
        self._random = random.Random()

    def route(self, values: list[Any], timestamps: list[int] | None) -> Routed:
        """Random channel per element."""
        n = self.num_channels
        channels = self._random.choices(range(n), k=len(values))
        return _group(values, timestamps, channels, n)


class KeyGroupChannelSelector(ChannelSelector):
    """key -> key group (Flink's hash of the key as PyFlink hands it to Java) -> owning subtask."""

    def __init__(self, num_channels: int, key_selector: Callable[[Any], Any], max_parallelism: int) -> None:
        super().__init__(num_channels)
        self._key = key_selector
        self._max = max_parallelism
        self._key_group = key_group_function(max_parallelism, key_type_of(key_selector))
        self._cache: dict[Any, int] = {}  # owner: producing task thread

    def channel_of_key(self, key: Any) -> int:
        """The channel owning ``key``."""
        return self._key_group(key) * self.num_channels // self._max

    def route(self, values: list[Any], timestamps: list[int] | None) -> Routed:
        """Group the batch by the owner of each element's key.

        One pass ``append[cache[key(v)]](v)``: a key not in the cache (or a failing key
        selector) breaks out of the fast loop, is handled alone, and the loop resumes.
        """
        n = self.num_channels
        buckets: list[list[Any]] = [[] for _ in range(n)]
        appends = [b.append for b in buckets]
        if timestamps is not None:
            return self._route_with_timestamps(values, timestamps, buckets)
        get = self._cache.get
        key = self._key
        remaining = iter(values)
        while True:
            try:
                for v in remaining:
                    appends[get(key(v))](v)  # type: ignore[index]
                break
            except Exception:
                index = sum(len(b) for b in buckets)
                if index >= len(values):
                    raise
                self._route_one(values, index, buckets, None, None)
        return [(c, b, None) for c, b in enumerate(buckets) if b]

    def _route_one(
        self,
        values: list[Any],
        index: int,
        buckets: list[list[Any]],
        timestamps: list[int] | None,
        ts_buckets: list[list[int]] | None,
    ) -> None:
        """Route ``values[index]`` the careful way (cache miss or failing key selector)."""
        value = values[index]
        try:
            k = self._key(value)
        except Exception as err:
            raise KeySelectorError(index, value, "key selector raised") from err
        try:
            try:
                c = self._cache.get(k)
            except TypeError:  # an unhashable key (a list ...): cached in its hashable form
                k = hashable_key(k)
                c = self._cache.get(k)
            if c is None:
                c = self.channel_of_key(k)
                if len(self._cache) >= _KEY_CACHE_LIMIT:
                    self._cache.clear()
                self._cache[k] = c
        except Exception as err:
            raise KeySelectorError(index, value, f"key {k!r} cannot be hashed to a key group") from err
        buckets[c].append(value)
        if ts_buckets is not None and timestamps is not None:
            ts_buckets[c].append(timestamps[index])

    def _route_with_timestamps(
        self, values: list[Any], timestamps: list[int], buckets: list[list[Any]]
    ) -> Routed:
        ts_buckets: list[list[int]] = [[] for _ in buckets]
        get = self._cache.get
        key = self._key
        start = 0
        while start < len(values):
            position = start
            try:
                for position in range(start, len(values)):
                    c = get(key(values[position]))
                    buckets[c].append(values[position])  # type: ignore[index]
                    ts_buckets[c].append(timestamps[position])  # type: ignore[index]
                start = len(values)
            except Exception:
                self._route_one(values, position, buckets, timestamps, ts_buckets)
                start = position + 1
        return [(c, b, ts_buckets[c]) for c, b in enumerate(buckets) if b]


class CustomChannelSelector(ChannelSelector):
    """``partition(key_selector(value), n)`` per element."""

    def __init__(
        self,
        num_channels: int,
        partition: Callable[[Any, int], int],
        key_selector: Callable[[Any], Any],
    ) -> None:
        super().__init__(num_channels)
        self._partition = partition
        self._key = key_selector

    def route(self, values: list[Any], timestamps: list[int] | None) -> Routed:
        """Channel chosen by the user's partitioner."""
        n = self.num_channels
        channels = []
        for index, v in enumerate(values):
            try:
                c = self._partition(self._key(v), n)
            except Exception as err:
                raise KeySelectorError(index, v, "custom partitioner raised") from err
            if not isinstance(c, int) or not 0 <= c < n:
                raise KeySelectorError(
                    index, v, f"custom partitioner returned {c!r}, not a partition in [0, {n})"
                )
            channels.append(c)
        return _group(values, timestamps, channels, n)


def create_channel_selector(partitioner: Partitioner, num_channels: int) -> ChannelSelector:
    """The selector implementing ``partitioner`` over ``num_channels`` channels."""
    match partitioner:
        case BroadcastPartitioner():
            return BroadcastChannelSelector(num_channels)
        case _ if num_channels == 1:
            return SingleChannelSelector(1)
        case ForwardPartitioner() | GlobalPartitioner():
            return SingleChannelSelector(num_channels)
        case RebalancePartitioner():
            return RoundRobinChannelSelector(num_channels, random.randrange(num_channels))
        case RescalePartitioner():
            return RoundRobinChannelSelector(num_channels, 0)
        case ShufflePartitioner():
            return ShuffleChannelSelector(num_channels)
        case KeyGroupStreamPartitioner(key_selector=key, max_parallelism=max_p):
            return KeyGroupChannelSelector(num_channels, key, max_p)
        case CustomPartitionerWrapper(partitioner=part, key_selector=key):
            return CustomChannelSelector(num_channels, part, key)
    raise ValueError(f"unknown partitioner {partitioner!r}")
