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

import dataclasses
from collections import Counter
from collections.abc import Iterable
from typing import Any

from millstream.common import Configuration, error_report
from millstream.common import config_options as opts
from millstream.common.config_option import ConfigurationError
from millstream.common.pipeline_executor import get_table_runner
from millstream.common.typeinfo import Types
from millstream.common.types import Row, RowKind
from millstream.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from millstream.table.api.catalog_methods import CatalogMethods
from millstream.table.api.environment_settings import EnvironmentSettings
from millstream.table.api.operation_executor import execute_operation
from millstream.table.api.schema import Schema
from millstream.table.api.schema_planning import (
    as_tuple,
    element_names,
    has_type_info,
    infer_type,
    stream_columns,
    stream_timestamp_column,
    table_context,
)
from millstream.table.api.statement_set import StatementSet
from millstream.table.api.table import ExplainDetail, Table
from millstream.table.api.table_config import TableConfig
from millstream.table.api.table_descriptor import TableDescriptor
from millstream.table.api.table_result import TableResult
from millstream.table.catalog.catalog_manager import CatalogManager, CatalogTable, CatalogView
from millstream.table.catalog.function_catalog import FunctionCatalog, check_function
from millstream.table.catalog.module_manager import ModuleManager
from millstream.table.common.changelog_mode import ChangelogMode
from millstream.table.common.options import SINK_NOT_NULL_ENFORCER, option_value
from millstream.table.common.timestamps import to_instant
from millstream.table.common.types import DataTypes, RowType
from millstream.table.planner.explain import explain_plan
from millstream.table.planner.nodes import ChangelogNormalize, PlanNode, Values
from millstream.table.planner.planning import plan_job
from millstream.table.planner.sources import FromDataStream
from millstream.table.runtime.sink_constraints import NotNullEnforcer
from millstream.table.sql.catalog_tables import apply_schema, declared_columns, sink_plan, source_plan
from millstream.table.sql.statements import explain_operation, query_operation, statement_operation

__all__ = ["EnvironmentSettings", "StatementSet", "StreamTableEnvironment", "TableConfig", "TableEnvironment"]


