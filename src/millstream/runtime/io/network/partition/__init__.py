"""millstream runtime: io/network/partition"""

__all__: list[str] = []
