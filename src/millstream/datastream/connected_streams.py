"""ConnectedStreams, BroadcastStream and BroadcastConnectedStream, as PyFlink's.

``a.connect(b)`` pairs two streams (of possibly different types) for one two-input
operator: input 1 is ``a``, input 2 is ``b``. When both are keyed (``key_by`` on the
connected streams, or two KeyedStreams) the operator has keyed state and timers shared
by both inputs per key. ``a.connect(b.broadcast(descriptor))`` sends every element of
``b`` to every subtask of the operator, which keeps it in broadcast state.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from millstream.common.typeinfo import TypeInformation
from millstream.datastream.functions import (
    BroadcastProcessFunction,
    CoFlatMapFunction,
    CoMapFunction,
    CoProcessFunction,
    KeyedBroadcastProcessFunction,
    KeyedCoProcessFunction,
)
from millstream.datastream.state import MapStateDescriptor
from millstream.graph.operator_specs import (
    BroadcastProcessSpec,
    CoFlatMapSpec,
    CoMapSpec,
    CoProcessSpec,
    KeyedBroadcastProcessSpec,
    KeyedCoProcessSpec,
    OperatorSpec,
)

if TYPE_CHECKING:
    from millstream.datastream.data_stream import DataStream

__all__ = ["BroadcastConnectedStream", "BroadcastStream", "ConnectedStreams"]

_CoSpec = CoMapSpec | CoFlatMapSpec | CoProcessSpec | KeyedCoProcessSpec


def _methods(func: Any, cls: type, names: tuple[str, str], what: str) -> tuple[str, str]:
    if not isinstance(func, cls):
        raise TypeError(f"The input function must be a {what}")
    return names


class ConnectedStreams:
    """Two streams connected for one two-input operator."""

    def __init__(self, stream1: DataStream, stream2: DataStream) -> None:
        self.stream1 = stream1
        self.stream2 = stream2

    def _key_selectors(self) -> tuple[Any, Any] | None:
        first, second = self.stream1._keyed_selector(), self.stream2._keyed_selector()
        if first is not None and second is not None:  # both keyed streams
            return (first, second)
        return None

    def key_by(
        self, key_selector1: Any, key_selector2: Any, key_type: TypeInformation | None = None
    ) -> ConnectedStreams:
        """Key both inputs (keys of equal value meet in the same subtask)."""
        return ConnectedStreams(
            self.stream1.key_by(key_selector1, key_type), self.stream2.key_by(key_selector2, key_type)
        )

    def _op(self, name: str, spec: _CoSpec, output_type: Any, keys: Any) -> DataStream:
        if keys is not None:
            spec = replace(spec, key_selectors=keys)
        return self.stream1._two_input(self.stream2._values_id(), name, spec, output_type, keys)

    def map(self, func: CoMapFunction, output_type: TypeInformation | None = None) -> DataStream:
        """``map1`` for elements of the first input, ``map2`` for the second."""
        fns = _methods(func, CoMapFunction, ("map1", "map2"), "CoMapFunction")
        spec = CoMapSpec(func, fns)
        return self._op("Co-Map", spec, output_type, self._key_selectors())

    def flat_map(self, func: CoFlatMapFunction, output_type: TypeInformation | None = None) -> DataStream:
        """``flat_map1`` / ``flat_map2``: any number of outputs per element."""
        fns = _methods(func, CoFlatMapFunction, ("flat_map1", "flat_map2"), "CoFlatMapFunction")
        spec = CoFlatMapSpec(func, fns)
        return self._op("Co-Flat Map", spec, output_type, self._key_selectors())

    def process(self, func: Any, output_type: TypeInformation | None = None) -> DataStream:
        """A CoProcessFunction, or a KeyedCoProcessFunction on keyed connected streams."""
        keys = self._key_selectors()
        if isinstance(func, KeyedCoProcessFunction):
            if keys is None:
                raise TypeError(
                    "KeyedCoProcessFunction can only be used on connected streams that are both keyed "
                    "(use ConnectedStreams.key_by)"
                )
            keyed = KeyedCoProcessSpec(func, ("process_element1", "process_element2"), keys)
            return self._op("KeyedCoProcess", keyed, output_type, keys)
        fns = _methods(func, CoProcessFunction, ("process_element1", "process_element2"), "CoProcessFunction")
        return self._op("Co-Process", CoProcessSpec(func, fns), output_type, None)


class BroadcastStream:
    """A stream broadcast to every subtask of the operator it is connected to, with its state descriptors."""

    def __init__(self, stream: DataStream, descriptors: tuple[MapStateDescriptor, ...]) -> None:
        if not descriptors:
            raise ValueError("broadcast state needs at least one MapStateDescriptor")
        for d in descriptors:
            if not isinstance(d, MapStateDescriptor):
                raise TypeError("broadcast state descriptors must be MapStateDescriptors")
        self._stream = stream  # already partitioned by BroadcastPartitioner
        self.descriptors = descriptors


class BroadcastConnectedStream:
    """A (keyed or non-keyed) stream connected with a BroadcastStream."""

    def __init__(self, non_broadcast: DataStream, broadcast: BroadcastStream) -> None:
        self._non_broadcast = non_broadcast
        self._broadcast = broadcast

    def process(self, func: Any, output_type: TypeInformation | None = None) -> DataStream:
        """A BroadcastProcessFunction, or a KeyedBroadcastProcessFunction after ``key_by``."""
        key = self._non_broadcast._keyed_selector()  # None: not a keyed stream
        keyed = key is not None
        descriptors = tuple(self._broadcast.descriptors)
        spec: OperatorSpec
        if keyed:
            if not isinstance(func, KeyedBroadcastProcessFunction):
                raise TypeError("A KeyedBroadcastProcessFunction is required on a keyed stream.")
            spec = KeyedBroadcastProcessSpec(func, descriptors, key)
            name, keys = "Co-Process-Broadcast-Keyed", (key, None)
        else:
            if not isinstance(func, BroadcastProcessFunction):
                raise TypeError("A BroadcastProcessFunction is required on a non-keyed stream.")
            spec = BroadcastProcessSpec(func, descriptors)
            name, keys = "Co-Process-Broadcast", None
        return self._non_broadcast._two_input(self._broadcast._stream._id, name, spec, output_type, keys)
