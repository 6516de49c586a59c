"""``pyflink.datastream.formats.csv`` names."""

from millstream.connectors.formats import CsvReaderFormat, CsvSchema, CsvSchemaBuilder

__all__ = ["CsvReaderFormat", "CsvSchema", "CsvSchemaBuilder"]
