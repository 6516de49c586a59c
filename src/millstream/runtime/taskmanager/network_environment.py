"""NetworkEnvironment: a TaskManager's network memory and produced partitions."""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from typing import Any

from millstream.common import config_options as opts
from millstream.common.configuration import Configuration
from millstream.graph.job_graph import ResultPartitionType
from millstream.runtime.deployment import (
    InputGateDeploymentDescriptor,
    ResultPartitionDeploymentDescriptor,
)
from millstream.runtime.ids import ResourceID
from millstream.runtime.io.network.buffer_pool import NetworkBufferPool
from millstream.runtime.io.network.consumer.input_channel import LocalInputChannel
from millstream.runtime.io.network.consumer.input_gate import SingleInputGate
from millstream.runtime.io.network.consumer.remote_input_channel import RemoteInputChannel
from millstream.runtime.io.network.output_flusher import OutputFlusher
from millstream.runtime.io.network.partition.partition_manager import ResultPartitionManager
from millstream.runtime.io.network.partition.result_partition import ResultPartition

__all__ = ["NetworkEnvironment"]


class NetworkEnvironment:
    """NetworkBufferPool + ResultPartitionManager (+ the ConnectionManager of a TaskManager process).

    ``resource_id`` is this TaskManager's: an input channel whose producer runs here is
    local, any other is remote (read over ``connection_manager``).
    """

    def __init__(
        self,
        configuration: Configuration,
        resource_id: ResourceID | None = None,
        connection_manager: Any = None,
    ) -> None:
        self.resource_id = resource_id
        self.connection_manager = connection_manager
        self.buffer_pool = NetworkBufferPool(
            configuration.get(opts.NETWORK_NUM_BUFFERS), configuration.get(opts.MEMORY_SEGMENT_SIZE)
        )
        self.partition_manager = ResultPartitionManager()
        self.buffers_per_channel = configuration.get(opts.NETWORK_BUFFERS_PER_CHANNEL)
        self.floating_buffers = configuration.get(opts.NETWORK_FLOATING_BUFFERS_PER_GATE)
        self.local_object_exchange = configuration.get(opts.LOCAL_EXCHANGE) == "objects"
        self.local_queued_batches = configuration.get(opts.LOCAL_EXCHANGE_QUEUED_BATCHES)
        roots = [d for d in configuration.get(opts.IO_TMP_DIRS).split(os.pathsep) if d.strip()]
        self._tmp_roots = roots or [tempfile.gettempdir()]
        self._spill_dirs: list[str] = []  # created on first use, removed by close()
        self._spill_lock = threading.Lock()
        self._next_dir = itertools.count()
        self.output_flusher = OutputFlusher(f"OutputFlusher {resource_id or ''}".strip())

    def create_result_partition(
        self,
        rpdd: ResultPartitionDeploymentDescriptor,
        should_abort: Callable[[], bool],
        on_consumable: Callable[[Any], None] | None = None,
    ) -> ResultPartition:
        """A partition whose pool holds n+1 .. n*buffers-per-channel+floating buffers (Flink's).

        A BLOCKING partition spills to files in one of ``io.tmp.dirs`` (round-robin).
        """
        n = rpdd.num_subpartitions
        pool = self.buffer_pool.create_buffer_pool(
            n + 1, max(n + 1, n * self.buffers_per_channel + self.floating_buffers)
        )
        spill_dir = self._spill_dir() if rpdd.partition_type is ResultPartitionType.BLOCKING else None
        return ResultPartition(
            rpdd.partition_id,
            n,
            pool,
            should_abort,
            on_consumable,
            spill_dir,
            max_queued_batches=self.local_queued_batches,
        )

    def _spill_dir(self) -> str:
        with self._spill_lock:
            if not self._spill_dirs:
                self._spill_dirs = [
                    tempfile.mkdtemp(prefix="millstream-shuffle-", dir=root) for root in self._tmp_roots
                ]
            return self._spill_dirs[next(self._next_dir) % len(self._spill_dirs)]

    def close(self) -> None:
        """Stop the output flusher, release every partition and delete the spill directories."""
        self.output_flusher.close()
        for partition_id in self.partition_manager.partition_ids():
            self.partition_manager.release(partition_id)
        with self._spill_lock:
            dirs, self._spill_dirs = self._spill_dirs, []
        for directory in dirs:
            shutil.rmtree(directory, ignore_errors=True)

    def create_input_gate(
        self, index: int, igdd: InputGateDeploymentDescriptor, on_available: Callable[[], None]
    ) -> SingleInputGate:
        """A gate with a local or remote channel per consumed subpartition.

        Remote channels take ``buffers-per-channel`` exclusive buffers each; the gate's
        LocalBufferPool holds the floating buffers (Flink's defaults: 2 and 8).
        """
        gate = SingleInputGate(index, igdd.input_index, on_available)
        remote = [c for c in igdd.channels if not self._is_local(c.producer_location)]
        if remote:
            gate.buffer_pool = self.buffer_pool.create_buffer_pool(1, max(1, self.floating_buffers))
        for channel_index, icdd in enumerate(igdd.channels):
            if self._is_local(icdd.producer_location):
                channel: Any = LocalInputChannel(
                    gate, channel_index, icdd.partition_id, icdd.subpartition_index, self.partition_manager
                )
            else:
                address = icdd.producer_data_address
                if address is None or self.connection_manager is None:
                    raise RuntimeError(
                        f"input channel {channel_index} of gate {index} reads from TaskManager "
                        f"{icdd.producer_location}, which has no data-plane address"
                    )
                manager = self.connection_manager
                channel = RemoteInputChannel(
                    gate,
                    channel_index,
                    icdd.partition_id,
                    icdd.subpartition_index,
                    lambda a=address, cm=manager: cm.client_for(a),
                    tuple(address),  # type: ignore[arg-type]
                    self.buffer_pool,
                    gate.buffer_pool,
                    self.buffers_per_channel,
                )
            gate.add_channel(channel)
        return gate

    def _is_local(self, producer: ResourceID) -> bool:
        return self.resource_id is None or producer == self.resource_id
