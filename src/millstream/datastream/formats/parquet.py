"""``pyflink.datastream.formats.parquet`` names."""

from millstream.connectors.formats.parquet import ParquetBulkWriters, ParquetColumnarRowInputFormat

__all__ = ["ParquetBulkWriters", "ParquetColumnarRowInputFormat"]
