"""``ResolvedSchema`` (``pyflink.table.catalog.ResolvedSchema``): a table's columns as resolved,
what ``Table.get_resolved_schema()`` returns and ``print_schema`` prints."""

from __future__ import annotations

from typing import Any

from millstream.table.common.printing import print_schema
from millstream.table.common.types import DataType, DataTypes

__all__ = ["ResolvedSchema"]


class ResolvedSchema:
    """A table's columns as resolved (``pyflink.table.catalog.ResolvedSchema``): names, types
    (NOT NULL, time attributes) and, for a table read as declared, its computed and metadata
    columns, watermark and primary key. ``str`` is what ``Table.print_schema()`` prints."""

    def __init__(
        self,
        names: list[str],
        types: list[DataType],
        rowtime: int | None = None,
        proctime: int | None = None,
        declared: dict[str, Any] | None = None,
    ) -> None:
        self._names, self._types = list(names), list(types)
        self._rowtime, self._proctime, self._declared = rowtime, proctime, dict(declared or {})

    @staticmethod
    def physical(column_names: list[str], column_data_types: list[DataType]) -> ResolvedSchema:
        """A schema of physical columns only."""
        return ResolvedSchema(column_names, column_data_types)

    def get_column_count(self) -> int:
        """The number of columns (of every kind)."""
        return len(self._names)

    def get_column_names(self) -> list[str]:
        """Every column's name."""
        return list(self._names)

    def get_column_data_types(self) -> list[DataType]:
        """Every column's data type."""
        return list(self._types)

    def get_primary_key_indexes(self) -> list[int]:
        """The positions of the primary key's columns (none without a key)."""
        return [self._names.index(k) for k in self._declared.get("primary_key") or []]

    def to_source_row_data_type(self) -> DataType:
        """Every column as a ROW (what a source produces into the query)."""
        return self._row(self._names)

    def to_physical_row_data_type(self) -> DataType:
        """The physical columns (neither computed nor metadata) as a ROW."""
        computed, metadata = self._declared.get("computed") or {}, self._declared.get("metadata") or {}
        return self._row([n for n in self._names if n not in computed and n not in metadata])

    def to_sink_row_data_type(self) -> DataType:
        """The persisted columns (physical, and metadata that is not VIRTUAL) as a ROW."""
        computed, metadata = self._declared.get("computed") or {}, self._declared.get("metadata") or {}
        return self._row(
            [n for n in self._names if n not in computed and not metadata.get(n, (None, False))[1]]
        )

    def _row(self, names: list[str]) -> DataType:
        types = dict(zip(self._names, self._types, strict=True))
        return DataTypes.ROW([DataTypes.FIELD(n, types[n]) for n in names])

    def __str__(self) -> str:
        declared = self._declared
        watermark = declared.get("watermark")
        return print_schema(
            self._names,
            self._types,
            self._rowtime,
            watermark[1] if watermark is not None else None,
            self._proctime,
            declared.get("computed"),
            declared.get("metadata"),
            declared.get("primary_key"),
            declared.get("primary_key_name"),
        )
