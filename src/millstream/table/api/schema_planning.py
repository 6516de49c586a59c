"""Columns and types at the edges of a table program: the types of ``from_elements`` rows, a
DataStream's columns, a connector table's declared schema (computed columns, metadata,
watermark) applied to its source, and a query's columns cast to a sink's."""

from __future__ import annotations

import datetime
import decimal
from typing import Any

from millstream.common.typeinfo import PickledBytesTypeInfo
from millstream.common.types import Row
from millstream.table.api.schema import Schema
from millstream.table.api.table_descriptor import TableDescriptor
from millstream.table.common.factories import TableContext
from millstream.table.common.types import DataType, DataTypes, RowType, from_type_info

__all__ = [
    "as_tuple",
    "element_names",
    "has_type_info",
    "infer_type",
    "stream_columns",
    "stream_timestamp_column",
    "table_context",
]


def has_type_info(data_stream: Any) -> bool:
    type_info = data_stream.get_type() if hasattr(data_stream, "get_type") else None
    return type_info is not None and not isinstance(type_info, PickledBytesTypeInfo)


def stream_columns(data_stream: Any, fields: tuple[Any, ...]) -> tuple[list[str], list[DataType]]:
    """The physical columns of a table made of a DataStream: its declared type's fields (or
    ``f0`` for an atomic type), renamed by ``fields`` if given."""
    type_info = data_stream.get_type() if hasattr(data_stream, "get_type") else None
    data_type = from_type_info(type_info) if type_info is not None else DataTypes.NULL()
    if isinstance(data_type, RowType):
        names, types = data_type.field_names(), data_type.field_types()
    else:
        names, types = ["f0"], [data_type]
    if fields:
        renamed = [getattr(f, "name", str(f)) for f in fields]
        if len(renamed) != len(names):
            types = [DataTypes.NULL()] * len(renamed)
        names = renamed
    return names, types


def table_context(path: str, descriptor: TableDescriptor) -> TableContext:
    schema = descriptor.schema if descriptor.schema is not None else Schema.new_builder().build()
    return TableContext(path, schema, dict(descriptor.options), list(descriptor.partition_keys))


def stream_timestamp_column(schema: Any, table: str) -> Any:
    """The metadata column of a DataStream table (``column_by_metadata('rowtime', ...)``): the
    records' timestamps; None without one. The DataStream API has no other metadata key."""
    columns = list(schema.metadata_columns) if schema is not None else []
    for column in columns:
        if column.key != "rowtime":
            raise ValueError(
                f"Invalid metadata key '{column.key}' in column '{column.name}' of table '{table}': "
                "a DataStream table supports only the metadata key 'rowtime' (the record's timestamp)"
            )
        if column.data_type.root not in ("TIMESTAMP_LTZ", "TIMESTAMP"):
            raise ValueError(
                f"metadata column '{column.name}' of table '{table}' holds the records' timestamps: "
                f"declare it TIMESTAMP_LTZ(3), not {column.data_type!r}"
            )
    if len(columns) > 1:
        raise ValueError(f"table '{table}' declares the metadata key 'rowtime' more than once")
    return columns[0] if columns else None


def element_names(element: Any) -> list[str] | None:
    """The column names an element of ``from_elements`` gives when no schema does (PyFlink's
    inference): a dict's keys sorted, a named Row's field names in their order; else None."""
    if isinstance(element, dict):
        return sorted(element)
    if isinstance(element, Row) and element._field_names() is not None:
        return list(element._field_names() or [])
    return None


def as_tuple(element: Any, names: list[str] | None = None) -> tuple[Any, ...]:
    """An element of ``from_elements`` as a row's values: a dict, and a Row with field names,
    by the columns' ``names`` (as PyFlink's ``RowType.to_sql_type``: a dict's missing key is
    NULL, a Row's is an error), anything else by position."""
    if isinstance(element, dict):
        return tuple(element.get(n) for n in names) if names is not None else tuple(element.values())
    if isinstance(element, Row):
        fields = element._field_names()
        if names is None or fields is None:
            return tuple(element)
        missing = [n for n in names if n not in fields]
        if missing:
            raise ValueError(f"element {element!r} has no field '{missing[0]}' of the schema's {names}")
        values = dict(zip(fields, element, strict=True))
        return tuple(values[n] for n in names)
    if isinstance(element, (tuple, list)):
        return tuple(element)
    return (element,)


def infer_type(values: list[Any]) -> DataType:
    """The type PyFlink infers for a column of Python values (the first non-null one decides)."""
    for value in values:
        if value is not None:
            return _type_of(value)
    return DataTypes.NULL()


def _type_of(value: Any) -> DataType:
    if isinstance(value, bool):
        return DataTypes.BOOLEAN()
    if isinstance(value, int):
        return DataTypes.BIGINT()
    if isinstance(value, float):
        return DataTypes.DOUBLE()
    if isinstance(value, str):
        return DataTypes.STRING()
    if isinstance(value, decimal.Decimal):
        return DataTypes.DECIMAL(38, 18)
    if isinstance(value, datetime.datetime):
        return DataTypes.TIMESTAMP(6)
    if isinstance(value, datetime.date):
        return DataTypes.DATE()
    if isinstance(value, datetime.time):
        return DataTypes.TIME(0)
    if isinstance(value, (bytes, bytearray)):
        return DataTypes.BYTES()
    if isinstance(value, list):
        return DataTypes.ARRAY(infer_type(value))
    if isinstance(value, dict):
        return DataTypes.MAP(infer_type(list(value)), infer_type(list(value.values())))
    raise TypeError(f"cannot infer the SQL type of {value!r} ({type(value).__name__}): give a schema")
