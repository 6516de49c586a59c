"""millstream runtime: io"""

__all__: list[str] = []
