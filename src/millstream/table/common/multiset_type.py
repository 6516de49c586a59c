"""The MULTISET type (PyFlink's ``pyflink.table.types.MultisetType``): a bag of values, held
as a ``dict`` of each value to its count, as Flink holds a multiset as a map to INT NOT NULL
(COLLECT's result)."""

from __future__ import annotations

from millstream.table.common.types import DataType, DataTypes, MapType

__all__ = ["MultisetType"]


class MultisetType(MapType):
    """MULTISET<element>: its values are ``dict``s of each element to its count."""

    def __init__(self, element_type: DataType, nullable: bool = True) -> None:
        super().__init__(element_type, DataTypes.INT(False), nullable)
        self.root = "MULTISET"
        self.element_type = element_type

    def _with_nullable(self, nullable: bool) -> DataType:
        return MultisetType(self.element_type, nullable)

    def __repr__(self) -> str:
        return f"MULTISET<{self.element_type!r}>"
