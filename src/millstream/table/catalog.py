"""The catalog's names, at PyFlink's module path ``pyflink.table.catalog``.

The names are defined in :mod:`millstream.table.api.catalog`; millstream's own modules import them
from there, never from here.
"""

from millstream.table.api.catalog import (
    DEFAULT_CATALOG,
    DEFAULT_DATABASE,
    CatalogException,
    CatalogMethods,
    ResolvedSchema,
    show_statement,
)

__all__ = [
    "DEFAULT_CATALOG",
    "DEFAULT_DATABASE",
    "CatalogException",
    "CatalogMethods",
    "ResolvedSchema",
    "show_statement",
]
