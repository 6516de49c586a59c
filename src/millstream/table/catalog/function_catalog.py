"""The user's functions of a TableEnvironment (Flink's ``FunctionCatalog``): temporary system
functions (by name), temporary catalog functions (by catalog, database and name) and catalog
functions (kept in their catalog's database), as ``CREATE [TEMPORARY [SYSTEM]] FUNCTION`` and
``create_temporary_[system_]function`` make them. Function names are case-insensitive.

A function declared by name (``AS 'module.udf' LANGUAGE PYTHON``) is imported when it is
created; the planner finds the udf object by the function's name (``functions/udf.py``'s
registry), the first of a temporary system, a temporary and a catalog function, as Flink
resolves a name. A name that does not import (or names no udf) is kept, as Flink keeps it:
a query calling it fails with Flink's "Cannot instantiate user-defined function 'f'.".
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from millstream.table.catalog.catalog import (
    CatalogException,
    CatalogFunction,
    FunctionNotExistException,
)
from millstream.table.catalog.catalog_manager import CatalogManager
from millstream.table.catalog.module_manager import ModuleManager
from millstream.table.catalog.object_identifier import ObjectIdentifier
from millstream.table.common.types import DataTypes
from millstream.table.functions.udf import (
    UserDefinedAggregateFunctionWrapper,
    UserDefinedScalarFunctionWrapper,
    UserDefinedTableFunctionWrapper,
    register_function,
    unregister_function,
)

__all__ = ["FunctionCatalog", "FunctionLookup", "check_function", "load_python_function"]


@dataclass(frozen=True)
class FunctionLookup:
    """What a name resolves to (``DESCRIBE FUNCTION``): whether a system (built-in or
    temporary system) function, whether temporary, its declaration (None for a built-in or a
    function object given to the Table API), the udf object (None: built-in or not loaded),
    and its full name (a catalog function's ``catalog.database.name``)."""

    system: bool
    temporary: bool
    definition: CatalogFunction | None
    function: Any
    name: str


def load_python_function(class_name: str) -> Any:
    """The udf, udtf or udaf object ``module.attribute`` names, or None when it does not import
    or is no user-defined function (the call then fails)."""
    module_name, _, attribute = class_name.rpartition(".")
    try:
        function = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError, ValueError):
        return None
    return function if isinstance(function, _WRAPPERS) else None


_WRAPPERS = (
    UserDefinedScalarFunctionWrapper,
    UserDefinedTableFunctionWrapper,
    UserDefinedAggregateFunctionWrapper,
)


def check_function(function: Any) -> None:
    """Whether ``function`` is a udf, udtf or udaf (what the Table API registers).

    Raises:
        TypeError: it is none.
    """
    if not isinstance(function, _WRAPPERS):
        raise TypeError(f"create_temporary_function expects a udf, udtf or udaf, got {function!r}")


