"""SQL statements to operations (Flink's ``SqlToOperationConverter``): SELECT, INSERT, CREATE /
DROP TABLE, VIEW and FUNCTION, EXPLAIN, SHOW and USE, each made the ``Operation`` the
TableEnvironment executes (``sql/operations.py``).

sqlglot parses the statement (``sql/parser.py``); the query modules turn its tree into plans
with the planner's builder, the one the Table API uses (``sql/query.py``, ``sql/expressions.py``,
``sql/top_n.py``), so SQL and the Table API share one planner. Types are Flink's: ``2.5`` is
DECIMAL(2, 1)."""

from __future__ import annotations

import importlib
import re
from typing import Any

from sqlglot import exp

from millstream.table.catalog.catalog_manager import CatalogManager
from millstream.table.functions.udf import _REGISTERED
from millstream.table.planner import builder
from millstream.table.planner.nodes import PlanNode
from millstream.table.sql.context import SqlContext
from millstream.table.sql.errors import sql_statement
from millstream.table.sql.expressions import column_type
from millstream.table.sql.insert import insert_plan
from millstream.table.sql.operations import (
    CreateFunctionOperation,
    CreateTableOperation,
    CreateViewOperation,
    DropFunctionOperation,
    DropOperation,
    ExplainOperation,
    InsertOperation,
    NoOperation,
    Operation,
    QueryOperation,
    ShowOperation,
    UseOperation,
)
from millstream.table.sql.parser import _DIALECT, SqlError, _metadata_of, _parse
from millstream.table.sql.query import is_query, plan_select, query

__all__ = ["SqlError", "insert_operation", "query_operation", "statement_operation"]  # SqlError: parser's


def _context(catalog: CatalogManager, batch: bool) -> SqlContext:
    return SqlContext(catalog, batch, plan_select)


def _insert(ctx: SqlContext, tree: exp.Insert) -> PlanNode:
    return insert_plan(ctx, tree)  # INSERT INTO t [(columns)] SELECT ... | VALUES ...


@sql_statement
def insert_operation(catalog: CatalogManager, batch: bool, statement: str) -> InsertOperation:
    """``INSERT INTO sink SELECT ...`` (a statement set's): its sink plan."""
    tree = _parse(statement)
    if not isinstance(tree, exp.Insert):
        raise SqlError(f"add_insert_sql expects an INSERT statement, got: {statement.strip()[:80]}")
    return InsertOperation(_insert(_context(catalog, batch), tree))


@sql_statement
def query_operation(catalog: CatalogManager, batch: bool, statement: str) -> QueryOperation:
    """The plan of a SELECT statement."""
    tree = _parse(statement)
    if not is_query(tree):
        raise SqlError(f"only queries (SELECT ...) are supported here, got: {statement.strip()[:80]}")
    return _query_operation(_context(catalog, batch), tree)


def _query_operation(ctx: SqlContext, tree: exp.Expression) -> QueryOperation:
    """A query's operation; a bare NULL among its columns is refused as Calcite refuses it (it
    has no type: ``SELECT NULL``; ``SELECT CAST(NULL AS INT)`` is fine)."""
    if isinstance(tree, exp.Select) and any(isinstance(e.unalias(), exp.Null) for e in tree.expressions):
        raise SqlError("Illegal use of 'NULL'")
    return QueryOperation(query(ctx, tree))


@sql_statement
def statement_operation(catalog: CatalogManager, batch: bool, statement: str) -> Operation:
    """The operation of one statement: ``CREATE TABLE name (columns) WITH (options)`` (a
    connector table), ``INSERT INTO sink SELECT ...`` (a job), a SELECT (its rows) ...

    Raises:
        SqlError: the statement is not supported, or not valid.
    """
    ctx = _context(catalog, batch)
    explain = _EXPLAIN.match(statement)
    if explain is not None:
        return _explain(ctx, explain)
    function = _CREATE_FUNCTION.match(statement) or _DROP_FUNCTION.match(statement)
    if function is not None:
        return _function_statement(function)
    shown = _show_statement(statement)
    if shown is not None:
        return shown
    tree = _parse(statement)
    if is_query(tree):
        return _query_operation(ctx, tree)
    if isinstance(tree, exp.Insert):
        return InsertOperation(_insert(ctx, tree))
    if isinstance(tree, exp.Create) and str(tree.args.get("kind", "")).upper() == "TABLE":
        return _create_table(tree)
    if isinstance(tree, exp.Create) and str(tree.args.get("kind", "")).upper() == "VIEW":
        return _create_view(ctx, tree)
    if isinstance(tree, exp.Drop) and str(tree.args.get("kind", "")).upper() in ("VIEW", "TABLE"):
        kind = str(tree.args["kind"]).lower()
        names = [target.name for target in tree.args.get("tables") or [tree.this]]
        return DropOperation(kind, names, bool(tree.args.get("exists")))
    raise SqlError(f"unsupported statement: {statement.strip()[:80]}")


