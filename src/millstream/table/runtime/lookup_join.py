"""Lookup joins: each input row joined with the rows a lookup table returns for its key at the
time the row is processed, as Flink's ``LookupJoinRunner`` / ``AsyncLookupJoinRunner``.

::

    (kind, row) ──► key row: the lookup keys' values (a computed key, a constant)
                      │  a NULL in it: no lookup, no match
                      ▼
                  function.lookup(key row)  (a LookupFunction of the table's source)
                      │
                      ▼
    each returned row passing the rest of the condition ──► (kind, row + returned)
    none (LEFT) ──► (kind, row + NULLs)

The operator keeps no state of its own (the table is the function's: a cache, a connection),
so it runs in the chain of its input, at the input's parallelism, and a checkpoint holds
nothing of it. The result keeps each input row's kind: an updating input joins its updates.

Per-record path: it takes a batch of its input's elements at a time (the batch operator), one
key tuple and one ``lookup`` call per row. An ``AsyncLookupFunction``'s lookups for a batch
run concurrently on an event loop of the subtask (at most ``capacity`` at once, each within
``timeout_ms``), and the results leave in the input's order (Flink's ORDERED output mode).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection
from typing import Any

from millstream.common.user_code import ElementError
from millstream.table.common.lookup_source import AsyncLookupFunction, LookupFunction
from millstream.table.functions.async_calls import _Loop
from millstream.table.functions.user_defined import FunctionContext

__all__ = ["ASYNC_LOOKUP_CAPACITY", "ASYNC_LOOKUP_TIMEOUT_MS", "LookupJoinRunner"]

# Flink's defaults of table.exec.async-lookup.buffer-capacity and table.exec.async-lookup.timeout
ASYNC_LOOKUP_CAPACITY = 100
ASYNC_LOOKUP_TIMEOUT_MS = 180_000

Row = tuple[Any, ...]


class LookupJoinRunner:
    """``fn(values) -> (outputs, kept)`` for the batch operator: the lookup join of a batch of
    ``(kind, row)`` changes (see the module docstring).

    Args:
        function: the lookup table's function (sync or async).
        keys: per value of the key row, a function of the input row computing it.
        conditions: a function a fetched row must pass (None: none), the table's columns kept
            (their positions), and a function the joined row must pass (None: none).
        outer: a LEFT join (rows without a match padded with NULLs).
        table: the table's name, for errors.
    """

    def __init__(
        self,
        function: LookupFunction | AsyncLookupFunction,
        keys: list[Callable[[Row], Any]],
        conditions: tuple[Callable[[Row], Any] | None, tuple[int, ...], Callable[[Row], Any] | None],
        outer: bool,
        table: str,
    ) -> None:
        self.function, self.keys, self.outer, self.table = function, list(keys), outer, table
        self.table_filter, self.projection, self.condition = conditions
        self.padding = (None,) * len(self.projection)
        self.capacity, self.timeout_ms = ASYNC_LOOKUP_CAPACITY, ASYNC_LOOKUP_TIMEOUT_MS
        self._loop: _Loop | None = None  # an async function's event loop; owner: task thread

    def open(self, runtime_context: Any) -> None:
        """Open the table's function (an async one on an event loop of its own)."""
        if isinstance(self.function, AsyncLookupFunction):
            self._loop = _Loop()
        self.function.open(FunctionContext())

    def close(self) -> None:
        """Close the table's function (and its event loop)."""
        loop, self._loop = self._loop, None
        try:
            self.function.close()
        finally:
            if loop is not None:
                loop.close()

    def __call__(self, values: list[Any]) -> tuple[list[Any], list[int] | None]:
        key_rows = [self._key_row(row) for _, row in values]
        if isinstance(self.function, AsyncLookupFunction):
            found = self._async_lookups(key_rows)
        else:
            found = self._lookups(key_rows)
        out: list[Any] = []
        taken: list[int] = []
        condition, outer, padding = self.condition, self.outer, self.padding
        table_filter, projection = self.table_filter, self.projection
        whole = projection == tuple(range(len(projection)))
        for offset, ((kind, row), rows) in enumerate(zip(values, found, strict=True)):
            matched = False
            for other in rows:
                if table_filter is not None and table_filter(other) is not True:
                    continue
                joined = row + (tuple(other) if whole else tuple([other[i] for i in projection]))
                if condition is None or condition(joined) is True:
                    out.append((kind, joined))
                    taken.append(offset)
                    matched = True
            if outer and not matched:
                out.append((kind, row + padding))
                taken.append(offset)
        return out, taken

    def _key_row(self, row: Row) -> Row | None:
        """The key row of ``row`` (None when a key is NULL: ``NULL = x`` matches nothing)."""
        key = tuple([k(row) for k in self.keys])
        return None if None in key else key

    def _lookups(self, key_rows: list[Row | None]) -> list[Collection[Row]]:
        lookup = self.function.lookup  # type: ignore[union-attr]
        found: list[Collection[Row]] = []
        for offset, key in enumerate(key_rows):
            if key is None:
                found.append(())
                continue
            try:
                found.append(lookup(key))
            except Exception as err:
                raise ElementError(offset) from err
        return found

    def _async_lookups(self, key_rows: list[Row | None]) -> list[Collection[Row]]:
        if self._loop is None:
            self.open(None)
        assert self._loop is not None
        found: list[Collection[Row]] = self._loop.run(self._all(key_rows))
        return found

    async def _all(self, key_rows: list[Row | None]) -> list[Collection[Row]]:
        semaphore = asyncio.Semaphore(self.capacity)
        function = self.function
        assert isinstance(function, AsyncLookupFunction)

        async def one(offset: int, key: Row | None) -> Collection[Row]:
            if key is None:
                return ()
            async with semaphore:
                try:
                    return await asyncio.wait_for(function.async_lookup(key), self.timeout_ms / 1000)
                except TimeoutError as err:
                    message = (
                        f"Async lookup of {key!r} in table '{self.table}' timed out after "
                        f"{self.timeout_ms} ms (table.exec.async-lookup.timeout)"
                    )
                    raise ElementError(offset) from TimeoutError(message).with_traceback(err.__traceback__)
                except Exception as err:
                    raise ElementError(offset) from err

        tasks = [asyncio.ensure_future(one(i, k)) for i, k in enumerate(key_rows)]
        try:
            return list(await asyncio.gather(*tasks))
        except ElementError:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            failed = [t for t in tasks if not t.cancelled() and isinstance(t.exception(), ElementError)]
            first = min(failed, key=lambda t: t.exception().offset)  # type: ignore[union-attr]
            failure = first.exception()
            assert failure is not None
            raise failure from failure.__cause__

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_loop": None}
