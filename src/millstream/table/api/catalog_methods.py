"""PyFlink's catalog methods of ``TableEnvironment`` (``get_current_catalog``, ``use_database``,
``list_tables`` ...) over its catalogs (``catalog/catalog_manager.py``): ``default_catalog``
with ``default_database``, and the in-memory catalogs ``CREATE CATALOG`` adds. Other catalog
types (Hive, JDBC) need a JVM: naming one fails in one line.
"""

from __future__ import annotations

from millstream.table.catalog.catalog import CatalogTable, CatalogView, GenericInMemoryCatalog
from millstream.table.catalog.catalog_manager import CatalogManager
from millstream.table.catalog.function_catalog import FunctionCatalog
from millstream.table.catalog.module_manager import CORE_FUNCTIONS, ModuleManager

__all__ = ["CatalogMethods"]


class CatalogMethods:
    """PyFlink's catalog methods of ``TableEnvironment`` (its ``_catalog``, ``_functions`` and
    ``_modules``)."""

    _catalog: CatalogManager
    _functions: FunctionCatalog
    _modules: ModuleManager

    def get_current_catalog(self) -> str:
        """The catalog names resolve in (``default_catalog`` unless changed)."""
        return self._catalog.current_catalog

    def get_current_database(self) -> str:
        """The database names resolve in (``default_database`` unless changed)."""
        return self._catalog.current_database

    def use_catalog(self, catalog_name: str) -> None:
        """Resolve names in ``catalog_name``, in its default database.

        Raises:
            CatalogException: no catalog of that name.
        """
        self._catalog.use_catalog(catalog_name)

    def use_database(self, database_name: str) -> None:
        """Resolve names in ``database_name`` of the current catalog.

        Raises:
            CatalogException: no database of that name.
        """
        self._catalog.use_database(database_name)

    def register_catalog(self, catalog_name: str, catalog: GenericInMemoryCatalog) -> None:
        """Add a catalog object under ``catalog_name``.

        Raises:
            CatalogException: a catalog of that name exists.
        """
        self._catalog.register_catalog(catalog_name, catalog)

    def get_catalog(self, catalog_name: str) -> GenericInMemoryCatalog | None:
        """The catalog named ``catalog_name``, or None."""
        return self._catalog.get_catalog(catalog_name)

    def list_catalogs(self) -> list[str]:
        """The catalogs' names, sorted."""
        return self._catalog.list_catalogs()

    def list_databases(self) -> list[str]:
        """The current catalog's databases, sorted."""
        return self._catalog.list_databases()

    def list_tables(self) -> list[str]:
        """The tables and views of the current database (temporary ones included), sorted."""
        return self._catalog.list_tables()

    def list_views(self) -> list[str]:
        """The views of the current database (temporary ones included), sorted."""
        return self._catalog.list_views()

    def list_temporary_tables(self) -> list[str]:
        """The temporary tables and views of the current database, sorted."""
        return self._catalog.list_temporary_tables()

    def list_temporary_views(self) -> list[str]:
        """The temporary views of the current database, sorted."""
        return self._catalog.list_temporary_views()

    def list_modules(self) -> list[str]:
        """The modules in use (``core``)."""
        return self._modules.list_modules()

    def list_user_defined_functions(self) -> list[str]:
        """The user's functions seen from the current database, sorted."""
        return self._functions.user_function_names()

    def list_functions(self) -> list[str]:
        """The built-in and the user's functions, sorted."""
        return sorted({*CORE_FUNCTIONS, *self._functions.user_function_names()})

    def drop_table(self, table_path: str, ignore_if_not_exists: bool = True) -> bool:
        """Drop a permanent table of the catalog; whether there was one.

        Raises:
            CatalogException: a temporary table of that name shadows it, or there is none and
                not ``ignore_if_not_exists``.
        """
        return self._drop_permanent(table_path, CatalogTable, ignore_if_not_exists)

    def drop_view(self, view_path: str, ignore_if_not_exists: bool = True) -> bool:
        """Drop a permanent view of the catalog; whether there was one.

        Raises:
            CatalogException: a temporary view of that name shadows it, or there is none and
                not ``ignore_if_not_exists``.
        """
        return self._drop_permanent(view_path, CatalogView, ignore_if_not_exists)

    def _drop_permanent(self, path: str, kind: type, ignore_if_not_exists: bool) -> bool:
        identifier = self._catalog.qualify(path)
        found = None if self._catalog.is_temporary(identifier) else self._catalog.get(identifier)
        self._catalog.drop_permanent(identifier, kind is CatalogView, ignore_if_not_exists)
        return isinstance(found, kind)
