"""The JDBC lookup table's partial cache (issue 49, JDBC) behaves as Flink's
``DefaultLookupCache`` (flink-table-common, a Guava cache): entries expire a fixed time after
they were written or last read, at most ``maximumSize`` keys are held (the least recently read
goes first), an empty result is cached only with ``cacheMissingKey``, and a cache with neither
expiry nor size is refused with Flink's message."""

from __future__ import annotations

import pytest

from millstream.connectors.jdbc.lookup import LookupCache


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_entries_expire_after_write() -> None:
    clock = Clock()
    cache = LookupCache(expire_after_write_s=10, clock=clock)
    cache.put(("EUR",), [("EUR", 1)])
    clock.now = 9.9
    assert cache.get_if_present(("EUR",)) == [("EUR", 1)]
    clock.now = 10.0
    assert cache.get_if_present(("EUR",)) is None
    assert (cache.hits, cache.misses, cache.size()) == (1, 1, 0)


def test_entries_expire_after_access_unless_read() -> None:
    clock = Clock()
    cache = LookupCache(expire_after_access_s=5, clock=clock)
    cache.put((1,), [(1, "a")])
    for now in (4, 8, 12):  # each read keeps it another 5 s
        clock.now = now
        assert cache.get_if_present((1,)) == [(1, "a")]
    clock.now = 17
    assert cache.get_if_present((1,)) is None


def test_the_least_recently_read_key_is_evicted_first() -> None:
    cache = LookupCache(maximum_size=2, clock=Clock())
    cache.put((1,), [(1,)])
    cache.put((2,), [(2,)])
    assert cache.get_if_present((1,)) == [(1,)]
    cache.put((3,), [(3,)])
    assert cache.get_if_present((2,)) is None
    assert cache.get_if_present((1,)) == [(1,)] and cache.get_if_present((3,)) == [(3,)]


def test_missing_keys_are_cached_only_when_asked() -> None:
    cache = LookupCache(maximum_size=10, cache_missing_key=False, clock=Clock())
    cache.put(("nope",), [])
    assert cache.get_if_present(("nope",)) is None
    caching = LookupCache(maximum_size=10, clock=Clock())
    caching.put(("nope",), [])
    assert caching.get_if_present(("nope",)) == []


def test_a_cache_without_eviction_is_refused() -> None:
    with pytest.raises(
        ValueError, match=r"^Expiration duration and maximum size are not set for the cache\."
    ):
        LookupCache()
