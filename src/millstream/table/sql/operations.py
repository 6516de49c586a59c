"""What a SQL statement asks for (Flink's ``Operation``\\ s, made by ``SqlToOperationConverter``):
the SQL front end turns each statement into one of these, and the TableEnvironment executes it.
A query's and an INSERT's plans are built already; DDL carries what it declares, its names
qualified by the current catalog and database. The catalog statements' operations (catalogs,
databases, modules, SHOW, DESCRIBE) are in ``sql/catalog_operations.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from millstream.table.catalog.catalog import CatalogFunction
from millstream.table.catalog.object_identifier import ObjectIdentifier
from millstream.table.planner.nodes import PlanNode
from millstream.table.sql.catalog_operations import CatalogOperation

__all__ = [
    "AlterFunctionOperation",
    "AlterTableOperation",
    "AlterViewOperation",
    "CreateFunctionOperation",
    "CreateTableAsOperation",
    "CreateTableOperation",
    "CreateViewOperation",
    "DropFunctionOperation",
    "DropOperation",
    "ExplainOperation",
    "InsertOperation",
    "NoOperation",
    "Operation",
    "QueryOperation",
    "RenameOperation",
    "StatementSetOperation",
    "TableDeclaration",
]


@dataclass(frozen=True)
class QueryOperation:
    """A query: the plan of its rows."""

    plan: PlanNode


@dataclass(frozen=True)
class InsertOperation:
    """``INSERT INTO sink SELECT ...``: the sink plan, the query's columns cast to the sink's."""

    plan: PlanNode


@dataclass(frozen=True)
class StatementSetOperation:
    """``EXECUTE STATEMENT SET BEGIN INSERT ...; INSERT ...; END``: the sink plans, run as one job."""

    plans: list[PlanNode]


@dataclass(frozen=True)
class TableDeclaration:
    """A connector table as DDL declares it: its connector, the schema's declarations in order
    (each a ``Schema.Builder`` method name and its arguments: ``("column", ("id", INT))``,
    ``("watermark", ("ts", "ts - INTERVAL ..."))``), its options, partition keys, comment and
    the comments of its columns."""

    connector: str
    schema: list[tuple[str, tuple[Any, ...]]]
    options: dict[str, str]
    partition_keys: list[str]
    comment: str | None = None
    column_comments: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CreateTableOperation:
    """``CREATE [TEMPORARY] TABLE [IF NOT EXISTS] name (columns) [COMMENT] [PARTITIONED BY] WITH
    (options) [LIKE source (options)]``: the table, merged with the one it is like."""

    identifier: ObjectIdentifier
    table: TableDeclaration
    temporary: bool
    ignore_if_exists: bool


@dataclass(frozen=True)
class CreateTableAsOperation:
    """``CREATE [OR REPLACE] TABLE name WITH (...) AS query`` (``REPLACE TABLE ...``): the table
    (its columns the query's) and the query written into it; ``replace``: an existing table of
    that name is replaced."""

    create: CreateTableOperation
    query: PlanNode
    replace: bool = False


@dataclass(frozen=True)
class AlterTableOperation:
    """``ALTER TABLE [IF EXISTS] name SET | RESET | ADD | MODIFY | DROP | RENAME column ...``:
    the table as it is after the change (None: ``IF EXISTS`` and no such table)."""

    identifier: ObjectIdentifier
    table: TableDeclaration | None


@dataclass(frozen=True)
class RenameOperation:
    """``ALTER TABLE | VIEW [IF EXISTS] name RENAME TO new_name``."""

    identifier: ObjectIdentifier
    new_name: str
    view: bool
    if_exists: bool = False


@dataclass(frozen=True)
class CreateViewOperation:
    """``CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name [(columns)] [COMMENT] AS query``: the
    view's plan (columns renamed as listed) and its query as written."""

    identifier: ObjectIdentifier
    plan: PlanNode
    temporary: bool = True
    ignore_if_exists: bool = False
    query: str | None = None
    comment: str | None = None


@dataclass(frozen=True)
class AlterViewOperation:
    """``ALTER VIEW name AS query``: the view's new plan and query."""

    identifier: ObjectIdentifier
    plan: PlanNode
    query: str


@dataclass(frozen=True)
class DropOperation:
    """``DROP [TEMPORARY] VIEW|TABLE [IF EXISTS] name``; ``kind``: ``view`` or ``table``."""

    kind: str
    identifiers: list[ObjectIdentifier]
    if_exists: bool
    temporary: bool = False


@dataclass(frozen=True)
class CreateFunctionOperation:
    """``CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS] name AS 'module.udf' LANGUAGE
    PYTHON``; ``kind``: ``system`` (temporary system), ``temporary`` or ``catalog``."""

    path: list[str]
    definition: CatalogFunction
    kind: str
    ignore_if_exists: bool


@dataclass(frozen=True)
class AlterFunctionOperation:
    """``ALTER FUNCTION [IF EXISTS] name AS 'module.udf' LANGUAGE PYTHON`` (catalog functions)."""

    path: list[str]
    definition: CatalogFunction
    if_exists: bool


@dataclass(frozen=True)
class DropFunctionOperation:
    """``DROP [TEMPORARY [SYSTEM]] FUNCTION [IF EXISTS] name``; ``kind`` as CREATE FUNCTION's."""

    path: list[str]
    kind: str
    if_exists: bool


@dataclass(frozen=True)
class ExplainOperation:
    """``EXPLAIN [PLAN FOR] [CHANGELOG_MODE] <SELECT or INSERT>``: the plan to explain."""

    plan: PlanNode
    changelog_mode: bool


@dataclass(frozen=True)
class NoOperation:
    """A statement that changes nothing (``CREATE ... IF NOT EXISTS`` of an existing object)."""


Operation = (
    QueryOperation
    | InsertOperation
    | StatementSetOperation
    | CreateTableOperation
    | CreateTableAsOperation
    | AlterTableOperation
    | RenameOperation
    | CreateViewOperation
    | AlterViewOperation
    | DropOperation
    | CreateFunctionOperation
    | AlterFunctionOperation
    | DropFunctionOperation
    | ExplainOperation
    | CatalogOperation
    | NoOperation
)
