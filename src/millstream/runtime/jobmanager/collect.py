"""Collect channels: elements of ``execute_and_collect`` sinks on their way to the client.

::

    collect sink subtask (TaskManager) --offer(id, batch)--> JobManager "collect" endpoint
        CollectRouter: a local client's channel, or on to a remote client's connection
        CollectChannel: bounded queue; the offer completes when the client has room

The offer's future is the backpressure: a collect sink waits for it before sending the
next batch, so a slow client slows the job instead of filling memory. Coordinating code.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from concurrent.futures import Future
from typing import Any

__all__ = ["END", "CollectChannel", "CollectChannels", "CollectRouter"]

END = object()
COLLECT_QUEUE_BATCHES = 16


class CollectChannel:
    """Bounded channel from collect-sink subtasks to the client.

    ``offer`` never blocks: it returns a future that completes once the batch is in the
    client's queue (at once while there is room), so a TaskManager process can wait for
    it over RPC; a closed channel (client gone) completes every offer and drops the batch.
    """

    def __init__(self, producers: int) -> None:
        self._cond = threading.Condition()
        self._queue: deque[Any] = deque()  # under _cond
        self._waiting: deque[tuple[Any, Future[None]]] = deque()  # under _cond: offers beyond capacity
        self._producers = producers  # under _cond
        self.closed = False  # under _cond

    def offer(self, batch: Any) -> Future[None]:
        """Queue a batch (or ``END``); the future completes when the client has room for it."""
        future: Future[None] = Future()
        with self._cond:
            if self.closed:
                future.set_result(None)
            elif len(self._queue) < COLLECT_QUEUE_BATCHES:
                self._queue.append(batch)
                future.set_result(None)
                self._cond.notify_all()
            else:
                self._waiting.append((batch, future))
        return future

    def put(self, batch: list[Any]) -> None:
        """Hand a batch to the client; blocks while the client is behind."""
        self.offer(batch).result()

    def producer_finished(self) -> None:
        """One collect subtask reached its end."""
        with self._cond:
            self._producers -= 1
            last = self._producers == 0
        if last:
            self.offer(END)

    def get(self, timeout: float) -> Any:
        """The next batch, ``END``, or raises ``queue.Empty``."""
        admitted: list[Future[None]] = []
        with self._cond:
            if not self._queue and not self._cond.wait_for(lambda: bool(self._queue), timeout):
                raise queue.Empty
            item = self._queue.popleft()
            while self._waiting and len(self._queue) < COLLECT_QUEUE_BATCHES:
                batch, future = self._waiting.popleft()
                self._queue.append(batch)
                admitted.append(future)
        for future in admitted:
            future.set_result(None)
        return item

    def close(self) -> None:
        """The client stopped reading: release every waiting producer."""
        with self._cond:
            self.closed = True
            waiting = list(self._waiting)
            self._waiting.clear()
            self._queue.clear()
        for _, future in waiting:
            future.set_result(None)


class CollectChannels:
    """Collect channels of a cluster, by collect-sink id (also the ``collect`` RPC endpoint)."""

    RPC_METHODS = frozenset({"offer", "producer_finished"})

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._channels: dict[str, CollectChannel] = {}

    def open(self, collect_id: str, producers: int) -> CollectChannel:
        """Create the channel of one collect sink."""
        with self._lock:
            channel = self._channels[collect_id] = CollectChannel(producers)
            return channel

    def channel(self, collect_id: str) -> CollectChannel:
        """The channel of one collect sink."""
        with self._lock:
            return self._channels[collect_id]

    def offer(self, collect_id: str, batch: Any) -> Future[None]:
        """RPC: a TaskManager's collect sink hands over a batch."""
        return self.channel(collect_id).offer(batch)

    def producer_finished(self, collect_id: str) -> None:
        """RPC: a TaskManager's collect subtask finished."""
        self.channel(collect_id).producer_finished()

    def close_all(self) -> None:
        """Release every producer (the client is gone)."""
        with self._lock:
            channels = list(self._channels.values())
        for channel in channels:
            channel.close()


class CollectRouter:
    """The JobManager's ``collect`` endpoint: routes offers to local or remote clients."""

    RPC_METHODS = frozenset({"offer", "producer_finished"})

    def __init__(self, local: CollectChannels) -> None:
        self.local = local
        self._lock = threading.Lock()
        self._remote: dict[str, Any] = {}  # under _lock: collect id -> client's RpcConnection

    def route_to_client(self, collect_ids: list[str], connection: Any) -> None:
        """Forward these sinks' batches to a remote client's connection."""
        with self._lock:
            for collect_id in collect_ids:
                self._remote[collect_id] = connection

    def _client(self, collect_id: str) -> Any:
        with self._lock:
            return self._remote.get(collect_id)

    def offer(self, collect_id: str, batch: Any) -> Future[None]:
        """RPC from a collect sink."""
        client = self._client(collect_id)
        if client is None:
            return self.local.offer(collect_id, batch)
        forwarded: Future[None] = client.call("collect", "offer", collect_id, batch)
        return forwarded

    def producer_finished(self, collect_id: str) -> Any:
        """RPC from a collect sink that finished."""
        client = self._client(collect_id)
        if client is None:
            self.local.producer_finished(collect_id)
            return None
        return client.call("collect", "producer_finished", collect_id)
