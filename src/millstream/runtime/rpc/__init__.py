"""millstream runtime: rpc"""

__all__: list[str] = []
