"""millstream runtime: taskmanager"""

__all__: list[str] = []
