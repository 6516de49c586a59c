"""``pyflink.datastream.formats.parquet`` names."""

from millstream.connectors.formats import ParquetColumnarRowInputFormat

__all__ = ["ParquetColumnarRowInputFormat"]
