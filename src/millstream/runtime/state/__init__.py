"""State of operators, used on the task thread.

- Keyed state backends (``keyed_backend``: the contract, TTL, the canonical snapshot both
  write): ``heap`` (state tables by key group: value, list, map, reducing, aggregating;
  namespaces for windows) and ``rocksdb`` (an embedded RocksDB per keyed operator subtask;
  its states in ``rocksdb_states``, full snapshots in ``rocksdb_snapshots``); ``backends``
  picks one per job.
- ``operator_state``: list, union and broadcast state.
- ``key_groups``: Flink's key -> key group -> subtask assignment and key hashes;
  ``rescale``: a snapshot's key groups at another parallelism.
- Checkpoints of state: ``snapshot`` (deferred snapshots written off the task thread),
  ``incremental`` (RocksDB's shared SST files), ``serialization`` (keys and values).
"""

__all__: list[str] = []
