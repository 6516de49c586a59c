"""``pyflink.datastream.formats.json`` names, and millstream's ``JsonLinesReaderFormat``."""

from millstream.connectors.formats.json import (
    JsonLinesReaderFormat,
    JsonRowDeserializationSchema,
    JsonRowSerializationSchema,
)

__all__ = ["JsonLinesReaderFormat", "JsonRowDeserializationSchema", "JsonRowSerializationSchema"]
