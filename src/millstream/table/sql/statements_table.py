"""``CREATE TABLE`` (with ``LIKE`` and ``AS`` query), ``CREATE VIEW``, ``ALTER VIEW`` and ``DROP
TABLE | VIEW`` to their operations, as Flink's ``SqlCreateTableConverter`` and
``SqlToOperationConverter`` make them: names qualified by the current catalog and database, a
LIKE clause merged with its source table (``sql/statements_like.py``), a view's query planned.

The statement's head (``CREATE [OR REPLACE] [TEMPORARY] TABLE [IF NOT EXISTS] name``) is read
token by token; the columns and options are parsed by the dialect (``sql/parser.py``), the
LIKE clause and the AS query cut off first at their top-level keyword.
"""

from __future__ import annotations

from sqlglot import exp

from millstream.table.catalog.catalog import CatalogTable, CatalogView
from millstream.table.catalog.object_identifier import ObjectIdentifier
from millstream.table.planner import builder
from millstream.table.sql.context import SqlContext
from millstream.table.sql.operations import (
    AlterViewOperation,
    CreateTableAsOperation,
    CreateTableOperation,
    CreateViewOperation,
    DropOperation,
    NoOperation,
    Operation,
    RenameOperation,
)
from millstream.table.sql.parser import SqlError, _parse
from millstream.table.sql.query import is_query, query
from millstream.table.sql.statement_tokens import StatementTokens
from millstream.table.sql.statements_like import like_options, merge_like
from millstream.table.sql.statements_schema import TableShape, from_catalog_table, from_create

__all__ = ["alter_view", "create_table", "create_view", "drop_table_or_view"]


def _top_level(tokens: StatementTokens, *words: str) -> int | None:
    """The index of the first token at parenthesis depth 0, from the current one on, that is
    one of ``words``."""
    depth = 0
    for i in range(tokens.index, len(tokens.tokens)):
        text = tokens.tokens[i].text.upper()
        depth += {"(": 1, ")": -1}.get(text, 0)
        if depth == 0 and text in words and tokens.tokens[i].token_type.name not in ("STRING", "IDENTIFIER"):
            return i
    return None


def create_table(ctx: SqlContext, tokens: StatementTokens, replace: bool, or_replace: bool) -> Operation:
    """``[CREATE [OR REPLACE] | REPLACE] [TEMPORARY] TABLE [IF NOT EXISTS] name ...`` (the verb
    and OR REPLACE read; ``replace``: the statement replaces a table (RTAS), ``or_replace``: it
    may)."""
    start = tokens.index
    temporary = tokens.accept("TEMPORARY")
    tokens.expect("TABLE")
    exists = tokens.accept("IF", "NOT", "EXISTS")
    path = tokens.compound_name()
    identifier = ctx.catalog.qualify(path)
    cut = _top_level(tokens, "LIKE", "AS")
    end = tokens.tokens[cut].start if cut is not None else len(tokens.sql)
    head = "CREATE " + tokens.sql[tokens.tokens[start].start : end]  # without OR REPLACE, LIKE, AS
    tree = _parse(head)
    if not isinstance(tree, exp.Create):
        raise SqlError(f"SQL parse failed: not a CREATE TABLE statement: {head[:80]}")
    derived = from_create(tree)
    if cut is not None and tokens.tokens[cut].text.upper() == "AS":
        tokens.index = cut + 1
        return _create_table_as(
            ctx, tokens, identifier, derived, temporary, exists, replace or or_replace, replace
        )
    if replace or or_replace:
        raise SqlError("SQL parse failed. CREATE OR REPLACE TABLE and REPLACE TABLE need AS <query> (RTAS)")
    if cut is not None:  # LIKE source [(options)]
        tokens.index = cut + 1
        derived = _like(ctx, tokens, derived)
    table = derived.declaration()
    return CreateTableOperation(identifier, table, temporary, exists)


def _like(ctx: SqlContext, tokens: StatementTokens, derived: TableShape) -> TableShape:
    """The table LIKE its source: the source's name and options read, the two merged."""
    position = tokens.position()
    source_path = tokens.compound_name()
    strategies = like_options(tokens)
    tokens.expect_end()
    source_identifier = ctx.catalog.qualify(source_path)
    source = ctx.catalog.get(source_identifier)
    line = tokens.sql.count("\n", 0, position) + 1
    column = position - (tokens.sql.rfind("\n", 0, position) + 1) + 1
    if isinstance(source, CatalogView):
        raise SqlError(
            f"Source table '{source_identifier}' of the LIKE clause can not be a VIEW, at line {line}, "
            f"column {column}"
        )
    if not isinstance(source, CatalogTable):
        raise SqlError(
            f"Source table '{source_identifier}' of the LIKE clause not found in the catalog, at line "
            f"{line}, "
            f"column {column}"
        )
    return merge_like(from_catalog_table(source), derived, strategies)


