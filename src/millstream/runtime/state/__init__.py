"""millstream runtime: state"""

__all__: list[str] = []
