"""millstream runtime: executiongraph"""

__all__: list[str] = []
