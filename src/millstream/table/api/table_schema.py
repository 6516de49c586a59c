"""``TableSchema`` (``pyflink.table.table_schema``): the legacy view of a table's columns that
``Table.get_schema()`` and ``TableResult.get_table_schema()`` return. Its ``str`` is Flink's
legacy tree; PyFlink 2.3.0 prints a catalog table's as::

    root
     |-- id: BIGINT NOT NULL
     |-- ts: TIMESTAMP(3) *ROWTIME*
     |-- total: DECIMAL(21, 2) AS `amount` * 2
     |-- WATERMARK FOR ts: TIMESTAMP(3) AS `ts` - INTERVAL '5' SECOND
     |-- CONSTRAINT PK_id PRIMARY KEY (id)
"""

from __future__ import annotations

from typing import Any

from millstream.table.common.printing import column_text, summary_string
from millstream.table.common.types import DataType

__all__ = ["TableSchema"]


class TableSchema:
    """The columns of a table: names and data types (and, for ``str``, its time attributes,
    and a catalog table's computed columns and watermark, printed as PyFlink prints them)."""

    def __init__(
        self,
        names: list[str],
        types: list[DataType],
        rowtime: int | None = None,
        proctime: int | None = None,
        declared: dict[str, Any] | None = None,
    ) -> None:
        self._names, self._types = list(names), list(types)
        self._rowtime, self._proctime, self._declared = rowtime, proctime, declared or {}

    def get_field_data_type(self, field: str | int) -> DataType | None:
        """The data type of a column, by name or position (None when there is no such column)."""
        if isinstance(field, int):
            return self._types[field] if 0 <= field < len(self._types) else None
        return self._types[self._names.index(field)] if field in self._names else None

    def get_field_name(self, field_index: int) -> str | None:
        """The name of the column at ``field_index``."""
        return self._names[field_index] if 0 <= field_index < len(self._names) else None

    def get_field_names(self) -> list[str]:
        """The columns' names."""
        return list(self._names)

    def get_field_data_types(self) -> list[DataType]:
        """The columns' data types."""
        return list(self._types)

    def get_field_count(self) -> int:
        """The number of columns."""
        return len(self._names)

    def __str__(self) -> str:
        declared = self._declared
        keys = declared.get("primary_key") or []
        computed = declared.get("computed_sql", declared.get("computed"))
        lines = ["root"]
        for i, (name, data_type) in enumerate(zip(self._names, self._types, strict=True)):
            marker = " *ROWTIME*" if i == self._rowtime else " *PROCTIME*" if i == self._proctime else ""
            shown, expression = column_text(name, data_type, computed, declared.get("metadata"), keys)
            lines.append(f" |-- {name}: {shown}{marker}{expression}")
        watermark = declared.get("watermark_sql", declared.get("watermark"))
        if watermark is not None:
            column, expression = watermark
            column_type = summary_string(self._types[self._names.index(column)])
            lines.append(f" |-- WATERMARK FOR {column}: {column_type} AS {expression}")
        if keys:
            name = declared.get("primary_key_name") or f"PK_{'_'.join(keys)}"
            lines.append(f" |-- CONSTRAINT {name} PRIMARY KEY ({', '.join(keys)})")
        return "\n".join(lines) + "\n"