class TableEnvironment(CatalogMethods):
    """Creates, names and runs tables."""

    def __init__(self, settings: EnvironmentSettings, configuration: Configuration | None = None) -> None:
        error_report.install_excepthook()  # a statement that cannot be planned ends a program in one line
        self._settings = settings
        config = Configuration()
        config.add_all(settings.get_configuration())
        if configuration is not None:
            config.add_all(configuration)
        self._config = TableConfig(config)
        self._catalog = CatalogManager()  # the catalogs, and the tables and views by name
        self._modules = ModuleManager()  # the core module's built-in functions
        self._functions = FunctionCatalog(self._catalog, self._modules)  # the user's functions

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

    def _planner_options(self) -> dict[str, str]:
        """The options the planner reads (``table.*``, ``parallelism.default`` ..., and the
        environment's ``execution.runtime-mode``), as a mapping of keys to values: the planner
        never calls back into the Table API."""
        options = self._config.get_configuration().to_dict()
        options["execution.runtime-mode"] = "BATCH" if self._batch else "STREAMING"
        return options

    # -- tables ------------------------------------------------------------------------------------------

    def from_elements(self, elements: Iterable[Any], schema: Any = None, verify_schema: bool = True) -> Table:
        """A table of the given rows (tuples, lists, Rows or single values). ``schema``: column
        names (types inferred, as PyFlink: int BIGINT, float DOUBLE, str STRING ...) or a
        ``DataTypes.ROW`` (names and types)."""
        elements = list(elements)
        if isinstance(schema, RowType):  # dicts and named Rows by the fields' names, as PyFlink's
            names, types = schema.field_names(), schema.field_types()
            rows = [as_tuple(e, names) for e in elements]
        else:
            inferred = element_names(elements[0]) if elements else None
            rows = [as_tuple(e, inferred if isinstance(e, dict) else None) for e in elements]
            width = len(rows[0]) if rows else (len(schema) if schema is not None else 0)
            default = inferred or [f"_{i + 1}" for i in range(width)]
            names = list(schema) if schema is not None else default
            types = [infer_type([row[i] for row in rows]) for i in range(len(names))]
        if verify_schema:
            for row in rows:
                if len(row) != len(names):
                    raise ValueError(f"row {row!r} has {len(row)} fields, the schema {len(names)}: {names}")
        self._anonymous = getattr(self, "_anonymous", 0) + 1  # Flink's name of the table in plans
        label = f"*anonymous_python-input-format${self._anonymous}*"
        return Table(Values(list(names), list(types), False, rows, label=label), self)

    def create_temporary_view(
        self, view_path: str, table_or_data_stream: Any, *fields_or_schema: Any
    ) -> None:
        """Name a table (for ``from_path`` and SQL); a DataStream needs a StreamTableEnvironment."""
        if not isinstance(table_or_data_stream, Table):
            raise TypeError(
                f"create_temporary_view of a {type(table_or_data_stream).__name__}: a TableEnvironment "
                "names Tables; a DataStream needs StreamTableEnvironment.create(env)"
            )
        table = table_or_data_stream
        self._catalog.create_view(view_path, CatalogView(table._plan, table._declared))

    def drop_temporary_view(self, view_path: str) -> bool:
        """Forget a view; whether it existed."""
        return self._catalog.drop_view(view_path)

    def drop_temporary_table(self, table_path: str) -> bool:
        """Forget a connector table; whether it existed."""
        return self._catalog.drop_temporary_table(table_path)

    def create_table(self, path: str, descriptor: TableDescriptor, ignoreIfExists: bool = False) -> None:
        """Name a connector table in the catalog (``list_temporary_tables`` leaves it out).

        Raises:
            ValueError: a table of that name exists (and not ``ignoreIfExists``), as Flink's.
        """
        self._catalog.create_table(path, self._catalog_table(path, descriptor), ignoreIfExists)

    def create_temporary_table(
        self, path: str, descriptor: TableDescriptor, ignoreIfExists: bool = False
    ) -> None:
        """Name a connector table (``TableDescriptor.for_connector(...)``): its connector and
        formats are looked up and its options checked now, as Flink's planner does.

        Raises:
            ValueError: a temporary table of that name exists (and not ``ignoreIfExists``).
        """
        self._catalog.create_temporary_table(path, self._catalog_table(path, descriptor), ignoreIfExists)

    @staticmethod
    def _catalog_table(path: str, descriptor: TableDescriptor) -> CatalogTable:
        return CatalogTable(descriptor.connector, descriptor, table_context(path, descriptor))

    def from_path(self, path: str) -> Table:
        """The table named ``path``."""
        identifier = self._catalog.qualify(path)
        found = self._catalog.get(identifier)
        if isinstance(found, CatalogView):
            table = Table(found.plan, self)
            table._declared = dict(found.declared)
            return table
        if isinstance(found, CatalogTable):
            plan, declared = source_plan(identifier, found)
            table = Table(plan, self)
            table._declared = declared  # print_schema shows them as Flink does
            return table
        raise ValueError(f"Table '{path}' was not found (create_temporary_view names tables)")

    def _sink_path(self, target: str | TableDescriptor) -> str:
        """The table an INSERT writes: a path, or a TableDescriptor registered as an anonymous
        temporary table (``*anonymous_print$1*``, as Flink names it)."""
        if not isinstance(target, TableDescriptor):
            return target
        self._anonymous = getattr(self, "_anonymous", 0) + 1
        path = f"*anonymous_{target.connector}${self._anonymous}*"
        self.create_temporary_table(path, target)
        return path

    def _insert(self, plan: PlanNode, path: str) -> TableResult:
        return self._run_many([sink_plan(self._catalog, plan, path)])

    def _run_many(self, sinks: list[PlanNode]) -> TableResult:
        """One job writing every sink; its result, as Flink's for INSERTs, is -1 per sink."""
        env = self._environment()
        sinks, ctx = plan_job(env, self._planner_options(), sinks)
        # a column per table written (two INSERTs into one table: one column, as Flink's)
        names = list(dict.fromkeys(s.label or "default_catalog.default_database.sink" for s in sinks))
        target = self._config.get("execution.target", None) or ""
        runner = get_table_runner(target) if target and self._batch and len(sinks) == 1 else None
        if runner is not None and runner(ctx.physical.roots[0], self) is not None:
            self.last_runtime = target  # the target's SQL engine wrote the sink (a jdbc table on Spark)
            result = TableResult(names, [DataTypes.BIGINT()], iter([("+I", (-1,))]), False)
            result._raw = "-1"
            return result
        for sink in sinks:
            sink.translate(ctx)
        return _insert_result(env, names)

    def create_temporary_function(self, path: str, function: Any) -> None:
        """Register a udf / udtf / udaf under ``path`` for SQL and ``call(path, ...)`` (a
        temporary catalog function; one of the same name is replaced)."""
        check_function(function)
        self._functions.drop_temporary_function(path)
        self._functions.create_temporary_function(path, function)

    def create_temporary_system_function(self, name: str, function: Any) -> None:
        """Register a function under ``name`` (a temporary system function; one of the same name
        is replaced)."""
        check_function(function)
        self._functions.drop_temporary_system_function(name)
        self._functions.create_temporary_system_function(name, function)

    def drop_temporary_function(self, path: str) -> bool:
        """Forget a function registered with create_temporary_function; whether it existed."""
        return self._functions.drop_temporary_function(path)

    def drop_temporary_system_function(self, name: str) -> bool:
        """Forget a function registered with create_temporary_system_function."""
        return self._functions.drop_temporary_system_function(name)

    def create_java_temporary_function(self, path: str, function_class_name: str) -> None:
        """Java functions cannot run here."""
        raise ValueError(f"Java functions are not supported (no JVM): {function_class_name}")

    def register_function(self, name: str, function: Any) -> None:
        """PyFlink 1.x's name for create_temporary_system_function."""
        self.create_temporary_system_function(name, function)

    def create_statement_set(self) -> StatementSet:
        """A set of INSERTs run as one job (``add_insert_sql`` / ``add_insert`` then ``execute``)."""
        return StatementSet(self)

    def from_pandas(self, pdf: Any, schema: Any = None, splits_num: int = 1) -> Table:
        """A table of a pandas DataFrame's rows (``schema``: a ROW type or column names)."""
        rows = [tuple(_from_pandas_value(v) for v in r) for r in pdf.itertuples(index=False, name=None)]
        if isinstance(schema, RowType):
            return self.from_elements(rows, schema)
        names = list(schema) if schema is not None else [str(c) for c in pdf.columns]
        return self.from_elements(rows, names)

    # -- SQL -----------------------------------------------------------------------------------------------

    def sql_query(self, query: str) -> Table:
        """The table a SELECT statement describes (over the views)."""
        return Table(query_operation(self._catalog, self._batch, query).plan, self)

    def explain_sql(self, stmt: str, *extra_details: Any) -> str:
        """The plan of a SELECT or an INSERT statement (see ``Table.explain``)."""
        changelog_mode = ExplainDetail.CHANGELOG_MODE in extra_details
        plan = explain_operation(self._catalog, self._batch, stmt, changelog_mode).plan
        return explain_plan(plan, self._planner_options(), changelog_mode)

    def execute_sql(self, stmt: str) -> TableResult:
        """Run a statement: a SELECT (its rows), ``CREATE TABLE ... WITH (...)`` (datagen,
        print, blackhole) or ``INSERT INTO sink SELECT ...`` (``.wait()`` for its job)."""
        return execute_operation(self, statement_operation(self._catalog, self._batch, stmt))

    # -- running -------------------------------------------------------------------------------------------

    def _execute(self, plan: PlanNode) -> TableResult:
        return self._run(plan, insert=False)

    def _environment(self) -> Any:
        """The StreamExecutionEnvironment a table job runs on (a new one per job)."""
        configuration = Configuration()
        configuration.add_all(self._config.get_configuration())
        env = StreamExecutionEnvironment.get_execution_environment(configuration)
        if self._batch:
            env.set_runtime_mode(RuntimeExecutionMode.BATCH)
        return env

    def _run(self, plan: PlanNode, insert: bool) -> TableResult:
        env = self._environment()
        [plan], ctx = plan_job(env, self._planner_options(), [plan])
        if not insert and self._batch:
            target = self._config.get("execution.target", None) or ""
            runner = get_table_runner(target) if target else None
            [root] = ctx.physical.roots  # the operators explain prints
            rows = runner(root, self) if runner is not None else None
            if rows is not None:  # the target's SQL engine ran the plan (else: DataStream translation)
                self.last_runtime = target
                result = TableResult(plan.names, plan.types, iter(rows), streaming=False)
                return self._printed_as_configured(result)
        self.last_runtime = "datastream"
        stream = plan.translate(ctx)
        if insert:  # the job runs now; its result is the number of rows... as Flink's, -1
            return _insert_result(env, ["result"])
        changes = _not_null_enforced(stream.execute_and_collect("collect"), plan, ctx.config)
        if self._batch and plan.updating:  # a batch result is the final table: fold the changes
            changes = _final_rows(changes)
        result = TableResult(plan.names, plan.types, changes, streaming=not self._batch)
        return self._printed_as_configured(result)

    def _printed_as_configured(self, result: TableResult) -> TableResult:
        """``result``, printing columns as wide as ``table.display.max-column-width`` says."""
        width = self._config.get("table.display.max-column-width", None)
        if width is not None:
            result._max_column_width = int(width)
        return result


