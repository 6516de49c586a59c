"""``pyflink.datastream.formats.json`` names, and millstream's ``JsonLinesReaderFormat``."""

from millstream.connectors.formats import JsonLinesReaderFormat, JsonRowDeserializationSchema

__all__ = ["JsonLinesReaderFormat", "JsonRowDeserializationSchema"]