def _create_view(ctx: SqlContext, tree: exp.Create) -> Operation:
    """``CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name [(columns)] AS query``: the query named,
    its columns renamed when listed. The name must be new unless IF NOT EXISTS, as Flink's."""
    target = tree.this
    columns = [c.name for c in target.expressions] if isinstance(target, exp.Schema) else []
    name = (target.this if isinstance(target, exp.Schema) else target).name
    if ctx.catalog.has_table(name):
        if tree.args.get("exists"):
            return NoOperation()
        raise SqlError(
            f"Could not execute CreateTable in path `default_catalog`.`default_database`.`{name}`: "
            f"Table (or view) default_database.{name} already exists in Catalog default_catalog."
        )
    source = tree.expression
    if not is_query(source):
        raise SqlError(f"CREATE VIEW needs AS SELECT ..., got: {tree.sql()[:80]}")
    plan = query(ctx, source)
    if columns:
        if len(columns) != len(plan.names):
            raise SqlError(
                f"view '{name}' lists {len(columns)} columns, its query has {len(plan.names)}: {plan.names}"
            )
        plan = builder.alias(plan, columns)
    return CreateViewOperation(name, plan)


_CREATE_FUNCTION = re.compile(
    r"\s*CREATE\s+(?:TEMPORARY\s+(?:SYSTEM\s+)?)?FUNCTION\s+(?P<exists>IF\s+NOT\s+EXISTS\s+)?"
    r"(?P<name>[\w.`]+)\s+AS\s+'(?P<identifier>[^']+)'(?:\s+LANGUAGE\s+(?P<language>\w+))?\s*;?\s*$",
    re.IGNORECASE,
)


_DROP_FUNCTION = re.compile(
    r"\s*DROP\s+(?:TEMPORARY\s+(?:SYSTEM\s+)?)?FUNCTION\s+(?P<exists>IF\s+EXISTS\s+)?"
    r"(?P<name>[\w.`]+)\s*;?\s*$",
    re.IGNORECASE,
)


def _function_statement(match: re.Match[str]) -> Operation:
    """``CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS] f AS 'module.udf' LANGUAGE
    PYTHON`` (the udf, udtf or udaf object of that module, imported as PyFlink imports it) and
    ``DROP [TEMPORARY [SYSTEM]] FUNCTION [IF EXISTS] f``."""
    name = match.group("name").replace("`", "").split(".")[-1]
    if "identifier" not in match.groupdict():  # DROP
        return DropFunctionOperation(name, bool(match.group("exists")))
    language = (match.group("language") or "JAVA").upper()
    if language != "PYTHON":
        raise SqlError(
            f"CREATE FUNCTION {name} is LANGUAGE {language}: only LANGUAGE PYTHON functions run here (no JVM)"
        )
    if name.lower() in _REGISTERED:
        if match.group("exists"):
            return NoOperation()
        raise SqlError(f"Could not register function '{name}': a function of that name already exists")
    module_name, _, attribute = match.group("identifier").rpartition(".")
    try:
        function = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError, ValueError) as err:
        raise SqlError(f"CREATE FUNCTION {name}: cannot import '{match.group('identifier')}': {err}") from err
    return CreateFunctionOperation(name, function)


_EXPLAIN = re.compile(
    r"\s*EXPLAIN\s+(?:PLAN\s+FOR\s+)?"
    r"((?:(?:ESTIMATED_COST|CHANGELOG_MODE|PLAN_ADVICE|JSON_EXECUTION_PLAN)\s*,?\s*)*)(.*)",
    re.IGNORECASE | re.DOTALL,
)


def _explain(ctx: SqlContext, match: re.Match[str]) -> ExplainOperation:
    """``EXPLAIN [PLAN FOR] [CHANGELOG_MODE, ...] <SELECT or INSERT>``: the statement's plan."""
    details = {d.strip().upper() for d in match.group(1).split(",") if d.strip()}
    # the statement explained where EXPLAIN's words were blanks: its errors' positions are the whole text's
    prefix = re.sub(r"[^\n]", " ", match.string[: match.start(2)])
    return explain_operation(ctx.catalog, ctx.batch, prefix + match.group(2), "CHANGELOG_MODE" in details)


@sql_statement
def explain_operation(
    catalog: CatalogManager, batch: bool, statement: str, changelog_mode: bool
) -> ExplainOperation:
    """The plan of a SELECT or INSERT statement to explain, as Flink's ``explainSql`` prints it."""
    ctx = _context(catalog, batch)
    tree = _parse(statement)
    if is_query(tree):
        plan = query(ctx, tree)
    elif isinstance(tree, exp.Insert):
        plan = _insert(ctx, tree)
    else:
        raise SqlError(f"EXPLAIN supports SELECT and INSERT statements, got: {statement.strip()[:80]}")
    return ExplainOperation(plan, changelog_mode)


