"""A connector table's declaration as the DDL statements read and change it (the shape Flink's
``MergeTableLikeUtil`` and ``AlterSchemaConverter`` work on): its columns in order (physical,
computed, metadata, each with its comment), watermark, primary key, partition keys, options
(``connector`` among them) and comment.

A shape comes from a ``CREATE TABLE`` statement's tree (``from_create``) or from a catalog
table (``from_catalog_table``), and becomes the ``TableDeclaration`` the TableEnvironment
creates the table from (``declaration``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from millstream.table.catalog.catalog import CatalogTable
from millstream.table.common.types import DataType
from millstream.table.sql.operations import TableDeclaration
from millstream.table.sql.parser import _DIALECT, SqlError, _metadata_of, _parse
from millstream.table.sql.types import column_type

__all__ = ["Column", "TableShape", "from_catalog_table", "from_create", "referenced_columns"]


@dataclass(frozen=True)
class Column:
    """One column: ``kind`` ``physical``, ``computed`` or ``metadata``; a computed column's
    SQL text, a metadata column's key (None: its name) and whether it is VIRTUAL."""

    name: str
    kind: str
    data_type: DataType | None = None
    expression: str | None = None
    metadata_key: str | None = None
    virtual: bool = False
    comment: str | None = None


@dataclass
class TableShape:
    """A table's declaration, changed in place by LIKE and ALTER TABLE."""

    columns: list[Column] = field(default_factory=list)
    watermark: tuple[str, str] | None = None
    primary_key: tuple[str | None, list[str]] | None = None  # (constraint name or None, columns)
    partition_keys: list[str] = field(default_factory=list)
    options: dict[str, str] = field(default_factory=dict)
    comment: str | None = None

    def names(self) -> list[str]:
        """The columns' names, in order."""
        return [c.name for c in self.columns]

    def column(self, name: str) -> Column | None:
        """The column named ``name``, or None."""
        return next((c for c in self.columns if c.name == name), None)

    def declaration(self) -> TableDeclaration:
        """The declaration the TableEnvironment creates the table from (``connector`` '': a
        table without one, as Flink keeps it: only a LIKE clause may read it)."""
        options = dict(self.options)
        connector = options.pop("connector", "")
        keys = self.primary_key[1] if self.primary_key is not None else []
        schema: list[tuple[str, tuple[Any, ...]]] = []
        for column in self.columns:
            if column.kind == "computed":
                schema.append(("column_by_expression", (column.name, column.expression)))
            elif column.kind == "metadata":
                schema.append(
                    (
                        "column_by_metadata",
                        (column.name, column.data_type, column.metadata_key, column.virtual),
                    )
                )
            else:
                assert column.data_type is not None
                data_type = column.data_type.not_null() if column.name in keys else column.data_type
                schema.append(("column", (column.name, data_type)))
        if self.watermark is not None:
            schema.append(("watermark", self.watermark))
        if self.primary_key is not None:
            name, columns = self.primary_key
            schema.append(
                ("primary_key_named", (name, *columns)) if name else ("primary_key", tuple(columns))
            )
        comments = {c.name: c.comment for c in self.columns if c.comment is not None}
        return TableDeclaration(connector, schema, options, list(self.partition_keys), self.comment, comments)


def from_create(tree: exp.Create) -> TableShape:
    """The shape a ``CREATE TABLE`` statement's tree declares (without LIKE and AS)."""
    target = tree.this
    items = target.expressions if isinstance(target, exp.Schema) else []
    shape = TableShape()
    for item in items:
        if isinstance(item, exp.WatermarkColumnConstraint):  # WATERMARK FOR column AS expression
            if shape.watermark is not None:
                raise SqlError("Multiple WATERMARK statements is not supported yet.")
            shape.watermark = (item.this.name, item.expression.this)
            continue
        key = _primary_key(item)
        if key is not None:
            if shape.primary_key is not None:
                raise SqlError("Duplicate primary key definition")
            shape.primary_key = key
        if isinstance(item, exp.ColumnDef):
            shape.columns.append(column_of(item))
        elif key is None:
            raise SqlError(f"not supported yet in CREATE TABLE: {item.sql()}")
    properties = tree.args.get("properties")
    for prop in properties.expressions if properties is not None else []:
        _property(shape, prop)
    return shape


