"""``Schema`` of a table (``pyflink.table.Schema``): its columns, and what later parts of the
Table API read from it (watermark, primary key)."""

from __future__ import annotations

from typing import Any

from millstream.table.factories import MetadataColumn
from millstream.table.types import DataType

__all__ = ["Schema"]


class Schema:
    """Physical columns, computed columns (SQL text), metadata columns, a watermark and a
    primary key."""

    def __init__(
        self,
        columns: list[tuple[str, DataType]],
        computed: list[tuple[str, str]],
        watermark: tuple[str, str] | None,
        primary_key: list[str],
        order: list[str] | None = None,
        metadata: list[MetadataColumn] | None = None,
    ) -> None:
        self.columns = columns
        self.computed = computed
        self.metadata_columns = list(metadata or [])
        self.watermark_spec = watermark
        self.primary_key_columns = primary_key
        # every column's name in declaration order (physical and computed mixed)
        self.order = (
            order
            if order is not None
            else [n for n, _ in columns] + [c.name for c in self.metadata_columns] + [n for n, _ in computed]
        )

    @staticmethod
    def new_builder() -> Schema.Builder:
        """A builder: ``.column(name, type)`` ... ``.build()``."""
        return Schema.Builder()

    def field_names(self) -> list[str]:
        """The physical columns' names."""
        return [name for name, _ in self.columns]

    def field_types(self) -> list[DataType]:
        """The physical columns' types."""
        return [t for _, t in self.columns]

    def persisted_columns(self) -> list[tuple[str, DataType]]:
        """The columns an INSERT writes, in declaration order: the physical ones and the
        metadata ones that are not VIRTUAL (computed columns are never written)."""
        physical = dict(self.columns)
        written = {c.name: c.data_type for c in self.metadata_columns if not c.virtual}
        return [(n, physical.get(n) or written[n]) for n in self.order if n in physical or n in written]

    class Builder:
        """Builds a Schema column by column."""

        def __init__(self) -> None:
            self._columns: list[tuple[str, DataType]] = []
            self._computed: list[tuple[str, str]] = []
            self._watermark: tuple[str, str] | None = None
            self._primary_key: list[str] = []
            self._order: list[str] = []
            self._metadata: list[MetadataColumn] = []

        def column(self, column_name: str, data_type: Any) -> Schema.Builder:
            """A physical column."""
            if not isinstance(data_type, DataType):
                from millstream.table.udf import _type

                data_type = _type(data_type)
            self._columns.append((column_name, data_type))
            self._order.append(column_name)
            return self

        def from_row_data_type(self, row_type: Any) -> Schema.Builder:
            """The columns of a ROW type."""
            for name, data_type in zip(row_type.field_names(), row_type.field_types(), strict=True):
                self.column(name, data_type)
            return self

        def column_by_expression(self, column_name: str, expr: str) -> Schema.Builder:
            """A computed column (an SQL expression over the others)."""
            self._computed.append((column_name, str(expr)))
            self._order.append(column_name)
            return self

        def column_by_metadata(
            self,
            column_name: str,
            data_type: Any,
            metadata_key: str | None = None,
            is_virtual: bool = False,
        ) -> Schema.Builder:
            """A metadata column: a value the connector or format reads beside the record
            (Kafka's ``timestamp``, ``partition`` ...), written too unless ``is_virtual``."""
            if not isinstance(data_type, DataType):
                from millstream.table.udf import _type

                data_type = _type(data_type)
            key = metadata_key or column_name
            self._metadata.append(
                MetadataColumn(column_name, data_type, key, is_virtual, metadata_key is not None)
            )
            self._order.append(column_name)
            return self

        def watermark(self, column_name: str, watermark_expr: str) -> Schema.Builder:
            """The event-time column and its watermark (SQL)."""
            self._watermark = (column_name, str(watermark_expr))
            return self

        def primary_key(self, *column_names: str) -> Schema.Builder:
            """The primary key (NOT ENFORCED, as Flink's)."""
            self._primary_key = list(column_names)
            return self

        def build(self) -> Schema:
            """The schema."""
            return Schema(
                list(self._columns),
                list(self._computed),
                self._watermark,
                list(self._primary_key),
                list(self._order),
                list(self._metadata),
            )
