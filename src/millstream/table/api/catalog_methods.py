"""PyFlink's catalog methods of ``TableEnvironment`` (``get_current_catalog``, ``use_database``,
``list_tables`` ...) over its catalog (``catalog/catalog_manager.py``): one in-memory catalog
``default_catalog`` with one database ``default_database``. Other catalogs (Hive, JDBC) need a
JVM: naming one fails in one line, as Flink's "does not exist".
"""

from __future__ import annotations

from millstream.table.catalog.catalog_manager import DEFAULT_CATALOG, DEFAULT_DATABASE, CatalogManager

__all__ = ["CatalogMethods"]


class CatalogMethods:
    """PyFlink's catalog methods of ``TableEnvironment`` (its ``_catalog``)."""

    _catalog: CatalogManager

    def get_current_catalog(self) -> str:
        """The catalog names resolve in: ``default_catalog``."""
        return DEFAULT_CATALOG

    def get_current_database(self) -> str:
        """The database names resolve in: ``default_database``."""
        return DEFAULT_DATABASE

    def use_catalog(self, catalog_name: str) -> None:
        """Resolve names in ``catalog_name`` (only ``default_catalog`` exists here).

        Raises:
            CatalogException: no catalog of that name.
        """
        CatalogManager.check_catalog(catalog_name)

    def use_database(self, database_name: str) -> None:
        """Resolve names in ``database_name`` of the current catalog.

        Raises:
            CatalogException: no database of that name.
        """
        CatalogManager.check_database(database_name)

    def list_catalogs(self) -> list[str]:
        """The catalogs' names."""
        return [DEFAULT_CATALOG]

    def list_databases(self) -> list[str]:
        """The current catalog's databases."""
        return [DEFAULT_DATABASE]

    def list_tables(self) -> list[str]:
        """The tables and views of the current database (temporary ones included), sorted."""
        return self._catalog.list_tables()

    def list_views(self) -> list[str]:
        """The views of the current database (temporary ones included), sorted."""
        return self._catalog.list_views()

    def list_temporary_tables(self) -> list[str]:
        """The temporary tables and views, sorted."""
        return self._catalog.list_temporary_tables()

    def list_temporary_views(self) -> list[str]:
        """The temporary views, sorted."""
        return self._catalog.list_temporary_views()
