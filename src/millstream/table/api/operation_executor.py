"""The operations of SQL statements executed on a TableEnvironment (Flink's
``TableEnvironmentImpl.executeInternal``): a query runs and returns its rows, an INSERT starts
its job, DDL changes the catalog or the functions, EXPLAIN prints the plan, SHOW lists and USE
checks what the catalog has. Each returns the ``TableResult`` Flink's does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from millstream.table.api.schema import Schema
from millstream.table.api.table_descriptor import TableDescriptor
from millstream.table.api.table_result import TableResult
from millstream.table.catalog.catalog_manager import CatalogView
from millstream.table.common.row_kind import INSERT
from millstream.table.common.types import DataTypes
from millstream.table.planner.explain import explain_plan
from millstream.table.sql.operations import (
    CreateFunctionOperation,
    CreateTableOperation,
    CreateViewOperation,
    DropFunctionOperation,
    DropOperation,
    ExplainOperation,
    InsertOperation,
    NoOperation,
    Operation,
    QueryOperation,
    ShowOperation,
    UseOperation,
)
from millstream.table.sql.parser import SqlError

if TYPE_CHECKING:
    from millstream.table.api.table_environment import TableEnvironment

__all__ = ["execute_operation"]


def execute_operation(t_env: TableEnvironment, operation: Operation) -> TableResult:
    """Run ``operation`` on ``t_env``; its result."""
    match operation:
        case QueryOperation(plan=plan):
            return t_env._execute(plan)
        case InsertOperation(plan=plan):
            return t_env._run_many([plan])
        case ExplainOperation(plan=plan, changelog_mode=changelog_mode):
            return TableResult.raw(explain_plan(plan, t_env._planner_options(), changelog_mode))
        case ShowOperation() | UseOperation():
            return _catalog_statement(t_env, operation)
        case NoOperation():
            return TableResult.ok()
        case _:
            _ddl(t_env, operation)
            return TableResult.ok()


def _ddl(t_env: TableEnvironment, operation: Operation) -> None:
    match operation:
        case CreateTableOperation():
            builder = Schema.new_builder()
            for method, arguments in operation.schema:
                getattr(builder, method)(*arguments)
            descriptor = TableDescriptor.for_connector(operation.connector).schema(builder.build())
            for key, value in operation.options.items():
                descriptor.option(key, value)
            table = descriptor.partitioned_by(*operation.partition_keys).build()
            create = t_env.create_temporary_table if operation.temporary else t_env.create_table
            create(operation.name, table, operation.ignore_if_exists)
        case CreateViewOperation(name=name, plan=plan):
            t_env._catalog.create_view(name, CatalogView(plan))
        case DropOperation(kind=kind, names=names, if_exists=if_exists):
            for name in names:
                dropped = (
                    t_env.drop_temporary_view(name) if kind == "view" else t_env.drop_temporary_table(name)
                )
                if not dropped and not if_exists:
                    identifier = f"default_catalog.default_database.{name}"
                    raise SqlError(f"{kind.capitalize()} with identifier '{identifier}' does not exist.")
        case CreateFunctionOperation(name=name, function=function):
            t_env.create_temporary_function(name, function)
        case DropFunctionOperation(name=name, if_exists=if_exists):
            if not t_env.drop_temporary_function(name) and not if_exists:
                raise SqlError(f"Function '{name}' does not exist (DROP FUNCTION IF EXISTS ignores it)")
        case _:
            raise AssertionError(f"not an operation: {operation!r}")


def _catalog_statement(t_env: TableEnvironment, operation: ShowOperation | UseOperation) -> TableResult:
    """``SHOW ...`` (a column of names, as Flink prints it) or ``USE [CATALOG] name``."""
    if isinstance(operation, UseOperation):
        if operation.catalog is not None:
            t_env.use_catalog(operation.catalog)
        if operation.database is not None:
            t_env.use_database(operation.database)
        return TableResult.ok()
    column, values = {
        "CATALOGS": ("catalog name", t_env.list_catalogs),
        "DATABASES": ("database name", t_env.list_databases),
        "TABLES": ("table name", t_env.list_tables),
        "VIEWS": ("view name", t_env.list_views),
        "CURRENT CATALOG": ("current catalog name", lambda: [t_env.get_current_catalog()]),
        "CURRENT DATABASE": ("current database name", lambda: [t_env.get_current_database()]),
    }[operation.what]
    result = TableResult([column], [DataTypes.STRING()], iter([(INSERT, (v,)) for v in values()]), False)
    result._content_widths = True
    return result