def _property(shape: TableShape, prop: exp.Expression) -> None:
    """``PARTITIONED BY (dt, hr)``, ``COMMENT '...'`` or a ``WITH`` option, into ``shape``."""
    if isinstance(prop, exp.PartitionedByProperty):
        shape.partition_keys = [c.name for c in prop.this.expressions]
    elif isinstance(prop, exp.SchemaCommentProperty):
        shape.comment = str(prop.this.this)
    elif isinstance(prop, exp.TemporaryProperty):
        return
    elif isinstance(prop, exp.Property):
        key_text = prop.this.this if isinstance(prop.this, exp.Literal) else prop.name
        value = prop.args.get("value")
        shape.options[str(key_text)] = str(value.this if isinstance(value, exp.Literal) else value)
    else:
        raise SqlError(f"not supported yet in CREATE TABLE: {prop.sql(dialect=_DIALECT)}")


def column_of(column: exp.ColumnDef) -> Column:
    """A column definition: physical, computed (``c AS expr``) or metadata (``c TYPE METADATA
    [FROM 'key'] [VIRTUAL]``), with its ``COMMENT``."""
    constraints = [c.args.get("kind") for c in column.args.get("constraints") or []]
    comments = [c.this.this for c in constraints if isinstance(c, exp.CommentColumnConstraint)]
    comment = str(comments[0]) if comments else None
    computed = [c for c in constraints if isinstance(c, exp.ComputedColumnConstraint)]
    if computed:
        return Column(
            column.name, "computed", expression=computed[0].this.sql(dialect=_DIALECT), comment=comment
        )
    metadata = _metadata_of(column)
    if metadata is not None:
        key, virtual = metadata
        return Column(
            column.name, "metadata", column_type(column), metadata_key=key, virtual=virtual, comment=comment
        )
    return Column(column.name, "physical", column_type(column), comment=comment)


def _primary_key(item: exp.Expression) -> tuple[str | None, list[str]] | None:
    """(constraint name or None, columns) of a CREATE TABLE item that declares the primary key:
    ``PRIMARY KEY (a, b)``, ``CONSTRAINT name PRIMARY KEY (a)``, ``a INT PRIMARY KEY``."""
    if isinstance(item, exp.PrimaryKey):
        return None, [c.name for c in item.expressions]
    if isinstance(item, exp.Constraint) and [type(e) for e in item.expressions] == [exp.PrimaryKey]:
        return item.name, [c.name for c in item.expressions[0].expressions]
    if isinstance(item, exp.ColumnDef) and any(
        isinstance(c.args.get("kind"), exp.PrimaryKeyColumnConstraint)
        for c in item.args.get("constraints") or []
    ):
        return None, [item.name]
    return None


def primary_key_of(item: exp.Expression) -> tuple[str | None, list[str]] | None:
    """The primary key an ALTER TABLE item declares, or None."""
    return _primary_key(item)


def from_catalog_table(table: CatalogTable) -> TableShape:
    """The shape of a table in the catalog (a LIKE clause's source, an ALTER TABLE's table)."""
    descriptor = table.descriptor
    schema = descriptor.schema
    comments = dict(getattr(table, "column_comments", {}) or {})
    shape = TableShape(
        partition_keys=list(descriptor.partition_keys),
        options={"connector": table.connector, **descriptor.options},
        comment=descriptor.comment,
    )
    if schema is None:
        return shape
    physical, computed = dict(schema.columns), dict(schema.computed)
    metadata = {c.name: c for c in schema.metadata_columns}
    for name in schema.order:
        comment = comments.get(name)
        if name in computed:
            shape.columns.append(Column(name, "computed", expression=_text(computed[name]), comment=comment))
        elif name in metadata:
            m = metadata[name]
            key = m.key if m.declared_key else None
            shape.columns.append(
                Column(name, "metadata", m.data_type, metadata_key=key, virtual=m.virtual, comment=comment)
            )
        else:
            shape.columns.append(Column(name, "physical", physical[name], comment=comment))
    if schema.watermark_spec is not None:
        column, expression = schema.watermark_spec
        shape.watermark = (column, _text(expression))
    if schema.primary_key_columns:
        shape.primary_key = (schema.primary_key_name, list(schema.primary_key_columns))
    return shape


def _text(expression: Any) -> str:
    """A computed column's or watermark's SQL text (an Expression: its summary)."""
    return expression if isinstance(expression, str) else str(expression)


def referenced_columns(text: str) -> set[str]:
    """The columns an SQL expression (a computed column's, a watermark's) reads."""
    tree = _parse(f"SELECT {text}")
    return {c.name for c in tree.find_all(exp.Column)}


def renamed(column: Column, **changes: Any) -> Column:
    """``column`` with ``changes``."""
    return dataclasses.replace(column, **changes)
