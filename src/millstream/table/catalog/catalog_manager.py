"""The catalog of a TableEnvironment (Flink's ``CatalogManager`` over one in-memory catalog):
``default_catalog`` with one database ``default_database`` holding the connector tables
(created by DDL or ``create_table`` / ``create_temporary_table``) and the views.

A connector table is kept as declared (``CatalogTable``: its connector, the descriptor it was
created from and the ``TableContext`` its factories read); a view as the plan of its query
(``CatalogView``). The Table API and SQL both resolve names here; the SQL front end plans a
catalog table's source and sink (``sql/catalog_tables.py``). Other catalogs (Hive, JDBC) need
a JVM: naming one fails in one line, as Flink's "does not exist".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from millstream.table.common.factories import TableContext, find_format_factory, find_table_factory
from millstream.table.planner.nodes import PlanNode

__all__ = [
    "DEFAULT_CATALOG",
    "DEFAULT_DATABASE",
    "CatalogException",
    "CatalogManager",
    "CatalogTable",
    "CatalogView",
]

DEFAULT_CATALOG = "default_catalog"
DEFAULT_DATABASE = "default_database"


class CatalogException(ValueError):
    """A catalog or database that does not exist (Flink's ``CatalogException``)."""


@dataclass(frozen=True)
class CatalogTable:
    """A connector table as declared: its connector, the ``TableDescriptor`` it was created
    from (options, schema, partition keys) and the ``TableContext`` its factories read."""

    connector: str
    descriptor: Any
    context: TableContext


@dataclass(frozen=True)
class CatalogView:
    """A view: the plan of its query, and the columns it declares as a connector table's or a
    DataStream's (computed and metadata columns, watermark, primary key: what
    ``print_schema`` shows)."""

    plan: PlanNode
    declared: dict[str, Any] = field(default_factory=dict)


class CatalogManager:
    """The tables and views of one TableEnvironment, by name."""

    def __init__(self) -> None:
        self.views: dict[str, CatalogView] = {}
        self.tables: dict[str, CatalogTable] = {}
        self.permanent: set[str] = set()  # the tables created without TEMPORARY

    def has_table(self, path: str) -> bool:
        """Whether a table or a view is named ``path``."""
        return path in self.views or path in self.tables

    def get(self, path: str) -> CatalogTable | CatalogView | None:
        """The view or table named ``path`` (a view first, as a temporary object shadows)."""
        return self.views.get(path) or self.tables.get(path)

    def create_view(self, path: str, view: CatalogView) -> None:
        """Name a view (replacing one of the same name)."""
        self.views[path] = view

    def drop_view(self, path: str) -> bool:
        """Forget a view; whether it existed."""
        return self.views.pop(path, None) is not None

    def create_table(self, path: str, table: CatalogTable, ignore_if_exists: bool = False) -> None:
        """Name a connector table in the catalog (``list_temporary_tables`` leaves it out).

        Raises:
            ValueError: a table of that name exists (and not ``ignore_if_exists``), as Flink's.
        """
        if path in self.permanent:
            if ignore_if_exists:
                return
            raise ValueError(
                f"Could not execute CreateTable in path `{DEFAULT_CATALOG}`.`{DEFAULT_DATABASE}`.`{path}`: "
                f"Table (or view) {DEFAULT_DATABASE}.{path} already exists in Catalog {DEFAULT_CATALOG}."
            )
        self._register(path, table)
        self.permanent.add(path)

    def create_temporary_table(self, path: str, table: CatalogTable, ignore_if_exists: bool = False) -> None:
        """Name a connector table: its connector and formats are looked up and its options
        checked now, as Flink's planner does.

        Raises:
            ValueError: a temporary table of that name exists (and not ``ignore_if_exists``).
        """
        if path in self.tables and path not in self.permanent:
            if ignore_if_exists:
                return
            raise ValueError(
                f"Temporary table '`{DEFAULT_CATALOG}`.`{DEFAULT_DATABASE}`.`{path}`' already exists"
            )
        self.permanent.discard(path)  # a temporary table shadows a permanent one
        self._register(path, table)

    def drop_temporary_table(self, path: str) -> bool:
        """Forget a connector table; whether it existed."""
        self.permanent.discard(path)
        return self.tables.pop(path, None) is not None

    def _register(self, path: str, table: CatalogTable) -> None:
        factory = find_table_factory(table.connector)
        options = table.context.options
        formats = [(k, v) for k, v in options.items() if k == "format" or k.endswith(".format")]
        for _, identifier in formats:
            find_format_factory(identifier)
        factory.validate(table.context, formats)
        self.tables[path] = table

    def list_tables(self) -> list[str]:
        """The tables and views of the current database (temporary ones included), sorted."""
        return sorted(set(self.tables) | set(self.views))

    def list_views(self) -> list[str]:
        """The views of the current database (temporary ones included), sorted."""
        return sorted(self.views)

    def list_temporary_tables(self) -> list[str]:
        """The temporary tables and views, sorted."""
        return sorted((set(self.tables) - self.permanent) | set(self.views))

    def list_temporary_views(self) -> list[str]:
        """The temporary views, sorted."""
        return sorted(self.views)

    @staticmethod
    def check_catalog(catalog_name: str) -> None:
        """Whether names may resolve in ``catalog_name`` (only ``default_catalog`` exists here).

        Raises:
            CatalogException: no catalog of that name.
        """
        if catalog_name != DEFAULT_CATALOG:
            raise CatalogException(f"A catalog with name [{catalog_name}] does not exist.")

    @staticmethod
    def check_database(database_name: str) -> None:
        """Whether names may resolve in ``database_name`` of the current catalog.

        Raises:
            CatalogException: no database of that name.
        """
        if database_name != DEFAULT_DATABASE:
            raise CatalogException(
                f"A database with name [{database_name}] does not exist in the catalog: [{DEFAULT_CATALOG}]."
            )