def _create_table_as(
    ctx: SqlContext,
    tokens: StatementTokens,
    identifier: ObjectIdentifier,
    derived: TableShape,
    temporary: bool,
    exists: bool,
    replace: bool,
    must_exist: bool,
) -> Operation:
    """``CREATE [OR REPLACE] TABLE name WITH (...) AS query`` (``REPLACE TABLE``): the table of
    the query's columns, the query written into it (Flink's CTAS and RTAS)."""
    verb = "REPLACE TABLE AS SELECT" if replace else "CREATE TABLE AS SELECT"
    if temporary:
        raise SqlError(f"{verb} syntax does not support to create temporary table yet.")
    if derived.columns or derived.watermark is not None or derived.primary_key is not None:
        raise SqlError(
            f"millstream: {verb} with a column list is not supported: the table's columns are the query's"
        )
    if must_exist and ctx.catalog.get_table(identifier) is None:
        raise SqlError(
            f"The table {identifier} to be replaced doesn't exist. You can try to use CREATE TABLE AS "
            "statement "
            "or CREATE OR REPLACE TABLE AS statement."
        )
    source = _parse(tokens.rest_in_place())
    if not is_query(source):
        raise SqlError(f"{verb} needs a query after AS, got: {tokens.rest()[:80]}")
    plan = query(ctx, source)
    shape = TableShape(
        partition_keys=derived.partition_keys, options=dict(derived.options), comment=derived.comment
    )
    declaration = shape.declaration()
    declaration.schema.extend(("column", (n, t)) for n, t in zip(plan.names, plan.types, strict=True))
    create = CreateTableOperation(identifier, declaration, False, exists)
    return CreateTableAsOperation(create, plan, replace)


def create_view(ctx: SqlContext, tokens: StatementTokens) -> Operation:
    """``CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name [(columns)] [COMMENT '...'] AS query``
    (CREATE read)."""
    temporary = tokens.accept("TEMPORARY")
    tokens.expect("VIEW")
    exists = tokens.accept("IF", "NOT", "EXISTS")
    identifier = ctx.catalog.qualify(tokens.compound_name())
    columns: list[str] = []
    if tokens.accept("("):
        while True:
            columns.append(tokens.name())
            if tokens.accept("COMMENT"):
                tokens.string()
            if tokens.accept(")"):
                break
            tokens.expect(",")
    comment = tokens.string() if tokens.accept("COMMENT") else None
    tokens.expect("AS")
    text = tokens.rest()
    if exists and ctx.catalog.get(identifier) is not None:
        return NoOperation()
    plan = _view_plan(ctx, tokens.rest_in_place())
    if columns:
        if len(columns) != len(plan.names):
            raise SqlError(
                f"view '{identifier.object_name}' lists {len(columns)} columns, its query has "
                f"{len(plan.names)}: {plan.names}"
            )
        plan = builder.alias(plan, columns)
    return CreateViewOperation(identifier, plan, temporary, exists, text, comment)


def _view_plan(ctx: SqlContext, text: str) -> builder.PlanNode:
    source = _parse(text)
    if not is_query(source):
        raise SqlError(f"CREATE VIEW needs AS SELECT ..., got: {text.strip()[:80]}")
    return query(ctx, source)


def alter_view(ctx: SqlContext, tokens: StatementTokens) -> Operation:
    """``ALTER VIEW name RENAME TO new_name`` or ``ALTER VIEW name AS query`` (ALTER VIEW read)."""
    identifier = ctx.catalog.qualify(tokens.compound_name())
    if tokens.accept("RENAME", "TO"):
        new_name = _new_name(ctx, identifier, tokens.compound_name())
        tokens.expect_end()
        return RenameOperation(identifier, new_name, view=True)
    tokens.expect("AS")
    found = None if ctx.catalog.is_temporary(identifier) else ctx.catalog.get(identifier)
    if isinstance(found, CatalogTable):  # checked before the query, as Flink's
        raise SqlError("ALTER VIEW for a table is not allowed")
    if found is None:
        raise SqlError(f"View {identifier} doesn't exist or is a temporary view.")
    return AlterViewOperation(identifier, _view_plan(ctx, tokens.rest_in_place()), tokens.rest())


def _new_name(ctx: SqlContext, identifier: ObjectIdentifier, path: list[str]) -> str:
    """The new name of a RENAME TO, which stays in its catalog and database.

    Raises:
        SqlError: the new name names another catalog or database.
    """
    target = ctx.catalog.qualify(path)
    if (target.catalog_name, target.database_name) != (identifier.catalog_name, identifier.database_name):
        raise SqlError(
            f"The catalog name and database name of the new table name must be the same as the old one: "
            f"{identifier} -> {target}"
        )
    return target.object_name


def drop_table_or_view(ctx: SqlContext, tokens: StatementTokens) -> Operation:
    """``DROP [TEMPORARY] TABLE | VIEW [IF EXISTS] name`` (DROP read)."""
    temporary = tokens.accept("TEMPORARY")
    kind = "view" if tokens.accept("VIEW") else "table"
    if kind == "table":
        tokens.expect("TABLE")
    exists = tokens.accept("IF", "EXISTS")
    identifier = ctx.catalog.qualify(tokens.compound_name())
    tokens.expect_end()
    return DropOperation(kind, [identifier], exists, temporary)
