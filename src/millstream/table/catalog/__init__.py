"""The catalog (Flink's ``CatalogManager`` and ``org.apache.flink.table.catalog``): the catalogs
of a TableEnvironment and their databases, tables, views and functions by name
(``catalog_manager``, ``catalog``: the in-memory catalog, ``object_identifier``: names,
``function_catalog``, ``module_manager``), and the resolved schema of a table
(``resolved_schema``). It sits between the SQL front end, which resolves names in it, and the
planner, whose plans its views hold.

The package is also PyFlink's module path ``pyflink.table.catalog``: it offers the names
millstream has of that module lazily (importing the package imports none of its modules).
"""

from typing import TYPE_CHECKING

from millstream._lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "millstream.table.catalog.catalog_manager": ("DEFAULT_CATALOG", "DEFAULT_DATABASE"),
        "millstream.table.catalog.catalog": (
            "CatalogDatabase",
            "CatalogException",
            "CatalogFunction",
            "GenericInMemoryCatalog",
        ),
        "millstream.table.catalog.object_identifier": ("ObjectIdentifier", "ObjectPath"),
        "millstream.table.catalog.resolved_schema": ("ResolvedSchema",),
    },
)

if TYPE_CHECKING:  # the names as type checkers and editors see them (``X as X``: a re-export)
    from millstream.table.catalog.catalog import CatalogDatabase as CatalogDatabase
    from millstream.table.catalog.catalog import CatalogException as CatalogException
    from millstream.table.catalog.catalog import CatalogFunction as CatalogFunction
    from millstream.table.catalog.catalog import GenericInMemoryCatalog as GenericInMemoryCatalog
    from millstream.table.catalog.catalog_manager import DEFAULT_CATALOG as DEFAULT_CATALOG
    from millstream.table.catalog.catalog_manager import DEFAULT_DATABASE as DEFAULT_DATABASE
    from millstream.table.catalog.object_identifier import ObjectIdentifier as ObjectIdentifier
    from millstream.table.catalog.object_identifier import ObjectPath as ObjectPath
    from millstream.table.catalog.resolved_schema import ResolvedSchema as ResolvedSchema
