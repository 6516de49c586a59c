"""NetworkEnvironment: a TaskManager's network memory and produced partitions."""

from __future__ import annotations

from collections.abc import Callable

from millstream.common import config_options as opts
from millstream.common.configuration import Configuration
from millstream.runtime.io.network.buffer_pool import NetworkBufferPool
from millstream.runtime.io.network.partition.partition_manager import ResultPartitionManager
from millstream.runtime.io.network.partition.result_partition import ResultPartition
from millstream.runtime.jobmanager.deployment import ResultPartitionDeploymentDescriptor

__all__ = ["NetworkEnvironment"]


class NetworkEnvironment:
    """NetworkBufferPool + ResultPartitionManager, sized from the configuration."""

    def __init__(self, configuration: Configuration) -> None:
        self.buffer_pool = NetworkBufferPool(
            configuration.get(opts.NETWORK_NUM_BUFFERS), configuration.get(opts.MEMORY_SEGMENT_SIZE)
        )
        self.partition_manager = ResultPartitionManager()
        self.buffers_per_channel = configuration.get(opts.NETWORK_BUFFERS_PER_CHANNEL)
        self.floating_buffers = configuration.get(opts.NETWORK_FLOATING_BUFFERS_PER_GATE)
        self.local_object_exchange = configuration.get(opts.LOCAL_EXCHANGE) == "objects"

    def create_result_partition(
        self, rpdd: ResultPartitionDeploymentDescriptor, should_abort: Callable[[], bool]
    ) -> ResultPartition:
        """A partition whose pool holds n+1 .. n*buffers-per-channel+floating buffers (Flink's)."""
        n = rpdd.num_subpartitions
        pool = self.buffer_pool.create_buffer_pool(
            n + 1, max(n + 1, n * self.buffers_per_channel + self.floating_buffers)
        )
        return ResultPartition(rpdd.partition_id, n, pool, should_abort)
