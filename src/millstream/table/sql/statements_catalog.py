"""The statements about the catalog itself, as Flink's parser reads them, to their operations
(``sql/catalog_operations.py``):

* ``CREATE CATALOG [IF NOT EXISTS] c [COMMENT '...'] WITH (...)``, ``ALTER CATALOG c SET (...) |
  RESET (...) | COMMENT '...'``, ``DROP CATALOG [IF EXISTS] c``;
* ``CREATE DATABASE [IF NOT EXISTS] [c.]db [COMMENT '...'] [WITH (...)]``, ``ALTER DATABASE
  [c.]db SET (...)``, ``DROP DATABASE [IF EXISTS] [c.]db [RESTRICT | CASCADE]``;
* ``USE CATALOG c``, ``USE [c.]db``, ``USE MODULES m, ...``, ``LOAD MODULE m [WITH (...)]``,
  ``UNLOAD MODULE m``;
* ``SHOW CATALOGS | CURRENT CATALOG | DATABASES | CURRENT DATABASE | TABLES | VIEWS | [USER]
  FUNCTIONS | COLUMNS | [FULL] MODULES | JARS | PARTITIONS | MODELS | MATERIALIZED TABLES``
  with Flink's ``FROM | IN`` and ``[NOT] LIKE`` where it takes them, ``SHOW CREATE TABLE | VIEW
  | CATALOG``;
* ``DESCRIBE | DESC [EXTENDED] table``, ``DESCRIBE CATALOG [EXTENDED] c``, ``DESCRIBE FUNCTION
  [EXTENDED] f``.

Each reads the whole statement or fails at the first token that does not fit, as Flink's
parser does (``SQL parse failed. Encountered ...``).
"""

from __future__ import annotations

from millstream.table.sql.catalog_operations import (
    AlterCatalogOperation,
    AlterDatabaseOperation,
    CatalogOperation,
    CreateCatalogOperation,
    CreateDatabaseOperation,
    DescribeCatalogOperation,
    DescribeFunctionOperation,
    DescribeTableOperation,
    DropCatalogOperation,
    DropDatabaseOperation,
    ModuleOperation,
    ShowCreateOperation,
    ShowOperation,
    UseOperation,
)
from millstream.table.sql.parser import SqlError
from millstream.table.sql.statement_tokens import StatementTokens

__all__ = [
    "catalog_ddl",
    "database_ddl",
    "describe_statement",
    "module_statement",
    "show_statement",
    "use_statement",
]


def catalog_ddl(tokens: StatementTokens, verb: str) -> CatalogOperation:
    """``CREATE | ALTER | DROP CATALOG ...`` (``verb``: the first word, read; CATALOG next)."""
    tokens.expect("CATALOG")
    if verb == "CREATE":
        exists = tokens.accept("IF", "NOT", "EXISTS")
        name = tokens.name()
        comment = tokens.string() if tokens.accept("COMMENT") else None
        tokens.expect("WITH")
        options = tokens.properties()
        tokens.expect_end()
        return CreateCatalogOperation(name, options, comment, exists)
    if verb == "DROP":
        exists = tokens.accept("IF", "EXISTS")
        name = tokens.name()
        tokens.expect_end()
        return DropCatalogOperation(name, exists)
    name = tokens.name()
    if tokens.accept("SET"):
        operation = AlterCatalogOperation(name, set_options=tokens.properties())
    elif tokens.accept("RESET"):
        operation = AlterCatalogOperation(name, reset_keys=tokens.keys())
    else:
        tokens.expect("COMMENT")
        operation = AlterCatalogOperation(name, comment=tokens.string())
    tokens.expect_end()
    return operation


def database_ddl(tokens: StatementTokens, verb: str) -> CatalogOperation:
    """``CREATE | ALTER | DROP DATABASE ...`` (``verb`` read; DATABASE next)."""
    tokens.expect("DATABASE")
    exists = tokens.accept("IF", "NOT", "EXISTS") if verb == "CREATE" else tokens.accept("IF", "EXISTS")
    catalog, name = _database_name(tokens)
    if verb == "CREATE":
        comment = tokens.string() if tokens.accept("COMMENT") else None
        properties = tokens.properties() if tokens.accept("WITH") else {}
        tokens.expect_end()
        return CreateDatabaseOperation(catalog, name, properties, comment, exists)
    if verb == "DROP":
        cascade = tokens.accept("CASCADE")
        if not cascade:
            tokens.accept("RESTRICT")
        tokens.expect_end()
        return DropDatabaseOperation(catalog, name, exists, cascade)
    if exists:
        raise SqlError("SQL parse failed. ALTER DATABASE takes no IF EXISTS")
    tokens.expect("SET")
    properties = tokens.properties()
    tokens.expect_end()
    return AlterDatabaseOperation(catalog, name, properties)