class FunctionCatalog:
    """The temporary system, temporary and catalog functions of one TableEnvironment."""

    def __init__(self, catalogs: CatalogManager, modules: ModuleManager) -> None:
        self._catalogs = catalogs
        self._modules = modules
        # name (lower case) -> (declaration or None, udf object or None)
        self._system: dict[str, tuple[CatalogFunction | None, Any]] = {}
        self._temporary: dict[ObjectIdentifier, tuple[CatalogFunction | None, Any]] = {}
        self._loaded: dict[ObjectIdentifier, Any] = {}  # catalog functions' udf objects

    def _identifier(self, path: str | list[str]) -> ObjectIdentifier:
        identifier = self._catalogs.qualify(path)
        return ObjectIdentifier(
            identifier.catalog_name, identifier.database_name, identifier.object_name.lower()
        )

    # -- temporary system functions ----------------------------------------------------------------------

    def create_temporary_system_function(
        self,
        name: str,
        function: Any,
        definition: CatalogFunction | None = None,
        ignore_if_exists: bool = False,
    ) -> None:
        """A temporary system function: ``function`` (a udf object, or None when ``definition``
        did not load).

        Raises:
            CatalogException: one of that name exists (and not ``ignore_if_exists``).
        """
        key = name.lower()
        if key in self._system:
            if ignore_if_exists:
                return
            raise CatalogException(
                f"Could not register temporary system function. A function named '{name}' does already exist."
            )
        self._system[key] = (definition, function)
        self._publish(key)

    def drop_temporary_system_function(self, name: str) -> bool:
        """Forget a temporary system function; whether there was one."""
        if self._system.pop(name.lower(), None) is None:
            return False
        self._publish(name.lower())
        return True

    # -- temporary catalog functions ---------------------------------------------------------------------

    def create_temporary_function(
        self,
        path: str | list[str],
        function: Any,
        definition: CatalogFunction | None = None,
        ignore_if_exists: bool = False,
    ) -> None:
        """A temporary catalog function named ``path`` (qualified as a table's name).

        Raises:
            CatalogException: one of that name exists (and not ``ignore_if_exists``).
        """
        identifier = self._identifier(path)
        if identifier in self._temporary:
            if ignore_if_exists:
                return
            raise CatalogException(
                "Could not register temporary catalog function. A function "
                f"'{identifier.as_summary_string()}' does already exist."
            )
        self._temporary[identifier] = (definition, function)
        self._publish(identifier.object_name)

    def drop_temporary_function(self, path: str | list[str]) -> bool:
        """Forget a temporary catalog function; whether there was one."""
        identifier = self._identifier(path)
        if self._temporary.pop(identifier, None) is None:
            return False
        self._publish(identifier.object_name)
        return True

    def temporary_function_identifier(self, path: str | list[str]) -> ObjectIdentifier:
        """The full name of a temporary catalog function named ``path``."""
        return self._identifier(path)

    # -- catalog functions -------------------------------------------------------------------------------

    def create_catalog_function(
        self, path: str | list[str], definition: CatalogFunction, function: Any, ignore_if_exists: bool
    ) -> None:
        """``CREATE FUNCTION [IF NOT EXISTS] name AS '...'``: a function of its catalog's database.

        Raises:
            CatalogException: no such catalog or database, or the function exists (and not
                ``ignore_if_exists``).
        """
        identifier = self._identifier(path)
        catalog = self._catalogs.catalog(identifier.catalog_name)
        exists = catalog.function_exists(identifier.to_object_path())
        catalog.create_function(identifier.to_object_path(), definition, ignore_if_exists)
        if not exists:
            self._loaded[identifier] = function
            self._publish(identifier.object_name)

    def alter_catalog_function(
        self, path: str | list[str], definition: CatalogFunction, function: Any, ignore_if_not_exists: bool
    ) -> None:
        """``ALTER FUNCTION [IF EXISTS] name AS '...'``: a catalog function's new implementation.

        Raises:
            CatalogException: no such function (and not ``ignore_if_not_exists``).
        """
        identifier = self._identifier(path)
        catalog = self._catalogs.catalog(identifier.catalog_name)
        if not catalog.function_exists(identifier.to_object_path()):
            if ignore_if_not_exists:
                return
            raise FunctionNotExistException(identifier.catalog_name, identifier.to_object_path())
        catalog.alter_function(identifier.to_object_path(), definition, False)
        self._loaded[identifier] = function
        self._publish(identifier.object_name)

    def drop_catalog_function(self, path: str | list[str], ignore_if_not_exists: bool) -> None:
        """``DROP FUNCTION [IF EXISTS] name``.

        Raises:
            CatalogException: no such function (and not ``ignore_if_not_exists``).
        """
        identifier = self._identifier(path)
        catalog = self._catalogs.catalog(identifier.catalog_name)
        catalog.drop_function(identifier.to_object_path(), ignore_if_not_exists)
        self._loaded.pop(identifier, None)
        self._publish(identifier.object_name)

    # -- lookups -----------------------------------------------------------------------------------------

    def user_function_names(
        self, catalog_name: str | None = None, database_name: str | None = None
    ) -> list[str]:
        """The names of the user's functions seen from a database (the current one by default):
        temporary system functions, its temporary and its catalog functions, sorted.

        Raises:
            CatalogException: no such catalog or database.
        """
        catalog_name = catalog_name or self._catalogs.current_catalog
        database_name = database_name or self._catalogs.current_database
        in_database = {
            i.object_name
            for i in self._temporary
            if (i.catalog_name, i.database_name) == (catalog_name, database_name)
        }
        catalog = self._catalogs.catalog(catalog_name)
        if catalog.database_exists(database_name):  # else none: Flink lists no error either
            in_database |= set(catalog.list_functions(database_name))
        # a temporary system function and a catalog function of one name are two (Flink lists both)
        return sorted([*self._system, *in_database])

    def lookup(self, path: list[str]) -> FunctionLookup | None:
        """What ``path`` names, in Flink's order: a temporary system function, a built-in one, a
        temporary catalog function, a catalog function; None if nothing."""
        if len(path) == 1:
            key = path[0].lower()
            if key in self._system:
                definition, function = self._system[key]
                return FunctionLookup(True, True, definition, function, path[0])
            if self._modules.is_core_function(key):
                return FunctionLookup(True, False, None, None, path[0])
        identifier = self._identifier(path)
        if identifier in self._temporary:
            definition, function = self._temporary[identifier]
            return FunctionLookup(False, True, definition, function, identifier.as_summary_string())
        catalog = self._catalogs.get_catalog(identifier.catalog_name)
        if catalog is not None and catalog.function_exists(identifier.to_object_path()):
            definition = catalog.get_function(identifier.to_object_path())
            function = self._loaded.get(identifier)
            return FunctionLookup(False, False, definition, function, identifier.as_summary_string())
        return None

    def _publish(self, name: str) -> None:
        """Make the planner's registry call what ``name`` now resolves to from the current
        database (or forget it when nothing of this environment is named so)."""
        found = self.lookup([name])
        if found is not None and found.function is not None:
            register_function(name, found.function)
        elif found is not None and found.definition is not None:  # declared, but no udf
            register_function(name, _Uninstantiable(found.name))
        else:
            unregister_function(name)


class _Uninstantiable(UserDefinedScalarFunctionWrapper):
    """A function declared by a name that imports no udf: a call of it fails as Flink's."""

    def __init__(self, full_name: str) -> None:
        super().__init__(None, DataTypes.NULL(), full_name)
        self._full_name = full_name

    def __call__(self, *args: Any) -> Any:
        raise ValueError(f"Cannot instantiate user-defined function '{self._full_name}'.")
