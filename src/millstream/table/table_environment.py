"""``TableEnvironment``: the entry point of the Table API, as ``pyflink.table``'s.

``TableEnvironment.create(EnvironmentSettings.in_streaming_mode())`` (or batch mode)
makes tables (``from_elements``), names them (``create_temporary_view``, ``from_path``)
and runs them: ``Table.execute()`` plans the table into DataStream transformations on a
fresh ``StreamExecutionEnvironment`` (STREAMING or BATCH, the table config's
``parallelism.default``) and collects the result's changelog as the job produces it.
``StreamTableEnvironment.create(env)`` runs on a given StreamExecutionEnvironment's
configuration.
"""

from __future__ import annotations

import contextlib
import datetime
import decimal
from collections.abc import Iterable, Iterator
from typing import Any

from millstream.common import Configuration
from millstream.common.pipeline_executor import get_table_runner
from millstream.common.typeinfo import Types
from millstream.common.types import Row, RowKind
from millstream.table.catalog import CatalogMethods
from millstream.table.factories import TableContext, find_format_factory, find_table_factory
from millstream.table.planner import FromDataStream, PlanNode, Sink, Values
from millstream.table.table import ExplainDetail, Table
from millstream.table.table_descriptor import TableDescriptor
from millstream.table.table_result import TableResult
from millstream.table.types import DataType, DataTypes, RowType

__all__ = ["EnvironmentSettings", "StatementSet", "StreamTableEnvironment", "TableConfig", "TableEnvironment"]


class EnvironmentSettings:
    """Streaming or batch mode (``in_streaming_mode()``, ``in_batch_mode()``)."""

    def __init__(self, streaming: bool = True, configuration: Configuration | None = None) -> None:
        self._streaming = streaming
        self._configuration = configuration or Configuration()

    @staticmethod
    def in_streaming_mode() -> EnvironmentSettings:
        """Settings of a streaming TableEnvironment (changelogs, unbounded sources)."""
        return EnvironmentSettings(True)

    @staticmethod
    def in_batch_mode() -> EnvironmentSettings:
        """Settings of a batch TableEnvironment (bounded input, final results)."""
        return EnvironmentSettings(False)

    @staticmethod
    def new_instance() -> _SettingsBuilder:
        """A builder (``.in_batch_mode().build()``)."""
        return _SettingsBuilder()

    def is_streaming_mode(self) -> bool:
        """Whether the environment is in streaming mode."""
        return self._streaming

    def get_configuration(self) -> Configuration:
        """The settings' configuration."""
        return self._configuration


class _SettingsBuilder:
    def __init__(self) -> None:
        self._streaming = True
        self._configuration = Configuration()

    def in_streaming_mode(self) -> _SettingsBuilder:
        self._streaming = True
        return self

    def in_batch_mode(self) -> _SettingsBuilder:
        self._streaming = False
        return self

    def with_configuration(self, configuration: Configuration) -> _SettingsBuilder:
        self._configuration = configuration
        return self

    def build(self) -> EnvironmentSettings:
        return EnvironmentSettings(self._streaming, self._configuration)


class TableConfig:
    """Configuration of a TableEnvironment (``get_config().set(key, value)``)."""

    def __init__(self, configuration: Configuration) -> None:
        self._configuration = configuration

    def set(self, key: str, value: str) -> TableConfig:
        """Set an option (``parallelism.default``, ``table.exec.state.ttl`` ...)."""
        self._configuration.set_string(key, str(value))
        return self

    def get(self, key: str, default: Any = None) -> Any:
        """An option's value."""
        return self._configuration.get_string(key, default)

    def get_configuration(self) -> Configuration:
        """The options."""
        return self._configuration


