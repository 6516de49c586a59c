"""RemoteInputChannel credit accounting (Flink's credit-based flow control), driven by hand:
a real NetworkBufferPool and gate pool, a sender that never exceeds the credit it was
given (as a producer's subpartition), and a task that consumes and recycles buffers.

Invariants after every step: credit the sender holds + buffers in flight never exceed
the buffers the channel holds free; the channel holds exactly its exclusive buffers plus
the floating ones it needs for the announced backlog (never more than ``backlog +
exclusive`` once buffers come back); segments are conserved across the pools.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from millstream.runtime.ids import ResultPartitionID
from millstream.runtime.io.network.buffer import DataType
from millstream.runtime.io.network.buffer_pool import NetworkBufferPool
from millstream.runtime.io.network.consumer.remote_input_channel import (
    RemoteInputChannel,
    RemoteTransportError,
)
from tests.conftest import ci_examples

SEGMENT = 32
EXCLUSIVE = 2


class Gate:
    def __init__(self) -> None:
        self.notified = 0

    def notify_channel_non_empty(self, channel: Any) -> None:
        self.notified += 1


class Sender:
    """The producer's side of the connection: holds credit, sends only against it."""

    def __init__(self) -> None:
        self.credit = 0
        self.requested: list[RemoteInputChannel] = []
        self.cancelled = False
        self.sequence = 0

    # PartitionRequestClientProtocol
    def request_subpartition(self, channel: RemoteInputChannel) -> None:
        self.requested.append(channel)
        self.credit += channel.initial_credit

    def notify_credit_available(self, channel: RemoteInputChannel) -> None:
        self.credit += channel.take_unannounced_credit()

    def cancel(self, channel: RemoteInputChannel) -> None:
        self.cancelled = True

    def send(self, channel: RemoteInputChannel, backlog: int, payload: bytes = b"x") -> None:
        assert self.credit > 0, "the sender never sends without credit"
        self.credit -= 1
        channel.on_buffer(self.sequence, backlog, DataType.DATA, payload)
        self.sequence += 1


def make(total: int = 8, floating_max: int = 4):  # type: ignore[no-untyped-def]
    network = NetworkBufferPool(total_segments=total, segment_size=SEGMENT)
    floating = network.create_buffer_pool(1, floating_max)
    sender = Sender()
    channel = RemoteInputChannel(
        Gate(),  # type: ignore[arg-type]
        0,
        ResultPartitionID("p"),
        0,
        lambda: sender,
        ("127.0.0.1", 1),
        network,
        floating,
        EXCLUSIVE,
    )
    channel.request_subpartition()
    return network, floating, sender, channel


def test_the_exclusive_buffers_are_the_initial_credit():
    network, _, sender, _ = make()
    assert sender.credit == EXCLUSIVE
    assert network.number_of_available_segments == 8 - EXCLUSIVE


def test_a_backlog_brings_floating_buffers_as_credit_and_consumed_buffers_come_back_as_credit():
    _, floating, sender, channel = make()
    sender.send(channel, backlog=3)
    # wants backlog + exclusive = 5 buffers, holds 1 free exclusive: 4 floating buffers
    assert floating.number_of_requested_segments - floating.number_of_available_segments == 4
    assert sender.credit == 1 + 4
    buffer, _ = channel.get_next_buffer()
    assert buffer is not None and bytes(buffer.segment[: buffer.size]) == b"x"
    # the consumed buffer was exclusive: it stays, and as the channel now holds more than
    # backlog + exclusive, one floating buffer goes back instead (Flink's addExclusiveBuffer):
    # the free buffers, and the credit, stay the same
    buffer.recycle()
    assert sender.credit == 1 + 4
    assert floating.number_of_requested_segments - floating.number_of_available_segments == 3
    assert channel.unannounced_credit() == 0


def test_floating_buffers_go_back_to_the_pool_as_the_backlog_shrinks():
    _, floating, sender, channel = make()
    sender.send(channel, backlog=3)  # wants 3 + 2 buffers: takes 4 floating ones
    sender.send(channel, backlog=1)  # now wants 1 + 2
    while True:
        buffer, _ = channel.get_next_buffer()
        if buffer is None:
            break
        buffer.recycle()
    # both consumed buffers came back while the channel held more than backlog + exclusive:
    # the exclusive one stayed and a floating one went back in its place, the floating one went
    # back; the two floating buffers never used stay free (announced credit) until used, as in
    # Flink, where a shrinking backlog releases nothing by itself
    assert channel._available_locked() == 4
    assert floating.number_of_requested_segments - floating.number_of_available_segments == 2
    assert sender.credit == 4


