"""The catalog of a TableEnvironment, as PyFlink shows it: one in-memory catalog
``default_catalog`` with one database ``default_database`` holding the tables (connector
tables created by DDL or ``create_table`` / ``create_temporary_table``) and views.

``CatalogMethods`` gives ``TableEnvironment`` PyFlink's catalog methods
(``get_current_catalog``, ``use_database``, ``list_tables`` ...); ``show_statement`` runs
``SHOW CATALOGS | DATABASES | TABLES | VIEWS | CURRENT CATALOG | CURRENT DATABASE`` and
``USE [CATALOG] name``, printing what Flink prints. Other catalogs (Hive, JDBC) need a JVM:
naming one fails in one line, as Flink's "does not exist".
"""

from __future__ import annotations

import re
from typing import Any

from millstream.table.common.printing import print_schema
from millstream.table.common.types import DataType, DataTypes

__all__ = [
    "DEFAULT_CATALOG",
    "DEFAULT_DATABASE",
    "CatalogException",
    "CatalogMethods",
    "ResolvedSchema",
    "show_statement",
]

DEFAULT_CATALOG = "default_catalog"
DEFAULT_DATABASE = "default_database"


class CatalogException(ValueError):
    """A catalog or database that does not exist (Flink's ``CatalogException``)."""


class ResolvedSchema:
    """A table's columns as resolved (``pyflink.table.catalog.ResolvedSchema``): names, types
    (NOT NULL, time attributes) and, for a table read as declared, its computed and metadata
    columns, watermark and primary key. ``str`` is what ``Table.print_schema()`` prints."""

    def __init__(
        self,
        names: list[str],
        types: list[DataType],
        rowtime: int | None = None,
        proctime: int | None = None,
        declared: dict[str, Any] | None = None,
    ) -> None:
        self._names, self._types = list(names), list(types)
        self._rowtime, self._proctime, self._declared = rowtime, proctime, dict(declared or {})

    @staticmethod
    def physical(column_names: list[str], column_data_types: list[DataType]) -> ResolvedSchema:
        """A schema of physical columns only."""
        return ResolvedSchema(column_names, column_data_types)

    def get_column_count(self) -> int:
        """The number of columns (of every kind)."""
        return len(self._names)

    def get_column_names(self) -> list[str]:
        """Every column's name."""
        return list(self._names)

    def get_column_data_types(self) -> list[DataType]:
        """Every column's data type."""
        return list(self._types)

    def get_primary_key_indexes(self) -> list[int]:
        """The positions of the primary key's columns (none without a key)."""
        return [self._names.index(k) for k in self._declared.get("primary_key") or []]

    def to_source_row_data_type(self) -> DataType:
        """Every column as a ROW (what a source produces into the query)."""
        return self._row(self._names)

    def to_physical_row_data_type(self) -> DataType:
        """The physical columns (neither computed nor metadata) as a ROW."""
        computed, metadata = self._declared.get("computed") or {}, self._declared.get("metadata") or {}
        return self._row([n for n in self._names if n not in computed and n not in metadata])

    def to_sink_row_data_type(self) -> DataType:
        """The persisted columns (physical, and metadata that is not VIRTUAL) as a ROW."""
        computed, metadata = self._declared.get("computed") or {}, self._declared.get("metadata") or {}
        return self._row(
            [n for n in self._names if n not in computed and not metadata.get(n, (None, False))[1]]
        )

    def _row(self, names: list[str]) -> DataType:
        types = dict(zip(self._names, self._types, strict=True))
        return DataTypes.ROW([DataTypes.FIELD(n, types[n]) for n in names])

    def __str__(self) -> str:
        declared = self._declared
        watermark = declared.get("watermark")
        return print_schema(
            self._names,
            self._types,
            self._rowtime,
            watermark[1] if watermark is not None else None,
            self._proctime,
            declared.get("computed"),
            declared.get("metadata"),
            declared.get("primary_key"),
            declared.get("primary_key_name"),
        )


class CatalogMethods:
    """PyFlink's catalog methods of ``TableEnvironment`` (its ``_views`` and ``_tables``)."""

    _views: dict[str, Any]
    _tables: dict[str, Any]
    _permanent: set[str]  # tables created without TEMPORARY (DDL ``CREATE TABLE``, ``create_table``)

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
        if catalog_name != DEFAULT_CATALOG:
            raise CatalogException(f"A catalog with name [{catalog_name}] does not exist.")

    def use_database(self, database_name: str) -> None:
        """Resolve names in ``database_name`` of the current catalog.

        Raises:
            CatalogException: no database of that name.
        """
        if database_name != DEFAULT_DATABASE:
            raise CatalogException(
                f"A database with name [{database_name}] does not exist in the catalog: [{DEFAULT_CATALOG}]."
            )

    def list_catalogs(self) -> list[str]:
        """The catalogs' names."""
        return [DEFAULT_CATALOG]

    def list_databases(self) -> list[str]:
        """The current catalog's databases."""
        return [DEFAULT_DATABASE]

    def list_tables(self) -> list[str]:
        """The tables and views of the current database (temporary ones included), sorted."""
        return sorted(set(self._tables) | set(self._views))

    def list_views(self) -> list[str]:
        """The views of the current database (temporary ones included), sorted."""
        return sorted(self._views)

    def list_temporary_tables(self) -> list[str]:
        """The temporary tables and views, sorted."""
        return sorted((set(self._tables) - self._permanent) | set(self._views))

    def list_temporary_views(self) -> list[str]:
        """The temporary views, sorted."""
        return sorted(self._views)


_SHOW = re.compile(
    r"\s*SHOW\s+(?P<what>CATALOGS|DATABASES|TABLES|VIEWS|CURRENT\s+CATALOG|CURRENT\s+DATABASE)\s*;?\s*$",
    re.IGNORECASE,
)
_USE = re.compile(r"\s*USE\s+(?P<catalog>CATALOG\s+)?`?(?P<name>[\w.]+)`?\s*;?\s*$", re.IGNORECASE)


def show_statement(t_env: Any, statement: str) -> Any:
    """The result of a SHOW or USE statement, or None when ``statement`` is neither."""
    from millstream.table.api.table_result import TableResult
    from millstream.table.common.types import DataTypes

    show = _SHOW.match(statement)
    if show is not None:
        what = " ".join(show.group("what").upper().split())
        column, values = {
            "CATALOGS": ("catalog name", t_env.list_catalogs()),
            "DATABASES": ("database name", t_env.list_databases()),
            "TABLES": ("table name", t_env.list_tables()),
            "VIEWS": ("view name", t_env.list_views()),
            "CURRENT CATALOG": ("current catalog name", [t_env.get_current_catalog()]),
            "CURRENT DATABASE": ("current database name", [t_env.get_current_database()]),
        }[what]
        result = TableResult([column], [DataTypes.STRING()], iter([("+I", (v,)) for v in values]), False)
        result._content_widths = True
        return result
    use = _USE.match(statement)
    if use is not None:
        name = use.group("name")
        if use.group("catalog"):
            t_env.use_catalog(name)
        else:
            catalog, _, database = name.rpartition(".")
            if catalog:
                t_env.use_catalog(catalog)
            t_env.use_database(database)
        return TableResult.ok()
    return None
