"""The collect protocol without processes: the sink's messages, the client's result buffers
(Flink's ``CheckpointedCollectResultBuffer`` and ``UncheckpointedCollectResultBuffer``) and
the channel's admission (backpressure).

Before, the client showed every result as it came and knew nothing of restarts: a job
restarting from a checkpoint delivered each result emitted after that checkpoint twice.
"""

from __future__ import annotations

import queue
from typing import Any

import pytest

from millstream.runtime.collect_messages import (
    CollectCheckpointed,
    CollectFinished,
    CollectMessage,
    CollectResults,
    CollectStarted,
)
from millstream.runtime.jobmanager.collect import COLLECT_QUEUE_BATCHES, END, CollectChannel
from millstream.runtime.jobmanager.collect_result_buffer import (
    CollectProtocolError,
    JobRestartedError,
    ResultBufferKind,
    new_result_buffer,
)
from millstream.runtime.location import TaskLocation
from millstream.runtime.operators.base import OperatorContext, StreamingRuntimeContext
from millstream.runtime.operators.sinks import CollectSinkOperator

CHECKPOINTED = ResultBufferKind.CHECKPOINTED


def visible(kind: ResultBufferKind, *messages: CollectMessage) -> list[Any]:
    buffer = new_result_buffer(kind, 0, 1)
    return [value for message in messages for batch in buffer.receive(message) for value in batch]


def test_checkpointed_results_become_visible_when_a_completed_checkpoint_covers_them() -> None:
    buffer = new_result_buffer(CHECKPOINTED, 0, 1)
    assert buffer.receive(CollectStarted(0, 0, 0)) == []
    assert buffer.receive(CollectResults(0, 0, 0, ["a", "b"])) == []
    assert buffer.receive(CollectResults(0, 0, 2, ["c"])) == []
    assert buffer.receive(CollectCheckpointed(0, 0, 2)) == [["a", "b"]]
    assert buffer.receive(CollectFinished(0, 0, 3)) == []
    assert buffer.finished and len(buffer.pending) == 1
    assert buffer.receive(CollectCheckpointed(0, 0, 3)) == [["c"]]  # the final checkpoint


def test_a_restarted_sink_drops_what_came_after_the_restored_checkpoint_and_sends_it_again() -> None:
    got = visible(
        CHECKPOINTED,
        CollectStarted(0, 0, 0),
        CollectResults(0, 0, 0, [0, 1]),
        CollectCheckpointed(0, 0, 2),
        CollectResults(0, 0, 2, [2, 3]),  # after the checkpoint: dropped by the restart
        CollectStarted(0, 1, 2),  # attempt 1 restored offset 2
        CollectResults(0, 0, 4, [4]),  # a late message of attempt 0: dropped
        CollectResults(0, 1, 2, [2, 3, 4]),
        CollectFinished(0, 1, 5),
        CollectCheckpointed(0, 1, 5),
    )
    assert got == [0, 1, 2, 3, 4]


def test_a_restart_from_a_checkpoint_older_than_what_was_shown_skips_the_copies() -> None:
    # a savepoint made results up to 3 visible; the restart restores checkpoint offset 1
    got = visible(
        CHECKPOINTED,
        CollectResults(0, 0, 0, [0, 1, 2, 3]),
        CollectCheckpointed(0, 0, 3),
        CollectResults(0, 1, 1, [1, 2, 3, 4]),
        CollectCheckpointed(0, 1, 5),
    )
    assert got == [0, 1, 2, 3, 4]


def test_the_first_message_of_an_attempt_starts_it_when_its_start_was_overtaken() -> None:
    got = visible(
        CHECKPOINTED,
        CollectResults(0, 0, 0, [0, 1, 2]),
        CollectCheckpointed(0, 0, 1),
        CollectCheckpointed(0, 1, 1),  # attempt 1 restored offset 1, its start still on its way
        CollectStarted(0, 1, 1),
        CollectResults(0, 1, 1, [1, 2]),
    )
    assert got == [0]  # what the checkpoint covered; the rest waits for the next one (or the end)


