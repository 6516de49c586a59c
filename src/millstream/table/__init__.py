"""The Table API, with ``pyflink.table``'s names: ``TableEnvironment``, ``Table``,
``DataTypes``, ``EnvironmentSettings`` (the expression DSL is ``millstream.table.expressions``).

The modules beside this one (``table_environment``, ``types``, ``udf``, ``window`` ...) are
PyFlink's module paths and only re-export names. The code lives in one package per layer, as
Flink's modules; each imports only the packages below it:

- ``api``: TableEnvironment, Table, results, descriptors, expressions (flink-table-api-java);
- ``sql``: the SQL front end, statements to operations and queries to plans (flink-sql-parser
  and SqlToOperationConverter);
- ``catalog``: the tables and views by name (Flink's CatalogManager);
- ``planner``: logical plan, rewrite rules, exec nodes, explain (flink-table-planner);
- ``connectors``: the built-in table connectors (filesystem, datagen, print, blackhole);
- ``runtime``: the operators, on rows and Arrow batches (flink-table-runtime);
- ``functions``: built-in function definitions, aggregates, user-defined functions;
- ``expression``: expression trees and their resolution (Flink's table expressions);
- ``common``: types, values, options, printing and the connector/format factory SPI
  (flink-table-common), all that ``millstream.connectors`` imports of ``millstream.table``.
"""

from typing import TYPE_CHECKING

from millstream._lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "millstream.table.common.types": ("DataType", "DataTypes", "RowType"),
        "millstream.common.types": ("Row", "RowKind"),
        "millstream.table.common.changelog_mode": ("ChangelogMode",),
        "millstream.table.functions.data_view": ("DataView", "ListView", "MapView"),
        "millstream.table.api.expressions": ("Expression",),
        "millstream.table.api.sql_dialect": ("SqlDialect",),
        "millstream.table.api.table": (
            "ExplainDetail",
            "GroupWindowedTable",
            "GroupedTable",
            "OverWindowedTable",
            "Table",
            "TableSchema",
            "WindowGroupedTable",
        ),
        "millstream.table.api.environment_settings": ("EnvironmentSettings",),
        "millstream.table.api.statement_set": ("StatementSet",),
        "millstream.table.api.table_config": ("TableConfig",),
        "millstream.table.api.table_environment": ("StreamTableEnvironment", "TableEnvironment"),
        "millstream.table.api.table_result": ("ResultKind", "TableResult"),
        "millstream.table.api.schema": ("Schema",),
        "millstream.table.api.table_descriptor": ("FormatDescriptor", "TableDescriptor"),
        "millstream.table.functions.udf": (
            "AggregateFunction",
            "AsyncScalarFunction",
            "FunctionContext",
            "ScalarFunction",
            "TableAggregateFunction",
            "TableFunction",
        ),
    },
)

if TYPE_CHECKING:  # the names as type checkers and editors see them (``X as X``: a re-export)
    from millstream.common.types import Row as Row
    from millstream.common.types import RowKind as RowKind
    from millstream.table.api.environment_settings import EnvironmentSettings as EnvironmentSettings
    from millstream.table.api.schema import Schema as Schema
    from millstream.table.api.sql_dialect import SqlDialect as SqlDialect
    from millstream.table.api.statement_set import StatementSet as StatementSet
    from millstream.table.api.table import ExplainDetail as ExplainDetail
    from millstream.table.api.table import GroupedTable as GroupedTable
    from millstream.table.api.table import GroupWindowedTable as GroupWindowedTable
    from millstream.table.api.table import OverWindowedTable as OverWindowedTable
    from millstream.table.api.table import Table as Table
    from millstream.table.api.table import TableSchema as TableSchema
    from millstream.table.api.table import WindowGroupedTable as WindowGroupedTable
    from millstream.table.api.table_config import TableConfig as TableConfig
    from millstream.table.api.table_descriptor import FormatDescriptor as FormatDescriptor
    from millstream.table.api.table_descriptor import TableDescriptor as TableDescriptor
    from millstream.table.api.table_environment import StreamTableEnvironment as StreamTableEnvironment
    from millstream.table.api.table_environment import TableEnvironment as TableEnvironment
    from millstream.table.api.table_result import ResultKind as ResultKind
    from millstream.table.api.table_result import TableResult as TableResult
    from millstream.table.common.changelog_mode import ChangelogMode as ChangelogMode
    from millstream.table.common.types import DataType as DataType
    from millstream.table.common.types import DataTypes as DataTypes
    from millstream.table.common.types import RowType as RowType
    from millstream.table.expression.expression import Expression as Expression
    from millstream.table.functions.data_view import DataView as DataView
    from millstream.table.functions.data_view import ListView as ListView
    from millstream.table.functions.data_view import MapView as MapView
    from millstream.table.functions.udf import AggregateFunction as AggregateFunction
    from millstream.table.functions.udf import AsyncScalarFunction as AsyncScalarFunction
    from millstream.table.functions.udf import FunctionContext as FunctionContext
    from millstream.table.functions.udf import ScalarFunction as ScalarFunction
    from millstream.table.functions.udf import TableAggregateFunction as TableAggregateFunction
    from millstream.table.functions.udf import TableFunction as TableFunction
