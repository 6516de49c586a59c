"""``pyflink.datastream.formats.avro`` names: Avro row schemas (Kafka messages) on fastavro."""

from millstream.connectors.formats.avro import (
    AvroRowDeserializationSchema,
    AvroRowSerializationSchema,
    AvroSchema,
)

__all__ = ["AvroRowDeserializationSchema", "AvroRowSerializationSchema", "AvroSchema"]
