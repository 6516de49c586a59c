"""StreamTaskNetworkInput: pulls buffers from the task's input gates and feeds the head operator.

One call processes one buffer: its records (serialized element batches) are decoded
and handed to the head operator; EndOfPartition events retire channels. The buffer
is recycled (back into the producer's pool) once its records are decoded.

With final checkpoints (FLIP-147) producers announce the end of their records with
``EndOfData`` and end the partition only after their final checkpoint: the input reports
``END_OF_DATA`` once, when every channel delivered EndOfData (or ended), then goes on
delivering the barriers that follow until every channel ended (``END_OF_INPUT``).

Each operator input (``gate.input_index``: 0, or 0 and 1 for two-input operators) has a
``StatusWatermarkValve`` over all channels of its gates: watermarks and watermark
statuses from the channels become the input's watermark, handed to the operator's
``process_watermark`` (``process_watermark1/2``) when it advances.

Per-record path: one unpickle per serialized batch.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import cloudpickle

from millstream.runtime.io.network.buffer import DataType
from millstream.runtime.io.network.consumer.input_channel import InputChannel
from millstream.runtime.io.network.consumer.input_gate import SingleInputGate
from millstream.runtime.io.network.events import (
    CancelCheckpointMarker,
    CheckpointBarrier,
    EndOfData,
    EndOfPartitionEvent,
    deserialize_event,
)
from millstream.runtime.operators.elements import Watermark, WatermarkStatus
from millstream.runtime.operators.sources import InputStatus
from millstream.runtime.taskmanager.checkpoint_barrier_handler import CheckpointBarrierHandler
from millstream.runtime.taskmanager.watermark_valve import StatusWatermarkValve

__all__ = ["InputHandler", "StreamTaskNetworkInput"]


BatchFn = Callable[[list[Any], Any], None]


class InputHandler:
    """Where one operator input's batches, watermarks and statuses go."""

    __slots__ = ("process_batch", "process_status", "process_watermark")

    def __init__(
        self,
        process_batch: BatchFn,
        process_watermark: Callable[[Watermark], None],
        process_status: Callable[[WatermarkStatus], None],
    ) -> None:
        self.process_batch = process_batch
        self.process_watermark = process_watermark
        self.process_status = process_status

    def bundled(self, wrap: Callable[[BatchFn], BatchFn]) -> InputHandler:
        """This handler with its batches handed over through ``wrap`` (the task's bundles)."""
        return InputHandler(wrap(self.process_batch), self.process_watermark, self.process_status)


