"""SQL statements to operations (Flink's ``SqlToOperationConverter``): every statement of Flink's
SQL reference either becomes the ``Operation`` the TableEnvironment executes
(``sql/operations.py``) or is refused in one line naming it (``millstream: ANALYZE TABLE is not
supported``), as Flink's own ``executeSql`` refuses the SQL client's statements (``SET``,
``BEGIN STATEMENT SET``, ``SHOW JOBS`` ...).

The statement's first words choose its parser: queries and INSERT go to sqlglot with the Flink
dialect (``sql/parser.py``) and the query modules, which turn its tree into plans with the
planner's builder, the one the Table API uses (``sql/query.py``, ``sql/expressions.py``); the
DDL and catalog statements are read token by token (``sql/statement_tokens.py``) by
``sql/statements_table.py`` (CREATE TABLE with LIKE and AS, views, DROP),
``sql/statements_alter.py`` (ALTER TABLE), ``sql/statements_function.py`` (functions) and
``sql/statements_catalog.py`` (catalogs, databases, USE, modules, SHOW, DESCRIBE). Types are
Flink's: ``2.5`` is DECIMAL(2, 1).
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from millstream.table.catalog.catalog import CatalogException
from millstream.table.catalog.catalog_manager import CatalogManager
from millstream.table.planner.nodes import PlanNode
from millstream.table.sql.context import SqlContext
from millstream.table.sql.errors import sql_statement
from millstream.table.sql.insert import insert_plan
from millstream.table.sql.operations import (
    ExplainOperation,
    InsertOperation,
    Operation,
    QueryOperation,
    StatementSetOperation,
)
from millstream.table.sql.parser import SqlError, _parse
from millstream.table.sql.query import is_query, plan_select, query
from millstream.table.sql.statement_tokens import StatementTokens
from millstream.table.sql.statements_alter import alter_table
from millstream.table.sql.statements_catalog import (
    catalog_ddl,
    database_ddl,
    describe_statement,
    module_statement,
    show_statement,
    use_statement,
)
from millstream.table.sql.statements_function import function_ddl
from millstream.table.sql.statements_refused import refused_statement
from millstream.table.sql.statements_table import alter_view, create_table, create_view, drop_table_or_view

__all__ = ["SqlError", "explain_operation", "insert_operation", "query_operation", "statement_operation"]


def _context(catalog: CatalogManager, batch: bool) -> SqlContext:
    return SqlContext(catalog, batch, plan_select)


@sql_statement
def insert_operation(catalog: CatalogManager, batch: bool, statement: str) -> InsertOperation:
    """``INSERT INTO sink SELECT ...`` (a statement set's): its sink plan."""
    tree = _parse(statement)
    if not isinstance(tree, exp.Insert):
        raise SqlError(f"add_insert_sql expects an INSERT statement, got: {statement.strip()[:80]}")
    return InsertOperation(insert_plan(_context(catalog, batch), tree))


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
    connector table), ``INSERT INTO sink SELECT ...`` (a job), a SELECT (its rows), ``SHOW
    TABLES`` (a list) ...

    Raises:
        SqlError: the statement is not supported, or not valid.
    """
    try:
        return _statement_operation(_context(catalog, batch), statement)
    except CatalogException as err:  # a name that does not resolve: the statement's error
        raise SqlError(str(err)) from err


def _statement_operation(ctx: SqlContext, statement: str) -> Operation:
    tokens = StatementTokens(statement)
    refusal = refused_statement(ctx, tokens)
    if refusal is not None:
        raise refusal
    handler = _VERBS.get(tokens.word())
    if handler is None:
        return _dml(ctx, statement)
    tokens.skip()
    return handler(ctx, tokens)


def _dml(ctx: SqlContext, statement: str) -> Operation:
    """A query or an INSERT, parsed by the dialect."""
    tree = _parse(statement)
    if is_query(tree):
        return _query_operation(ctx, tree)
    if isinstance(tree, exp.Insert):
        return InsertOperation(insert_plan(ctx, tree))
    raise SqlError(f"unsupported statement: {statement.strip()[:80]}")


def _create(ctx: SqlContext, tokens: StatementTokens) -> Operation:
    """``CREATE ...`` (CREATE read)."""
    or_replace = tokens.accept("OR", "REPLACE")
    ahead = tokens.word(1) if tokens.at("TEMPORARY") else tokens.word()
    if ahead == "SYSTEM":
        ahead = tokens.word(2)
    if ahead == "TABLE":
        return create_table(ctx, tokens, replace=False, or_replace=or_replace)
    if or_replace:
        raise SqlError(
            f"millstream: CREATE OR REPLACE {ahead} is not supported (only CREATE OR REPLACE TABLE ... AS)"
        )
    if ahead == "VIEW":
        return create_view(ctx, tokens)
    if ahead == "FUNCTION":
        return function_ddl(tokens, "CREATE")
    if ahead == "CATALOG":
        return catalog_ddl(tokens, "CREATE")
    if ahead in ("DATABASE", "SCHEMA"):
        return database_ddl(tokens, "CREATE")
    raise _unsupported("CREATE", ahead)


def _unsupported(verb: str, noun: str) -> SqlError:
    """The refusal of ``verb noun`` (``CREATE MODEL``, ``DROP MATERIALIZED TABLE`` ...)."""
    return SqlError(f"millstream: {verb} {noun}{' TABLE' if noun == 'MATERIALIZED' else ''} is not supported")


def _replace(ctx: SqlContext, tokens: StatementTokens) -> Operation:
    """``REPLACE TABLE name WITH (...) AS query`` (REPLACE read)."""
    return create_table(ctx, tokens, replace=True, or_replace=False)


def _alter(ctx: SqlContext, tokens: StatementTokens) -> Operation:
    """``ALTER ...`` (ALTER read)."""
    ahead = tokens.word(1) if tokens.at("TEMPORARY") else tokens.word()
    if ahead == "SYSTEM":
        ahead = tokens.word(2)
    if ahead == "TABLE":
        tokens.skip()
        return alter_table(ctx, tokens)
    if ahead == "VIEW":
        tokens.skip()
        return alter_view(ctx, tokens)
    if ahead == "FUNCTION":
        return function_ddl(tokens, "ALTER")
    if ahead == "CATALOG":
        return catalog_ddl(tokens, "ALTER")
    if ahead == "DATABASE":
        return database_ddl(tokens, "ALTER")
    raise _unsupported("ALTER", ahead)


def _drop(ctx: SqlContext, tokens: StatementTokens) -> Operation:
    """``DROP ...`` (DROP read)."""
    ahead = tokens.word(1) if tokens.at("TEMPORARY") else tokens.word()
    if ahead == "SYSTEM":
        ahead = tokens.word(2)
    if ahead in ("TABLE", "VIEW"):
        return drop_table_or_view(ctx, tokens)
    if ahead == "FUNCTION":
        return function_ddl(tokens, "DROP")
    if ahead == "CATALOG":
        return catalog_ddl(tokens, "DROP")
    if ahead in ("DATABASE", "SCHEMA"):
        return database_ddl(tokens, "DROP")
    raise _unsupported("DROP", ahead)


def _execute(ctx: SqlContext, tokens: StatementTokens) -> Operation:
    """``EXECUTE STATEMENT SET BEGIN INSERT ...; ... END`` (one job), ``EXECUTE INSERT ...`` or
    ``EXECUTE SELECT ...`` (EXECUTE read)."""
    if tokens.accept("STATEMENT", "SET"):
        return StatementSetOperation(_statement_set(ctx, tokens))
    if tokens.at("PLAN"):
        raise SqlError("millstream: EXECUTE PLAN is not supported (no compiled plans here)")
    return _dml(ctx, tokens.rest_in_place())


def _statement_set(ctx: SqlContext, tokens: StatementTokens) -> list[PlanNode]:
    """``BEGIN INSERT ...; INSERT ...; END``: each INSERT's sink plan (STATEMENT SET read).

    Raises:
        SqlError: no INSERT, a statement that is no INSERT, or one not ended by ``;``.
    """
    tokens.expect("BEGIN")
    plans: list[PlanNode] = []
    while not (plans and tokens.at("END")):
        if not tokens.at("INSERT"):
            raise tokens.error()
        start, last_end = tokens.position(), None
        while not tokens.at_end() and tokens.word() != ";":
            last_end = tokens.index if tokens.word() == "END" else last_end
            tokens.skip()
        if tokens.at_end():  # an INSERT not ended by ';': Flink's parser stops at the END after it
            tokens.index = last_end if last_end is not None else tokens.index
            raise tokens.error()
        text = tokens.rest_in_place(start, tokens.position())
        tokens.skip()  # ;
        tree = _parse(text)
        if not isinstance(tree, exp.Insert):
            raise SqlError(f"a statement set holds INSERT statements only, got: {text.strip()[:80]}")
        plans.append(insert_plan(ctx, tree))
    tokens.expect("END")
    tokens.expect_end()
    return plans


def _explain(ctx: SqlContext, tokens: StatementTokens) -> Operation:
    """``EXPLAIN [PLAN FOR] [detail, ...] <query or INSERT>`` (EXPLAIN read): the statement's
    plan; the detail CHANGELOG_MODE adds each node's changelog mode, the others are refused."""
    tokens.accept("PLAN", "FOR")
    details = []
    while tokens.word() in _EXPLAIN_DETAILS:
        details.append(tokens.word())
        tokens.skip()
        tokens.accept(",")
    refused = [d for d in details if d != "CHANGELOG_MODE"]
    if refused:
        raise SqlError(
            f"millstream: EXPLAIN {refused[0]} is not supported (EXPLAIN prints the plan, with "
            "CHANGELOG_MODE "
            "its changelog modes)"
        )
    if tokens.at("STATEMENT", "SET") or tokens.at("EXECUTE"):
        raise SqlError("millstream: EXPLAIN STATEMENT SET is not supported (explain each INSERT)")
    return explain_operation(ctx.catalog, ctx.batch, tokens.rest_in_place(), "CHANGELOG_MODE" in details)


_EXPLAIN_DETAILS = ("ESTIMATED_COST", "CHANGELOG_MODE", "PLAN_ADVICE", "JSON_EXECUTION_PLAN")


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
        plan = insert_plan(ctx, tree)
    else:
        raise SqlError(f"EXPLAIN supports SELECT and INSERT statements, got: {statement.strip()[:80]}")
    return ExplainOperation(plan, changelog_mode)


def _describe(ctx: SqlContext, tokens: StatementTokens) -> Operation:
    return describe_statement(tokens)


_VERBS: dict[str, Callable[[SqlContext, StatementTokens], Operation]] = {
    "CREATE": _create,
    "REPLACE": _replace,
    "ALTER": _alter,
    "DROP": _drop,
    "EXECUTE": _execute,
    "EXPLAIN": _explain,
    "SHOW": lambda ctx, tokens: show_statement(tokens),
    "DESCRIBE": _describe,
    "DESC": _describe,
    "USE": lambda ctx, tokens: use_statement(tokens),
    "LOAD": lambda ctx, tokens: module_statement(tokens, "LOAD"),
    "UNLOAD": lambda ctx, tokens: module_statement(tokens, "UNLOAD"),
}
