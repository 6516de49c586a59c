"""Collect channels: results of ``execute_and_collect`` sinks on their way to the client.

::

    collect sink subtask (TaskManager) --offer(id, message)--> JobManager "collect" endpoint
        CollectRouter: a local client's channel, or on to a remote client's connection
        CollectChannel: one result buffer per sink subtask -> visible batches -> the client

A sink subtask sends ``millstream.runtime.collect_messages``: its start, its results, the
offset a completed checkpoint covers, its end. Each subtask's ``CollectResultBuffer``
decides what becomes visible (``collect_result_buffer``: with exactly-once checkpoints
only what a completed checkpoint covers, so results after the checkpoint a restart
restores from are dropped and come again from the restarted sink, exactly once).

The offer's future is the backpressure: a collect sink waits for it before sending the
next batch, so a slow client slows the job instead of filling memory. A batch is admitted
while fewer than ``COLLECT_QUEUE_BATCHES`` batches wait (visible or held back), and always
while the client has nothing visible to read: a checkpoint's barrier may be queued behind
the batch, and only that checkpoint can make the held-back results visible (as Flink's
client fetches while it has nothing to show, results held back grow by at most what the
job produces between two checkpoints). Coordinating code.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from concurrent.futures import Future
from typing import Any

from millstream.runtime.collect_messages import CollectMessage, CollectResults
from millstream.runtime.jobmanager.collect_result_buffer import (
    CollectError,
    ResultBufferKind,
    new_result_buffer,
)

__all__ = ["END", "CollectChannel", "CollectChannels", "CollectRouter"]

END = object()
COLLECT_QUEUE_BATCHES = 16


class _Failure:
    """In the visible queue: the client raises ``error`` when it gets here."""

    __slots__ = ("error",)

    def __init__(self, error: CollectError) -> None:
        self.error = error


class CollectChannel:
    """Bounded channel from the subtasks of one collect sink to the client.

    ``offer`` never blocks: it returns a future that completes once the message is taken
    (at once while there is room), so a TaskManager process can wait for it over RPC; a
    closed channel (client gone) completes every offer and drops the message.
    """

    def __init__(self, producers: int, kind: ResultBufferKind = ResultBufferKind.UNCHECKPOINTED) -> None:
        self._cond = threading.Condition()
        self._buffers = [new_result_buffer(kind, i, producers) for i in range(producers)]  # under _cond
        self._visible: deque[Any] = deque()  # under _cond: batches for the client, END, a _Failure
        self._waiting: deque[tuple[CollectMessage, Future[None]]] = deque()  # under _cond: beyond capacity
        self._ended = False  # under _cond: END (or a failure) is queued; later messages are dropped
        self.closed = False  # under _cond

    def offer(self, message: CollectMessage) -> Future[None]:
        """Take a sink subtask's message; the future completes when the client has room for it."""
        future: Future[None] = Future()
        with self._cond:
            if self.closed or self._ended:
                admitted = [future]
            elif isinstance(message, CollectResults) and (self._waiting or not self._has_room()):
                self._waiting.append((message, future))
                admitted = []
            else:
                self._take(message)
                admitted = [future, *self._admit_waiting()]
        for done in admitted:
            done.set_result(None)
        return future

    def send(self, message: CollectMessage) -> None:
        """Hand a message over; blocks while the client is behind (a sink in this process)."""
        self.offer(message).result()

    def get(self, timeout: float) -> Any:
        """The next visible batch, or ``END``; raises ``queue.Empty`` after ``timeout``.

        Raises:
            CollectError: a collect sink restarted in a job without checkpoints
                (``JobRestartedError``, after every batch delivered before the restart).
        """
        with self._cond:
            if not self._visible and not self._cond.wait_for(lambda: bool(self._visible), timeout):
                raise queue.Empty
            item = self._visible.popleft()
            if isinstance(item, _Failure):
                self._visible.appendleft(item)  # the channel stays failed
                raise item.error
            admitted = self._admit_waiting()
        for future in admitted:
            future.set_result(None)
        return item

    def complete(self) -> None:
        """The job finished: every result received is final (Flink reads them from the
        job's accumulators), and the client's iteration ends after them."""
        with self._cond:
            if self._ended:
                return
            for buffer in self._buffers:
                self._visible.extend(buffer.complete())
            self._visible.append(END)
            self._ended = True
            self._cond.notify_all()
            released = self._admit_waiting()
        for future in released:
            future.set_result(None)

    def queued(self) -> tuple[int, int, int]:
        """(batches visible to the client, batches held back until a checkpoint covers them,
        offers waiting for room): what the channel holds (inspection, tests)."""
        with self._cond:
            held = sum(len(b.pending) for b in self._buffers)
            return len(self._visible), held, len(self._waiting)

    def close(self) -> None:
        """The client stopped reading: release every waiting producer."""
        with self._cond:
            self.closed = True
            waiting = list(self._waiting)
            self._waiting.clear()
            self._visible.clear()
        for _, future in waiting:
            future.set_result(None)

    def _has_room(self) -> bool:  # under _cond
        visible = len(self._visible)
        return visible == 0 or visible + sum(len(b.pending) for b in self._buffers) < COLLECT_QUEUE_BATCHES

    def _take(self, message: CollectMessage) -> None:  # under _cond
        buffers = self._buffers
        try:
            self._visible.extend(buffers[message.subtask].receive(message))
        except CollectError as err:
            self._visible.append(_Failure(err))
            self._ended = True
        if not self._ended and all(b.finished and not b.pending for b in buffers):
            self._visible.append(END)
            self._ended = True
        self._cond.notify_all()

    def _admit_waiting(self) -> list[Future[None]]:  # under _cond
        """Take waiting messages in order while there is room (all of them once the channel
        ended, and those of attempts replaced since, which are dropped); their futures."""
        admitted = []
        while self._waiting:
            message, future = self._waiting[0]
            stale = message.attempt < self._buffers[message.subtask].attempt
            if not (self._ended or stale or self._has_room()):
                break
            self._waiting.popleft()
            if not (self._ended or stale):
                self._take(message)
            admitted.append(future)
        return admitted