class StreamTaskNetworkInput:
    """The union of a task's input gates."""

    def __init__(self, gates: list[SingleInputGate], handlers: list[InputHandler]) -> None:
        self.gates = gates
        self._next_gate = 0  # owner: task thread (round-robin over gates)
        self.barrier_handler: CheckpointBarrierHandler | None = None  # set when checkpointing
        self._priority: list[SingleInputGate] | None = None
        self._channels_with_data = sum(len(gate.channels) for gate in gates)
        self._data_ended: set[InputChannel] = set()
        self._end_of_data_reported = False
        self._replay: list[tuple[SingleInputGate, InputChannel, bytes]] = []  # recovered in-flight input
        channels_per_input = [0] * len(handlers)
        offsets = []
        for gate in gates:
            offsets.append(channels_per_input[gate.input_index])
            channels_per_input[gate.input_index] += len(gate.channels)
        self.valves = [
            StatusWatermarkValve(n, handler.process_watermark, handler.process_status)
            for n, handler in zip(channels_per_input, handlers, strict=True)
        ]
        # gate_index -> (batch function, valve, first channel of the gate in the valve)
        self._routes = [
            (handlers[g.input_index].process_batch, self.valves[g.input_index], offsets[i])
            for i, g in enumerate(gates)
        ]

    def prioritize(self, input_index: int) -> None:
        """Read only the gates of ``input_index`` until they are finished (BATCH: the broadcast
        side of a broadcast connection is consumed before the other input, as in Flink)."""
        first = [g for g in self.gates if g.input_index == input_index]
        if first and len(first) < len(self.gates):
            self._priority = first

    def request_partitions(self) -> None:
        """Every channel requests its subpartition."""
        for gate in self.gates:
            gate.request_partitions()

    def process_next(self) -> InputStatus:
        """Process one buffer if any gate has one."""
        if self._replay:
            self._replay_recovered()
            return InputStatus.MORE_AVAILABLE
        gates = self.gates
        if self._priority is not None:
            if all(g.is_finished for g in self._priority):
                self._priority = None
            else:
                gates = self._priority
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
                    self._process_element(element, gate, channel)
                elif data_type is DataType.DATA:
                    self._process_data(gate, channel, buffer)
                else:
                    self._process_event(gate, channel, deserialize_event(buffer))
                    if len(self._data_ended) == self._channels_with_data and not self._end_of_data_reported:
                        self._end_of_data_reported = True
                        return InputStatus.END_OF_DATA
                return InputStatus.MORE_AVAILABLE
        if all(g.is_finished for g in gates):
            return InputStatus.END_OF_INPUT
        return InputStatus.NOTHING_AVAILABLE

    def _process_data(self, gate: SingleInputGate, channel: InputChannel, buffer: Any) -> None:
        try:
            records = channel.deserializer.records(memoryview(buffer.segment)[: buffer.size])
            decoded = [pickle.loads(r) for r in records]
        finally:
            buffer.recycle()
        for element in decoded:
            self._process_element(element, gate, channel)

    def restore_channel_state(self, inputs: dict[tuple[int, int], tuple[list[bytes], Any]]) -> None:
        """In-flight input of an unaligned checkpoint: processed before anything the channels
        bring; a record begun before the barrier continues with the channel's next buffer."""
        gates = {gate.gate_index: gate for gate in self.gates}
        for (gate_index, channel_index), (elements, partial) in sorted(inputs.items()):
            gate = gates[gate_index]
            channel = gate.channels[channel_index]
            channel.deserializer.restore(partial)
            self._replay.extend((gate, channel, element) for element in elements)

    def _replay_recovered(self) -> None:
        replay, self._replay = self._replay, []
        for gate, channel, element in replay:
            self._process_element(pickle.loads(element), gate, channel)

    def _process_element(self, element: Any, gate: SingleInputGate, channel: InputChannel) -> None:
        recording = channel.recording
        if recording is not None:  # an unaligned checkpoint keeps it as in-flight input
            recording.append(cloudpickle.dumps(element, protocol=pickle.HIGHEST_PROTOCOL))
        process_batch, valve, offset = self._routes[gate.gate_index]
        kind = type(element)
        if kind is tuple:
            process_batch(element[0], element[1])
        elif kind is Watermark:
            valve.input_watermark(element, offset + channel.channel_index)
        elif kind is WatermarkStatus:
            valve.input_status(element, offset + channel.channel_index)
        else:
            raise TypeError(f"unexpected stream element {kind.__name__}")

    def _process_event(self, gate: SingleInputGate, channel: InputChannel, event: object) -> None:
        match event:
            case EndOfData():
                self._data_ended.add(channel)
            case EndOfPartitionEvent():
                self._data_ended.add(channel)
                if not channel.finished:
                    channel.finished = True
                    gate.finished_channels += 1
                    channel.release()
                    if self.barrier_handler is not None:
                        self.barrier_handler.process_end_of_partition()
            case CheckpointBarrier() if self.barrier_handler is not None:
                self.barrier_handler.process_barrier(gate, channel.channel_index, event)
            case CancelCheckpointMarker() if self.barrier_handler is not None:
                self.barrier_handler.process_cancel(gate, channel.channel_index, event)
            case _:
                raise TypeError(f"unexpected event {type(event).__name__}")

    def release(self) -> None:
        """Release all channels (failure or cancellation)."""
        for gate in self.gates:
            gate.release()
