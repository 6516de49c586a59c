"""The operations of the statements about the catalog itself (Flink's catalog, database,
module, SHOW and DESCRIBE operations): ``CREATE | ALTER | DROP CATALOG``, ``... DATABASE``,
``USE``, ``LOAD | UNLOAD MODULE``, ``USE MODULES``, ``SHOW ...`` and ``DESCRIBE ...``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "AlterCatalogOperation",
    "AlterDatabaseOperation",
    "CatalogOperation",
    "CreateCatalogOperation",
    "CreateDatabaseOperation",
    "DescribeCatalogOperation",
    "DescribeFunctionOperation",
    "DescribeTableOperation",
    "DropCatalogOperation",
    "DropDatabaseOperation",
    "ModuleOperation",
    "ShowCreateOperation",
    "ShowOperation",
    "UseOperation",
]


@dataclass(frozen=True)
class CreateCatalogOperation:
    """``CREATE CATALOG [IF NOT EXISTS] name [COMMENT '...'] WITH ('type' = ..., ...)``."""

    name: str
    options: dict[str, str]
    comment: str | None
    ignore_if_exists: bool


@dataclass(frozen=True)
class AlterCatalogOperation:
    """``ALTER CATALOG name SET (...) | RESET (...) | COMMENT '...'``: options set, keys
    reset, the new comment (None: unchanged)."""

    name: str
    set_options: dict[str, str] = field(default_factory=dict)
    reset_keys: list[str] = field(default_factory=list)
    comment: str | None = None


@dataclass(frozen=True)
class DropCatalogOperation:
    """``DROP CATALOG [IF EXISTS] name``."""

    name: str
    if_exists: bool


@dataclass(frozen=True)
class CreateDatabaseOperation:
    """``CREATE DATABASE [IF NOT EXISTS] [catalog.]name [COMMENT '...'] [WITH (...)]``."""

    catalog: str | None
    name: str
    properties: dict[str, str]
    comment: str | None
    ignore_if_exists: bool


@dataclass(frozen=True)
class AlterDatabaseOperation:
    """``ALTER DATABASE [catalog.]name SET (...)``."""

    catalog: str | None
    name: str
    properties: dict[str, str]


@dataclass(frozen=True)
class DropDatabaseOperation:
    """``DROP DATABASE [IF EXISTS] [catalog.]name [RESTRICT | CASCADE]``."""

    catalog: str | None
    name: str
    if_exists: bool
    cascade: bool


@dataclass(frozen=True)
class UseOperation:
    """``USE CATALOG name`` (``database`` None) or ``USE [catalog.]database`` (``catalog``
    None: the current one)."""

    catalog: str | None
    database: str | None = None


@dataclass(frozen=True)
class ModuleOperation:
    """``LOAD MODULE name [WITH (...)]`` (``action`` ``load``), ``UNLOAD MODULE name``
    (``unload``), ``USE MODULES name, ...`` (``use``)."""

    action: str
    names: list[str]


@dataclass(frozen=True)
class ShowOperation:
    """``SHOW <what> [FROM | IN scope] [[NOT] LIKE 'pattern']``: ``what`` the listed objects'
    words, upper case, single-spaced (``CATALOGS``, ``CURRENT DATABASE``, ``USER FUNCTIONS``,
    ``COLUMNS`` ...); ``scope`` the catalog, database or table named after FROM or IN (its
    parts as written)."""

    what: str
    scope: list[str] | None = None
    like: str | None = None
    not_like: bool = False


@dataclass(frozen=True)
class ShowCreateOperation:
    """``SHOW CREATE TABLE | VIEW | CATALOG name``; ``kind``: ``TABLE``, ``VIEW`` or ``CATALOG``."""

    kind: str
    path: list[str]


@dataclass(frozen=True)
class DescribeTableOperation:
    """``DESCRIBE | DESC [EXTENDED] table``: its columns."""

    path: list[str]


@dataclass(frozen=True)
class DescribeCatalogOperation:
    """``DESCRIBE | DESC CATALOG [EXTENDED] name``."""

    name: str
    extended: bool


@dataclass(frozen=True)
class DescribeFunctionOperation:
    """``DESCRIBE | DESC FUNCTION [EXTENDED] name``."""

    path: list[str]
    extended: bool


CatalogOperation = (
    CreateCatalogOperation
    | AlterCatalogOperation
    | DropCatalogOperation
    | CreateDatabaseOperation
    | AlterDatabaseOperation
    | DropDatabaseOperation
    | UseOperation
    | ModuleOperation
    | ShowOperation
    | ShowCreateOperation
    | DescribeTableOperation
    | DescribeCatalogOperation
    | DescribeFunctionOperation
)
