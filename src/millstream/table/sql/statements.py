"""SQL statements on the Table API: ``sql_query`` / ``execute_sql`` (SELECT, INSERT,
CREATE / DROP TABLE, VIEW and FUNCTION, EXPLAIN, SHOW, USE).

sqlglot parses the statement (``sql_syntax``); the query modules turn its tree into the same
Table calls a Table API program makes (``sql_query``, ``sql_expressions``, ``sql_top_n``), so
SQL and the Table API share one planner. Types are Flink's: ``2.5`` is DECIMAL(2, 1)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from millstream.table.api.catalog import show_statement
from millstream.table.planner.explain import explain_plan
from millstream.table.sql.expressions import column_type
from millstream.table.sql.parser import _DIALECT, SqlError, _metadata_of, _parse
from millstream.table.sql.query import is_query, query

if TYPE_CHECKING:
    from millstream.table.api.table import Table
    from millstream.table.api.table_descriptor import TableDescriptor
    from millstream.table.api.table_environment import TableEnvironment
    from millstream.table.api.table_result import TableResult


__all__ = ["SqlError", "execute_statement", "parse_query"]  # SqlError: sql_syntax's


def _insert(t_env: TableEnvironment, tree: exp.Insert) -> Any:
    source = tree.expression
    if not is_query(source):
        raise SqlError("INSERT INTO needs a query (SELECT ...)")
    return t_env._sink_plan(query(t_env, source)._plan, tree.this.name)


def insert_plan(t_env: TableEnvironment, statement: str) -> Any:
    """The sink plan of ``INSERT INTO sink SELECT ...`` (a statement set's)."""
    tree = _parse(statement)
    if not isinstance(tree, exp.Insert):
        raise SqlError(f"add_insert_sql expects an INSERT statement, got: {statement.strip()[:80]}")
    return _insert(t_env, tree)


def parse_query(t_env: TableEnvironment, statement: str) -> Table:
    """The table a SELECT statement describes."""
    tree = _parse(statement)
    if not is_query(tree):
        raise SqlError(f"only queries (SELECT ...) are supported here, got: {statement.strip()[:80]}")
    return query(t_env, tree)


def execute_statement(t_env: TableEnvironment, statement: str) -> TableResult:
    """Run one statement: ``CREATE TABLE name (columns) WITH (options)`` (a connector table),
    ``INSERT INTO sink SELECT ...`` (its job starts), or a SELECT (its rows)."""
    from millstream.table.api.table_result import TableResult

    explain = _EXPLAIN.match(statement)
    if explain is not None:
        return TableResult.raw(_explain(t_env, explain))
    function = _CREATE_FUNCTION.match(statement) or _DROP_FUNCTION.match(statement)
    if function is not None:
        _function_statement(t_env, function)
        return TableResult.ok()
    shown = show_statement(t_env, statement)
    if shown is not None:
        return shown
    tree = _parse(statement)
    if is_query(tree):
        return query(t_env, tree).execute()
    if isinstance(tree, exp.Insert):
        return t_env._run_many([_insert(t_env, tree)])
    if isinstance(tree, exp.Create) and str(tree.args.get("kind", "")).upper() == "TABLE":
        properties = tree.args.get("properties")
        temporary = properties is not None and any(
            isinstance(p, exp.TemporaryProperty) for p in properties.expressions
        )
        name, descriptor = _table_definition(tree)
        exists = bool(tree.args.get("exists"))  # CREATE TABLE IF NOT EXISTS
        (t_env.create_temporary_table if temporary else t_env.create_table)(name, descriptor, exists)
        return TableResult.ok()
    if isinstance(tree, exp.Create) and str(tree.args.get("kind", "")).upper() == "VIEW":
        _create_view(t_env, tree)
        return TableResult.ok()
    if isinstance(tree, exp.Drop) and str(tree.args.get("kind", "")).upper() in ("VIEW", "TABLE"):
        _drop(t_env, tree)
        return TableResult.ok()
    raise SqlError(f"unsupported statement: {statement.strip()[:80]}")


def _create_view(t_env: TableEnvironment, tree: exp.Create) -> None:
    """``CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name [(columns)] AS query``: the query named,
    its columns renamed when listed. The name must be new unless IF NOT EXISTS, as Flink's."""
    target = tree.this
    columns = [c.name for c in target.expressions] if isinstance(target, exp.Schema) else []
    name = (target.this if isinstance(target, exp.Schema) else target).name
    if t_env._has_table(name):
        if tree.args.get("exists"):
            return
        raise SqlError(
            f"Could not execute CreateTable in path `default_catalog`.`default_database`.`{name}`: "
            f"Table (or view) default_database.{name} already exists in Catalog default_catalog."
        )
    source = tree.expression
    if not is_query(source):
        raise SqlError(f"CREATE VIEW needs AS SELECT ..., got: {tree.sql()[:80]}")
    table = query(t_env, source)
    if columns:
        if len(columns) != len(table._plan.names):
            raise SqlError(
                f"view '{name}' lists {len(columns)} columns, its query has {len(table._plan.names)}: "
                f"{table._plan.names}"
            )
        table = table.alias(*columns)
    t_env.create_temporary_view(name, table)


def _drop(t_env: TableEnvironment, tree: exp.Drop) -> None:
    """``DROP [TEMPORARY] VIEW|TABLE [IF EXISTS] name``."""
    kind = str(tree.args["kind"]).lower()
    for target in tree.args.get("tables") or [tree.this]:
        dropped = (
            t_env.drop_temporary_view(target.name)
            if kind == "view"
            else t_env.drop_temporary_table(target.name)
        )
        if not dropped and not tree.args.get("exists"):
            identifier = f"default_catalog.default_database.{target.name}"
            raise SqlError(f"{kind.capitalize()} with identifier '{identifier}' does not exist.")


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


def _function_statement(t_env: TableEnvironment, match: re.Match[str]) -> None:
    """``CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS] f AS 'module.udf' LANGUAGE
    PYTHON`` (the udf, udtf or udaf object of that module, imported as PyFlink imports it) and
    ``DROP [TEMPORARY [SYSTEM]] FUNCTION [IF EXISTS] f``."""
    import importlib

    from millstream.table.functions.udf import _REGISTERED

    name = match.group("name").replace("`", "").split(".")[-1]
    if "identifier" not in match.groupdict():  # DROP
        if not t_env.drop_temporary_function(name) and not match.group("exists"):
            raise SqlError(f"Function '{name}' does not exist (DROP FUNCTION IF EXISTS ignores it)")
        return
    language = (match.group("language") or "JAVA").upper()
    if language != "PYTHON":
        raise SqlError(
            f"CREATE FUNCTION {name} is LANGUAGE {language}: only LANGUAGE PYTHON functions run here (no JVM)"
        )
    if name.lower() in _REGISTERED:
        if match.group("exists"):
            return
        raise SqlError(f"Could not register function '{name}': a function of that name already exists")
    module_name, _, attribute = match.group("identifier").rpartition(".")
    try:
        function = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError, ValueError) as err:
        raise SqlError(f"CREATE FUNCTION {name}: cannot import '{match.group('identifier')}': {err}") from err
    t_env.create_temporary_function(name, function)


