"""The catalog statements on a TableEnvironment (Flink's catalog, database, module, SHOW and
DESCRIBE operations): ``CREATE | ALTER | DROP CATALOG`` and ``DATABASE``, ``USE``, ``LOAD |
UNLOAD MODULE``, ``USE MODULES``, ``SHOW ...`` (a column of names, ``[NOT] LIKE`` filtered, as
wide as its content, as Flink prints it) and ``DESCRIBE ...`` (Flink's columns: name, type,
null, key, extras, watermark and, when a column has one, comment).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from millstream.table.api.table_result import TableResult
from millstream.table.catalog.catalog import CatalogDatabase, CatalogException, CatalogTable, CatalogView
from millstream.table.catalog.catalog_manager import CatalogDescriptor
from millstream.table.catalog.module_manager import CORE_FUNCTIONS
from millstream.table.catalog.object_identifier import quote
from millstream.table.common.row_kind import INSERT
from millstream.table.common.types import DataType, DataTypes
from millstream.table.sql.catalog_operations import (
    AlterCatalogOperation,
    AlterDatabaseOperation,
    CatalogOperation,
    CreateCatalogOperation,
    CreateDatabaseOperation,
    DescribeCatalogOperation,
    DescribeFunctionOperation,
    DescribeTableOperation,
    DropCatalogOperation,
    DropDatabaseOperation,
    ModuleOperation,
    ShowCreateOperation,
    ShowOperation,
    UseOperation,
)
from millstream.table.sql.parser import SqlError
from millstream.table.sql.statements_show import (
    describe_rows,
    show_create_catalog,
    show_create_table,
    show_create_view,
)

if TYPE_CHECKING:
    from millstream.table.api.table_environment import TableEnvironment

__all__ = ["execute_catalog_operation", "like_pattern"]


def execute_catalog_operation(t_env: TableEnvironment, operation: Any) -> TableResult:
    """Run a catalog statement's operation on ``t_env``; its result."""
    match operation:
        case ShowOperation():
            return _show(t_env, operation)
        case ShowCreateOperation():
            return _result(["result"], [(_show_create(t_env, operation),)])
        case DescribeTableOperation(path=path):
            return _describe_table(t_env, path, None)
        case DescribeCatalogOperation():
            return _describe_catalog(t_env, operation)
        case DescribeFunctionOperation():
            return _describe_function(t_env, operation)
        case _:
            _change(t_env, operation)
            return TableResult.ok()


def _change(t_env: TableEnvironment, operation: CatalogOperation) -> None:
    catalog = t_env._catalog
    match operation:
        case CreateCatalogOperation(name=name, options=options, comment=comment):
            catalog.create_catalog(name, CatalogDescriptor(options, comment), operation.ignore_if_exists)
        case AlterCatalogOperation():
            _alter_catalog(t_env, operation)
        case DropCatalogOperation(name=name, if_exists=if_exists):
            catalog.drop_catalog(name, if_exists)
        case CreateDatabaseOperation(catalog=catalog_name, name=name):
            database = CatalogDatabase(operation.properties, operation.comment)
            catalog.create_database(catalog_name, name, database, operation.ignore_if_exists)
        case AlterDatabaseOperation(catalog=catalog_name, name=name, properties=properties):
            catalog.alter_database(catalog_name, name, properties)
        case DropDatabaseOperation(catalog=catalog_name, name=name):
            catalog.drop_database(catalog_name, name, operation.if_exists, operation.cascade)
        case UseOperation(catalog=catalog_name, database=database):
            _use(t_env, catalog_name, database)
        case ModuleOperation(action=action, names=names):
            modules = t_env._modules
            if action == "load":
                modules.load_module(names[0])
            elif action == "unload":
                modules.unload_module(names[0])
            else:
                modules.use_modules(names)
        case _:
            raise AssertionError(f"not a catalog operation: {operation!r}")


def _use(t_env: TableEnvironment, catalog_name: str | None, database: str | None) -> None:
    """``USE CATALOG c`` (``database`` None), ``USE db`` or ``USE c.db``."""
    catalog = t_env._catalog
    if database is None:
        catalog.use_catalog(str(catalog_name))
        return
    if catalog_name is None:
        catalog.use_database(database)
        return
    previous = catalog.current_catalog, catalog.current_database
    catalog.use_catalog(catalog_name)
    try:
        catalog.use_database(database)
    except CatalogException:
        catalog.current_catalog, catalog.current_database = previous
        raise


def _alter_catalog(t_env: TableEnvironment, operation: AlterCatalogOperation) -> None:
    catalog, name = t_env._catalog, operation.name
    descriptor = catalog.descriptor(name)
    if descriptor is None:
        raise CatalogException(f"Catalog {name} does not exist in the catalog store.")
    if "type" in operation.reset_keys:
        raise CatalogException("ALTER CATALOG RESET does not support changing 'type'")
    if "type" in operation.set_options and operation.set_options["type"] != descriptor.options.get("type"):
        raise CatalogException("ALTER CATALOG SET does not support changing 'type'")
    options = {**descriptor.options, **operation.set_options}
    for key in operation.reset_keys:
        options.pop(key, None)
    comment = operation.comment if operation.comment is not None else descriptor.comment
    catalog.alter_catalog(name, CatalogDescriptor(options, comment))


