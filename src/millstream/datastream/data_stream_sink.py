"""DataStreamSink: what a sink call returns (``sink_to``, ``add_sink``, ``print``), to name
and configure the sink operator (PyFlink's ``pyflink.datastream.data_stream.DataStreamSink``,
importable from ``millstream.datastream.data_stream`` too)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from millstream.datastream.data_stream import DataStream

__all__ = ["DataStreamSink"]


class DataStreamSink:
    """The result of a sink call: settings of the sink operator."""

    def __init__(self, stream: DataStream) -> None:
        self._stream = stream

    def name(self, name: str) -> DataStreamSink:
        """Name the sink."""
        self._stream.name(name)
        return self

    def uid(self, uid: str) -> DataStreamSink:
        """A stable id for the sink."""
        self._stream.uid(uid)
        return self

    def set_uid_hash(self, uid_hash: str) -> DataStreamSink:
        """Use ``uid_hash`` as the sink's id."""
        self._stream.set_uid_hash(uid_hash)
        return self

    def set_parallelism(self, parallelism: int) -> DataStreamSink:
        """Parallelism of the sink."""
        self._stream.set_parallelism(parallelism)
        return self

    def set_description(self, description: str) -> DataStreamSink:
        """Description of the sink."""
        self._stream.set_description(description)
        return self

    def disable_chaining(self) -> DataStreamSink:
        """Never chain the sink."""
        self._stream.disable_chaining()
        return self

    def slot_sharing_group(self, slot_sharing_group: Any) -> DataStreamSink:
        """Slot-sharing group of the sink."""
        self._stream.slot_sharing_group(slot_sharing_group)
        return self
