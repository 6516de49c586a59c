"""Data generator source (Flink's ``DataGeneratorSource``)."""

from millstream.connectors.datagen import DataGeneratorSource

__all__ = ["DataGeneratorSource"]