# -- SHOW -------------------------------------------------------------------------------------------


def like_pattern(pattern: str) -> re.Pattern[str]:
    """A SQL LIKE pattern as a regular expression: ``%`` any text, ``_`` one character, ``\\%``
    and ``\\_`` themselves (Flink's SHOW ... LIKE, case-sensitive)."""
    parts, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            parts.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        parts.append(".*" if char == "%" else "." if char == "_" else re.escape(char))
        i += 1
    return re.compile("".join(parts), re.DOTALL)


def _filtered(names: list[str], operation: ShowOperation) -> list[str]:
    if operation.like is None:
        return names
    pattern = like_pattern(operation.like)
    return [n for n in names if (pattern.fullmatch(n) is not None) != operation.not_like]


def _show(t_env: TableEnvironment, operation: ShowOperation) -> TableResult:
    """``SHOW ...``: a column of names (``SHOW COLUMNS``: DESCRIBE's rows; ``SHOW FULL MODULES``:
    each module and whether it is used)."""
    catalog, what = t_env._catalog, operation.what
    if what == "COLUMNS":
        return _describe_table(t_env, operation.scope or [], operation)
    if what == "FULL MODULES":
        rows = [(name, used) for name, used in t_env._modules.list_full_modules()]
        return _result(["module name", "used"], rows, [DataTypes.STRING(), DataTypes.BOOLEAN()])
    if what == "PROCEDURES":
        raise SqlError("millstream: SHOW PROCEDURES is not supported (no catalog here has procedures)")
    if what == "PARTITIONS":
        return _show_partitions(t_env, operation.scope or [])
    scope = operation.scope
    listed = {
        "CATALOGS": ("catalog name", lambda: catalog.list_catalogs()),
        "CURRENT CATALOG": ("current catalog name", lambda: [catalog.current_catalog]),
        "CURRENT DATABASE": ("current database name", lambda: [catalog.current_database]),
        "DATABASES": ("database name", lambda: catalog.list_databases(_one_part(scope, "catalog"))),
        "TABLES": ("table name", lambda: catalog.list_tables(*_database(t_env, scope))),
        "VIEWS": ("view name", lambda: catalog.list_views(*_database(t_env, scope))),
        "USER FUNCTIONS": (
            "function name",
            lambda: t_env._functions.user_function_names(*_database(t_env, scope)),
        ),
        "FUNCTIONS": (
            "function name",
            lambda: sorted(
                {*CORE_FUNCTIONS, *t_env._functions.user_function_names(*_database(t_env, scope))}
            ),
        ),
        "MODULES": ("module name", lambda: t_env._modules.list_modules()),
        "JARS": ("jars", list),
        "MODELS": ("model name", list),
        "MATERIALIZED TABLES": ("table name", list),
    }
    column, values = listed[what]
    return _result([column], [(v,) for v in _filtered(values(), operation)])


def _one_part(scope: list[str] | None, noun: str) -> str | None:
    if scope is not None and len(scope) != 1:
        raise SqlError(f"SQL parse failed. Expected a {noun} name, got: {'.'.join(scope)}")
    return scope[0] if scope else None


def _database(t_env: TableEnvironment, scope: list[str] | None) -> tuple[str | None, str | None]:
    """(catalog, database) of ``FROM [catalog.]database`` (None, None: the current ones)."""
    if not scope:
        return None, None
    if len(scope) > 2:
        raise SqlError(f"SQL parse failed. Expected [catalog.]database, got: {'.'.join(scope)}")
    catalog_name = scope[0] if len(scope) == 2 else t_env._catalog.current_catalog
    t_env._catalog.catalog(catalog_name)  # Flink's "Catalog c does not exist"
    return catalog_name, scope[-1]


def _show_partitions(t_env: TableEnvironment, path: list[str]) -> TableResult:
    """``SHOW PARTITIONS t``: none (the in-memory catalog keeps no partitions); refused for a
    table that is not partitioned, as Flink's."""
    identifier = t_env._catalog.qualify(path)
    found = t_env._catalog.get_table(identifier)
    if found is None:
        raise CatalogException(f"Table {identifier.as_summary_string()} does not exist.")
    if not found.descriptor.partition_keys:
        raise CatalogException(
            f"Could not execute SHOW PARTITIONS {identifier.as_summary_string()}: Table "
            f"{identifier.database_name}.{identifier.object_name} in catalog {identifier.catalog_name} "
            "is not "
            "partitioned."
        )
    return _result(["partition name"], [])