def test_a_job_that_finished_makes_every_result_received_visible() -> None:
    buffer = new_result_buffer(CHECKPOINTED, 0, 1)
    buffer.receive(CollectResults(0, 0, 0, [0, 1]))
    assert buffer.complete() == [[0, 1]]


def test_without_checkpoints_results_are_visible_at_once_and_a_restart_raises_job_restarted() -> None:
    """Flink's UncheckpointedCollectResultBuffer (failureTolerance false, the buffer of a job
    without checkpoints) throws ``RuntimeException("Job restarted")`` when the sink's version
    changes (flink-streaming-java .../api/operators/collect/UncheckpointedCollectResultBuffer.java,
    ``sinkRestarted``); PyFlink 2.3.0's iterator raises ``java.lang.RuntimeException: Job
    restarted`` after the results received before."""
    buffer = new_result_buffer(ResultBufferKind.UNCHECKPOINTED, 0, 1)
    buffer.receive(CollectStarted(0, 0, 0))
    assert buffer.receive(CollectResults(0, 0, 0, ["a"])) == [["a"]]
    with pytest.raises(JobRestartedError, match=r"^Job restarted: collect sink subtask 1/1 started again"):
        buffer.receive(CollectStarted(0, 1, 0))


def test_with_at_least_once_checkpoints_a_restart_sends_the_results_after_the_checkpoint_again() -> None:
    """Flink's UncheckpointedCollectResultBuffer with failureTolerance (AT_LEAST_ONCE
    checkpoints): visible at once, a restart tolerated (PyFlink 2.3.0 collected 6002 results
    of 6000, two of them twice, across a restart)."""
    got = visible(
        ResultBufferKind.AT_LEAST_ONCE,
        CollectResults(0, 0, 0, [0, 1, 2]),
        CollectCheckpointed(0, 0, 1),
        CollectStarted(0, 1, 1),
        CollectResults(0, 1, 1, [1, 2, 3]),
    )
    assert got == [0, 1, 2, 1, 2, 3]


def test_a_missing_result_is_a_protocol_error() -> None:
    buffer = new_result_buffer(CHECKPOINTED, 0, 1)
    buffer.receive(CollectResults(0, 0, 0, [0]))
    with pytest.raises(CollectProtocolError, match="sent result 2 while result 1 was the next expected"):
        buffer.receive(CollectResults(0, 0, 2, [2]))


def drain(channel: CollectChannel) -> list[Any]:
    out: list[Any] = []
    while True:
        try:
            item = channel.get(timeout=0)
        except queue.Empty:
            return out
        out.append(item)


def test_the_channel_ends_when_every_subtask_finished_and_its_results_are_visible() -> None:
    channel = CollectChannel(2, CHECKPOINTED)
    for subtask in (0, 1):
        channel.send(CollectStarted(subtask, 0, 0))
        channel.send(CollectResults(subtask, 0, 0, [subtask]))
        channel.send(CollectFinished(subtask, 0, 1))
    assert drain(channel) == []
    channel.send(CollectCheckpointed(0, 0, 1))
    assert drain(channel) == [[0]]
    channel.send(CollectCheckpointed(1, 0, 1))
    assert drain(channel) == [[1], END]


