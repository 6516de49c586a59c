"""State descriptors, state interfaces and TTL, as ``pyflink.datastream.state``.

A descriptor names a state and says what it holds; ``RuntimeContext.get_state`` (and
friends) returns the state of the current key. ``kind`` tells the runtime which state
to create (the runtime never imports this module).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from enum import Enum
from typing import Any, Generic, TypeVar

from millstream.common.time import Time

__all__ = [
    "AggregatingState",
    "AggregatingStateDescriptor",
    "AppendingState",
    "BroadcastState",
    "ListState",
    "ListStateDescriptor",
    "MapState",
    "MapStateDescriptor",
    "MergingState",
    "ReadOnlyBroadcastState",
    "ReducingState",
    "ReducingStateDescriptor",
    "State",
    "StateDescriptor",
    "StateTtlConfig",
    "ValueState",
    "ValueStateDescriptor",
]

# Type parameters, named as PyFlink's: its classes are Generic, and programs subscript them
# (``class MyFn(ProcessWindowFunction[tuple, tuple, str, TimeWindow])``).
T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")
IN = TypeVar("IN")
OUT = TypeVar("OUT")


class State(ABC):
    """Base of every state interface."""

    @abstractmethod
    def clear(self) -> None:
        """Remove the value of the current key."""


class ValueState(State, Generic[T]):
    """One value per key."""

    @abstractmethod
    def value(self) -> Any:
        """The value, or None."""

    @abstractmethod
    def update(self, value: Any) -> None:
        """Set the value."""


class AppendingState(State, Generic[IN, OUT]):
    """State that values are added to and read as a whole (PyFlink's hierarchy)."""

    @abstractmethod
    def get(self) -> Any:
        """The current value."""

    @abstractmethod
    def add(self, value: Any) -> None:
        """Add a value."""


class MergingState(AppendingState[IN, OUT]):
    """AppendingState whose values of several windows can be merged."""


class ListState(MergingState[T, Iterable[T]]):
    """A list per key."""

    @abstractmethod
    def get(self) -> Iterable[Any]:
        """The elements."""

    @abstractmethod
    def add(self, value: Any) -> None:
        """Append an element."""


class MapState(State, Generic[K, V]):
    """A map per key."""

    @abstractmethod
    def get(self, key: Any) -> Any:
        """The value of ``key``."""

    @abstractmethod
    def put(self, key: Any, value: Any) -> None:
        """Set ``key``."""

    def get_internal_state(self) -> Any:
        """This map state fixed to the current key: a program that holds it while other keys
        are processed still reads and writes this key's map (PyFlink's internal state, with
        ``get``, ``put``, ``put_all``, ``remove``, ``contains``, ``items``, ``keys``,
        ``values``, ``is_empty`` and ``clear``). The runtime's map states return such a view;
        this default is the state itself."""
        return self


class ReducingState(MergingState[T, T]):
    """Values folded with a reduce function."""

    @abstractmethod
    def get(self) -> Any:
        """The reduced value."""

    @abstractmethod
    def add(self, value: Any) -> None:
        """Fold in a value."""


class AggregatingState(MergingState[IN, OUT]):
    """Values added to an AggregateFunction's accumulator."""

    @abstractmethod
    def get(self) -> Any:
        """The aggregate."""

    @abstractmethod
    def add(self, value: Any) -> None:
        """Add a value."""


class ReadOnlyBroadcastState(State, Generic[K, V]):
    """Broadcast state as the non-broadcast side sees it (read only)."""

    @abstractmethod
    def get(self, key: Any) -> Any:
        """The value of ``key``."""


class BroadcastState(ReadOnlyBroadcastState[K, V]):
    """Broadcast state as the broadcast side sees it."""

    @abstractmethod
    def put(self, key: Any, value: Any) -> None:
        """Set ``key``."""


class StateTtlConfig:
    """Time-to-live of keyed state entries (processing time), as Flink's."""

    class UpdateType(Enum):
        """When the last-access time of an entry is refreshed."""

        Disabled = 0
        OnCreateAndWrite = 1
        OnReadAndWrite = 2

    class StateVisibility(Enum):
        """Whether an expired entry not yet removed may be returned."""

        ReturnExpiredIfNotCleanedUp = 0
        NeverReturnExpired = 1

    class TtlTimeCharacteristic(Enum):
        """The time TTL is measured in (processing time only, as in Flink)."""

        ProcessingTime = 0

    def __init__(
        self,
        update_type: StateTtlConfig.UpdateType,
        state_visibility: StateTtlConfig.StateVisibility,
        ttl_time_characteristic: StateTtlConfig.TtlTimeCharacteristic,
        ttl: Time,
        cleanup_strategies: dict[str, Any],
    ) -> None:
        self._update_type = update_type
        self._state_visibility = state_visibility
        self._ttl_time_characteristic = ttl_time_characteristic
        self._ttl = ttl
        self._cleanup = cleanup_strategies

    @staticmethod
    def new_builder(ttl: Time) -> StateTtlConfig.Builder:
        """A builder with ``ttl`` (a ``Time``)."""
        return StateTtlConfig.Builder(ttl)

    def get_update_type(self) -> StateTtlConfig.UpdateType:
        """When access times are refreshed."""
        return self._update_type

    def get_state_visibility(self) -> StateTtlConfig.StateVisibility:
        """Whether expired entries may be returned."""
        return self._state_visibility

    def get_ttl(self) -> Time:
        """The time to live."""
        return self._ttl

    def get_ttl_time_characteristic(self) -> StateTtlConfig.TtlTimeCharacteristic:
        """Processing time."""
        return self._ttl_time_characteristic

    def is_enabled(self) -> bool:
        """False when the update type is Disabled."""
        return self._update_type is not StateTtlConfig.UpdateType.Disabled

    def get_cleanup_strategies(self) -> dict[str, Any]:
        """The configured background cleanup strategies (expired entries are always removed on read)."""
        return dict(self._cleanup)

    class Builder:
        """Builds a StateTtlConfig."""

        def __init__(self, ttl: Time) -> None:
            self._ttl = ttl
            self._update_type = StateTtlConfig.UpdateType.OnCreateAndWrite
            self._visibility = StateTtlConfig.StateVisibility.NeverReturnExpired
            self._cleanup: dict[str, Any] = {}

        def set_update_type(self, update_type: StateTtlConfig.UpdateType) -> StateTtlConfig.Builder:
            """When access times are refreshed."""
            self._update_type = update_type
            return self

        def update_ttl_on_create_and_write(self) -> StateTtlConfig.Builder:
            """Refresh on create and write (default)."""
            return self.set_update_type(StateTtlConfig.UpdateType.OnCreateAndWrite)

        def update_ttl_on_read_and_write(self) -> StateTtlConfig.Builder:
            """Refresh on read and write."""
            return self.set_update_type(StateTtlConfig.UpdateType.OnReadAndWrite)

        def set_state_visibility(self, visibility: StateTtlConfig.StateVisibility) -> StateTtlConfig.Builder:
            """Whether expired entries may be returned."""
            self._visibility = visibility
            return self

        def return_expired_if_not_cleaned_up(self) -> StateTtlConfig.Builder:
            """Return an expired entry read before its cleanup (it is removed by that read)."""
            return self.set_state_visibility(StateTtlConfig.StateVisibility.ReturnExpiredIfNotCleanedUp)

        def never_return_expired(self) -> StateTtlConfig.Builder:
            """Never return expired entries (default)."""
            return self.set_state_visibility(StateTtlConfig.StateVisibility.NeverReturnExpired)

        def set_ttl_time_characteristic(
            self, characteristic: StateTtlConfig.TtlTimeCharacteristic
        ) -> StateTtlConfig.Builder:
            """Processing time (the only one)."""
            return self

        def use_processing_time(self) -> StateTtlConfig.Builder:
            """Processing time (the only one)."""
            return self

        def cleanup_full_snapshot(self) -> StateTtlConfig.Builder:
            """Leave expired entries out of full snapshots."""
            self._cleanup["full_snapshot"] = True
            return self

        def cleanup_incrementally(
            self, cleanup_size: int, run_cleanup_for_every_record: bool
        ) -> StateTtlConfig.Builder:
            """Recorded; expired entries are removed when read."""
            self._cleanup["incremental"] = (cleanup_size, run_cleanup_for_every_record)
            return self

        def cleanup_in_rocksdb_compact_filter(
            self, query_time_after_num_entries: int
        ) -> StateTtlConfig.Builder:
            """Recorded for the RocksDB backend."""
            self._cleanup["rocksdb_compaction"] = query_time_after_num_entries
            return self

        def disable_cleanup_in_background(self) -> StateTtlConfig.Builder:
            """Only cleanup on read."""
            self._cleanup.clear()
            return self

        def set_ttl(self, ttl: Time) -> StateTtlConfig.Builder:
            """The time to live."""
            self._ttl = ttl
            return self

        def build(self) -> StateTtlConfig:
            """The config."""
            return StateTtlConfig(
                self._update_type,
                self._visibility,
                StateTtlConfig.TtlTimeCharacteristic.ProcessingTime,
                self._ttl,
                self._cleanup,
            )


class StateDescriptor:
    """Name and type of a state; ``enable_time_to_live`` adds TTL."""

    kind = ""

    def __init__(self, name: str, type_info: Any = None) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("a state needs a non-empty name")
        self.name = name
        self.type_info = type_info
        self.ttl_config: StateTtlConfig | None = None

    def get_name(self) -> str:
        """The state's name (unique per operator)."""
        return self.name

    def enable_time_to_live(self, ttl_config: StateTtlConfig) -> None:
        """Expire entries ``ttl_config.get_ttl()`` after their last (configured) access."""
        self.ttl_config = ttl_config

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class ValueStateDescriptor(StateDescriptor):
    """Describes a ValueState."""

    kind = "value"

    def __init__(self, name: str, value_type_info: Any = None) -> None:
        super().__init__(name, value_type_info)


class ListStateDescriptor(StateDescriptor):
    """Describes a ListState."""

    kind = "list"

    def __init__(self, name: str, elem_type_info: Any = None) -> None:
        super().__init__(name, elem_type_info)


class MapStateDescriptor(StateDescriptor):
    """Describes a MapState (also broadcast state)."""

    kind = "map"

    def __init__(self, name: str, key_type_info: Any = None, value_type_info: Any = None) -> None:
        super().__init__(name, value_type_info)
        self.key_type_info = key_type_info


class ReducingStateDescriptor(StateDescriptor):
    """Describes a ReducingState: ``reduce_function`` is a ReduceFunction or a callable."""

    kind = "reducing"

    def __init__(self, name: str, reduce_function: Any, type_info: Any = None) -> None:
        super().__init__(name, type_info)
        if not (hasattr(reduce_function, "reduce") or callable(reduce_function)):
            raise TypeError("reduce_function must be a ReduceFunction or a callable")
        self._reduce_function = reduce_function

    def get_reduce_function(self) -> Any:
        """The reduce function."""
        return self._reduce_function


class AggregatingStateDescriptor(StateDescriptor):
    """Describes an AggregatingState with an AggregateFunction."""

    kind = "aggregating"

    def __init__(self, name: str, agg_function: Any, state_type_info: Any = None) -> None:
        super().__init__(name, state_type_info)
        for method in ("create_accumulator", "add", "get_result"):
            if not hasattr(agg_function, method):
                raise TypeError(f"agg_function must be an AggregateFunction (no {method}())")
        self._agg_function = agg_function

    def get_agg_function(self) -> Any:
        """The aggregate function."""
        return self._agg_function
