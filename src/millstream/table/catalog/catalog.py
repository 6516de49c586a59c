"""A catalog and what it holds (Flink's ``Catalog`` interface and its
``GenericInMemoryCatalog``, the catalog of ``CREATE CATALOG c WITH ('type' =
'generic_in_memory')`` and of ``default_catalog``): databases, each with tables, views and
functions, kept in memory for the life of the TableEnvironment.

The catalog stores what it is given: a connector table (``CatalogTable``), a view
(``CatalogView``) or a function (``CatalogFunction``); the CatalogManager above it resolves
names, keeps the temporary objects and checks a table's connector. The exceptions are
Flink's, with Flink's messages (``Database db1 already exists in Catalog c1.``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from millstream.table.catalog.object_identifier import ObjectPath
from millstream.table.common.factories import TableContext
from millstream.table.planner.nodes import PlanNode

__all__ = [
    "CatalogDatabase",
    "CatalogException",
    "CatalogFunction",
    "CatalogTable",
    "CatalogView",
    "DatabaseAlreadyExistException",
    "DatabaseNotEmptyException",
    "DatabaseNotExistException",
    "FunctionAlreadyExistException",
    "FunctionNotExistException",
    "GenericInMemoryCatalog",
    "TableAlreadyExistException",
    "TableNotExistException",
]


class CatalogException(ValueError):
    """A catalog operation that cannot be done (Flink's ``CatalogException``), or a name that
    does not resolve."""


class DatabaseAlreadyExistException(CatalogException):
    """``Database db already exists in Catalog c.``"""

    def __init__(self, catalog_name: str, database_name: str) -> None:
        super().__init__(f"Database {database_name} already exists in Catalog {catalog_name}.")


class DatabaseNotExistException(CatalogException):
    """``Database db does not exist in Catalog c.``"""

    def __init__(self, catalog_name: str, database_name: str) -> None:
        super().__init__(f"Database {database_name} does not exist in Catalog {catalog_name}.")


class DatabaseNotEmptyException(CatalogException):
    """``Database db in catalog c is not empty.``"""

    def __init__(self, catalog_name: str, database_name: str) -> None:
        super().__init__(f"Database {database_name} in catalog {catalog_name} is not empty.")


class TableAlreadyExistException(CatalogException):
    """``Table (or view) db.t already exists in Catalog c.``"""

    def __init__(self, catalog_name: str, path: ObjectPath) -> None:
        super().__init__(f"Table (or view) {path.get_full_name()} already exists in Catalog {catalog_name}.")


class TableNotExistException(CatalogException):
    """``Table (or view) db.t does not exist in Catalog c.``"""

    def __init__(self, catalog_name: str, path: ObjectPath) -> None:
        super().__init__(f"Table (or view) {path.get_full_name()} does not exist in Catalog {catalog_name}.")


class FunctionAlreadyExistException(CatalogException):
    """``Function db.f already exists in Catalog c.``"""

    def __init__(self, catalog_name: str, path: ObjectPath) -> None:
        super().__init__(f"Function {path.get_full_name()} already exists in Catalog {catalog_name}.")


class FunctionNotExistException(CatalogException):
    """``Function db.f does not exist in Catalog c.``"""

    def __init__(self, catalog_name: str, path: ObjectPath) -> None:
        super().__init__(f"Function {path.get_full_name()} does not exist in Catalog {catalog_name}.")


@dataclass(frozen=True)
class CatalogDatabase:
    """A database's properties and comment (``CREATE DATABASE db COMMENT '...' WITH (...)``)."""

    properties: dict[str, str] = field(default_factory=dict)
    comment: str | None = None

    def get_properties(self) -> dict[str, str]:
        """The database's properties."""
        return dict(self.properties)

    def get_comment(self) -> str | None:
        """The database's comment."""
        return self.comment


@dataclass(frozen=True)
class CatalogTable:
    """A connector table as declared: its connector, the ``TableDescriptor`` it was created
    from (options, schema, partition keys, comment), the ``TableContext`` its factories
    read, and the comments of its columns (``COMMENT '...'`` in DDL)."""

    connector: str
    descriptor: Any
    context: TableContext
    column_comments: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CatalogView:
    """A view: the plan of its query, and the columns it declares as a connector table's or a
    DataStream's (computed and metadata columns, watermark, primary key: what
    ``print_schema`` shows). A view made by ``CREATE VIEW`` keeps its query as written and
    its comment (``SHOW CREATE VIEW``)."""

    plan: PlanNode
    declared: dict[str, Any] = field(default_factory=dict)
    query: str | None = None
    comment: str | None = None


@dataclass(frozen=True)
class CatalogFunction:
    """A function by the name of its implementation (``CREATE FUNCTION f AS 'module.f'
    LANGUAGE PYTHON``): ``class_name`` as written, its language, the resources it names."""

    class_name: str
    language: str = "JAVA"
    resource_uris: tuple[str, ...] = ()

    def get_class_name(self) -> str:
        """The implementation's name (a Python function: ``module.attribute``)."""
        return self.class_name

    def get_function_language(self) -> str:
        """``PYTHON``, ``JAVA`` or ``SCALA``."""
        return self.language


CatalogBaseTable = CatalogTable | CatalogView


class GenericInMemoryCatalog:
    """Databases, tables, views and functions in memory (Flink's catalog type
    ``generic_in_memory``); a new one holds one database, ``default_database``'s name."""

    def __init__(self, name: str, default_database: str = "default") -> None:
        self.name = name
        self.default_database = default_database
        self._databases: dict[str, CatalogDatabase] = {default_database: CatalogDatabase()}
        self._tables: dict[ObjectPath, CatalogBaseTable] = {}
        self._functions: dict[ObjectPath, CatalogFunction] = {}

    def get_default_database(self) -> str:
        """The database a session starts in."""
        return self.default_database

    # -- databases ---------------------------------------------------------------------------------------

    def list_databases(self) -> list[str]:
        """The databases' names, sorted."""
        return sorted(self._databases)

    def database_exists(self, database_name: str) -> bool:
        """Whether a database is named ``database_name``."""
        return database_name in self._databases

    def get_database(self, database_name: str) -> CatalogDatabase:
        """The database named ``database_name``.

        Raises:
            DatabaseNotExistException: no such database.
        """
        database = self._databases.get(database_name)
        if database is None:
            raise DatabaseNotExistException(self.name, database_name)
        return database

    def create_database(self, name: str, database: CatalogDatabase, ignore_if_exists: bool) -> None:
        """Add a database.

        Raises:
            DatabaseAlreadyExistException: one of that name exists (and not ``ignore_if_exists``).
        """
        if name in self._databases:
            if not ignore_if_exists:
                raise DatabaseAlreadyExistException(self.name, name)
            return
        self._databases[name] = database

    def alter_database(self, name: str, database: CatalogDatabase, ignore_if_not_exists: bool) -> None:
        """Replace a database's properties and comment.

        Raises:
            DatabaseNotExistException: no such database (and not ``ignore_if_not_exists``).
        """
        if name not in self._databases:
            if not ignore_if_not_exists:
                raise DatabaseNotExistException(self.name, name)
            return
        self._databases[name] = database

    def drop_database(self, name: str, ignore_if_not_exists: bool, cascade: bool) -> None:
        """Remove a database; with ``cascade`` its tables, views and functions too.

        Raises:
            DatabaseNotExistException: no such database (and not ``ignore_if_not_exists``).
            DatabaseNotEmptyException: it holds objects and not ``cascade``.
        """
        if name not in self._databases:
            if not ignore_if_not_exists:
                raise DatabaseNotExistException(self.name, name)
            return
        held = [p for p in (*self._tables, *self._functions) if p.database_name == name]
        if held and not cascade:
            raise DatabaseNotEmptyException(self.name, name)
        for path in held:
            self._tables.pop(path, None)
            self._functions.pop(path, None)
        del self._databases[name]

    # -- tables and views --------------------------------------------------------------------------------

    def list_tables(self, database_name: str) -> list[str]:
        """The tables and views of a database, sorted.

        Raises:
            DatabaseNotExistException: no such database.
        """
        self.get_database(database_name)
        return sorted(p.object_name for p in self._tables if p.database_name == database_name)

    def list_views(self, database_name: str) -> list[str]:
        """The views of a database, sorted.

        Raises:
            DatabaseNotExistException: no such database.
        """
        self.get_database(database_name)
        return sorted(
            p.object_name
            for p, t in self._tables.items()
            if p.database_name == database_name and isinstance(t, CatalogView)
        )

    def table_exists(self, path: ObjectPath) -> bool:
        """Whether a table or view is named ``path``."""
        return path in self._tables

    def get_table(self, path: ObjectPath) -> CatalogBaseTable:
        """The table or view named ``path``.

        Raises:
            TableNotExistException: no such table or view.
        """
        table = self._tables.get(path)
        if table is None:
            raise TableNotExistException(self.name, path)
        return table

    def create_table(self, path: ObjectPath, table: CatalogBaseTable, ignore_if_exists: bool) -> None:
        """Add a table or view.

        Raises:
            DatabaseNotExistException: its database does not exist.
            TableAlreadyExistException: one of that name exists (and not ``ignore_if_exists``).
        """
        self.get_database(path.database_name)
        if path in self._tables:
            if not ignore_if_exists:
                raise TableAlreadyExistException(self.name, path)
            return
        self._tables[path] = table

    def alter_table(self, path: ObjectPath, table: CatalogBaseTable, ignore_if_not_exists: bool) -> None:
        """Replace a table or view.

        Raises:
            TableNotExistException: no such table (and not ``ignore_if_not_exists``).
        """
        if path not in self._tables:
            if not ignore_if_not_exists:
                raise TableNotExistException(self.name, path)
            return
        self._tables[path] = table

    def rename_table(self, path: ObjectPath, new_name: str, ignore_if_not_exists: bool) -> None:
        """Rename a table or view within its database.

        Raises:
            TableNotExistException: no such table (and not ``ignore_if_not_exists``).
            TableAlreadyExistException: the new name is taken.
        """
        if path not in self._tables:
            if not ignore_if_not_exists:
                raise TableNotExistException(self.name, path)
            return
        target = ObjectPath(path.database_name, new_name)
        if target in self._tables:
            raise TableAlreadyExistException(self.name, target)
        self._tables[target] = self._tables.pop(path)

    def drop_table(self, path: ObjectPath, ignore_if_not_exists: bool) -> None:
        """Remove a table or view.

        Raises:
            TableNotExistException: no such table (and not ``ignore_if_not_exists``).
        """
        if self._tables.pop(path, None) is None and not ignore_if_not_exists:
            raise TableNotExistException(self.name, path)

    # -- functions ---------------------------------------------------------------------------------------

    def list_functions(self, database_name: str) -> list[str]:
        """The functions of a database, sorted.

        Raises:
            DatabaseNotExistException: no such database.
        """
        self.get_database(database_name)
        return sorted(p.object_name for p in self._functions if p.database_name == database_name)

    def function_exists(self, path: ObjectPath) -> bool:
        """Whether a function is named ``path`` (function names are case-insensitive)."""
        return _lower(path) in self._functions

    def get_function(self, path: ObjectPath) -> CatalogFunction:
        """The function named ``path``.

        Raises:
            FunctionNotExistException: no such function.
        """
        function = self._functions.get(_lower(path))
        if function is None:
            raise FunctionNotExistException(self.name, path)
        return function

    def create_function(self, path: ObjectPath, function: CatalogFunction, ignore_if_exists: bool) -> None:
        """Add a function.

        Raises:
            DatabaseNotExistException: its database does not exist.
            FunctionAlreadyExistException: one of that name exists (and not ``ignore_if_exists``).
        """
        self.get_database(path.database_name)
        if _lower(path) in self._functions:
            if not ignore_if_exists:
                raise FunctionAlreadyExistException(self.name, path)
            return
        self._functions[_lower(path)] = function

    def alter_function(self, path: ObjectPath, function: CatalogFunction, ignore_if_not_exists: bool) -> None:
        """Replace a function.

        Raises:
            FunctionNotExistException: no such function (and not ``ignore_if_not_exists``).
        """
        if _lower(path) not in self._functions:
            if not ignore_if_not_exists:
                raise FunctionNotExistException(self.name, path)
            return
        self._functions[_lower(path)] = function

    def drop_function(self, path: ObjectPath, ignore_if_not_exists: bool) -> None:
        """Remove a function.

        Raises:
            FunctionNotExistException: no such function (and not ``ignore_if_not_exists``).
        """
        if self._functions.pop(_lower(path), None) is None and not ignore_if_not_exists:
            raise FunctionNotExistException(self.name, path)


def _lower(path: ObjectPath) -> ObjectPath:
    """A function's path as stored: Flink's catalogs keep function names in lower case."""
    return ObjectPath(path.database_name, path.object_name.lower())