_SHOW = re.compile(
    r"\s*SHOW\s+(?P<what>CATALOGS|DATABASES|TABLES|VIEWS|CURRENT\s+CATALOG|CURRENT\s+DATABASE)\s*;?\s*$",
    re.IGNORECASE,
)
_USE = re.compile(r"\s*USE\s+(?P<catalog>CATALOG\s+)?`?(?P<name>[\w.]+)`?\s*;?\s*$", re.IGNORECASE)


def _show_statement(statement: str) -> Operation | None:
    """The operation of a SHOW or USE statement, or None when ``statement`` is neither."""
    show = _SHOW.match(statement)
    if show is not None:
        return ShowOperation(" ".join(show.group("what").upper().split()))
    use = _USE.match(statement)
    if use is not None:
        name = use.group("name")
        if use.group("catalog"):
            return UseOperation(name)
        catalog, _, database = name.rpartition(".")
        return UseOperation(catalog or None, database)
    return None


def _primary_key(column: exp.Expression) -> tuple[str | None, list[str]] | None:
    """(constraint name or None, columns) of a CREATE TABLE item that declares the primary key:
    ``PRIMARY KEY (a, b)``, ``CONSTRAINT name PRIMARY KEY (a)``, ``a INT PRIMARY KEY``."""
    if isinstance(column, exp.PrimaryKey):
        return None, [c.name for c in column.expressions]
    if isinstance(column, exp.Constraint) and [type(e) for e in column.expressions] == [exp.PrimaryKey]:
        return column.name, [c.name for c in column.expressions[0].expressions]
    if isinstance(column, exp.ColumnDef) and any(
        isinstance(c.args.get("kind"), exp.PrimaryKeyColumnConstraint)
        for c in column.args.get("constraints") or []
    ):
        return None, [column.name]
    return None


def _column(column: exp.Expression, primary_key: list[str]) -> list[tuple[str, tuple[Any, ...]]]:
    """The schema declarations of one item of a CREATE TABLE's column list: a physical,
    computed or metadata column, or the primary key (its columns NOT NULL, as Flink's DDL makes
    them)."""
    key = _primary_key(column)
    if key is not None and not isinstance(column, exp.ColumnDef):
        name, columns = key
        return [("primary_key_named", (name, *columns))] if name else [("primary_key", tuple(columns))]
    if not isinstance(column, exp.ColumnDef):
        raise SqlError(f"not supported yet in CREATE TABLE: {column.sql()}")
    constraints = [c.args.get("kind") for c in column.args.get("constraints") or []]
    computed = [c for c in constraints if isinstance(c, exp.ComputedColumnConstraint)]
    if computed:
        return [("column_by_expression", (column.name, computed[0].this.sql(dialect=_DIALECT)))]
    metadata = _metadata_of(column)
    if metadata is not None:
        return [("column_by_metadata", (column.name, column_type(column), *metadata))]
    declared: list[tuple[str, tuple[Any, ...]]] = [("primary_key", (column.name,))] if key is not None else []
    data_type = column_type(column)
    return [
        *declared,
        ("column", (column.name, data_type.not_null() if column.name in primary_key else data_type)),
    ]


def _create_table(tree: exp.Create) -> CreateTableOperation:
    """``CREATE [TEMPORARY] TABLE [IF NOT EXISTS] name (columns) [PARTITIONED BY (...)] WITH (...)``.

    Raises:
        SqlError: no columns, or no connector.
    """
    target = tree.this
    if not isinstance(target, exp.Schema):
        raise SqlError("CREATE TABLE needs its columns")
    watermarks = [c for c in target.expressions if isinstance(c, exp.WatermarkColumnConstraint)]
    keys = [_primary_key(c) for c in target.expressions]
    primary_key = next((k[1] for k in keys if k is not None), [])
    schema: list[tuple[str, tuple[Any, ...]]] = []
    for column in target.expressions:
        if column not in watermarks:
            schema += _column(column, primary_key)
    for watermark in watermarks:  # WATERMARK FOR column AS expression (as written)
        schema.append(("watermark", (watermark.this.name, watermark.expression.this)))
    options: dict[str, str] = {}
    partition_keys: list[str] = []
    properties = tree.args.get("properties")
    for prop in properties.expressions if properties is not None else []:
        if isinstance(prop, exp.PartitionedByProperty):  # PARTITIONED BY (dt, hr)
            partition_keys = [c.name for c in prop.this.expressions]
            continue
        if isinstance(prop, exp.TemporaryProperty):
            continue
        key = prop.this.this if isinstance(prop.this, exp.Literal) else prop.name
        value = prop.args.get("value")
        options[str(key)] = str(value.this if isinstance(value, exp.Literal) else value)
    connector = options.pop("connector", None)
    if connector is None:
        raise SqlError(f"table '{target.this.name}' needs WITH ('connector' = ...)")
    temporary = properties is not None and any(
        isinstance(p, exp.TemporaryProperty) for p in properties.expressions
    )
    exists = bool(tree.args.get("exists"))  # CREATE TABLE IF NOT EXISTS
    return CreateTableOperation(
        target.this.name, connector, schema, options, partition_keys, temporary, exists
    )
