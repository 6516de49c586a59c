"""The millstream command line."""

__all__: list[str] = []
