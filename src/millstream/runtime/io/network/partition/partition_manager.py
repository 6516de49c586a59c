"""ResultPartitionManager: a TaskManager's produced partitions; serves subpartition requests.

A consumer may ask for a subpartition before its producer has registered the partition
(all tasks of a pipelined region are deployed together); such requests wait here and
are served at registration, which takes the place of Flink's request retry with backoff.
A request for a BLOCKING partition that is registered but not finished waits in the
partition until the producer finishes (only for a blocking edge inside one region:
other consumers of blocking results are scheduled after their producers finished).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from millstream.runtime.ids import ResultPartitionID
from millstream.runtime.io.network.partition.result_partition import ResultPartition
from millstream.runtime.io.network.partition.subpartition import AvailabilityListener

__all__ = ["ResultPartitionManager"]

ViewCallback = Callable[[Any], None]  # gets a SubpartitionView or a blocking reader


class ResultPartitionManager:
    """Registry of the partitions produced in one TaskManager."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._partitions: dict[ResultPartitionID, ResultPartition] = {}  # under _lock
        self._waiting: dict[ResultPartitionID, list[tuple[int, AvailabilityListener, ViewCallback]]] = {}

    def register(self, partition: ResultPartition) -> None:
        """Make ``partition`` requestable; serve requests that arrived early."""
        partition.on_released = self._forget
        with self._lock:
            self._partitions[partition.partition_id] = partition
            waiting = self._waiting.pop(partition.partition_id, [])
        for index, listener, callback in waiting:
            partition.request_view(index, listener, callback)

    def request_subpartition(
        self,
        partition_id: ResultPartitionID,
        index: int,
        listener: AvailabilityListener,
        callback: ViewCallback,
    ) -> None:
        """Create a view on subpartition ``index``; ``callback(view)`` now or at registration."""
        with self._lock:
            partition = self._partitions.get(partition_id)
            if partition is None:
                self._waiting.setdefault(partition_id, []).append((index, listener, callback))
                return
        partition.request_view(index, listener, callback)

    def cancel_request(self, partition_id: ResultPartitionID, listener: AvailabilityListener) -> None:
        """Forget a waiting request of a consumer that is going away."""
        with self._lock:
            partition = self._partitions.get(partition_id)
            waiting = self._waiting.get(partition_id)
            if waiting is not None:
                waiting[:] = [w for w in waiting if w[1] is not listener]
                if not waiting:
                    del self._waiting[partition_id]
        if partition is not None:
            partition.cancel_request(listener)

    def _forget(self, partition_id: ResultPartitionID) -> None:
        with self._lock:
            self._partitions.pop(partition_id, None)

    def release(self, partition_id: ResultPartitionID) -> None:
        """Release and forget a partition."""
        with self._lock:
            partition = self._partitions.pop(partition_id, None)
        if partition is not None:
            partition.release()

    def partition_ids(self) -> list[ResultPartitionID]:
        """Registered partitions."""
        with self._lock:
            return list(self._partitions)
