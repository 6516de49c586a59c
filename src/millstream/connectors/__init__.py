"""Connectors: collection, files, number sequence, data generator."""

__all__: list[str] = []
