"""I/O of tasks: the network stack (``network``) that moves records between them."""

__all__: list[str] = []
