"""Planning: transformations -> StreamGraph -> JobGraph. Pure data and pure functions."""

__all__: list[str] = []
