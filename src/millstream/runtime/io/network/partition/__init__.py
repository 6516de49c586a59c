"""The producer side: a task's result partitions and their subpartitions.

``result_partition``: one per produced data set, one subpartition per consumer channel;
``subpartition``: pipelined (bounded, backpressured); ``bounded_blocking_subpartition``:
BATCH's blocking results, spilled to files; ``partition_manager``: a TaskManager's
partitions, looked up by partition requests. Written by the task thread, read by local
channels and the transport.
"""

__all__: list[str] = []