class TableEnvironment(CatalogMethods):
    """Creates, names and runs tables."""

    def __init__(self, settings: EnvironmentSettings, configuration: Configuration | None = None) -> None:
        self._settings = settings
        config = Configuration()
        config.add_all(settings.get_configuration())
        if configuration is not None:
            config.add_all(configuration)
        self._config = TableConfig(config)
        self._views: dict[str, Table] = {}
        self._tables: dict[str, TableDescriptor] = {}  # connector tables
        self._permanent: set[str] = set()  # of them, the ones created without TEMPORARY

    @staticmethod
    def create(environment_settings: EnvironmentSettings | Configuration) -> TableEnvironment:
        """A TableEnvironment in streaming or batch mode."""
        if isinstance(environment_settings, Configuration):
            mode = (environment_settings.get_string("execution.runtime-mode", None) or "STREAMING").upper()
            environment_settings = EnvironmentSettings(mode != "BATCH", environment_settings)
        return TableEnvironment(environment_settings)

    @property
    def _batch(self) -> bool:
        return not self._settings.is_streaming_mode()

    def get_config(self) -> TableConfig:
        """The environment's configuration."""
        return self._config

    # -- tables ------------------------------------------------------------------------------------------

    def from_elements(self, elements: Iterable[Any], schema: Any = None, verify_schema: bool = True) -> Table:
        """A table of the given rows (tuples, lists, Rows or single values). ``schema``: column
        names (types inferred, as PyFlink: int BIGINT, float DOUBLE, str STRING ...) or a
        ``DataTypes.ROW`` (names and types)."""
        rows = [_as_tuple(e) for e in elements]
        width = len(rows[0]) if rows else (len(schema) if schema is not None else 0)
        if isinstance(schema, RowType):
            names, types = schema.field_names(), schema.field_types()
        else:
            names = list(schema) if schema is not None else [f"_{i + 1}" for i in range(width)]
            types = [_infer([row[i] for row in rows]) for i in range(len(names))]
        if verify_schema:
            for row in rows:
                if len(row) != len(names):
                    raise ValueError(f"row {row!r} has {len(row)} fields, the schema {len(names)}: {names}")
        self._anonymous = getattr(self, "_anonymous", 0) + 1  # Flink's name of the table in plans
        label = f"*anonymous_python-input-format${self._anonymous}*"
        return Table(Values(list(names), list(types), False, rows, label=label), self)

    def create_temporary_view(self, view_path: str, table: Table) -> None:
        """Name ``table`` (for ``from_path`` and SQL)."""
        self._views[view_path] = table

    def drop_temporary_view(self, view_path: str) -> bool:
        """Forget a view; whether it existed."""
        return self._views.pop(view_path, None) is not None

    def drop_temporary_table(self, path: str) -> bool:
        """Forget a connector table; whether it existed."""
        self._permanent.discard(path)
        return self._tables.pop(path, None) is not None

    def create_table(self, path: str, descriptor: TableDescriptor) -> None:
        """Name a connector table in the catalog (``list_temporary_tables`` leaves it out)."""
        self.create_temporary_table(path, descriptor)
        self._permanent.add(path)

    def _has_table(self, path: str) -> bool:
        return path in self._views or path in self._tables

    def create_temporary_table(self, path: str, descriptor: TableDescriptor) -> None:
        """Name a connector table (``TableDescriptor.for_connector(...)``): its connector and
        formats are looked up and its options checked now, as Flink's planner does."""
        factory = find_table_factory(descriptor.connector)
        formats = [(k, v) for k, v in descriptor.options.items() if k == "format" or k.endswith(".format")]
        for _, identifier in formats:
            find_format_factory(identifier)
        factory.validate(_context(path, descriptor), formats)
        self._tables[path] = descriptor

    def from_path(self, path: str) -> Table:
        """The table named ``path``."""
        if path in self._views:
            return self._views[path]
        descriptor = self._tables.get(path)
        if descriptor is not None:
            if descriptor.schema is None:
                raise ValueError(f"table '{path}' ({descriptor.connector}) has no schema to read")
            context = _context(path, descriptor)
            node = find_table_factory(descriptor.connector).create_source(context)
            node.label = f"default_catalog, default_database, {path}"
            table = Table(apply_schema(node, context.schema), self)
            table._declared = declared_columns(context.schema)  # print_schema shows them as Flink does
            return table
        raise ValueError(f"Table '{path}' was not found (create_temporary_view names tables)")

    def _insert(self, plan: PlanNode, path: str) -> TableResult:
        return self._run_many([self._sink_plan(plan, path)])

    def _sink_plan(self, plan: PlanNode, path: str) -> PlanNode:
        descriptor = self._tables.get(path)
        if descriptor is None:
            raise ValueError(f"sink table '{path}' was not found (create_temporary_table names sinks)")
        context = _context(path, descriptor)
        if descriptor.schema is not None:
            columns = descriptor.schema.persisted_columns()
            if len(columns) != len(plan.names):
                raise ValueError(
                    f"the query has {len(plan.names)} columns {plan.names}, sink '{path}' has "
                    f"{len(columns)}: {[n for n, _ in columns]}"
                )
            # the query's columns implicitly cast to the sink's types
            plan = _cast_to(plan, [n for n, _ in columns], [t for _, t in columns])
        table_sink = find_table_factory(descriptor.connector).create_sink(context)
        options, partitions = dict(descriptor.options), list(descriptor.partition_keys)
        return Sink(
            plan.names,
            plan.types,
            plan.updating,
            plan,
            descriptor.connector,
            options,
            partitions,
            table_sink,
            label=path,
        )

    def _run_many(self, sinks: list[PlanNode]) -> TableResult:
        """One job writing every sink; its result, as Flink's for INSERTs, is -1 per sink."""
        env = self._environment()
        env._table_config = self._config
        with plan_reuse(env, sinks):
            for sink in sinks:
                sink.translate(env)
        client = env.execute_async("insert-into")
        names = [f"default_catalog.default_database.{s.label or 'sink'}" for s in sinks]
        return TableResult(
            names, [DataTypes.BIGINT()] * len(sinks), iter([("+I", (-1,) * len(sinks))]), False, client
        )

    def create_temporary_function(self, path: str, function: Any) -> None:
        """Register a udf / udtf / udaf under ``path`` for SQL and ``call(path, ...)``."""
        from millstream.table.udf import register_function

        register_function(path, function)

    def create_temporary_system_function(self, name: str, function: Any) -> None:
        """Register a function under ``name`` (as create_temporary_function)."""
        self.create_temporary_function(name, function)

    def drop_temporary_function(self, path: str) -> bool:
        """Forget a function registered with create_temporary_function; whether it existed."""
        from millstream.table.udf import unregister_function

        return unregister_function(path)

    def drop_temporary_system_function(self, name: str) -> bool:
        """Forget a function registered with create_temporary_system_function."""
        return self.drop_temporary_function(name)

    def create_java_temporary_function(self, path: str, function_class_name: str) -> None:
        """Java functions cannot run here."""
        raise ValueError(f"Java functions are not supported (no JVM): {function_class_name}")

    def register_function(self, name: str, function: Any) -> None:
        """PyFlink 1.x's name for create_temporary_system_function."""
        self.create_temporary_function(name, function)

    def create_statement_set(self) -> StatementSet:
        """A set of INSERTs run as one job (``add_insert_sql`` / ``add_insert`` then ``execute``)."""
        return StatementSet(self)

    def from_pandas(self, pdf: Any, schema: Any = None, splits_num: int = 1) -> Table:
        """A table of a pandas DataFrame's rows (``schema``: a ROW type or column names)."""
        from millstream.table.types import RowType

        rows = [tuple(_from_pandas_value(v) for v in r) for r in pdf.itertuples(index=False, name=None)]
        if isinstance(schema, RowType):
            return self.from_elements(rows, schema)
        names = list(schema) if schema is not None else [str(c) for c in pdf.columns]
        return self.from_elements(rows, names)

    # -- SQL -----------------------------------------------------------------------------------------------

    def sql_query(self, query: str) -> Table:
        """The table a SELECT statement describes (over the views)."""
        from millstream.table.sql import parse_query

        return parse_query(self, query)

    def explain_sql(self, stmt: str, *extra_details: Any) -> str:
        """The plan of a SELECT or an INSERT statement (see ``Table.explain``)."""
        from millstream.table.sql import explain_statement

        return explain_statement(self, stmt, ExplainDetail.CHANGELOG_MODE in extra_details)

    def execute_sql(self, stmt: str) -> TableResult:
        """Run a statement: a SELECT (its rows), ``CREATE TABLE ... WITH (...)`` (datagen,
        print, blackhole) or ``INSERT INTO sink SELECT ...`` (``.wait()`` for its job)."""
        from millstream.table.sql import execute_statement

        return execute_statement(self, stmt)

    # -- running -------------------------------------------------------------------------------------------

    def _execute(self, plan: PlanNode) -> TableResult:
        return self._run(plan, insert=False)

    def _environment(self) -> Any:
        """The StreamExecutionEnvironment a table job runs on (a new one per job)."""
        from millstream.datastream import RuntimeExecutionMode, StreamExecutionEnvironment

        configuration = Configuration()
        configuration.add_all(self._config.get_configuration())
        env = StreamExecutionEnvironment.get_execution_environment(configuration)
        if self._batch:
            env.set_runtime_mode(RuntimeExecutionMode.BATCH)
        return env

    def _run(self, plan: PlanNode, insert: bool) -> TableResult:
        if not insert and self._batch:
            target = self._config.get("execution.target", None) or ""
            runner = get_table_runner(target) if target else None
            rows = runner(plan, self) if runner is not None else None
            if rows is not None:  # the target's SQL engine ran the plan (else: DataStream translation)
                self.last_runtime = target
                return TableResult(plan.names, plan.types, iter(rows), streaming=False)
        self.last_runtime = "datastream"
        env = self._environment()
        env._table_config = self._config  # the plan reads table.exec.* options from it
        with plan_reuse(env, [plan]):
            stream = plan.translate(env)
        if insert:  # the job runs now; its result is the number of rows... as Flink's, -1
            client = env.execute_async("insert-into")
            return TableResult(["result"], [DataTypes.BIGINT()], iter([("+I", (-1,))]), False, client)
        changes = stream.execute_and_collect("collect")
        if self._batch and plan.updating:  # a batch result is the final table: fold the changes
            changes = _final_rows(changes)
        return TableResult(plan.names, plan.types, changes, streaming=not self._batch)


