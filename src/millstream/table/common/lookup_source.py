"""Lookup tables (Flink's ``LookupTableSource`` with its ``LookupFunction`` /
``AsyncLookupFunction`` and their providers): a connector table whose rows are fetched by key
while a lookup join runs, instead of being scanned.

::

    SELECT ... FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.proc_time AS r
        ON o.currency = r.currency            -- o.proc_time: a PROCTIME() attribute

    planner: LookupContext(keys=((0,),))  ──►  rates' get_lookup_runtime_provider(context)
                                                    │
                                                    ▼
    LookupJoin operator: per left row  ──►  function.lookup(("EUR",))  ──►  [("EUR", 114, ...)]

The planner asks the table's source for a provider with the columns the join's equalities
bind (``LookupContext.keys``, in the order the lookup key rows carry their values); the
provider holds the function the lookup join calls once per input row (its key row: the
values of those columns), which returns the table's rows with those values, every column of
the source in its order. A source implements :class:`LookupTableSource` beside (or instead
of) scanning; the built-in filesystem connector caches the whole table and reloads it after
``lookup.join.cache.ttl``, a database connector queries per key. Rows are tuples of the
values millstream's table runtime uses (the same as a ``TableSource`` produces).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

__all__ = [
    "AsyncLookupFunction",
    "AsyncLookupFunctionProvider",
    "LookupContext",
    "LookupFunction",
    "LookupFunctionProvider",
    "LookupTableSource",
]


@dataclass(frozen=True, slots=True)
class LookupContext:
    """What the planner asks of a lookup table (Flink's ``LookupTableSource.LookupContext``).

    Attributes:
        keys: the key columns: one index path per column, as Flink's ``getKeys()`` (a top-level
            column is a path of one index), in the order of the values of each key row.
    """

    keys: tuple[tuple[int, ...], ...]

    def key_indexes(self) -> list[int]:
        """The top-level column index of each key (nested paths are not lookup keys here).

        Raises:
            ValueError: a key is a nested field.
        """
        if any(len(path) != 1 for path in self.keys):
            raise ValueError(f"a lookup key must be a top-level column, got the paths {list(self.keys)}")
        return [path[0] for path in self.keys]


class LookupFunction(ABC):
    """Fetches a lookup table's rows by key (Flink's ``LookupFunction``): ``open`` once per
    subtask before the first lookup, ``lookup`` per input row, ``close`` at the end. It is
    shipped to the subtasks with the job (cloudpickle), so it opens its files or connections
    in ``open``, not in its constructor."""

    def open(self, context: Any) -> None:  # noqa: B027 - optional, as Flink's
        """Before the first lookup; ``context``: the subtask's FunctionContext (job parameters)."""

    @abstractmethod
    def lookup(self, key_row: tuple[Any, ...]) -> Collection[tuple[Any, ...]]:
        """The table's rows whose key columns hold ``key_row``'s values (none: empty)."""

    def close(self) -> None:  # noqa: B027 - optional, as Flink's
        """After the last lookup (also on failure)."""


class AsyncLookupFunction(ABC):
    """Fetches a lookup table's rows by key without blocking the subtask (Flink's
    ``AsyncLookupFunction``): ``async_lookup`` is a coroutine, run on the subtask's event loop;
    the join emits the results in the order of its input rows."""

    def open(self, context: Any) -> None:  # noqa: B027 - optional, as Flink's
        """Before the first lookup; ``context``: the subtask's FunctionContext (job parameters)."""

    @abstractmethod
    async def async_lookup(self, key_row: tuple[Any, ...]) -> Collection[tuple[Any, ...]]:
        """The table's rows whose key columns hold ``key_row``'s values (none: empty)."""

    def close(self) -> None:  # noqa: B027 - optional, as Flink's
        """After the last lookup (also on failure)."""


@dataclass(frozen=True, slots=True)
class LookupFunctionProvider:
    """A lookup table's synchronous function (Flink's ``LookupFunctionProvider``)."""

    function: LookupFunction

    @staticmethod
    def of(function: LookupFunction) -> LookupFunctionProvider:
        """The provider of ``function``."""
        return LookupFunctionProvider(function)


@dataclass(frozen=True, slots=True)
class AsyncLookupFunctionProvider:
    """A lookup table's asynchronous function (Flink's ``AsyncLookupFunctionProvider``)."""

    function: AsyncLookupFunction

    @staticmethod
    def of(function: AsyncLookupFunction) -> AsyncLookupFunctionProvider:
        """The provider of ``function``."""
        return AsyncLookupFunctionProvider(function)


class LookupTableSource(ABC):
    """A table source whose rows a lookup join fetches by key (Flink's ``LookupTableSource``):
    ``FOR SYSTEM_TIME AS OF`` a processing-time attribute against it is a lookup join."""

    @abstractmethod
    def get_lookup_runtime_provider(
        self, context: LookupContext
    ) -> LookupFunctionProvider | AsyncLookupFunctionProvider:
        """The function that fetches the rows whose columns ``context.keys`` hold a key row's
        values."""