def _show_create(t_env: TableEnvironment, operation: ShowCreateOperation) -> str:
    catalog = t_env._catalog
    if operation.kind == "CATALOG":
        [name] = operation.path
        catalog.catalog(name)
        descriptor = catalog.descriptor(name)
        if descriptor is None:
            raise CatalogException(f"Cannot obtain metadata information from Catalog {name}.")
        return show_create_catalog(name, descriptor)
    if operation.kind not in ("TABLE", "VIEW"):
        raise SqlError(f"millstream: SHOW CREATE {operation.kind} is not supported")
    identifier = catalog.qualify(operation.path)
    found = catalog.get(identifier)
    if operation.kind == "TABLE":
        if found is None:
            raise CatalogException(
                f"Could not execute SHOW CREATE TABLE. Table with identifier {identifier} does not exist."
            )
        if isinstance(found, CatalogView):
            raise CatalogException(
                f"SHOW CREATE TABLE is only supported for tables, but {identifier} is a view. Please use "
                "SHOW "
                "CREATE VIEW instead."
            )
        return show_create_table(identifier, found)
    if found is None:
        raise CatalogException(
            f"Could not execute SHOW CREATE VIEW. View with identifier {identifier} does not exist."
        )
    if isinstance(found, CatalogTable):
        raise CatalogException(
            f"SHOW CREATE VIEW is only supported for views, but {identifier} is a table. Please use "
            "SHOW CREATE "
            "TABLE instead."
        )
    return show_create_view(identifier, found, catalog.is_temporary(identifier))


# -- DESCRIBE ---------------------------------------------------------------------------------------


def _describe_table(t_env: TableEnvironment, path: list[str], show: ShowOperation | None) -> TableResult:
    """``DESCRIBE t`` (and ``SHOW COLUMNS FROM t [[NOT] LIKE ...]``): a row per column."""
    identifier = t_env._catalog.qualify(path)
    found = t_env._catalog.get(identifier)
    if found is None:
        raise CatalogException(
            f"Tables or views with the identifier '{identifier.as_summary_string()}' doesn't exist."
        )
    names, rows = describe_rows(found)
    if show is not None:
        kept = set(_filtered([r[0] for r in rows], show))
        rows = [r for r in rows if r[0] in kept]
    types = [DataTypes.BOOLEAN() if n == "null" else DataTypes.STRING() for n in names]
    return _result(names, [tuple("" if v is None else v for v in row) for row in rows], types)


def _describe_catalog(t_env: TableEnvironment, operation: DescribeCatalogOperation) -> TableResult:
    """``DESCRIBE CATALOG [EXTENDED] c``: its name, type and comment (EXTENDED: its options)."""
    catalog = t_env._catalog
    catalog.catalog(operation.name)
    descriptor = catalog.descriptor(operation.name)
    if descriptor is None:  # default_catalog, or one registered as an object: not in the catalog store
        raise CatalogException(f"Cannot obtain metadata information from Catalog {operation.name}.")
    rows = [
        ("name", operation.name),
        ("type", descriptor.options.get("type", "")),
        ("comment", descriptor.comment or ""),
    ]
    if operation.extended:
        rows += [(f"option:{k}", v) for k, v in sorted(descriptor.options.items()) if k != "type"]
    return _result(["info name", "info value"], rows, [DataTypes.STRING(), DataTypes.STRING()])


def _describe_function(t_env: TableEnvironment, operation: DescribeFunctionOperation) -> TableResult:
    """``DESCRIBE FUNCTION [EXTENDED] f``: whether system, whether temporary and, for a user's
    function, its implementation, language and resources (EXTENDED: its kind and signature)."""
    found = t_env._functions.lookup(operation.path)
    if found is None:
        name = ".".join(quote(p) for p in operation.path)
        raise CatalogException(f"Function with the identifier '{name}' doesn't exist.")
    if found.definition is not None and found.function is None:
        raise CatalogException(f"Cannot instantiate user-defined function '{'.'.join(operation.path)}'.")
    rows: list[tuple[str, str]] = [
        ("is system function", str(found.system).lower()),
        ("is temporary", str(found.temporary).lower()),
    ]
    if found.definition is not None and not found.system:  # Flink shows none of a system function's
        rows += [
            ("class name", found.definition.class_name),
            ("function language", found.definition.language),
            ("resource uris", "[]"),
        ]
    if operation.extended and found.function is not None:
        rows += [
            ("kind", _function_kind(found.function)),
            ("requirements", "[]"),
            ("is deterministic", "true"),
            ("supports constant folding", "true"),
            ("signature", f"{found.name}(*)"),
        ]
    return _result(["info name", "info value"], rows, [DataTypes.STRING(), DataTypes.STRING()])


def _function_kind(function: Any) -> str:
    name = type(function).__name__
    if "Aggregate" in name:
        return "AGGREGATE"
    return "TABLE" if "Table" in name else "SCALAR"


def _result(
    names: list[str], rows: list[tuple[Any, ...]], types: list[DataType] | None = None
) -> TableResult:
    """A statement's rows, printed with columns as wide as their content, as Flink prints them."""
    types = types or [DataTypes.STRING()] * len(names)
    result = TableResult(names, types, iter([(INSERT, row) for row in rows]), False)
    result._content_widths = True
    return result
