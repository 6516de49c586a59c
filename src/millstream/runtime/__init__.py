"""The runtime: what runs a JobGraph (Flink's flink-runtime).

- ``jobmanager``: Dispatcher, JobMaster (scheduling, task states), ResourceManager (slots);
  ``executiongraph``: the parallel graph the JobMaster schedules.
- ``taskmanager``: TaskExecutor, Task, StreamTask, the operator chain; ``operators``: the
  stream operators; ``state``: keyed and operator state, key groups.
- ``io.network``: result partitions, input gates, buffers, credit-based transport;
  ``rpc``: the control plane's endpoints, gateways and wire format.
- ``minicluster`` (embedded runs), ``cluster_client`` (standalone clusters),
  ``vertex_host`` (chains run outside a TaskManager: Spark, the test harness); shared:
  ``deployment``, ``execution_state``, ``partitioning``, ``location``, ``ids``, ``blob``.
"""

__all__: list[str] = []
