"""``pyflink.table`` names that the DataStream formats use (``DataTypes``); no Table API."""

from millstream.table.types import DataType, DataTypes, RowType

__all__ = ["DataType", "DataTypes", "RowType"]
