"""``pyflink.datastream.formats.csv`` names."""

from millstream.connectors.formats.csv import (
    CsvBulkWriter,
    CsvBulkWriters,
    CsvReaderFormat,
    CsvSchema,
    CsvSchemaBuilder,
)
from millstream.connectors.formats.csv_row import CsvRowDeserializationSchema, CsvRowSerializationSchema

__all__ = [
    "CsvBulkWriter",
    "CsvBulkWriters",
    "CsvReaderFormat",
    "CsvRowDeserializationSchema",
    "CsvRowSerializationSchema",
    "CsvSchema",
    "CsvSchemaBuilder",
]