class StatementSet:
    """INSERT statements run together as one job (``TableEnvironment.create_statement_set``)."""

    def __init__(self, t_env: TableEnvironment) -> None:
        self._t_env = t_env
        self._sinks: list[PlanNode] = []

    def add_insert_sql(self, stmt: str) -> StatementSet:
        """Add ``INSERT INTO sink SELECT ...``."""
        from millstream.table.sql import insert_plan

        self._sinks.append(insert_plan(self._t_env, stmt))
        return self

    def add_insert(self, target_path: str, table: Table, overwrite: bool = False) -> StatementSet:
        """Add writing ``table`` into the sink table ``target_path``."""
        self._sinks.append(self._t_env._sink_plan(table._plan, target_path))
        return self

    def execute(self) -> TableResult:
        """Run every added INSERT in one job (``.wait()`` for it)."""
        if not self._sinks:
            raise ValueError("No operators defined in the statement set: add_insert_sql / add_insert first")
        sinks, self._sinks = self._sinks, []
        return self._t_env._run_many(sinks)


@contextlib.contextmanager
def plan_reuse(env: Any, plans: list[PlanNode]) -> Iterator[None]:
    """While a job's ``plans`` translate on ``env``: identical parts are translated once
    (``plan_reuse.py``; ``table.optimizer.reuse-sub-plan-enabled``)."""
    from millstream.table.plan_reuse import PlanReuse
    from millstream.table.table_options import REUSE_SOURCE, REUSE_SUB_PLAN, option_value

    if not option_value(env, REUSE_SUB_PLAN):
        yield
        return
    env._plan_reuse = PlanReuse(sources=option_value(env, REUSE_SOURCE))
    env._plan_reuse.count_uses(plans)
    try:
        yield
    finally:
        env._plan_reuse = None


