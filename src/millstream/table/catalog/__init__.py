"""The catalog (Flink's ``CatalogManager`` and ``org.apache.flink.table.catalog``): the tables
and views of a TableEnvironment by name (``catalog_manager``), and the resolved schema of a
table (``resolved_schema``). It sits between the SQL front end, which resolves names in it, and
the planner, whose plans its views hold.

The package is also PyFlink's module path ``pyflink.table.catalog``: it offers the names
millstream has of that module lazily (importing the package imports none of its modules).
"""

from typing import TYPE_CHECKING

from millstream._lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "millstream.table.catalog.catalog_manager": (
            "DEFAULT_CATALOG",
            "DEFAULT_DATABASE",
            "CatalogException",
        ),
        "millstream.table.catalog.resolved_schema": ("ResolvedSchema",),
    },
)

if TYPE_CHECKING:  # the names as type checkers and editors see them (``X as X``: a re-export)
    from millstream.table.catalog.catalog_manager import DEFAULT_CATALOG as DEFAULT_CATALOG
    from millstream.table.catalog.catalog_manager import DEFAULT_DATABASE as DEFAULT_DATABASE
    from millstream.table.catalog.catalog_manager import CatalogException as CatalogException
    from millstream.table.catalog.resolved_schema import ResolvedSchema as ResolvedSchema