def _insert_result(env: Any, names: list[str]) -> TableResult:
    """Start the INSERT job of ``env``; its result (-1 per sink, as Flink's). In detached mode
    (``millstream run --detached``, ``execution.attached`` false) the client lets go of the job
    once it is submitted, as Flink's CLI does: ``wait()`` returns at once, and the program may
    end while the job runs on.

    Raises:
        ConfigurationError: detached mode on the embedded cluster, which ends with the program.
    """
    configuration = env._configuration  # the environment's settings: the CLI's, the table config's
    detached = not configuration.get(opts.EXECUTION_ATTACHED)
    if detached and configuration.get(opts.EXECUTION_TARGET) in ("embedded", "local"):
        raise ConfigurationError(
            "detached mode (millstream run --detached, execution.attached: false) needs a cluster "
            "that outlives the client: --target cluster://HOST:PORT (the embedded cluster ends "
            "with its program)"
        )
    client = env.execute_async("insert-into")
    if detached:
        client.detach()
    width = len(names)
    result = TableResult(
        names, [DataTypes.BIGINT()] * width, iter([("+I", (-1,) * width)]), False, client, detached
    )
    result._raw = ", ".join(["-1"] * width)  # print() shows it so, as PyFlink 2.3.0's ("-1, -1")
    return result


