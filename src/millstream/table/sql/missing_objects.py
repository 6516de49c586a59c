"""What Flink's validator (Calcite's ``IdentifierNamespace``) says of a table name that names
no table or view, from the catalogs as they are and the current catalog and database::

    tt              Object 'tt' not found
    T               Object 'T' not found within 'default_catalog.default_database'; did you mean 't'?
    db2.tt          Object 'tt' not found within 'default_catalog.db2'
    db3.tt          Object 'db3' not found
    cat2.nodb.tt    Object 'nodb' not found within 'cat2'
    DB2.u           Object 'DB2' not found within 'default_catalog'; did you mean 'db2'?

A name's parts are looked up below each schema on Calcite's path, the current database first,
then the current catalog, then the root (the catalogs): the path under which most of the
leading parts name a catalog or database says where the name stops resolving. Calcite's
"did you mean" is a name that resolves when its parts' case is ignored, along one path only.
"""

from __future__ import annotations

from millstream.table.catalog.catalog_manager import CatalogManager

__all__ = ["object_not_found"]


def _children(catalog: CatalogManager, schema: list[str]) -> list[str]:
    """The names directly below ``schema``: the catalogs below the root, a catalog's databases,
    a database's tables and views (temporary ones included)."""
    if not schema:
        return catalog.list_catalogs()
    if catalog.get_catalog(schema[0]) is None:
        return []
    if len(schema) == 1:
        return catalog.list_databases(schema[0])
    if len(schema) == 2 and schema[1] in catalog.list_databases(schema[0]):
        return catalog.list_tables(schema[0], schema[1])
    return []


def _walk(catalog: CatalogManager, root: list[str], parts: list[str], fold: bool) -> list[str]:
    """The names ``parts`` resolve to below ``root`` part by part (the prefix that resolves;
    ``fold``: a part matches a name whatever its case, when exactly one does)."""
    resolved: list[str] = []
    for part in parts:
        children = _children(catalog, root + resolved)
        if part in children:
            resolved.append(part)
            continue
        folded = [c for c in children if c.lower() == part.lower()] if fold else []
        if len(folded) != 1:
            break
        resolved.append(folded[0])
    return resolved


def object_not_found(catalog: CatalogManager, parts: list[str]) -> str:
    """Flink's message for ``parts`` (``t``, ``db.t`` or ``catalog.db.t``), which name nothing."""
    roots = [[catalog.current_catalog, catalog.current_database], [catalog.current_catalog], []]
    for root in roots:  # Calcite's suggestion: the name resolves along one path ignoring case
        folded = _walk(catalog, root, parts, fold=True)
        if len(folded) == len(parts) and len(root) + len(parts) == 3:
            stop = next(i for i, (p, f) in enumerate(zip(parts, folded, strict=True)) if p != f)
            within = ".".join(root + folded[:stop])
            return f"Object '{parts[stop]}' not found within '{within}'; did you mean '{folded[stop]}'?"
    root, resolved = max(
        ((root, _walk(catalog, root, parts, fold=False)) for root in roots), key=lambda pair: len(pair[1])
    )
    missing = parts[len(resolved)] if len(resolved) < len(parts) else parts[-1]
    if not resolved:
        return f"Object '{missing}' not found"
    return f"Object '{missing}' not found within '{'.'.join(root + resolved)}'"
