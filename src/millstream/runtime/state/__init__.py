"""State of operators: ``heap`` (keyed state tables by key group: value, list, map, reducing,
aggregating; namespaces for windows), ``operator_state`` (list, union and broadcast
state), ``key_groups`` (Flink's key -> key group -> subtask assignment and key hashes).
Used by operators on the task thread.
"""

__all__: list[str] = []
