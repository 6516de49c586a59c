"""Columns and types at the edges of a table program: the types of ``from_elements`` rows, a
DataStream's columns, a connector table's declared schema (computed columns, metadata,
watermark) applied to its source, and a query's columns cast to a sink's."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
from typing import Any, cast

from millstream.common.types import Row
from millstream.table.factories import TableContext
from millstream.table.planner import PlanNode
from millstream.table.table_descriptor import TableDescriptor
from millstream.table.types import DataType, DataTypes

__all__ = [
    "apply_schema",
    "as_tuple",
    "cast_to",
    "declared_columns",
    "has_type_info",
    "infer_type",
    "stream_columns",
    "table_context",
]


def cast_to(plan: PlanNode, names: list[str], types: list[DataType]) -> PlanNode:
    """``plan``'s columns as a sink's: renamed, and cast where the type differs."""
    from millstream.table.expressions import col
    from millstream.table.projection import project

    expressions = []
    for name, source, target, sink_name in zip(plan.names, plan.types, types, names, strict=True):
        e = col(name)
        if source.root != target.root and source.root != "NULL":
            e = e.cast(target if source.is_nullable() else target.not_null())
        expressions.append(e.alias(sink_name) if sink_name != name else e)
    casted = project(plan, expressions, lambda i: f"_c{i}")
    return dataclasses.replace(
        casted, types=[t if t.root != "NULL" else s for t, s in zip(casted.types, types, strict=True)]
    )


def has_type_info(data_stream: Any) -> bool:
    from millstream.common.typeinfo import PickledBytesTypeInfo

    type_info = data_stream.get_type() if hasattr(data_stream, "get_type") else None
    return type_info is not None and not isinstance(type_info, PickledBytesTypeInfo)


def stream_columns(data_stream: Any, fields: tuple[Any, ...]) -> tuple[list[str], list[DataType]]:
    """The physical columns of a table made of a DataStream: its declared type's fields (or
    ``f0`` for an atomic type), renamed by ``fields`` if given."""
    from millstream.table.types import RowType, from_type_info

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
    from millstream.table.schema import Schema

    schema = descriptor.schema if descriptor.schema is not None else Schema.new_builder().build()
    return TableContext(path, schema, dict(descriptor.options), list(descriptor.partition_keys))


def declared_columns(schema: Any) -> dict[str, Any]:
    """A catalog table's computed columns (name -> expression), metadata columns (name -> (key
    as declared or None, virtual)), primary key and watermark (column, expression), in the text
    Flink prints them with (identifiers quoted: ```a` + 1``)."""
    from millstream.table.sql_expressions import flink_text

    declared: dict[str, Any] = {"computed": {name: flink_text(expr) for name, expr in schema.computed}}
    declared["metadata"] = {
        c.name: (c.key if c.declared_key else None, c.virtual) for c in schema.metadata_columns
    }
    declared["primary_key"] = list(schema.primary_key_columns or [])
    if schema.watermark_spec is not None:
        column, expression = schema.watermark_spec
        declared["watermark"] = (column, flink_text(expression))
    return declared


def apply_schema(node: PlanNode, schema: Any) -> PlanNode:
    """``node``'s physical columns arranged as ``schema`` declares them: declared physical
    columns (all of them if none is declared), computed columns, then the watermark."""
    from millstream.table.expressions import col
    from millstream.table.projection import project
    from millstream.table.sql_expressions import parse_expression, watermark_delay_ms
    from millstream.table.window_agg import WatermarkAssigner

    computed = dict(schema.computed)
    declared = [n for n in schema.order if n not in computed]
    order = schema.order if declared else list(node.names) + [n for n in schema.order if n in computed]
    for name in declared:
        if name not in node.names:
            raise ValueError(f"Unable to find a field named '{name}' in the physical data type {node.names}")
    expressions = [parse_expression(computed[n]).alias(n) if n in computed else col(n) for n in order]
    source = node
    if order != list(node.names):
        node = project(node, expressions, lambda i: f"_c{i}")
    if schema.watermark_spec is None:
        return node
    column, watermark_sql = schema.watermark_spec
    if column not in node.names:
        raise ValueError(f"Invalid column name '{column}' for rowtime attribute in watermark declaration")
    index = node.names.index(column)
    if node.types[index].root not in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        raise ValueError(
            "Invalid data type of time field for watermark definition. The field must be of type "
            "TIMESTAMP(p) or TIMESTAMP_LTZ(p), the supported precision 'p' is from 0 to 3, but the time "
            "field type is "
            f"{node.types[index]!r}"
        )
    watermark = parse_expression(watermark_sql).resolve(node.names, node.types)
    assigner = WatermarkAssigner(
        list(node.names),
        list(node.types),
        False,
        node,
        watermark.fn,
        watermark_sql,
        watermark_delay_ms(watermark_sql, column),
        rowtime=index,
        proctime=node.proctime,
    )
    if getattr(source, "supports_watermark_push_down", False):
        # Flink's SupportsWatermarkPushDown: the source generates watermarks per split (a Kafka
        # partition each), on its rows with the computed columns evaluated (the assigner over
        # the source as declared gives it the strategy); the assigner above then passes them on
        fns = [e.resolve(source.names, source.types).fn for e in expressions] if node is not source else None
        row_of = (lambda values: tuple([f(values) for f in fns])) if fns else None
        pushed = dataclasses.replace(cast(Any, source), watermark=(assigner, row_of))
        chain = pushed if node is source else dataclasses.replace(cast(Any, node), input=pushed)
        assigner = dataclasses.replace(assigner, input=chain, pushed_down=True)
    return assigner


def as_tuple(element: Any) -> tuple[Any, ...]:
    if isinstance(element, Row):
        return tuple(element)
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