_EXPLAIN = re.compile(
    r"\s*EXPLAIN\s+(?:PLAN\s+FOR\s+)?"
    r"((?:(?:ESTIMATED_COST|CHANGELOG_MODE|PLAN_ADVICE|JSON_EXECUTION_PLAN)\s*,?\s*)*)(.*)",
    re.IGNORECASE | re.DOTALL,
)


def _explain(t_env: TableEnvironment, match: re.Match[str]) -> str:
    """``EXPLAIN [PLAN FOR] [CHANGELOG_MODE, ...] <SELECT or INSERT>``: the statement's plan."""
    details = {d.strip().upper() for d in match.group(1).split(",") if d.strip()}
    return explain_statement(t_env, match.group(2), "CHANGELOG_MODE" in details)


def explain_statement(t_env: TableEnvironment, statement: str, changelog_mode: bool) -> str:
    """The plan of a SELECT or INSERT statement, as Flink's ``explainSql`` prints it."""
    tree = _parse(statement)
    if is_query(tree):
        plan = query(t_env, tree)._plan
    elif isinstance(tree, exp.Insert):
        plan = _insert(t_env, tree)
    else:
        raise SqlError(f"EXPLAIN supports SELECT and INSERT statements, got: {statement.strip()[:80]}")
    return explain_plan(plan, t_env.get_config(), changelog_mode)


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


def _add_column(builder: Any, column: exp.Expression, primary_key: list[str]) -> None:
    """One item of a CREATE TABLE's column list: a physical, computed or metadata column, or
    the primary key (its columns NOT NULL, as Flink's DDL makes them)."""
    key = _primary_key(column)
    if key is not None and not isinstance(column, exp.ColumnDef):
        name, columns = key
        builder.primary_key_named(name, *columns) if name else builder.primary_key(*columns)
        return
    if not isinstance(column, exp.ColumnDef):
        raise SqlError(f"not supported yet in CREATE TABLE: {column.sql()}")
    constraints = [c.args.get("kind") for c in column.args.get("constraints") or []]
    computed = [c for c in constraints if isinstance(c, exp.ComputedColumnConstraint)]
    if computed:
        builder.column_by_expression(column.name, computed[0].this.sql(dialect=_DIALECT))
        return
    metadata = _metadata_of(column)
    if metadata is not None:
        builder.column_by_metadata(column.name, column_type(column), *metadata)
        return
    if key is not None:
        builder.primary_key(column.name)
    data_type = column_type(column)
    builder.column(column.name, data_type.not_null() if column.name in primary_key else data_type)


def _table_definition(tree: exp.Create) -> tuple[str, TableDescriptor]:
    from millstream.table.api.schema import Schema
    from millstream.table.api.table_descriptor import TableDescriptor

    target = tree.this
    if not isinstance(target, exp.Schema):
        raise SqlError("CREATE TABLE needs its columns")
    builder = Schema.new_builder()
    watermarks = [c for c in target.expressions if isinstance(c, exp.WatermarkColumnConstraint)]
    keys = [_primary_key(c) for c in target.expressions]
    primary_key = next((k[1] for k in keys if k is not None), [])
    for column in target.expressions:
        if column not in watermarks:
            _add_column(builder, column, primary_key)
    for watermark in watermarks:  # WATERMARK FOR column AS expression (as written)
        builder.watermark(watermark.this.name, watermark.expression.this)
    options: dict[str, str] = {}
    partition_keys: list[str] = []
    properties = tree.args.get("properties")
    for prop in properties.expressions if properties is not None else []:
        if isinstance(prop, exp.PartitionedByProperty):  # PARTITIONED BY (dt, hr)
            partition_keys = [c.name for c in prop.this.expressions]
            continue
        key = prop.this.this if isinstance(prop.this, exp.Literal) else prop.name
        value = prop.args.get("value")
        options[str(key)] = str(value.this if isinstance(value, exp.Literal) else value)
    connector = options.pop("connector", None)
    if connector is None:
        raise SqlError(f"table '{target.this.name}' needs WITH ('connector' = ...)")
    descriptor = TableDescriptor.for_connector(connector).schema(builder.build())
    for key, value in options.items():
        descriptor.option(key, value)
    return target.this.name, descriptor.partitioned_by(*partition_keys).build()
