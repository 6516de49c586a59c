"""The data plane: how records travel between tasks (Flink's runtime.io.network).

- ``record_writer`` / ``serialization``: element batches into buffers (records span buffers),
  ``events``: in-band events (end of partition);
  ``buffer`` / ``buffer_pool``: network buffers and their pools (redistributed, bounded).
- ``partition``: ResultPartition and subpartitions (pipelined and blocking); the producer side.
- ``consumer``: input gates and local/remote input channels (credits, backpressure).
- ``transport``: one multiplexed connection per TaskManager pair, partition requests,
  credit announcements; an asyncio loop per TaskManager (``network_environment``).
Task threads write and read; the transport's loop thread moves buffers between processes.
"""

__all__: list[str] = []