def test_without_a_floating_buffer_the_channel_waits_as_a_listener_and_gets_the_next_one():
    _, floating, sender, channel = make(total=3, floating_max=1)  # 2 exclusive + 1 floating
    other = floating.request_segment()  # someone else holds the only floating buffer
    assert other is not None
    sender.send(channel, backlog=5)
    assert sender.credit == 1  # no floating buffer to announce yet
    floating.recycle(other)  # handed straight to the waiting channel
    assert sender.credit == 2


def test_a_buffer_sent_without_credit_is_a_protocol_violation():
    _, _, sender, channel = make()
    for _ in range(EXCLUSIVE):
        sender.send(channel, backlog=0)
    channel.on_buffer(sender.sequence, 0, DataType.DATA, b"y")  # beyond the credit
    for _ in range(EXCLUSIVE):
        channel.get_next_buffer()
    with pytest.raises(RemoteTransportError, match="without credit"):
        channel.get_next_buffer()


def test_an_out_of_order_buffer_fails_the_channel_naming_the_producer():
    _, _, _, channel = make()
    channel.on_buffer(5, 0, DataType.DATA, b"z")
    with pytest.raises(RemoteTransportError, match="buffer 5 arrived where 0 was expected from producer"):
        channel.get_next_buffer()


def test_release_gives_every_segment_back_even_those_still_in_the_task():
    network, floating, sender, channel = make()
    sender.send(channel, backlog=2)
    held, _ = channel.get_next_buffer()
    channel.release()
    assert sender.cancelled
    assert held is not None
    held.recycle()  # consumed after release: goes back to its pool
    in_use = floating.number_of_requested_segments - floating.number_of_available_segments
    assert in_use == 0
    assert network.number_of_available_segments + floating.number_of_requested_segments == 8


class CreditModel(RuleBasedStateMachine):
    """Random sends (with random backlogs), consumption and recycling."""

    def __init__(self) -> None:
        super().__init__()
        self.network, self.floating, self.sender, self.channel = make(total=10, floating_max=5)
        self.held: list[Any] = []  # buffers the task took and has not recycled yet

    @precondition(lambda self: self.sender.credit > 0)
    @rule(backlog=st.integers(0, 6))
    def send(self, backlog: int) -> None:
        self.sender.send(self.channel, backlog)

    @rule()
    def consume(self) -> None:
        buffer, _ = self.channel.get_next_buffer()
        if buffer is not None:
            self.held.append(buffer)

    @precondition(lambda self: self.held)
    @rule(index=st.integers(0, 100))
    def recycle(self, index: int) -> None:
        channel = self.channel
        before, required = channel._available_locked(), channel._required
        self.held.pop(index % len(self.held)).recycle()
        # a consumed buffer comes back as a free one only while the backlog needs it
        after = channel._available_locked()
        assert after == (before + 1 if before < required else before)

    @invariant()
    def the_sender_never_holds_more_credit_than_free_buffers(self) -> None:
        channel = self.channel
        with channel._lock:
            free = len(channel._free_exclusive) + len(channel._free_floating)
            unannounced = channel._unannounced_credit
        assert self.sender.credit + unannounced == free

    @invariant()
    def segments_are_conserved(self) -> None:
        channel = self.channel
        with channel._lock:
            in_channel = len(channel._exclusive_owned) + len(channel._free_floating)
            queued_floating = sum(1 for b in channel._received if b.recycler is channel._floating_recycler)
        held_floating = sum(1 for b in self.held if b.recycler is channel._floating_recycler)
        floating = self.floating
        # the gate pool's segments in use are exactly the channel's floating buffers
        in_use = floating.number_of_requested_segments - floating.number_of_available_segments
        assert in_use == len(channel._free_floating) + queued_floating + held_floating
        # every segment is somewhere: free in the network pool, the channel's exclusive ones,
        # or held by the gate's floating pool (in use or cached there)
        total = self.network.number_of_available_segments + len(channel._exclusive_owned)
        total += floating.number_of_requested_segments
        assert total == 10 and in_channel <= 10


TestCreditModel = CreditModel.TestCase
TestCreditModel.settings = ci_examples(60, stateful_step_count=40)