def _from_pandas_value(value: Any) -> Any:
    """A pandas/numpy cell as a plain Python value."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return value.item()
    if hasattr(value, "to_pydatetime"):
        return value.to_pydatetime()
    return value


class StreamTableEnvironment(TableEnvironment):
    """A TableEnvironment on a StreamExecutionEnvironment's settings (mixing both APIs)."""

    def __init__(self, stream_env: Any, settings: EnvironmentSettings) -> None:
        super().__init__(settings, getattr(stream_env, "_configuration", None))
        self._stream_env = stream_env

    @staticmethod
    def create(  # type: ignore[override]
        stream_execution_environment: Any, environment_settings: EnvironmentSettings | None = None
    ) -> StreamTableEnvironment:
        """A TableEnvironment over ``stream_execution_environment``."""
        settings = environment_settings or EnvironmentSettings.in_streaming_mode()
        return StreamTableEnvironment(stream_execution_environment, settings)

    def _environment(self) -> Any:
        return self._stream_env  # tables read and feed this environment's DataStreams

    def from_data_stream(self, data_stream: Any, *fields_or_schema: Any) -> Table:
        """A table of a DataStream's elements (Rows, tuples or values). A ``Schema`` picks and
        types physical columns by name, adds computed columns (SQL expressions) and declares
        the event-time attribute with its watermark; column expressions rename the columns
        (default: the stream's declared type, else ``f0``)."""
        from millstream.table.schema import Schema

        schema = fields_or_schema[0] if fields_or_schema and isinstance(fields_or_schema[0], Schema) else None
        names, types = _stream_columns(data_stream, () if schema is not None else fields_or_schema)
        if schema is not None and schema.columns and not _has_type_info(data_stream):
            names, types = schema.field_names(), schema.field_types()  # an untyped stream: the schema says
        self._anonymous = getattr(self, "_anonymous", 0) + 1
        node: PlanNode = FromDataStream(names, types, False, data_stream)
        node.label = f"*anonymous_datastream_source${self._anonymous}*"
        if schema is not None:
            node = apply_schema(node, schema)
        return Table(node, self)

    def from_changelog_stream(
        self, data_stream: Any, schema: Any = None, changelog_mode: Any = None
    ) -> Table:
        """A table of a DataStream of Rows whose RowKinds are changes (``changelog_mode``:
        ``ChangelogMode.all()`` by default; ``insert_only()``; ``upsert()`` with the schema's
        primary key: each row replaces its key's row, normalized into a full changelog)."""
        from millstream.table.changelog_mode import ChangelogMode
        from millstream.table.planner import ChangelogNormalize

        mode = changelog_mode or ChangelogMode.all()
        names, types = _stream_columns(data_stream, ())
        if schema is not None and schema.columns and not _has_type_info(data_stream):
            names, types = schema.field_names(), schema.field_types()
        node: PlanNode = FromDataStream(names, types, not mode.contains_only("+I"), data_stream)
        if schema is not None:
            node = apply_schema(node, schema)
        if "+U" in mode.kinds and "-U" not in mode.kinds:
            key = list(getattr(schema, "primary_key_columns", None) or [])
            if not key:
                raise ValueError(
                    "Table sources with upsert changelog mode need a primary key: declare it in the "
                    "Schema (Schema.new_builder()...primary_key('id'))"
                )
            missing = [k for k in key if k not in node.names]
            if missing:
                raise ValueError(f"primary key column {missing[0]!r} is not a column of {node.names}")
            node = ChangelogNormalize(
                list(node.names), list(node.types), True, node, [node.names.index(k) for k in key],
                rowtime=node.rowtime,
            )  # fmt: skip
        return Table(node, self)

    def create_temporary_view(self, view_path: str, table_or_stream: Any, *fields: Any) -> None:
        """Name a table, or a DataStream as a table."""
        table = (
            table_or_stream
            if isinstance(table_or_stream, Table)
            else self.from_data_stream(table_or_stream, *fields)
        )
        super().create_temporary_view(view_path, table)

    def to_data_stream(self, table: Table) -> Any:
        """The table's rows as a DataStream of Rows (insert-only tables)."""
        plan = table._plan
        if plan.updating:
            raise ValueError(
                "Table sink 'to_data_stream' doesn't support consuming update and delete changes: use "
                "to_changelog_stream"
            )
        return self._changelog(plan)

    def to_changelog_stream(self, table: Table, target_schema: Any = None, changelog_mode: Any = None) -> Any:
        """The table's changes as a DataStream of Rows with their RowKind (``changelog_mode``
        ``upsert()`` leaves out the -U rows; ``insert_only()`` refuses an updating table)."""
        stream = self._changelog(table._plan)
        if changelog_mode is None:
            return stream
        if changelog_mode.contains_only("+I") and table._plan.updating:
            raise ValueError(
                "Table sink 'to_changelog_stream' doesn't support consuming update and delete changes "
                "with ChangelogMode.insert_only()"
            )
        if "-U" not in changelog_mode.kinds and table._plan.updating:
            return stream.filter(lambda row: row.get_row_kind() is not RowKind.UPDATE_BEFORE)
        return stream

    def to_append_stream(self, table: Table, type_info: Any = None) -> Any:
        """PyFlink 1.x's name for ``to_data_stream``."""
        return self.to_data_stream(table)

    def to_retract_stream(self, table: Table, type_info: Any = None) -> Any:
        """PyFlink 1.x: ``(True, row)`` for an addition, ``(False, row)`` for a retraction."""
        return self._changelog(table._plan).map(lambda row: (row.get_row_kind().value in (0, 2), row))

    def _changelog(self, plan: PlanNode) -> Any:
        names = list(plan.names)
        kinds = {
            "+I": RowKind.INSERT,
            "-U": RowKind.UPDATE_BEFORE,
            "+U": RowKind.UPDATE_AFTER,
            "-D": RowKind.DELETE,
        }

        def to_row(change: tuple[str, tuple[Any, ...]]) -> Row:
            row = Row(*change[1])
            row.set_field_names(names)
            row.set_row_kind(kinds[change[0]])
            return row

        type_info = Types.ROW_NAMED(names, [t.to_type_info() for t in plan.types])
        self._stream_env._table_config = self._config
        return plan.translate(self._stream_env).map(to_row, output_type=type_info)


