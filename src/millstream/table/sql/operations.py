"""What a SQL statement asks for (Flink's ``Operation``\\ s, made by ``SqlToOperationConverter``):
the SQL front end turns each statement into one of these, and the TableEnvironment executes it.
A query's and an INSERT's plans are built already; DDL carries what it declares.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from millstream.table.planner.nodes import PlanNode

__all__ = [
    "CreateFunctionOperation",
    "CreateTableOperation",
    "CreateViewOperation",
    "DropFunctionOperation",
    "DropOperation",
    "ExplainOperation",
    "InsertOperation",
    "NoOperation",
    "Operation",
    "QueryOperation",
    "ShowOperation",
    "UseOperation",
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
class CreateTableOperation:
    """``CREATE [TEMPORARY] TABLE [IF NOT EXISTS] name (columns) [PARTITIONED BY] WITH (options)``.

    ``schema``: the schema's declarations in order, each a ``Schema.Builder`` method name and
    its arguments (``("column", ("id", INT))``, ``("watermark", ("ts", "ts - INTERVAL ..."))``).
    """

    name: str
    connector: str
    schema: list[tuple[str, tuple[Any, ...]]]
    options: dict[str, str]
    partition_keys: list[str]
    temporary: bool
    ignore_if_exists: bool


@dataclass(frozen=True)
class CreateViewOperation:
    """``CREATE [TEMPORARY] VIEW name AS query``: the view's plan (columns renamed as listed)."""

    name: str
    plan: PlanNode


@dataclass(frozen=True)
class DropOperation:
    """``DROP [TEMPORARY] VIEW|TABLE [IF EXISTS] name [, ...]``; ``kind``: ``view`` or ``table``."""

    kind: str
    names: list[str]
    if_exists: bool


@dataclass(frozen=True)
class CreateFunctionOperation:
    """``CREATE [TEMPORARY [SYSTEM]] FUNCTION name AS 'module.udf' LANGUAGE PYTHON``: the
    function object imported."""

    name: str
    function: Any


@dataclass(frozen=True)
class DropFunctionOperation:
    """``DROP [TEMPORARY [SYSTEM]] FUNCTION [IF EXISTS] name``."""

    name: str
    if_exists: bool


@dataclass(frozen=True)
class ExplainOperation:
    """``EXPLAIN [PLAN FOR] [CHANGELOG_MODE, ...] <SELECT or INSERT>``: the plan to explain."""

    plan: PlanNode
    changelog_mode: bool


@dataclass(frozen=True)
class ShowOperation:
    """``SHOW CATALOGS | DATABASES | TABLES | VIEWS | CURRENT CATALOG | CURRENT DATABASE``;
    ``what``: those words, upper case, single-spaced."""

    what: str


@dataclass(frozen=True)
class UseOperation:
    """``USE [CATALOG] name``: ``catalog`` the catalog's name (None: unchanged), ``database``
    the database's (None: a ``USE CATALOG``)."""

    catalog: str | None
    database: str | None = None


@dataclass(frozen=True)
class NoOperation:
    """A statement that changes nothing (``CREATE ... IF NOT EXISTS`` of an existing object)."""


Operation = (
    QueryOperation
    | InsertOperation
    | CreateTableOperation
    | CreateViewOperation
    | DropOperation
    | CreateFunctionOperation
    | DropFunctionOperation
    | ExplainOperation
    | ShowOperation
    | UseOperation
    | NoOperation
)
