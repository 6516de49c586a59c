"""millstream runtime: operators"""

__all__: list[str] = []
