"""``Schema`` of a table (``pyflink.table.Schema``): its columns, and what later parts of the
Table API read from it (watermark, primary key). The schema itself is flink-table-common's
(``common/schema.py``); the Table API adds its builder, which parses types given as text with
the DDL's type parser.
"""

from __future__ import annotations

from typing import Any

from millstream.table.common import schema as declared
from millstream.table.common.factories import MetadataColumn
from millstream.table.common.types import DataType
from millstream.table.expression.expression import Expression
from millstream.table.sql.expressions import parse_data_type

__all__ = ["Schema"]


class Schema(declared.Schema):
    """Physical columns, computed columns (SQL text or Expressions), metadata columns, a
    watermark and a primary key (``Schema.new_builder()...build()``)."""

    @staticmethod
    def new_builder() -> Schema.Builder:
        """A builder: ``.column(name, type)`` ... ``.build()``."""
        return Schema.Builder()

    class Builder:
        """Builds a Schema column by column."""

        def __init__(self) -> None:
            self._columns: list[tuple[str, DataType]] = []
            self._computed: list[tuple[str, str | Expression]] = []
            self._watermark: tuple[str, str | Expression] | None = None
            self._primary_key: list[str] = []
            self._primary_key_name: str | None = None
            self._order: list[str] = []
            self._metadata: list[MetadataColumn] = []
            self._written: dict[str, str] = {}

        def from_schema(self, unresolved_schema: Schema) -> Schema.Builder:
            """Every member of ``unresolved_schema`` (columns, watermark, primary key)."""
            schema = unresolved_schema
            physical, computed = dict(schema.columns), dict(schema.computed)
            metadata = {c.name: c for c in schema.metadata_columns}
            for name in schema.order:
                if name in physical:
                    self.column(name, schema.written_types.get(name) or physical[name])
                elif name in computed:
                    self.column_by_expression(name, computed[name])
                else:
                    column = metadata[name]
                    data_type = schema.written_types.get(name) or column.data_type
                    key = column.key if column.declared_key else None
                    self.column_by_metadata(name, data_type, key, column.virtual)
            if schema.watermark_spec is not None:
                self.watermark(*schema.watermark_spec)
            if schema.primary_key_columns:
                self.primary_key_named(str(schema.primary_key_name), *schema.primary_key_columns)
            return self

        def from_row_data_type(self, data_type: Any) -> Schema.Builder:
            """The fields of a ROW type as physical columns."""
            for name, field_type in zip(data_type.field_names(), data_type.field_types(), strict=True):
                self.column(name, field_type)
            return self

        def from_fields(self, field_names: list[str], field_data_types: list[Any]) -> Schema.Builder:
            """Physical columns of the given names and types (DataTypes or type strings)."""
            if len(field_names) != len(field_data_types):
                raise ValueError(
                    f"from_fields: {len(field_names)} field names but {len(field_data_types)} data types"
                )
            for name, data_type in zip(field_names, field_data_types, strict=True):
                self.column(name, data_type)
            return self

        def column(self, column_name: str, data_type: DataType | str) -> Schema.Builder:
            """A physical column; its type a DataType or text as DDL writes it (``'INT NOT NULL'``)."""
            self._columns.append((column_name, self._resolve(column_name, data_type)))
            self._order.append(column_name)
            return self

        def column_by_expression(self, column_name: str, expr: str | Expression) -> Schema.Builder:
            """A computed column: an SQL expression over the other columns, or an Expression."""
            self._computed.append((column_name, expr if isinstance(expr, Expression) else str(expr)))
            self._order.append(column_name)
            return self

        def column_by_metadata(
            self,
            column_name: str,
            data_type: DataType | str,
            metadata_key: str | None = None,
            is_virtual: bool = False,
        ) -> Schema.Builder:
            """A metadata column: a value the connector or format reads beside the record
            (Kafka's ``timestamp``, ``partition`` ...), written too unless ``is_virtual``."""
            key = metadata_key or column_name
            resolved = self._resolve(column_name, data_type)
            self._metadata.append(
                MetadataColumn(column_name, resolved, key, is_virtual, metadata_key is not None)
            )
            self._order.append(column_name)
            return self

        def watermark(self, column_name: str, watermark_expr: str | Expression) -> Schema.Builder:
            """The event-time column and its watermark (SQL text or an Expression)."""
            expression = watermark_expr if isinstance(watermark_expr, Expression) else str(watermark_expr)
            self._watermark = (column_name, expression)
            return self

        def primary_key(self, *column_names: str) -> Schema.Builder:
            """The primary key (NOT ENFORCED, as Flink's), named ``PK_<columns>``."""
            self._primary_key = list(column_names)
            self._primary_key_name = None
            return self

        def primary_key_named(self, constraint_name: str, *column_names: str) -> Schema.Builder:
            """The primary key, under the constraint name ``constraint_name``."""
            self._primary_key = list(column_names)
            self._primary_key_name = constraint_name
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
                self._primary_key_name,
                dict(self._written),
            )

        def _resolve(self, column_name: str, data_type: DataType | str) -> DataType:
            """``data_type``, parsed by the DDL's type parser when given as text."""
            if isinstance(data_type, DataType):
                self._written.pop(column_name, None)
                return data_type
            if not isinstance(data_type, str):
                raise TypeError(
                    f"column '{column_name}': expected a DataType or a type string, got {data_type!r}"
                )
            try:
                resolved = parse_data_type(data_type)
            except ValueError as err:
                raise ValueError(f"column '{column_name}': {err}") from err
            self._written[column_name] = data_type
            return resolved