def _from_pandas_value(value: Any) -> Any:
    """A pandas/numpy cell as a plain Python value."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return value.item()
    if hasattr(value, "to_pydatetime"):
        return value.to_pydatetime()
    return value


class StreamTableEnvironment(TableEnvironment):
    """A TableEnvironment on a StreamExecutionEnvironment's settings (mixing both APIs); made
    from EnvironmentSettings alone, it runs each table job on a fresh environment, as a
    TableEnvironment does, and has no DataStream to convert from or to."""

    def __init__(self, stream_env: Any, settings: EnvironmentSettings) -> None:
        super().__init__(settings, getattr(stream_env, "_configuration", None))
        self._stream_env = stream_env  # None: created from EnvironmentSettings only

    @staticmethod
    def create(  # type: ignore[override]
        stream_execution_environment: Any = None, environment_settings: EnvironmentSettings | None = None
    ) -> StreamTableEnvironment:
        """A TableEnvironment over ``stream_execution_environment``, or, given only
        ``environment_settings``, one of its own (PyFlink: both arguments are optional, one is
        required).

        Raises:
            ValueError: neither argument is given.
        """
        if stream_execution_environment is None and environment_settings is None:
            raise ValueError(
                "No argument found, the param 'stream_execution_environment' or "
                "'environment_settings' is required."
            )
        settings = environment_settings or EnvironmentSettings.in_streaming_mode()
        return StreamTableEnvironment(stream_execution_environment, settings)

    def _environment(self) -> Any:
        if self._stream_env is None:
            return super()._environment()
        return self._stream_env  # tables read and feed this environment's DataStreams

    def _stream_environment(self, method: str) -> Any:
        """The StreamExecutionEnvironment a DataStream conversion runs on."""
        if self._stream_env is None:
            raise ValueError(
                f"{method} needs a StreamTableEnvironment created on a StreamExecutionEnvironment "
                "(StreamTableEnvironment.create(env)); this one was created from EnvironmentSettings only"
            )
        return self._stream_env

    def from_data_stream(self, data_stream: Any, *fields_or_schema: Any) -> Table:
        """A table of a DataStream's elements (Rows, tuples or values). A ``Schema`` picks and
        types physical columns by name, adds computed columns (SQL expressions) and declares
        the event-time attribute with its watermark; column expressions rename the columns
        (default: the stream's declared type, else ``f0``)."""
        schema = fields_or_schema[0] if fields_or_schema and isinstance(fields_or_schema[0], Schema) else None
        self._anonymous = getattr(self, "_anonymous", 0) + 1
        label = f"*anonymous_datastream_source${self._anonymous}*"
        self._stream_environment("from_data_stream")
        node = self._stream_source(data_stream, schema, () if schema is not None else fields_or_schema, label)
        table = Table(apply_schema(node, schema) if schema is not None else node, self)
        physical = schema.field_names() if schema is not None else []
        stream_physical = node.names[:-1] if node.record_timestamp else node.names
        if schema is not None and physical in ([], stream_physical):
            # the table is the source as declared (no projection over it): its print_schema shows
            # the declared computed and metadata columns and the watermark, as written
            table._declared = declared_columns(schema, as_written=True)
        return table

    def _stream_source(self, data_stream: Any, schema: Any, fields: tuple[Any, ...], label: str = "") -> Any:
        """The FromDataStream node of a DataStream: its declared type's columns (the schema's,
        for an untyped stream), and the records' timestamps when the schema declares the
        ``rowtime`` metadata column."""
        names, types = stream_columns(data_stream, fields)
        if schema is not None and schema.columns and not has_type_info(data_stream):
            names, types = schema.field_names(), schema.field_types()  # an untyped stream: the schema says
        timestamp = stream_timestamp_column(schema, label or "from_changelog_stream")
        if timestamp is not None:
            names, types = [*names, timestamp.name], [*types, timestamp.data_type]
        return FromDataStream(
            names, types, False, data_stream, label=label, record_timestamp=timestamp is not None
        )

    def from_changelog_stream(
        self, data_stream: Any, schema: Any = None, changelog_mode: Any = None
    ) -> Table:
        """A table of a DataStream of Rows whose RowKinds are changes (``changelog_mode``:
        ``ChangelogMode.all()`` by default; ``insert_only()``; ``upsert()`` with the schema's
        primary key: each row replaces its key's row, normalized into a full changelog)."""
        mode = changelog_mode or ChangelogMode.all()
        self._stream_environment("from_changelog_stream")
        source = self._stream_source(data_stream, schema, ())
        node: PlanNode = dataclasses.replace(source, updating=not mode.contains_only("+I"))
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

    def create_temporary_view(
        self, view_path: str, table_or_data_stream: Any, *fields_or_schema: Any
    ) -> None:
        """Name a table, or a DataStream as a table."""
        table = (
            table_or_data_stream
            if isinstance(table_or_data_stream, Table)
            else self.from_data_stream(table_or_data_stream, *fields_or_schema)
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
        return self._changelog(plan, "to_data_stream")

    def to_changelog_stream(self, table: Table, target_schema: Any = None, changelog_mode: Any = None) -> Any:
        """The table's changes as a DataStream of Rows with their RowKind (``changelog_mode``
        ``upsert()`` leaves out the -U rows; ``insert_only()`` refuses an updating table)."""
        stream = self._changelog(table._plan, "to_changelog_stream")
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
        changes = self._changelog(table._plan, "to_retract_stream")
        return changes.map(lambda row: (row.get_row_kind().value in (0, 2), row))

    def _changelog(self, plan: PlanNode, method: str) -> Any:
        names = list(plan.names)
        kinds = {
            "+I": RowKind.INSERT,
            "-U": RowKind.UPDATE_BEFORE,
            "+U": RowKind.UPDATE_AFTER,
            "-D": RowKind.DELETE,
        }

        instants = [i for i, t in enumerate(plan.types) if t.root == "TIMESTAMP_LTZ"]

        def to_row(change: tuple[str, tuple[Any, ...]]) -> Row:
            values = change[1]
            if instants:  # TIMESTAMP_LTZ values reach the DataStream API as Instants, as PyFlink's
                values = tuple(
                    to_instant(v) if i in instants and v is not None else v for i, v in enumerate(values)
                )
            row = Row(*values)
            row.set_field_names(names)
            row.set_row_kind(kinds[change[0]])
            return row

        type_info = Types.ROW_NAMED(names, [t.to_type_info() for t in plan.types])
        [plan], ctx = plan_job(self._stream_environment(method), self._planner_options(), [plan])
        return plan.translate(ctx).map(to_row, output_type=type_info)


def _not_null_enforced(changes: Any, plan: PlanNode, config: Any) -> Any:
    """The changes a query's result collects, its NOT NULL columns enforced as Flink's collect
    sink enforces a sink's (``SinkNotNullEnforcer``, ``table.exec.sink.not-null-enforcer``): a
    NULL there (a function giving NULL where its type says NOT NULL: REGEXP_REPLACE with an
    invalid pattern, a DECIMAL overflowing its CAST) fails the result, as PyFlink 2.3.0's
    "Column 'EXPR$0' is NOT NULL, however, a null value is being written into it", or is
    dropped. Checked as the rows arrive (an operator in the job would take the job's
    parallelism, reordering a sorted result)."""
    not_null = [i for i, t in enumerate(plan.types) if not t.is_nullable()]
    if not not_null:
        return changes
    drop = option_value(config, SINK_NOT_NULL_ENFORCER) == "DROP"
    return _Enforced(changes, NotNullEnforcer(plan.names, not_null, drop))


class _Enforced:
    """``changes`` (a CloseableIterator) with the rows ``enforcer`` keeps, failing where it
    fails; closing it closes them."""

    def __init__(self, changes: Any, enforcer: NotNullEnforcer) -> None:
        self._changes, self._enforcer = changes, enforcer

    def __iter__(self) -> _Enforced:
        return self

    def __next__(self) -> Any:
        while True:
            change = next(self._changes)
            if self._enforcer(change):
                return change

    def close(self) -> None:
        self._changes.close()

    def __enter__(self) -> _Enforced:
        return self

    def __exit__(self, *exc: object) -> None:
        self._changes.__exit__(*exc)


def _final_rows(changes: Any) -> Any:
    """The rows a bounded changelog leaves (``+I``/``+U`` add, ``-U``/``-D`` take back), in the
    order they were first added: what a batch query returns (Flink's batch results are final)."""
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
