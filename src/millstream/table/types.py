"""The SQL data types, at PyFlink's module path ``pyflink.table.types``.

The names are defined in :mod:`millstream.table.common.types`; millstream's own modules import them
from there, never from here.
"""

from millstream.table.common.multiset_type import MultisetType
from millstream.table.common.types import ArrayType, DataType, DataTypes, MapType, RowField, RowType

__all__ = ["ArrayType", "DataType", "DataTypes", "MapType", "MultisetType", "RowField", "RowType"]
