"""A table's schema as declared (Flink's ``org.apache.flink.table.api.Schema``, in
flink-table-common): its physical, computed and metadata columns, watermark and primary key,
and what the connectors, the SQL front end and the planner read of it. The builder users call,
which parses types given as text, is the Table API's (``api/schema.py``, ``pyflink.table.Schema``).

A schema is unresolved, as Flink's: ``str(schema)`` shows what was declared, a type given as
text in brackets (``[INT]``, parsed on declaration by the DDL's type parser), a computed
column's SQL text in brackets (``AS [a * 2]``) and an Expression by its summary. PyFlink 2.3.0
prints::

    (
      `id` [INT],
      `name` STRING,
      `rowtime` [TIMESTAMP_LTZ(3)] METADATA,
      `id2` AS [id * 2],
      WATERMARK FOR `rowtime` AS [SOURCE_WATERMARK()],
      CONSTRAINT `PK_id` PRIMARY KEY (`id`) NOT ENFORCED
    )
"""

from __future__ import annotations

from typing import Any

from millstream.table.common.factories import MetadataColumn
from millstream.table.common.printing import summary_string
from millstream.table.common.types import DataType

__all__ = ["Schema"]


class Schema:
    """Physical columns, computed columns (SQL text or Expressions), metadata columns, a
    watermark and a primary key."""

    def __init__(
        self,
        columns: list[tuple[str, DataType]],
        computed: list[tuple[str, Any]],  # SQL text or an Expression
        watermark: tuple[str, Any] | None,
        primary_key: list[str],
        order: list[str] | None = None,
        metadata: list[MetadataColumn] | None = None,
        primary_key_name: str | None = None,
        written_types: dict[str, str] | None = None,
    ) -> None:
        self.columns = columns
        self.computed = computed
        self.metadata_columns = list(metadata or [])
        self.watermark_spec = watermark
        self.primary_key_columns = primary_key
        # Flink's generated name unless one was given (primary_key_named, CONSTRAINT name)
        self.primary_key_name = primary_key_name or ("PK_" + "_".join(primary_key) if primary_key else None)
        # the types given as text, as written (str(schema) shows them so: `a` [INT])
        self.written_types = dict(written_types or {})
        # every column's name in declaration order (physical and computed mixed)
        self.order = (
            order
            if order is not None
            else [n for n, _ in columns] + [c.name for c in self.metadata_columns] + [n for n, _ in computed]
        )

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

    def __str__(self) -> str:
        physical, computed = dict(self.columns), dict(self.computed)
        metadata = {c.name: c for c in self.metadata_columns}
        lines = []
        for name in self.order:
            if name in computed:
                lines.append(f"  `{name}` AS {_unresolved(computed[name])}")
                continue
            data_type = self._written_type(
                name, physical[name] if name in physical else metadata[name].data_type
            )
            column = metadata.get(name)
            if column is None:
                lines.append(f"  `{name}` {data_type}")
                continue
            key = f" FROM '{column.key}'" if column.declared_key else ""
            lines.append(f"  `{name}` {data_type} METADATA{key}{' VIRTUAL' if column.virtual else ''}")
        if self.watermark_spec is not None:
            column_name, expression = self.watermark_spec
            lines.append(f"  WATERMARK FOR `{column_name}` AS {_unresolved(expression)}")
        if self.primary_key_columns:
            keys = ", ".join(f"`{k}`" for k in self.primary_key_columns)
            lines.append(f"  CONSTRAINT `{self.primary_key_name}` PRIMARY KEY ({keys}) NOT ENFORCED")
        return "(\n" + ",\n".join(lines) + "\n)"

    def _written_type(self, name: str, data_type: DataType) -> str:
        written = self.written_types.get(name)
        return f"[{written}]" if written is not None else summary_string(data_type)


def _unresolved(expression: Any) -> str:
    """A computed column's or watermark's expression as an unresolved schema prints it: SQL
    text in brackets, an Expression by its summary."""
    return f"[{expression}]" if isinstance(expression, str) else str(expression)
