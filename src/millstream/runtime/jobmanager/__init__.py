"""millstream runtime: jobmanager"""

__all__: list[str] = []
