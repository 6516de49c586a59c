"""What ``DESCRIBE`` and ``SHOW CREATE`` print of a catalog object, as Flink's
``DescribeTableOperation`` and ``ShowCreateUtil`` build it (PyFlink 2.3.0's output is cited in
``tests/unit/table/test_sql_catalog_statements.py``):

* ``describe_rows``: a column per row: its name, type (``TIMESTAMP(3) *ROWTIME*``), whether it
  takes NULL, ``PRI(a, b)`` in the primary key, its extras (``AS `a` + 1``, ``METADATA FROM
  'k' VIRTUAL``), the watermark of the rowtime column, and its comment when a column has one;
* ``show_create_table`` / ``show_create_view`` / ``show_create_catalog``: the DDL that makes
  the object again, names quoted, types as Flink serializes them (``VARCHAR(2147483647)``),
  options sorted.
"""

from __future__ import annotations

from typing import Any

from millstream.table.catalog.catalog import CatalogTable, CatalogView
from millstream.table.catalog.catalog_manager import CatalogDescriptor
from millstream.table.catalog.object_identifier import ObjectIdentifier, quote
from millstream.table.common.intervals import DAY_TIME, YEAR_MONTH
from millstream.table.common.multiset_type import MultisetType
from millstream.table.common.printing import summary_string
from millstream.table.common.types import ArrayType, DataType, MapType, RowType
from millstream.table.sql.catalog_tables import resolved_columns
from millstream.table.sql.expressions import flink_text

__all__ = [
    "describe_rows",
    "serializable_type",
    "show_create_catalog",
    "show_create_table",
    "show_create_view",
]

_MAX_LENGTH = 2**31 - 1


def serializable_type(t: DataType) -> str:
    """A type as Flink's ``asSerializableString`` writes it: ``VARCHAR(2147483647)`` for
    STRING, ``TIMESTAMP(3) WITH LOCAL TIME ZONE`` for TIMESTAMP_LTZ(3), ``NOT NULL`` when so."""
    text = _serializable(t)
    return text if t.is_nullable() else f"{text} NOT NULL"


def _serializable(t: DataType) -> str:
    if isinstance(t, ArrayType):
        return f"ARRAY<{serializable_type(t.element_type)}>"
    if isinstance(t, MultisetType):
        return f"MULTISET<{serializable_type(t.element_type)}>"
    if isinstance(t, MapType):
        return f"MAP<{serializable_type(t.key_type)}, {serializable_type(t.value_type)}>"
    if isinstance(t, RowType):
        return "ROW<" + ", ".join(f"{quote(f.name)} {serializable_type(f.data_type)}" for f in t.fields) + ">"
    root, params = t.root, t.params
    if root in ("STRING", "BYTES"):
        return f"{'VARCHAR' if root == 'STRING' else 'VARBINARY'}({_MAX_LENGTH})"
    if root == "TIMESTAMP_LTZ":
        return f"TIMESTAMP({params[0] if params else 6}) WITH LOCAL TIME ZONE"
    if root == "TIMESTAMP" and not params:
        return "TIMESTAMP(6)"
    if root == "DECIMAL":
        return f"DECIMAL({params[0]}, {params[1]})"
    if root == YEAR_MONTH:
        return "INTERVAL MONTH"
    if root == DAY_TIME:
        return f"INTERVAL SECOND({params[0] if params else 3})"
    if params and root in ("TIME", "TIMESTAMP", "CHAR", "VARCHAR", "BINARY", "VARBINARY"):
        return f"{root}({params[0]})"
    return root


def _quoted_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _options(options: dict[str, str]) -> list[str]:
    if not options:
        return []
    items = ",\n".join(f"  {_quoted_literal(k)} = {_quoted_literal(options[k])}" for k in sorted(options))
    return ["WITH (", items, ")"]


def show_create_table(identifier: ObjectIdentifier, table: CatalogTable) -> str:
    """``SHOW CREATE TABLE``'s text of a connector table."""
    descriptor, comments = table.descriptor, table.column_comments
    schema = descriptor.schema
    lines = []
    if schema is not None:
        physical, computed = dict(schema.columns), dict(schema.computed)
        metadata = {c.name: c for c in schema.metadata_columns}
        keys = list(schema.primary_key_columns or [])
        for name in schema.order:
            comment = f" COMMENT {_quoted_literal(comments[name])}" if name in comments else ""
            if name in computed:
                lines.append(f"  {quote(name)} AS {_sql(computed[name])}{comment}")
            elif name in metadata:
                column = metadata[name]
                key = f" FROM {_quoted_literal(column.key)}" if column.declared_key else ""
                virtual = " VIRTUAL" if column.virtual else ""
                lines.append(
                    f"  {quote(name)} {serializable_type(column.data_type)} METADATA{key}{virtual}{comment}"
                )
            else:
                data_type = physical[name].not_null() if name in keys else physical[name]
                lines.append(f"  {quote(name)} {serializable_type(data_type)}{comment}")
        if schema.watermark_spec is not None:
            column_name, expression = schema.watermark_spec
            lines.append(f"  WATERMARK FOR {quote(column_name)} AS {_sql(expression)}")
        if keys:
            columns = ", ".join(quote(k) for k in keys)
            lines.append(
                f"  CONSTRAINT {quote(str(schema.primary_key_name))} PRIMARY KEY ({columns}) NOT ENFORCED"
            )
    text = [f"CREATE TABLE {identifier} (", ",\n".join(lines), ")"]
    if descriptor.comment is not None:
        text.append(f"COMMENT {_quoted_literal(descriptor.comment)}")
    if descriptor.partition_keys:
        text.append(f"PARTITIONED BY ({', '.join(quote(k) for k in descriptor.partition_keys)})")
    options = (
        {"connector": table.connector, **descriptor.options} if table.connector else dict(descriptor.options)
    )
    return "\n".join(text + _options(options)) + "\n"