def _final_rows(changes: Any) -> Any:
    """The rows a bounded changelog leaves (``+I``/``+U`` add, ``-U``/``-D`` take back), in the
    order they were first added: what a batch query returns (Flink's batch results are final)."""
    from collections import Counter

    with changes:
        held: Counter[tuple[Any, ...]] = Counter()
        order: dict[tuple[Any, ...], None] = {}
        for kind, row in changes:
            if kind in ("+I", "+U"):
                held[row] += 1
                order.setdefault(row)
            else:
                held[row] -= 1
    for row in order:
        for _ in range(max(held[row], 0)):
            yield ("+I", row)


def _cast_to(plan: PlanNode, names: list[str], types: list[DataType]) -> PlanNode:
    """``plan``'s columns as a sink's: renamed, and cast where the type differs."""
    from millstream.table.expressions import col
    from millstream.table.planner import project

    expressions = []
    for name, source, target, sink_name in zip(plan.names, plan.types, types, names, strict=True):
        e = col(name)
        if source.root != target.root and source.root != "NULL":
            e = e.cast(target if source.is_nullable() else target.not_null())
        expressions.append(e.alias(sink_name) if sink_name != name else e)
    casted = project(plan, expressions, lambda i: f"_c{i}")
    casted.types = [t if t.root != "NULL" else s for t, s in zip(casted.types, types, strict=True)]
    return casted