class CollectChannels:
    """Collect channels of a cluster, by collect-sink id (also the ``collect`` RPC endpoint)."""

    RPC_METHODS = frozenset({"offer"})

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._channels: dict[str, CollectChannel] = {}

    def open(
        self, collect_id: str, producers: int, kind: ResultBufferKind = ResultBufferKind.UNCHECKPOINTED
    ) -> CollectChannel:
        """Create the channel of one collect sink."""
        with self._lock:
            channel = self._channels[collect_id] = CollectChannel(producers, kind)
            return channel

    def channel(self, collect_id: str) -> CollectChannel:
        """The channel of one collect sink."""
        with self._lock:
            return self._channels[collect_id]

    def offer(self, collect_id: str, message: CollectMessage) -> Future[None]:
        """RPC: a TaskManager's collect sink hands over a message."""
        return self.channel(collect_id).offer(message)

    def close_all(self) -> None:
        """Release every producer (the client is gone)."""
        with self._lock:
            channels = list(self._channels.values())
        for channel in channels:
            channel.close()


class CollectRouter:
    """The JobManager's ``collect`` endpoint: routes offers to local or remote clients."""

    RPC_METHODS = frozenset({"offer"})

    def __init__(self, local: CollectChannels) -> None:
        self.local = local
        self._lock = threading.Lock()
        self._remote: dict[str, Any] = {}  # under _lock: collect id -> client's RpcConnection

    def route_to_client(self, collect_ids: list[str], connection: Any) -> None:
        """Forward these sinks' messages to a remote client's connection."""
        with self._lock:
            for collect_id in collect_ids:
                self._remote[collect_id] = connection

    def _client(self, collect_id: str) -> Any:
        with self._lock:
            return self._remote.get(collect_id)

    def offer(self, collect_id: str, message: CollectMessage) -> Future[None]:
        """RPC from a collect sink."""
        client = self._client(collect_id)
        if client is None:
            return self.local.offer(collect_id, message)
        forwarded: Future[None] = client.call("collect", "offer", collect_id, message)
        return forwarded
