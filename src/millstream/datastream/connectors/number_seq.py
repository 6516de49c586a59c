"""``pyflink.datastream.connectors.number_seq`` names."""

from millstream.connectors.number_seq import NumberSequenceSource

__all__ = ["NumberSequenceSource"]