def _has_type_info(data_stream: Any) -> bool:
    from millstream.common.typeinfo import PickledBytesTypeInfo

    type_info = data_stream.get_type() if hasattr(data_stream, "get_type") else None
    return type_info is not None and not isinstance(type_info, PickledBytesTypeInfo)


def _stream_columns(data_stream: Any, fields: tuple[Any, ...]) -> tuple[list[str], list[DataType]]:
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


def _context(path: str, descriptor: TableDescriptor) -> TableContext:
    from millstream.table.schema import Schema

    schema = descriptor.schema if descriptor.schema is not None else Schema.new_builder().build()
    return TableContext(path, schema, dict(descriptor.options), list(descriptor.partition_keys))


def declared_columns(schema: Any) -> dict[str, Any]:
    """A catalog table's computed columns (name -> expression) and watermark (column,
    expression), in the text Flink prints them with (identifiers quoted: ```a` + 1``)."""
    from millstream.table.sql import flink_text

    declared: dict[str, Any] = {"computed": {name: flink_text(expr) for name, expr in schema.computed}}
    if schema.watermark_spec is not None:
        column, expression = schema.watermark_spec
        declared["watermark"] = (column, flink_text(expression))
    return declared


def apply_schema(node: PlanNode, schema: Any) -> PlanNode:
    """``node``'s physical columns arranged as ``schema`` declares them: declared physical
    columns (all of them if none is declared), computed columns, then the watermark."""
    from millstream.table.expressions import col
    from millstream.table.planner import project
    from millstream.table.sql import parse_expression, watermark_delay_ms
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
        # partition each), on its rows with the computed columns evaluated
        fns = [e.resolve(source.names, source.types).fn for e in expressions] if node is not source else None
        source.watermark = (  # type: ignore[attr-defined]
            assigner,
            (lambda values: tuple([f(values) for f in fns])) if fns else None,
        )
        assigner.pushed_down = True
    return assigner


def _as_tuple(element: Any) -> tuple[Any, ...]:
    if isinstance(element, Row):
        return tuple(element)
    if isinstance(element, (tuple, list)):
        return tuple(element)
    return (element,)


def _infer(values: list[Any]) -> DataType:
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
        return DataTypes.ARRAY(_infer(value))
    if isinstance(value, dict):
        return DataTypes.MAP(_infer(list(value)), _infer(list(value.values())))
    raise TypeError(f"cannot infer the SQL type of {value!r} ({type(value).__name__}): give a schema")
