"""Checkpoints (Flink's runtime.checkpoint), on the JobMaster's main thread.

``coordinator``: CheckpointCoordinator (periodic triggers, pending checkpoints collecting
acknowledgements, completion, aborts, the tolerable-failure count); ``storage``: where
completed checkpoints live (a directory with versioned ``_metadata``, or memory).
Driven by the JobMaster; the tasks' side (barriers, snapshots) lives with the tasks.
"""

__all__: list[str] = []
