"""``pyflink.datastream.formats.csv`` names."""

from millstream.connectors.formats.csv import (
    CsvBulkWriter,
    CsvBulkWriters,
    CsvReaderFormat,
    CsvRowDeserializationSchema,
    CsvRowSerializationSchema,
    CsvSchema,
    CsvSchemaBuilder,
)

__all__ = [
    "CsvBulkWriter",
    "CsvBulkWriters",
    "CsvReaderFormat",
    "CsvRowDeserializationSchema",
    "CsvRowSerializationSchema",
    "CsvSchema",
    "CsvSchemaBuilder",
]
