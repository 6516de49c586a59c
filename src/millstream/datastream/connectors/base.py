"""``pyflink.datastream.connectors.base`` names."""

from millstream.common.connector import DeliveryGuarantee, Sink, Source

__all__ = ["DeliveryGuarantee", "Sink", "Source"]
