"""The consumer side: a task's input gates and their channels (local and remote).

``input_gate``: SingleInputGate, requesting its partitions once deployed (receiver-initiated);
``input_channel``: the base and the local channel; ``remote_input_channel``: buffers from
another TaskManager, credit-based (exclusive and floating buffers, credit announcements).
Read by the task thread; remote buffers arrive on the transport's loop thread.
"""

__all__: list[str] = []
