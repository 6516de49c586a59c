"""millstream runtime: io/network"""

__all__: list[str] = []
