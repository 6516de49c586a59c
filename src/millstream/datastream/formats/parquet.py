"""``pyflink.datastream.formats.parquet`` names."""

from millstream.connectors.formats import ParquetBulkWriters, ParquetColumnarRowInputFormat

__all__ = ["ParquetBulkWriters", "ParquetColumnarRowInputFormat"]
