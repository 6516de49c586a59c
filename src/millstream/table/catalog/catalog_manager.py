"""The catalogs of a TableEnvironment (Flink's ``CatalogManager``): the catalogs by name
(``default_catalog`` and those ``CREATE CATALOG`` adds, each a ``GenericInMemoryCatalog``), the
current catalog and database names resolve in, and the temporary tables and views, which
shadow a permanent object of the same name.

A name is qualified as Flink's: ``t`` in the current catalog and database, ``db.t`` in the
current catalog, ``c.db.t`` as written. A connector table is kept as declared (``CatalogTable``:
its connector, the descriptor it was created from and the ``TableContext`` its factories
read), its connector and formats looked up and its options checked when it is created; a view
as the plan of its query (``CatalogView``). The Table API and SQL both resolve names here; the
SQL front end plans a catalog table's source and sink (``sql/catalog_tables.py``). The errors
are Flink's, with Flink's messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from millstream.table.catalog.catalog import (
    CatalogBaseTable,
    CatalogDatabase,
    CatalogException,
    CatalogTable,
    CatalogView,
    GenericInMemoryCatalog,
)
from millstream.table.catalog.object_identifier import ObjectIdentifier, parse_identifier
from millstream.table.common.factories import find_format_factory, find_table_factory

__all__ = [
    "DEFAULT_CATALOG",
    "DEFAULT_DATABASE",
    "CatalogDescriptor",
    "CatalogException",
    "CatalogManager",
    "CatalogTable",
    "CatalogView",
]

DEFAULT_CATALOG = "default_catalog"
DEFAULT_DATABASE = "default_database"
Path = str | Sequence[str] | ObjectIdentifier  # a name as written, its parts, or a full name
IN_MEMORY = "generic_in_memory"  # the one catalog type (Flink's GenericInMemoryCatalogFactory)
_IN_MEMORY_OPTIONS = ("default-database", "property-version", "type")


@dataclass(frozen=True)
class CatalogDescriptor:
    """A catalog as ``CREATE CATALOG`` declared it: its options (``type`` among them) and comment."""

    options: dict[str, str] = field(default_factory=dict)
    comment: str | None = None


class CatalogManager:
    """The catalogs, the current catalog and database, and the temporary tables and views."""

    def __init__(self) -> None:
        default = GenericInMemoryCatalog(DEFAULT_CATALOG, DEFAULT_DATABASE)
        self._catalogs: dict[str, GenericInMemoryCatalog] = {DEFAULT_CATALOG: default}
        self._descriptors: dict[str, CatalogDescriptor] = {}  # catalogs CREATE CATALOG made
        self.current_catalog = DEFAULT_CATALOG
        self.current_database = DEFAULT_DATABASE
        self._temporary: dict[ObjectIdentifier, CatalogBaseTable] = {}

    # -- names -------------------------------------------------------------------------------------------

    def qualify(self, path: Path) -> ObjectIdentifier:
        """The full name of ``path`` (a name as written, or its parts): its missing catalog and
        database are the current ones.

        Raises:
            CatalogException: more than three parts, or a malformed name.
        """
        if isinstance(path, ObjectIdentifier):
            return path
        try:
            parts = parse_identifier(path) if isinstance(path, str) else list(path)
        except ValueError as err:
            raise CatalogException(str(err)) from err
        if not 1 <= len(parts) <= 3:
            raise CatalogException("Object identifier must consist of 1 to 3 parts.")
        catalog, database, name = [self.current_catalog, self.current_database][: 3 - len(parts)] + parts
        return ObjectIdentifier(catalog, database, name)

    # -- catalogs ----------------------------------------------------------------------------------------

    def list_catalogs(self) -> list[str]:
        """The catalogs' names, sorted."""
        return sorted(self._catalogs)

    def get_catalog(self, name: str) -> GenericInMemoryCatalog | None:
        """The catalog named ``name``, or None."""
        return self._catalogs.get(name)

    def catalog(self, name: str) -> GenericInMemoryCatalog:
        """The catalog named ``name``.

        Raises:
            CatalogException: no such catalog (Flink's ``Catalog c does not exist``).
        """
        catalog = self._catalogs.get(name)
        if catalog is None:
            raise CatalogException(f"Catalog {name} does not exist")
        return catalog

    def descriptor(self, name: str) -> CatalogDescriptor | None:
        """How ``CREATE CATALOG`` declared catalog ``name`` (None for ``default_catalog`` and a
        catalog registered as an object)."""
        return self._descriptors.get(name)

    def register_catalog(self, name: str, catalog: GenericInMemoryCatalog) -> None:
        """Add a catalog object under ``name``.

        Raises:
            CatalogException: a catalog of that name exists.
        """
        if name in self._catalogs:
            raise CatalogException(f"Catalog {name} already exists.")
        self._catalogs[name] = catalog

    def create_catalog(self, name: str, descriptor: CatalogDescriptor, ignore_if_exists: bool) -> None:
        """``CREATE CATALOG [IF NOT EXISTS] name [COMMENT ...] WITH ('type' = ...)``: a catalog
        of the type its options name; only ``generic_in_memory`` exists here.

        Raises:
            CatalogException: a catalog of that name exists (and not ``ignore_if_exists``), no
                ``type`` option, another type, or options the type does not know.
        """
        if name in self._catalogs:
            if ignore_if_exists:
                return
            raise CatalogException(f"Catalog {name} already exists.")
        options = descriptor.options
        _check_catalog_options(name, options)
        self._catalogs[name] = GenericInMemoryCatalog(name, options.get("default-database", "default"))
        self._descriptors[name] = descriptor

    def alter_catalog(self, name: str, descriptor: CatalogDescriptor) -> None:
        """``ALTER CATALOG name SET (...) | RESET (...) | COMMENT '...'``: the catalog's new
        options and comment (what it holds stays).

        Raises:
            CatalogException: no such catalog, or options its type does not know.
        """
        if name not in self._catalogs:
            raise CatalogException(f"Catalog {name} does not exist in the catalog store.")
        _check_catalog_options(name, descriptor.options)
        self._descriptors[name] = descriptor

    def drop_catalog(self, name: str, ignore_if_not_exists: bool) -> None:
        """``DROP CATALOG [IF EXISTS] name``.

        Raises:
            CatalogException: the catalog is the current one, or does not exist (and not
                ``ignore_if_not_exists``).
        """
        if name == self.current_catalog:
            raise CatalogException("Cannot drop a catalog which is currently in use.")
        if name not in self._catalogs:
            if ignore_if_not_exists:
                return
            raise CatalogException(f"Catalog {name} does not exist.")
        del self._catalogs[name]
        self._descriptors.pop(name, None)
        for identifier in [i for i in self._temporary if i.catalog_name == name]:
            del self._temporary[identifier]

    def use_catalog(self, name: str) -> None:
        """Resolve names in catalog ``name``, in its default database.

        Raises:
            CatalogException: no such catalog.
        """
        catalog = self._catalogs.get(name)
        if catalog is None:
            raise CatalogException(f"A catalog with name [{name}] does not exist.")
        self.current_catalog, self.current_database = name, catalog.get_default_database()

    # -- databases ---------------------------------------------------------------------------------------

    def use_database(self, name: str) -> None:
        """Resolve names in database ``name`` of the current catalog.

        Raises:
            CatalogException: no such database.
        """
        if not self.catalog(self.current_catalog).database_exists(name):
            raise CatalogException(
                f"A database with name [{name}] does not exist in the catalog: [{self.current_catalog}]."
            )
        self.current_database = name

    def list_databases(self, catalog_name: str | None = None) -> list[str]:
        """The databases of a catalog (the current one by default), sorted.

        Raises:
            CatalogException: no such catalog.
        """
        return self.catalog(catalog_name or self.current_catalog).list_databases()

    def create_database(
        self, catalog_name: str | None, name: str, database: CatalogDatabase, ignore_if_exists: bool
    ) -> None:
        """``CREATE DATABASE [IF NOT EXISTS] [catalog.]name [COMMENT ...] [WITH (...)]``.

        Raises:
            CatalogException: no such catalog, or the database exists (and not ``ignore_if_exists``).
        """
        self.catalog(catalog_name or self.current_catalog).create_database(name, database, ignore_if_exists)

    def alter_database(self, catalog_name: str | None, name: str, properties: dict[str, str]) -> None:
        """``ALTER DATABASE [catalog.]name SET (...)``: the properties added to the database's.

        Raises:
            CatalogException: no such catalog or database.
        """
        catalog = self.catalog(catalog_name or self.current_catalog)
        if not catalog.database_exists(name):
            raise CatalogException(f"Database {name} not exists")
        old = catalog.get_database(name)
        catalog.alter_database(name, CatalogDatabase({**old.properties, **properties}, old.comment), False)

    def drop_database(
        self, catalog_name: str | None, name: str, ignore_if_not_exists: bool, cascade: bool
    ) -> None:
        """``DROP DATABASE [IF EXISTS] [catalog.]name [RESTRICT | CASCADE]``.

        Raises:
            CatalogException: the database is the current one, does not exist (and not
                ``ignore_if_not_exists``), or holds objects and not ``cascade``.
        """
        catalog_name = catalog_name or self.current_catalog
        if (catalog_name, name) == (self.current_catalog, self.current_database):
            raise CatalogException("Cannot drop a database which is currently in use.")
        try:
            self.catalog(catalog_name).drop_database(name, ignore_if_not_exists, cascade)
        except CatalogException as err:
            mode = "CASCADE" if cascade else "RESTRICT"
            raise CatalogException(
                f"Could not execute DROP DATABASE {catalog_name}.{name} {mode}: {err}"
            ) from err

    # -- tables and views --------------------------------------------------------------------------------

    def get(self, path: Path) -> CatalogBaseTable | None:
        """The table or view ``path`` names (a temporary one first, as it shadows), or None."""
        identifier = self.qualify(path)
        temporary = self._temporary.get(identifier)
        if temporary is not None:
            return temporary
        return self._permanent(identifier)

    def _permanent(self, identifier: ObjectIdentifier) -> CatalogBaseTable | None:
        catalog = self._catalogs.get(identifier.catalog_name)
        path = identifier.to_object_path()
        return catalog.get_table(path) if catalog is not None and catalog.table_exists(path) else None

    def get_table(self, path: Path) -> CatalogTable | None:
        """The connector table ``path`` names, or None (also for a view)."""
        found = self.get(path)
        return found if isinstance(found, CatalogTable) else None

    def is_temporary(self, identifier: ObjectIdentifier) -> bool:
        """Whether ``identifier`` names a temporary table or view."""
        return identifier in self._temporary

    def has_table(self, path: Path) -> bool:
        """Whether a table or a view is named ``path``."""
        return self.get(path) is not None

    def create_table(self, path: Path, table: CatalogTable, ignore_if_exists: bool = False) -> None:
        """Name a connector table in its catalog (``list_temporary_tables`` leaves it out).

        Raises:
            CatalogException: no such catalog or database, or a table of that name exists (and
                not ``ignore_if_exists``), as Flink's.
        """
        identifier = self.qualify(path)
        self._validate(table)
        self._create_permanent(identifier, table, ignore_if_exists)

    def create_permanent_view(self, path: Path, view: CatalogView, ignore_if_exists: bool) -> None:
        """``CREATE VIEW [IF NOT EXISTS] name AS ...``: a view in its catalog.

        Raises:
            CatalogException: no such catalog or database, or a table or view of that name exists.
        """
        self._create_permanent(self.qualify(path), view, ignore_if_exists)

    def _create_permanent(self, identifier: ObjectIdentifier, table: CatalogBaseTable, ignore: bool) -> None:
        catalog = self._catalogs.get(identifier.catalog_name)
        if catalog is None:
            raise CatalogException(f"Catalog {identifier.catalog_name} does not exist.")
        try:
            catalog.create_table(identifier.to_object_path(), table, ignore)
        except CatalogException as err:
            raise CatalogException(f"Could not execute CreateTable in path {identifier}: {err}") from err

    def create_temporary_table(
        self, path: Path, table: CatalogBaseTable, ignore_if_exists: bool = False
    ) -> None:
        """Name a temporary connector table or view: a table's connector and formats are looked
        up and its options checked now, as Flink's planner does.

        Raises:
            CatalogException: a temporary table or view of that name exists (and not
                ``ignore_if_exists``).
        """
        identifier = self.qualify(path)
        if identifier in self._temporary:
            if ignore_if_exists:
                return
            raise CatalogException(f"Temporary table '{identifier}' already exists")
        if isinstance(table, CatalogTable):
            self._validate(table)
        self._temporary[identifier] = table

    def create_view(self, path: Path, view: CatalogView) -> None:
        """Name a temporary view (``create_temporary_view``), replacing one of the same name."""
        self._temporary[self.qualify(path)] = view

    def drop_view(self, path: Path) -> bool:
        """Forget a temporary view; whether there was one."""
        return self._drop_temporary(self.qualify(path), CatalogView)

    def drop_temporary_table(self, path: Path) -> bool:
        """Forget a temporary connector table; whether there was one."""
        return self._drop_temporary(self.qualify(path), CatalogTable)

    def _drop_temporary(self, identifier: ObjectIdentifier, kind: type) -> bool:
        if not isinstance(self._temporary.get(identifier), kind):
            return False
        del self._temporary[identifier]
        return True

    def drop_temporary(self, identifier: ObjectIdentifier, view: bool, ignore_if_not_exists: bool) -> None:
        """``DROP TEMPORARY TABLE | VIEW [IF EXISTS] name``.

        Raises:
            CatalogException: no temporary table (view) of that name (and not ``ignore_if_not_exists``).
        """
        if (
            not self._drop_temporary(identifier, CatalogView if view else CatalogTable)
            and not ignore_if_not_exists
        ):
            raise CatalogException(
                f"Temporary table or view with identifier '{identifier.as_summary_string()}' does not exist."
            )

    def drop_permanent(self, identifier: ObjectIdentifier, view: bool, ignore_if_not_exists: bool) -> None:
        """``DROP TABLE | VIEW [IF EXISTS] name``: a table (view) of its catalog.

        Raises:
            CatalogException: a temporary table (view) of that name shadows it, or there is none
                (and not ``ignore_if_not_exists``), as Flink's.
        """
        kind, noun = (CatalogView, "view") if view else (CatalogTable, "table")
        if isinstance(self._temporary.get(identifier), kind):
            raise CatalogException(
                f"Temporary {noun} with identifier '{identifier}' exists. Drop it first before removing "
                f"the permanent {noun}."
            )
        if isinstance(self._permanent(identifier), kind):
            self.catalog(identifier.catalog_name).drop_table(identifier.to_object_path(), False)
        elif not ignore_if_not_exists:
            raise CatalogException(
                f"{noun.capitalize()} with identifier '{identifier.as_summary_string()}' does not exist."
            )

    def alter_permanent(self, identifier: ObjectIdentifier, table: CatalogBaseTable) -> None:
        """Replace a permanent table or view (``ALTER TABLE`` / ``ALTER VIEW``); a table's
        connector and options are checked again.

        Raises:
            CatalogException: no such permanent table or view.
        """
        if self._permanent(identifier) is None:
            raise CatalogException(f"Table {identifier} doesn't exist or is a temporary table.")
        if isinstance(table, CatalogTable):
            self._validate(table)
        self.catalog(identifier.catalog_name).alter_table(identifier.to_object_path(), table, False)

    def rename_permanent(self, identifier: ObjectIdentifier, new_name: str) -> None:
        """``ALTER TABLE | VIEW name RENAME TO new_name`` within its database.

        Raises:
            CatalogException: no such permanent table, or the new name is taken.
        """
        if self._permanent(identifier) is None:
            raise CatalogException(f"Table {identifier} doesn't exist or is a temporary table.")
        self.catalog(identifier.catalog_name).rename_table(identifier.to_object_path(), new_name, False)

    def _validate(self, table: CatalogTable) -> None:
        if not table.connector:  # a table without one (Flink's): only a LIKE clause reads it
            return
        factory = find_table_factory(table.connector)
        options = table.context.options
        formats = [(k, v) for k, v in options.items() if k == "format" or k.endswith(".format")]
        for _, identifier in formats:
            find_format_factory(identifier)
        factory.validate(table.context, formats)

    def list_tables(self, catalog_name: str | None = None, database_name: str | None = None) -> list[str]:
        """The tables and views of a database (the current one by default), temporary ones
        included, sorted.

        Raises:
            CatalogException: no such catalog or database.
        """
        catalog_name = catalog_name or self.current_catalog
        database_name = database_name or self.current_database
        permanent = self._catalog_database(catalog_name, database_name).list_tables(database_name)
        return sorted(set(permanent) | set(self._temporary_names(catalog_name, database_name, None)))

    def list_views(self, catalog_name: str | None = None, database_name: str | None = None) -> list[str]:
        """The views of a database (the current one by default), temporary ones included, sorted.

        Raises:
            CatalogException: no such catalog or database.
        """
        catalog_name = catalog_name or self.current_catalog
        database_name = database_name or self.current_database
        permanent = self._catalog_database(catalog_name, database_name).list_views(database_name)
        return sorted(set(permanent) | set(self._temporary_names(catalog_name, database_name, CatalogView)))

    def _catalog_database(self, catalog_name: str, database_name: str) -> GenericInMemoryCatalog:
        catalog = self.catalog(catalog_name)
        if not catalog.database_exists(database_name):
            raise CatalogException(f"Database '{catalog_name}'.'{database_name}' doesn't exist.")
        return catalog

    def _temporary_names(self, catalog_name: str, database_name: str, kind: type | None) -> list[str]:
        return [
            i.object_name
            for i, t in self._temporary.items()
            if (i.catalog_name, i.database_name) == (catalog_name, database_name)
            and (kind is None or isinstance(t, kind))
        ]

    def list_temporary_tables(self) -> list[str]:
        """The temporary tables and views of the current database, sorted."""
        return sorted(self._temporary_names(self.current_catalog, self.current_database, None))

    def list_temporary_views(self) -> list[str]:
        """The temporary views of the current database, sorted."""
        return sorted(self._temporary_names(self.current_catalog, self.current_database, CatalogView))


def _check_catalog_options(name: str, options: dict[str, str]) -> None:
    """A catalog's options as Flink's catalog factory discovery checks them.

    Raises:
        CatalogException: no ``type``, a type other than ``generic_in_memory``, or an option
            that type does not know.
    """
    kind = options.get("type")
    if kind is None:
        raise CatalogException(
            f"Unable to create catalog '{name}': Catalog options do not contain an option key 'type' for "
            "discovering a catalog."
        )
    if kind != IN_MEMORY:
        raise CatalogException(
            f"Unable to create catalog '{name}': millstream has no catalog of type '{kind}' (only "
            f"'{IN_MEMORY}', kept in memory)"
        )
    unknown = sorted(set(options) - set(_IN_MEMORY_OPTIONS))
    if unknown:
        raise CatalogException(
            f"Unable to create catalog '{name}': Unsupported options found for '{IN_MEMORY}': "
            f"{', '.join(unknown)} (supported: {', '.join(_IN_MEMORY_OPTIONS)})"
        )