def _database_name(tokens: StatementTokens) -> tuple[str | None, str]:
    """``[catalog.]database``: (catalog or None, database)."""
    parts = tokens.compound_name()
    if len(parts) > 2:
        raise SqlError(f"SQL parse failed. A database is named [catalog.]database, got: {'.'.join(parts)}")
    return (parts[0] if len(parts) == 2 else None), parts[-1]


def use_statement(tokens: StatementTokens) -> CatalogOperation:
    """``USE CATALOG c``, ``USE MODULES m, ...`` or ``USE [c.]db`` (USE read)."""
    if tokens.accept("CATALOG"):
        name = tokens.name()
        tokens.expect_end()
        return UseOperation(name)
    if tokens.accept("MODULES"):
        names = tokens.names()
        tokens.expect_end()
        return ModuleOperation("use", names)
    catalog, database = _database_name(tokens)
    tokens.expect_end()
    return UseOperation(catalog, database)


def module_statement(tokens: StatementTokens, verb: str) -> CatalogOperation:
    """``LOAD MODULE m [WITH (...)]`` or ``UNLOAD MODULE m`` (``verb`` read)."""
    tokens.expect("MODULE")
    name = tokens.name()
    if verb == "LOAD" and tokens.accept("WITH"):
        tokens.properties()
    tokens.expect_end()
    return ModuleOperation(verb.lower(), [name])


# what SHOW lists -> whether it takes FROM | IN, and LIKE
_SHOWN = {
    ("CATALOGS",): (False, True),
    ("CURRENT", "CATALOG"): (False, False),
    ("DATABASES",): (True, True),
    ("CURRENT", "DATABASE"): (False, False),
    ("TABLES",): (True, True),
    ("VIEWS",): (True, True),
    ("USER", "FUNCTIONS"): (True, True),
    ("FUNCTIONS",): (True, True),
    ("COLUMNS",): (True, True),
    ("FULL", "MODULES"): (False, False),
    ("MODULES",): (False, False),
    ("JARS",): (False, False),
    ("PARTITIONS",): (False, False),
    ("PROCEDURES",): (True, True),
    ("MODELS",): (True, True),
    ("MATERIALIZED", "TABLES"): (True, True),
}


def show_statement(tokens: StatementTokens) -> CatalogOperation:
    """``SHOW ...`` (SHOW read)."""
    if tokens.accept("CREATE"):
        return _show_create(tokens)
    words, scoped, liked = _shown(tokens)
    scope = None
    if words in (("PARTITIONS",), ("COLUMNS",)):
        if words == ("COLUMNS",) and not (tokens.accept("FROM") or tokens.accept("IN")):
            raise tokens.error()
        scope = tokens.compound_name()
    elif scoped and (tokens.accept("FROM") or tokens.accept("IN")):
        scope = tokens.compound_name()
    like, not_like = None, False
    if liked:
        not_like = tokens.accept("NOT")
        if not_like or tokens.at("LIKE"):
            tokens.expect("LIKE")
            like = tokens.string()
    tokens.expect_end()
    return ShowOperation(" ".join(words), scope, like, not_like)


def _shown(tokens: StatementTokens) -> tuple[tuple[str, ...], bool, bool]:
    """What SHOW lists (read), whether it takes FROM | IN, and whether LIKE."""
    for words, (scoped, liked) in _SHOWN.items():
        if tokens.accept(*words):
            return words, scoped, liked
    raise tokens.error()


def _show_create(tokens: StatementTokens) -> CatalogOperation:
    """``SHOW CREATE TABLE | VIEW | CATALOG | MODEL | MATERIALIZED TABLE name`` (SHOW CREATE read)."""
    kind = tokens.word()
    if kind not in ("TABLE", "VIEW", "CATALOG", "MODEL", "MATERIALIZED"):
        raise tokens.error()
    tokens.skip()
    if kind == "MATERIALIZED":
        tokens.expect("TABLE")
    path = tokens.compound_name()
    tokens.expect_end()
    return ShowCreateOperation(kind, path)


def describe_statement(tokens: StatementTokens) -> CatalogOperation:
    """``DESCRIBE | DESC ...`` (the verb read)."""
    if tokens.accept("CATALOG"):
        extended = tokens.accept("EXTENDED")
        name = tokens.name()
        tokens.expect_end()
        return DescribeCatalogOperation(name, extended)
    if tokens.accept("FUNCTION"):
        extended = tokens.accept("EXTENDED")
        path = tokens.compound_name()
        tokens.expect_end()
        return DescribeFunctionOperation(path, extended)
    if tokens.at("DATABASE") or tokens.at("SCHEMA") or tokens.at("MODEL"):
        raise SqlError(f"millstream: DESCRIBE {tokens.word()} is not supported")
    tokens.accept("EXTENDED")
    path = tokens.compound_name()
    tokens.expect_end()
    return DescribeTableOperation(path)
