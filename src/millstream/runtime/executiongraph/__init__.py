"""The ExecutionGraph: a JobGraph expanded to parallel subtasks (Flink's ExecutionGraph).

``execution_graph``: ExecutionJobVertex -> ExecutionVertex (one per subtask) -> Execution
(one per attempt, its state changed only through the transition table);
``intermediate_result``: produced partitions and their pointwise/all-to-all wiring.
Built and read by the JobMaster on its main thread.
"""

__all__: list[str] = []
