"""The Table API, with ``pyflink.table``'s names: ``TableEnvironment``, ``Table``,
``DataTypes``, ``EnvironmentSettings`` (the expression DSL is ``millstream.table.expressions``)."""

from typing import TYPE_CHECKING

from millstream._lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "millstream.table.types": ("DataType", "DataTypes", "RowType"),
        "millstream.common.types": ("Row", "RowKind"),
        "millstream.table.changelog_mode": ("ChangelogMode",),
        "millstream.table.data_view": ("DataView", "ListView", "MapView"),
        "millstream.table.expressions": ("Expression",),
        "millstream.table.sql_dialect": ("SqlDialect",),
        "millstream.table.table": (
            "ExplainDetail",
            "GroupWindowedTable",
            "GroupedTable",
            "OverWindowedTable",
            "Table",
            "TableSchema",
            "WindowGroupedTable",
        ),
        "millstream.table.environment_settings": ("EnvironmentSettings",),
        "millstream.table.statement_set": ("StatementSet",),
        "millstream.table.table_config": ("TableConfig",),
        "millstream.table.table_environment": ("StreamTableEnvironment", "TableEnvironment"),
        "millstream.table.table_result": ("ResultKind", "TableResult"),
        "millstream.table.schema": ("Schema",),
        "millstream.table.table_descriptor": ("FormatDescriptor", "TableDescriptor"),
        "millstream.table.udf": (
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
    from millstream.table.changelog_mode import ChangelogMode as ChangelogMode
    from millstream.table.data_view import DataView as DataView
    from millstream.table.data_view import ListView as ListView
    from millstream.table.data_view import MapView as MapView
    from millstream.table.environment_settings import EnvironmentSettings as EnvironmentSettings
    from millstream.table.expression import Expression as Expression
    from millstream.table.schema import Schema as Schema
    from millstream.table.sql_dialect import SqlDialect as SqlDialect
    from millstream.table.statement_set import StatementSet as StatementSet
    from millstream.table.table import ExplainDetail as ExplainDetail
    from millstream.table.table import GroupedTable as GroupedTable
    from millstream.table.table import GroupWindowedTable as GroupWindowedTable
    from millstream.table.table import OverWindowedTable as OverWindowedTable
    from millstream.table.table import Table as Table
    from millstream.table.table import TableSchema as TableSchema
    from millstream.table.table import WindowGroupedTable as WindowGroupedTable
    from millstream.table.table_config import TableConfig as TableConfig
    from millstream.table.table_descriptor import FormatDescriptor as FormatDescriptor
    from millstream.table.table_descriptor import TableDescriptor as TableDescriptor
    from millstream.table.table_environment import StreamTableEnvironment as StreamTableEnvironment
    from millstream.table.table_environment import TableEnvironment as TableEnvironment
    from millstream.table.table_result import ResultKind as ResultKind
    from millstream.table.table_result import TableResult as TableResult
    from millstream.table.types import DataType as DataType
    from millstream.table.types import DataTypes as DataTypes
    from millstream.table.types import RowType as RowType
    from millstream.table.udf import AggregateFunction as AggregateFunction
    from millstream.table.udf import AsyncScalarFunction as AsyncScalarFunction
    from millstream.table.udf import FunctionContext as FunctionContext
    from millstream.table.udf import ScalarFunction as ScalarFunction
    from millstream.table.udf import TableAggregateFunction as TableAggregateFunction
    from millstream.table.udf import TableFunction as TableFunction