def test_a_slow_client_holds_the_sink_back_and_a_waiting_client_never_does() -> None:
    channel = CollectChannel(1, CHECKPOINTED)
    offset = 0

    def offer() -> Any:
        nonlocal offset
        future = channel.offer(CollectResults(0, 0, offset, [offset]))
        offset += 1
        return future

    # the client has nothing visible: every batch is taken (a checkpoint barrier may be
    # behind the next one, and only a checkpoint makes the results visible)
    assert all(offer().done() for _ in range(3 * COLLECT_QUEUE_BATCHES))
    channel.send(CollectCheckpointed(0, 0, 2))
    # two batches visible, unread: no more than the bound is held
    futures = [offer() for _ in range(3)]
    assert not any(f.done() for f in futures)
    assert channel.queued() == (2, 3 * COLLECT_QUEUE_BATCHES - 2, 3)
    assert channel.get(timeout=0) == [0]
    assert not futures[0].done()  # still one visible batch and the held ones beyond the bound
    assert channel.get(timeout=0) == [1]
    assert all(f.done() for f in futures)  # nothing visible: taken, in order
    assert channel.queued() == (0, 3 * COLLECT_QUEUE_BATCHES + 1, 0)


def test_a_restart_releases_the_waiting_offers_of_the_replaced_attempt() -> None:
    channel = CollectChannel(1, CHECKPOINTED)
    channel.send(CollectResults(0, 0, 0, [0]))
    channel.send(CollectCheckpointed(0, 0, 1))
    for offset in range(1, COLLECT_QUEUE_BATCHES):
        channel.send(CollectResults(0, 0, offset, [offset]))
    stuck = channel.offer(CollectResults(0, 0, COLLECT_QUEUE_BATCHES, ["stuck"]))
    assert not stuck.done()
    channel.send(CollectStarted(0, 1, 1))  # the restarted attempt, from the checkpoint's offset
    assert stuck.done()
    channel.send(CollectResults(0, 1, 1, ["again"]))
    channel.send(CollectFinished(0, 1, 2))
    channel.send(CollectCheckpointed(0, 1, 2))
    assert drain(channel) == [[0], ["again"], END]


def test_without_checkpoints_the_client_reads_what_came_before_the_restart_then_raises() -> None:
    channel = CollectChannel(1, ResultBufferKind.UNCHECKPOINTED)
    channel.send(CollectStarted(0, 0, 0))
    channel.send(CollectResults(0, 0, 0, ["a"]))
    channel.send(CollectStarted(0, 1, 0))
    dropped = channel.offer(CollectResults(0, 1, 0, ["a"]))
    assert dropped.done()  # the channel failed: nothing more is taken, nobody waits
    assert channel.get(timeout=0) == ["a"]
    for _ in range(2):  # the failure stays
        with pytest.raises(JobRestartedError, match="Job restarted"):
            channel.get(timeout=0)


class Recorder:
    def __init__(self) -> None:
        self.messages: list[CollectMessage] = []

    def send(self, message: CollectMessage) -> None:
        self.messages.append(message)


def sink(channel: Recorder, attempt: int = 0) -> CollectSinkOperator:
    location = TaskLocation("job", "collect", 1, 2, attempt)
    runtime_context = StreamingRuntimeContext("collect", 1, 2, 128, attempt)
    return CollectSinkOperator(OperatorContext("collect", location, runtime_context), channel)


def test_the_sink_counts_its_results_in_its_checkpoints_and_tells_which_ones_completed() -> None:
    channel = Recorder()
    op = sink(channel)
    op.open()
    op.process_batch(["a", "b"], None)
    snapshot = op.snapshot_state(1)
    op.process_batch(["c"], None)
    op.snapshot_state(2)
    op.notify_checkpoint_complete(1)
    op.finish()
    op.snapshot_state(3)
    op.notify_checkpoint_complete(3)  # 2 was aborted; 3 is the final checkpoint
    assert channel.messages == [
        CollectStarted(1, 0, 0),
        CollectResults(1, 0, 0, ["a", "b"]),
        CollectResults(1, 0, 2, ["c"]),
        CollectCheckpointed(1, 0, 2),
        CollectFinished(1, 0, 3),
        CollectCheckpointed(1, 0, 3),
    ]
    restored = Recorder()
    op = sink(restored, attempt=1)
    op.restore_state(snapshot)
    op.open()
    op.process_batch(["c"], None)
    assert restored.messages == [CollectStarted(1, 1, 2), CollectResults(1, 1, 2, ["c"])]
