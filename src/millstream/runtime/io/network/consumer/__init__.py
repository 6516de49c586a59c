"""millstream runtime: io/network/consumer"""

__all__: list[str] = []
