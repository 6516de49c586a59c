"""Columns and types at the edges of a table program: the types of ``from_elements`` rows, a
DataStream's columns, a connector table's declared schema (computed columns, metadata,
watermark) applied to its source, and a query's columns cast to a sink's."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
from typing import Any, cast

from millstream.common.types import Row
from millstream.table.api.table_descriptor import TableDescriptor
from millstream.table.common.factories import TableContext
from millstream.table.common.types import DataType, DataTypes
from millstream.table.planner.nodes import PlanNode
from millstream.table.planner.sources import FromDataStream

__all__ = [
    "apply_schema",
    "as_tuple",
    "cast_to",
    "declared_columns",
    "element_names",
    "has_type_info",
    "infer_type",
    "stream_columns",
    "stream_timestamp_column",
    "table_context",
]


def cast_to(plan: PlanNode, names: list[str], types: list[DataType]) -> PlanNode:
    """``plan``'s columns as a sink's: renamed, and cast where the type differs."""
    from millstream.table.api.expressions import col
    from millstream.table.planner.projection import project

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
    from millstream.table.common.types import RowType, from_type_info

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
    from millstream.table.api.schema import Schema

    schema = descriptor.schema if descriptor.schema is not None else Schema.new_builder().build()
    return TableContext(path, schema, dict(descriptor.options), list(descriptor.partition_keys))


def declared_columns(schema: Any, as_written: bool = False) -> dict[str, Any]:
    """A table's computed columns (name -> expression), metadata columns (name -> (key as
    declared or None, virtual)), primary key (its constraint name under ``primary_key_name``)
    and watermark (column, expression), as Flink prints its resolved schema: a catalog table's
    SQL in Flink's serialization (identifiers quoted: ```a` + 1``), a DataStream's
    (``as_written``) as written; ``computed_sql`` / ``watermark_sql``: the serialized SQL the
    legacy ``TableSchema`` prints. An Expression is printed by its summary."""
    from millstream.table.sql.expressions import flink_text

    def serialized(expression: Any) -> str:
        if _is_source_watermark(expression):
            return "`SOURCE_WATERMARK`()"  # Calcite's unparsing of the built-in, as PyFlink prints it
        return flink_text(expression) if isinstance(expression, str) else str(expression)

    def shown(expression: Any) -> str:
        return str(expression) if as_written else serialized(expression)

    declared: dict[str, Any] = {
        "computed": {name: shown(e) for name, e in schema.computed},
        "computed_sql": {name: serialized(e) for name, e in schema.computed},
    }
    declared["metadata"] = {
        c.name: (c.key if c.declared_key else None, c.virtual) for c in schema.metadata_columns
    }
    declared["primary_key"] = list(schema.primary_key_columns or [])
    declared["primary_key_name"] = schema.primary_key_name
    if schema.watermark_spec is not None:
        column, expression = schema.watermark_spec
        declared["watermark"] = (column, shown(expression))
        declared["watermark_sql"] = (column, serialized(expression))
    return declared


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


def apply_schema(node: PlanNode, schema: Any) -> PlanNode:
    """``node``'s physical columns arranged as ``schema`` declares them: declared physical
    and metadata columns (all of them if none is declared) of their declared types (cast where
    the values differ; NOT NULL in the primary key, as Flink resolves a schema), computed
    columns, then the watermark (``SOURCE_WATERMARK()``: the DataStream's own watermarks)."""
    from millstream.table.api.expressions import col
    from millstream.table.planner.projection import project

    computed = dict(schema.computed)
    declared = [n for n in schema.order if n not in computed]
    if not schema.columns:  # no physical column declared: all of the source's, first
        order = [n for n in node.names if n not in schema.order] + list(schema.order)
    else:
        order = list(schema.order)
    for name in declared:
        if name not in node.names:
            raise ValueError(f"Unable to find a field named '{name}' in the physical data type {node.names}")
    targets = _declared_types(node, schema)
    expressions, casts = [], False
    for name in order:
        if name in computed:
            expressions.append(_computed(computed[name]).alias(name))
            continue
        current, target = node.types[node.names.index(name)], targets[name]
        same = (current.root, current.params) == (target.root, target.params) or current.root == "NULL"
        expressions.append(col(name) if same else col(name).cast(target).alias(name))
        casts = casts or not same
    projected = order != list(node.names) or casts
    source = node
    if projected:
        node = project(node, expressions, lambda i: f"_c{i}")
    node = _retyped(node, targets)
    if not projected:
        source = node  # the source itself carries the declared types
    if schema.watermark_spec is None:
        return node
    return _watermarked(source, node, expressions, schema.watermark_spec)


def _declared_types(node: PlanNode, schema: Any) -> dict[str, DataType]:
    """Each declared physical and metadata column's type (NOT NULL in the primary key); a
    column not declared keeps its type."""
    types = dict(zip(node.names, node.types, strict=True))
    types.update({c.name: c.data_type for c in schema.metadata_columns})
    types.update(dict(schema.columns))
    declared = dict(schema.columns)
    for key in schema.primary_key_columns or []:
        if key in declared and declared[key].is_nullable():
            raise ValueError(f"Invalid primary key '{schema.primary_key_name}'. Column '{key}' is nullable.")
        if key in types:
            types[key] = types[key].not_null()
    return types


def _retyped(node: PlanNode, targets: dict[str, DataType]) -> PlanNode:
    types = [targets.get(n, t) for n, t in zip(node.names, node.types, strict=True)]
    types = [t if t.root != "NULL" else old for t, old in zip(types, node.types, strict=True)]
    return node if types == list(node.types) else dataclasses.replace(node, types=types)


def _computed(expression: Any) -> Any:
    """A computed column's (or watermark's) Expression: given so, or parsed from SQL text."""
    from millstream.table.expression.expression import Expression
    from millstream.table.sql.expressions import parse_expression

    return expression if isinstance(expression, Expression) else parse_expression(expression)


def _is_source_watermark(expression: Any) -> bool:
    """Whether a watermark declaration is ``SOURCE_WATERMARK()``: the source's own."""
    return isinstance(expression, str) and "".join(expression.split()).upper() == "SOURCE_WATERMARK()"


def _watermarked(source: PlanNode, node: PlanNode, expressions: list[Any], spec: tuple[str, Any]) -> PlanNode:
    """``node`` with its event-time attribute ``spec[0]`` and the watermarks ``spec[1]``
    declares: generated by a WatermarkAssigner (pushed into a source that generates them per
    split), or the DataStream's own (``SOURCE_WATERMARK()``)."""
    from millstream.table.runtime.window_agg import WatermarkAssigner
    from millstream.table.sql.expressions import watermark_delay_ms

    column, watermark_expr = spec
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
    if _is_source_watermark(watermark_expr):
        if not isinstance(_leaf(source), FromDataStream):
            raise ValueError(
                f"SOURCE_WATERMARK() on column '{column}': only a DataStream table (from_data_stream) "
                "brings its own watermarks here; declare a watermark expression"
            )
        return dataclasses.replace(node, rowtime=index)  # the stream's timestamps and watermarks
    watermark_sql = watermark_expr if isinstance(watermark_expr, str) else str(watermark_expr)
    watermark = _computed(watermark_expr).resolve(node.names, node.types)
    delay = watermark_delay_ms(watermark_expr, column) if isinstance(watermark_expr, str) else None
    assigner = WatermarkAssigner(
        list(node.names),
        list(node.types),
        False,
        node,
        watermark.fn,
        watermark_sql,
        delay,
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


def _leaf(node: PlanNode) -> PlanNode:
    inputs = node.plan_inputs()
    return _leaf(inputs[0]) if len(inputs) == 1 else node


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
