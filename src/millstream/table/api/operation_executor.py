"""The operations of SQL statements executed on a TableEnvironment (Flink's
``TableEnvironmentImpl.executeInternal``): a query runs and returns its rows, an INSERT (or a
statement set of them) starts its job, DDL changes the catalog or the functions, EXPLAIN prints
the plan; the catalog statements (SHOW, DESCRIBE, USE, catalogs, databases, modules) are
``api/catalog_statements.py``'s. Each returns the ``TableResult`` Flink's does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from millstream.table.api.catalog_statements import execute_catalog_operation
from millstream.table.api.schema import Schema
from millstream.table.api.schema_planning import table_context
from millstream.table.api.table_descriptor import TableDescriptor
from millstream.table.api.table_result import TableResult
from millstream.table.catalog.catalog import CatalogException, CatalogTable, CatalogView
from millstream.table.catalog.function_catalog import load_python_function
from millstream.table.catalog.object_identifier import ObjectIdentifier
from millstream.table.planner.explain import explain_plan
from millstream.table.sql.catalog_tables import resolved_columns, sink_plan
from millstream.table.sql.operations import (
    AlterFunctionOperation,
    AlterTableOperation,
    AlterViewOperation,
    CreateFunctionOperation,
    CreateTableAsOperation,
    CreateTableOperation,
    CreateViewOperation,
    DropFunctionOperation,
    DropOperation,
    ExplainOperation,
    InsertOperation,
    NoOperation,
    Operation,
    QueryOperation,
    RenameOperation,
    StatementSetOperation,
    TableDeclaration,
)
from millstream.table.sql.parser import SqlError

if TYPE_CHECKING:
    from millstream.table.api.table_environment import TableEnvironment

__all__ = ["catalog_table", "execute_operation"]


def execute_operation(t_env: TableEnvironment, operation: Operation) -> TableResult:
    """Run ``operation`` on ``t_env``; its result.

    Raises:
        SqlError: the statement cannot be done (a catalog's error: its message).
    """
    try:
        return _execute(t_env, operation)
    except CatalogException as err:
        raise SqlError(str(err)) from err


def _execute(t_env: TableEnvironment, operation: Operation) -> TableResult:
    match operation:
        case QueryOperation(plan=plan):
            return t_env._execute(plan)
        case InsertOperation(plan=plan):
            return t_env._run_many([plan])
        case StatementSetOperation(plans=plans):
            return t_env._run_many(plans)
        case CreateTableAsOperation():
            return _create_table_as(t_env, operation)
        case ExplainOperation(plan=plan, changelog_mode=changelog_mode):
            return TableResult.raw(explain_plan(plan, t_env._planner_options(), changelog_mode))
        case NoOperation():
            return TableResult.ok()
        case (
            CreateTableOperation()
            | AlterTableOperation()
            | RenameOperation()
            | CreateViewOperation()
            | AlterViewOperation()
            | DropOperation()
        ):
            _table_ddl(t_env, operation)
            return TableResult.ok()
        case CreateFunctionOperation() | AlterFunctionOperation() | DropFunctionOperation():
            _function_ddl(t_env, operation)
            return TableResult.ok()
        case _:
            return execute_catalog_operation(t_env, operation)


def catalog_table(name: str, declaration: TableDeclaration) -> CatalogTable:
    """The catalog table a DDL declaration describes (its schema built as the Table API's)."""
    builder = Schema.new_builder()
    for method, arguments in declaration.schema:
        getattr(builder, method)(*arguments)
    descriptor_builder = TableDescriptor.for_connector(declaration.connector).schema(builder.build())
    for key, value in declaration.options.items():
        descriptor_builder.option(key, value)
    if declaration.comment is not None:
        descriptor_builder.comment(declaration.comment)
    descriptor = descriptor_builder.partitioned_by(*declaration.partition_keys).build()
    table = CatalogTable(
        declaration.connector, descriptor, table_context(name, descriptor), dict(declaration.column_comments)
    )
    resolved_columns(table.context.schema)  # the schema resolves, as Flink checks it on CREATE and ALTER
    return table


def _table_ddl(t_env: TableEnvironment, operation: Operation) -> None:
    catalog = t_env._catalog
    match operation:
        case CreateTableOperation(identifier=identifier, table=declaration):
            table = catalog_table(identifier.object_name, declaration)
            if operation.temporary:
                catalog.create_temporary_table(identifier, table, operation.ignore_if_exists)
            else:
                catalog.create_table(identifier, table, operation.ignore_if_exists)
        case AlterTableOperation(identifier=identifier, table=declaration):
            if declaration is not None:
                catalog.alter_permanent(identifier, _altered_table(identifier, declaration))
        case RenameOperation():
            _rename(t_env, operation)
        case CreateViewOperation(identifier=identifier, plan=plan):
            view = CatalogView(plan, query=operation.query, comment=operation.comment)
            if operation.temporary:
                catalog.create_temporary_table(identifier, view, operation.ignore_if_exists)
            else:
                catalog.create_permanent_view(identifier, view, operation.ignore_if_exists)
        case AlterViewOperation(identifier=identifier, plan=plan, query=query):
            found = _permanent_view(t_env, identifier)
            catalog.alter_permanent(identifier, CatalogView(plan, query=query, comment=found.comment))
        case DropOperation(kind=kind, identifiers=identifiers, if_exists=if_exists):
            drop = catalog.drop_temporary if operation.temporary else catalog.drop_permanent
            for identifier in identifiers:
                drop(identifier, kind == "view", if_exists)
        case _:
            raise AssertionError(f"not a table operation: {operation!r}")


def _altered_table(identifier: ObjectIdentifier, declaration: TableDeclaration) -> CatalogTable:
    """The table an ALTER TABLE leaves.

    Raises:
        SqlError: its schema does not resolve (Flink's message after its "Failed to execute
            ALTER TABLE statement.").
    """
    try:
        return catalog_table(identifier.object_name, declaration)
    except ValueError as err:
        raise SqlError(f"Failed to execute ALTER TABLE statement. {err}") from err


def _permanent_view(t_env: TableEnvironment, identifier: ObjectIdentifier) -> CatalogView:
    """The permanent view ``identifier`` names.

    Raises:
        CatalogException: none (a table, a temporary view or nothing), with Flink's message.
    """
    found = None if t_env._catalog.is_temporary(identifier) else t_env._catalog.get(identifier)
    if isinstance(found, CatalogTable):
        raise CatalogException("ALTER VIEW for a table is not allowed")
    if found is None:
        raise CatalogException(f"View {identifier} doesn't exist or is a temporary view.")
    return found


def _rename(t_env: TableEnvironment, operation: RenameOperation) -> None:
    """``ALTER TABLE | VIEW name RENAME TO new_name``, as Flink's checks."""
    catalog, identifier = t_env._catalog, operation.identifier
    if operation.view:
        _permanent_view(t_env, identifier)
    else:
        found = None if catalog.is_temporary(identifier) else catalog.get(identifier)
        if isinstance(found, CatalogView):
            raise CatalogException("ALTER TABLE for a view is not allowed")
        if found is None:
            if operation.if_exists:
                return
            raise CatalogException(f"Table {identifier} doesn't exist or is a temporary table.")
    try:
        catalog.rename_permanent(identifier, operation.new_name)
    except CatalogException as err:
        target = ObjectIdentifier(identifier.catalog_name, identifier.database_name, operation.new_name)
        raise CatalogException(
            f"Could not execute ALTER {'VIEW' if operation.view else 'TABLE'} "
            f"{identifier.as_summary_string()} "
            f"RENAME TO {target.as_summary_string()}: {err}"
        ) from err


def _create_table_as(t_env: TableEnvironment, operation: CreateTableAsOperation) -> TableResult:
    """CTAS (RTAS): the table created (replaced), then the query written into it, one job; with
    IF NOT EXISTS and a table of that name, the query written into that table, as Flink's."""
    create = operation.create
    identifier = create.identifier
    if operation.replace and t_env._catalog.get_table(identifier) is not None:
        t_env._catalog.drop_permanent(identifier, view=False, ignore_if_not_exists=True)
    if not (create.ignore_if_exists and t_env._catalog.get(identifier) is not None):
        _table_ddl(t_env, create)  # IF NOT EXISTS and an existing table: the query goes into it
    return t_env._run_many([sink_plan(t_env._catalog, operation.query, identifier)])


def _function_ddl(t_env: TableEnvironment, operation: Operation) -> None:
    functions = t_env._functions
    match operation:
        case CreateFunctionOperation(path=path, definition=definition, kind=kind):
            function = load_python_function(definition.class_name)
            exists = operation.ignore_if_exists
            if kind == "system":
                functions.create_temporary_system_function(path[0], function, definition, exists)
            elif kind == "temporary":
                functions.create_temporary_function(path, function, definition, exists)
            else:
                functions.create_catalog_function(path, definition, function, exists)
        case AlterFunctionOperation(path=path, definition=definition, if_exists=if_exists):
            function = load_python_function(definition.class_name)
            functions.alter_catalog_function(path, definition, function, if_exists)
        case DropFunctionOperation(path=path, kind=kind, if_exists=if_exists):
            if kind == "system":
                if not functions.drop_temporary_system_function(path[0]) and not if_exists:
                    raise CatalogException(
                        "Could not drop temporary system function. A function named "
                        f"'{path[0]}' doesn't exist."
                    )
            elif kind == "temporary":
                if not functions.drop_temporary_function(path) and not if_exists:
                    identifier = functions.temporary_function_identifier(path)
                    raise CatalogException(f"Temporary catalog function {identifier} doesn't exist")
            else:
                functions.drop_catalog_function(path, if_exists)
        case _:
            raise AssertionError(f"not a function operation: {operation!r}")