def _sql(expression: Any) -> str:
    """A computed column's or watermark's SQL as Flink serializes it (identifiers quoted)."""
    return flink_text(expression) if isinstance(expression, str) else str(expression)


def show_create_view(identifier: ObjectIdentifier, view: CatalogView, temporary: bool) -> str:
    """``SHOW CREATE VIEW``'s text: the view's columns and its query as written (Flink prints
    the query as its validator expanded it: names qualified, ``SELECT *`` spelled out)."""
    columns = ",\n".join(f"  {quote(n)}" for n in view.plan.names)
    kind = "TEMPORARY VIEW" if temporary else "VIEW"
    text = [f"CREATE {kind} {identifier} (", columns, ")"]
    if view.comment is not None:
        text.append(f"COMMENT {_quoted_literal(view.comment)}")
    text.append(f"AS {view.query or ''}")
    return "\n".join(text) + "\n"


def show_create_catalog(name: str, descriptor: CatalogDescriptor) -> str:
    """``SHOW CREATE CATALOG``'s text of a catalog ``CREATE CATALOG`` made."""
    text = [f"CREATE CATALOG {quote(name)}"]
    if descriptor.comment is not None:
        text.append(f"COMMENT {_quoted_literal(descriptor.comment)}")
    return "\n".join(text + _options(descriptor.options)) + "\n"


def describe_rows(found: CatalogTable | CatalogView) -> tuple[list[str], list[tuple[Any, ...]]]:
    """``DESCRIBE``'s columns and rows of a table or view."""
    if isinstance(found, CatalogView):
        plan, declared = found.plan, found.declared
    else:
        plan, declared = resolved_columns(found.context.schema), {}
    schema = found.descriptor.schema if isinstance(found, CatalogTable) else None
    keys = (
        list(schema.primary_key_columns or [])
        if schema is not None
        else list(declared.get("primary_key") or [])
    )
    computed = _computed(schema, declared)
    metadata = _metadata(schema, declared)
    watermark = _watermark(schema, declared)
    comments = found.column_comments if isinstance(found, CatalogTable) else {}
    rows = []
    for i, (name, data_type) in enumerate(zip(plan.names, plan.types, strict=True)):
        marker = " *ROWTIME*" if i == plan.rowtime else " *PROCTIME*" if i == plan.proctime else ""
        key = f"PRI({', '.join(keys)})" if name in keys else None
        extras = f"AS {computed[name]}" if name in computed else metadata.get(name)
        row = [name, summary_string(data_type.nullable()) + marker, data_type.is_nullable(), key, extras]
        row.append(watermark[1] if watermark is not None and watermark[0] == name else None)
        rows.append(tuple(row))
    names = ["name", "type", "null", "key", "extras", "watermark"]
    if comments:
        names.append("comment")
        rows = [(*row, comments.get(str(row[0]))) for row in rows]
    return names, rows


def _computed(schema: Any, declared: dict[str, Any]) -> dict[str, str]:
    if schema is None:
        return dict(declared.get("computed") or {})
    return {name: _sql(expression) for name, expression in schema.computed}


def _metadata(schema: Any, declared: dict[str, Any]) -> dict[str, str]:
    if schema is None:
        columns = {n: (k, v) for n, (k, v) in (declared.get("metadata") or {}).items()}
    else:
        columns = {c.name: (c.key if c.declared_key else None, c.virtual) for c in schema.metadata_columns}
    return {
        name: "METADATA" + (f" FROM {_quoted_literal(key)}" if key else "") + (" VIRTUAL" if virtual else "")
        for name, (key, virtual) in columns.items()
    }


def _watermark(schema: Any, declared: dict[str, Any]) -> tuple[str, str] | None:
    if schema is None:
        return declared.get("watermark")
    if schema.watermark_spec is None:
        return None
    column, expression = schema.watermark_spec
    return column, _sql(expression)
