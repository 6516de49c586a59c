"""StreamTaskNetworkInput: pulls buffers from the task's input gates and feeds the head operator.

One call processes one buffer: its records (serialized element batches) are decoded
and handed to the head operator; EndOfPartition events retire channels. The buffer
is recycled (back into the producer's pool) once its records are decoded.

Per-record path: one unpickle per serialized batch.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

from millstream.runtime.io.network.buffer import DataType
from millstream.runtime.io.network.consumer.input_channel import InputChannel
from millstream.runtime.io.network.consumer.input_gate import SingleInputGate
from millstream.runtime.io.network.events import EndOfPartitionEvent, deserialize_event
from millstream.runtime.operators.sources import InputStatus

__all__ = ["StreamTaskNetworkInput"]


class StreamTaskNetworkInput:
    """The union of a task's input gates."""

    def __init__(self, gates: list[SingleInputGate], process_batch: Callable[[list[Any], Any], None]) -> None:
        self.gates = gates
        self._process_batch = process_batch
        self._next_gate = 0  # owner: task thread (round-robin over gates)

    def request_partitions(self) -> None:
        """Every channel requests its subpartition."""
        for gate in self.gates:
            gate.request_partitions()

    def process_next(self) -> InputStatus:
        """Process one buffer if any gate has one."""
        gates = self.gates
        n = len(gates)
        for i in range(n):
            gate = gates[(self._next_gate + i) % n]
            polled = gate.poll_next()
            if polled is not None:
                self._next_gate = (self._next_gate + i + 1) % n
                channel, buffer = polled
                data_type = buffer.data_type
                if data_type is DataType.OBJECTS:
                    element = buffer.payload
                    buffer.recycle()
                    self._process_element(element)
                elif data_type is DataType.DATA:
                    self._process_data(channel, buffer)
                else:
                    self._process_event(gate, channel, deserialize_event(buffer))
                return InputStatus.MORE_AVAILABLE
        if all(g.is_finished for g in gates):
            return InputStatus.END_OF_INPUT
        return InputStatus.NOTHING_AVAILABLE

    def _process_data(self, channel: InputChannel, buffer: Any) -> None:
        try:
            records = channel.deserializer.records(memoryview(buffer.segment)[: buffer.size])
            decoded = [pickle.loads(r) for r in records]
        finally:
            buffer.recycle()
        for element in decoded:
            self._process_element(element)

    def _process_element(self, element: Any) -> None:
        if type(element) is tuple:
            self._process_batch(element[0], element[1])
        else:
            raise TypeError(f"unexpected stream element {type(element).__name__}")

    def _process_event(self, gate: SingleInputGate, channel: InputChannel, event: object) -> None:
        match event:
            case EndOfPartitionEvent():
                if not channel.finished:
                    channel.finished = True
                    gate.finished_channels += 1
                    channel.release()
            case _:
                raise TypeError(f"unexpected event {type(event).__name__}")

    def release(self) -> None:
        """Release all channels (failure or cancellation)."""
        for gate in self.gates:
            gate.release()
