"""Catalog tables in plans (Flink's ``CatalogSourceTable`` and ``DynamicSourceUtils`` /
``DynamicSinkUtils``): a connector table's source planned with its declared schema (computed
columns, metadata columns, the watermark, types as declared), and a query written into a sink
table, its columns cast to the sink's. Computed columns and watermarks are SQL text, parsed here."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, cast

from millstream.table.catalog.catalog_manager import CatalogManager, CatalogTable, CatalogView
from millstream.table.catalog.object_identifier import ObjectIdentifier
from millstream.table.common.factories import find_table_factory
from millstream.table.common.logical_type_casts import sink_mismatch, supports_avoiding_cast
from millstream.table.common.types import DataType
from millstream.table.expression.expression import Expression, col
from millstream.table.expression.markers import SourceWatermark
from millstream.table.planner.nodes import PlanNode, Sink, Values, table_scan
from millstream.table.planner.projection import project
from millstream.table.planner.sources import FromDataStream
from millstream.table.planner.windows import WatermarkAssigner
from millstream.table.sql.errors import TableNotFoundError
from millstream.table.sql.expressions import flink_text, parse_expression, watermark_delay_ms
from millstream.table.sql.missing_objects import object_not_found

__all__ = [
    "apply_schema",
    "cast_to",
    "declared_columns",
    "resolved_columns",
    "sink_plan",
    "source_plan",
    "table_plan",
]


def cast_to(plan: PlanNode, names: list[str], types: list[DataType]) -> PlanNode:
    """``plan``'s columns as a sink's: renamed, and cast where the type differs."""
    expressions = []
    for name, source, target, sink_name in zip(plan.names, plan.types, types, names, strict=True):
        e = col(name)
        if not supports_avoiding_cast(source, target) and source.root != "NULL":
            e = e.cast(target if source.is_nullable() else target.not_null())
        expressions.append(e.alias(sink_name) if sink_name != name else e)
    casted = project(plan, expressions, lambda i: f"_c{i}")
    return dataclasses.replace(
        casted, types=[t if t.root != "NULL" else s for t, s in zip(casted.types, types, strict=True)]
    )


def declared_columns(schema: Any, as_written: bool = False) -> dict[str, Any]:
    """A table's computed columns (name -> expression), metadata columns (name -> (key as
    declared or None, virtual)), primary key (its constraint name under ``primary_key_name``)
    and watermark (column, expression), as Flink prints its resolved schema: a catalog table's
    SQL in Flink's serialization (identifiers quoted: ```a` + 1``), a DataStream's
    (``as_written``) as written; ``computed_sql`` / ``watermark_sql``: the serialized SQL the
    legacy ``TableSchema`` prints. An Expression is printed by its summary."""

    def serialized(expression: Any) -> str:
        if isinstance(expression, str) and _is_source_watermark(expression):
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


def apply_schema(node: PlanNode, schema: Any) -> PlanNode:
    """``node``'s physical columns arranged as ``schema`` declares them: declared physical
    and metadata columns (all of them if none is declared) of their declared types (cast where
    the values differ; NOT NULL in the primary key, as Flink resolves a schema), computed
    columns, then the watermark (``SOURCE_WATERMARK()``: the DataStream's own watermarks)."""
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


def resolved_columns(schema: Any) -> PlanNode:
    """A declared schema's columns as a source's plan has them (computed columns typed, the
    primary key NOT NULL, the time attributes marked), without creating the source: what
    ``DESCRIBE`` shows, and the check of a schema DDL declares (Flink resolves it when the
    table is created).

    Raises:
        ValueError: the schema does not resolve (a watermark on a column that is no timestamp,
            a computed column over a column that does not exist ...).
    """
    physical = list(schema.columns) + [(c.name, c.data_type) for c in schema.metadata_columns]
    node = Values([n for n, _ in physical], [t for _, t in physical], False, [])
    spec = schema.watermark_spec
    if spec is None or not _is_source_watermark(spec[1]):
        return apply_schema(node, schema)
    # SOURCE_WATERMARK(): the source's own watermarks, checked when the source is planned
    without = copy.copy(schema)
    without.watermark_spec = None
    plan = apply_schema(node, without)
    return dataclasses.replace(plan, rowtime=plan.names.index(spec[0])) if spec[0] in plan.names else plan


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
    return expression if isinstance(expression, Expression) else parse_expression(expression)


def _is_source_watermark(expression: Any) -> bool:
    """Whether a watermark declaration is ``SOURCE_WATERMARK()`` (or ``source_watermark()``): the
    source's own."""
    if isinstance(expression, SourceWatermark):
        return True
    return isinstance(expression, str) and "".join(expression.split()).upper() == "SOURCE_WATERMARK()"


def _watermarked(source: PlanNode, node: PlanNode, expressions: list[Any], spec: tuple[str, Any]) -> PlanNode:
    """``node`` with its event-time attribute ``spec[0]`` and the watermarks ``spec[1]``
    declares: generated by a WatermarkAssigner (pushed into a source that generates them per
    split), or the DataStream's own (``SOURCE_WATERMARK()``)."""
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
    expression = _computed(watermark_expr)
    watermark = expression.resolve(node.names, node.types)
    delay = watermark_delay_ms(watermark_expr, column) if isinstance(watermark_expr, str) else None
    assigner = WatermarkAssigner(
        list(node.names),
        list(node.types),
        False,
        node,
        watermark.fn,
        watermark_sql,
        expression,
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


def source_plan(identifier: ObjectIdentifier, table: CatalogTable) -> tuple[PlanNode, dict[str, Any]]:
    """The plan reading catalog table ``identifier``: its connector's source with the declared
    schema applied, and the declared columns ``print_schema`` shows.

    Raises:
        ValueError: the table has no schema to read, or no connector.
    """
    schema = table.descriptor.schema
    if schema is None:
        raise ValueError(f"table '{identifier.object_name}' ({table.connector}) has no schema to read")
    source = find_table_factory(_connector(identifier, table, "source for reading")).create_source(
        table.context
    )
    node = table_scan(source, ", ".join(identifier.to_list()))
    return apply_schema(node, table.context.schema), declared_columns(table.context.schema)


def _connector(identifier: ObjectIdentifier, table: CatalogTable, what: str) -> str:
    """The table's connector.

    Raises:
        ValueError: the table has none (``CREATE TABLE t (...)`` without WITH: a table only to
            be LIKE'd), with Flink's message.
    """
    if not table.connector:
        raise ValueError(
            f"Unable to create a {what} table '{identifier.as_summary_string()}': Table options do not "
            "contain an option key 'connector' for discovering a connector."
        )
    return table.connector


def sink_plan(catalog: CatalogManager, plan: PlanNode, path: str | list[str] | ObjectIdentifier) -> PlanNode:
    """``plan`` written into sink table ``path``: its columns cast to the sink's, into the
    connector's ``TableSink``.

    Raises:
        ValueError: no such sink table, or the query's columns do not cast implicitly to the
            sink's (Flink's message).
    """
    identifier = catalog.qualify(path)
    table = catalog.get_table(identifier)
    if table is None:
        catalogs = ", ".join(catalog.list_catalogs())
        raise ValueError(
            f"Cannot find table '{identifier}' in any of the catalogs [{catalogs}], nor as a temporary table."
        )
    descriptor = table.descriptor
    not_null: tuple[int, ...] = ()
    if descriptor.schema is not None:
        columns = descriptor.schema.persisted_columns()
        names, types = [n for n, _ in columns], [t for _, t in columns]
        # Flink's DynamicSinkUtils: each column casts implicitly to the sink's, or the plan fails
        table_name = identifier.as_summary_string()
        mismatch = sink_mismatch(table_name, plan.names, plan.types, names, types)
        if mismatch is not None:
            raise ValueError(mismatch)
        # Flink's SinkNotNullEnforcer: on each NOT NULL sink column the query's may leave NULL
        not_null = tuple(
            i
            for i, (s, t) in enumerate(zip(plan.types, types, strict=True))
            if s.is_nullable() and not t.is_nullable()
        )
        plan = cast_to(plan, names, types)
    table_sink = find_table_factory(_connector(identifier, table, "sink for writing")).create_sink(
        table.context
    )
    options, partitions = dict(descriptor.options), list(descriptor.partition_keys)
    return Sink(
        plan.names,
        plan.types,
        plan.updating,
        plan,
        table.connector,
        options,
        partitions,
        table_sink,
        not_null,
        label=identifier.as_summary_string(),
    )


def table_plan(catalog: CatalogManager, path: str | list[str]) -> PlanNode:
    """The plan of the view or connector table named ``path`` (a name, or its parts: ``t``,
    ``db.t``, ``catalog.db.t``).

    Raises:
        TableNotFoundError: no table or view has that name.
    """
    identifier = catalog.qualify(path)
    found = catalog.get(identifier)
    if isinstance(found, CatalogView):
        return found.plan
    if isinstance(found, CatalogTable):
        return source_plan(identifier, found)[0]
    parts = list(path) if isinstance(path, list) else [path]  # as the query writes the name
    raise TableNotFoundError(parts, object_not_found(catalog, parts))
