"""SQL queries on the Table API: ``sql_query`` / ``execute_sql`` (SELECT).

sqlglot parses the statement (backquoted identifiers, as Flink's SQL); this module turns
its AST into the same Table calls a Table API program makes, so SQL and the Table API share
one planner::

    SELECT [DISTINCT] items FROM view | (subquery) [AS x] [WHERE c] [GROUP BY keys [HAVING h]]

Unaliased computed items are named ``EXPR$<position>`` as Flink's SQL names them (a column
keeps its name). Types are Flink's except for approximate numeric literals: ``2.5`` is a
DOUBLE here (Flink's is DECIMAL(2, 1)).
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects.spark import Spark

from millstream.table.binary_row import BinaryRowKeyType
from millstream.table.catalog import show_statement
from millstream.table.expressions import (
    AggregateCall,
    Expression,
    UserAggregateCall,
    _FieldAccess,
    and_,
    col,
    if_then_else,
    lit,
    not_,
    or_,
)
from millstream.table.functions import call_builtin
from millstream.table.sql_forms import special_form
from millstream.table.types import DataType, DataTypes
from millstream.table.window_agg import WindowSpec

if TYPE_CHECKING:
    from millstream.table.planner import PlanNode
    from millstream.table.table import Table
    from millstream.table.table_descriptor import TableDescriptor
    from millstream.table.table_environment import TableEnvironment
    from millstream.table.table_result import TableResult

__all__ = ["SqlError", "execute_statement", "parse_query"]


# calls whose Spark meaning differs from Flink's: parsed as plain calls of the built-ins
# (Spark's REGEXP_EXTRACT defaults to group 1, Flink's to 0, the whole match)
_PLAIN_CALLS = {"DATE_FORMAT", "REGEXP_EXTRACT"} | {
    # Flink built-ins sqlglot would turn into its own nodes (with Spark's argument orders and
    # defaults): their names as written, their arguments in order
    "TRUNCATE", "TRUNC", "LOCATE", "INSTR", "LEFT", "RIGHT", "REGEXP", "TO_DATE", "IF",
    "CARDINALITY", "ELEMENT", "LOG", "LOG2", "ATAN2", "HEX", "BIN", "MD5", "SHA1", "SHA256",
    "TO_BASE64", "FROM_BASE64", "UUID", "ASCII", "DAYOFWEEK", "DAYOFYEAR", "WEEK", "QUARTER",
    "RAND", "RAND_INTEGER", "DEGREES", "RADIANS", "COT", "SINH", "COSH", "TANH", "NOW",
    "STARTSWITH", "ENDSWITH", "FROM_UNIXTIME", "UNIX_TIMESTAMP", "ARRAY_APPEND", "ARRAY_PREPEND",
    "ARRAY_CONCAT", "ARRAY_REMOVE", "ARRAY_SORT", "ARRAY_JOIN", "STR_TO_MAP", "YEAR", "MONTH",
    "DAYOFMONTH", "MAP_FROM_ARRAYS",
}  # fmt: skip


class _FlinkSql(Spark):
    """Spark's dialect (backquoted identifiers and Flink's operators; CAST arrives as TryCast),
    with DATE_FORMAT left a plain call: Flink's pattern (Java's ``yyyy-MM-dd``) reaches the
    built-in as written. sqlglot's Spark mapping of the pattern turned ``yyyy-MM-dd`` into
    ``%Y-%mstrict-%dstrict`` (sqlglot 30). REGEXP_EXTRACT likewise (``_PLAIN_CALLS``)."""

    class Parser(Spark.Parser):  # type: ignore[misc,valid-type]
        FUNCTIONS = {name: f for name, f in Spark.Parser.FUNCTIONS.items() if name not in _PLAIN_CALLS}


_DIALECT = _FlinkSql


class SqlError(ValueError):
    """A statement that could not be parsed or is not supported (yet)."""


_TVFS = {"TUMBLE", "HOP", "CUMULATE", "SESSION"}


def _flink_syntax(statement: str) -> tuple[str, list[tuple[str, str]]]:  # noqa: C901 - one case per form
    """Flink SQL's own syntax rewritten into what sqlglot parses, by token positions:
    ``TABLE(TUMBLE(TABLE t, ...))`` -> ``TABLE(MS_TUMBLE(t, ...))``, ``GROUP BY TUMBLE(ts, ...)``
    -> ``MS_GW_TUMBLE(ts, ...)``, ``TABLE t PARTITION BY k`` -> ``t, MS_PARTITION_BY(k)``,
    ``NOT ENFORCED`` dropped, Flink's type names as sqlglot's (``_type_name``), and
    ``WATERMARK FOR c AS expr`` taken out of a CREATE TABLE (returned as (column, expression
    text) pairs)."""
    from sqlglot.dialects.spark import Spark
    from sqlglot.tokens import TokenType

    try:
        tokens = Spark().tokenize(statement)
    except sqlglot.errors.TokenError as err:
        raise SqlError(f"SQL parse failed: {err}") from err
    edits: list[tuple[int, int, str]] = []  # (start, end exclusive, replacement)
    watermarks: list[tuple[str, str]] = []
    depth = 0
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        text = tok.text.upper()
        depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(tok.token_type, 0)
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        prev = tokens[i - 1] if i else None
        after_table = i >= 2 and tokens[i - 2].token_type == TokenType.TABLE
        if text in _TVFS and nxt is not None and nxt.token_type == TokenType.L_PAREN:
            # TABLE(TUMBLE(...)) is a window TVF; GROUP BY TUMBLE(ts, ...) a legacy group window
            table_function = prev is not None and prev.token_type == TokenType.L_PAREN and after_table
            edits.append((tok.start, tok.end + 1, f"MS_{text}" if table_function else f"MS_GW_{text}"))
        elif tok.token_type == TokenType.TABLE and prev is not None and prev.text in ("(", ","):
            if nxt is not None and nxt.token_type != TokenType.L_PAREN:
                edits.append((tok.start, nxt.start, ""))
        elif tok.token_type == TokenType.PARTITION_BY and after_table:
            i = _partition_by(statement, tokens, i, edits)
        elif text == "NOT" and nxt is not None and nxt.text.upper() == "ENFORCED":
            edits.append((tok.start, nxt.end + 1, ""))
            i += 1
        elif text == "WATERMARK" and nxt is not None and nxt.text.upper() == "FOR" and depth == 1:
            i = _watermark_clause(statement, tokens, i, edits, watermarks)
        elif text == "METADATA" and depth == 1 and prev is not None and prev.text not in (",", "("):
            i = _metadata_clause(tokens, i, edits)
        elif text in ("TIMESTAMPADD", "TIMESTAMPDIFF") and i + 2 < len(tokens):
            i = _timestamp_unit(tokens, i, edits)
        elif text == "JSON_VALUE" and nxt is not None and nxt.token_type == TokenType.L_PAREN:
            _json_value_returning(statement, tokens, i, edits)
        elif _type_name(tok, nxt, depth) is not None:
            edits.append((tok.start, tok.end + 1, str(_type_name(tok, nxt, depth))))
        i += 1
    for start, end, replacement in sorted(edits, reverse=True):
        statement = statement[:start] + replacement + statement[end:]
    return statement, watermarks


def _json_value_returning(
    statement: str, tokens: list[Any], i: int, edits: list[tuple[int, int, str]]
) -> None:
    """``JSON_VALUE(j, path RETURNING t [NULL ON EMPTY] [NULL ON ERROR])`` ->
    ``TRY_CAST(JSON_VALUE(j, path) AS t)``: the value converted, NULL when it is missing or does
    not convert (Flink's defaults, NULL ON EMPTY and NULL ON ERROR)."""
    from sqlglot.tokens import TokenType

    depth, returning = 0, None
    for j in range(i + 1, len(tokens)):
        kind = tokens[j].token_type
        depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(kind, 0)
        if depth == 1 and tokens[j].text.upper() == "RETURNING":
            returning = j
        if depth == 0:
            if returning is None:
                return
            rest = statement[tokens[returning].end + 1 : tokens[j].start]
            on = re.search(r"\b(NULL|ERROR|DEFAULT)\s+ON\b", rest, re.IGNORECASE)
            type_text = (rest[: on.start()] if on else rest).strip()
            tail = rest[on.start() :] if on else ""
            if re.sub(r"NULL\s+ON\s+(EMPTY|ERROR)", "", tail, flags=re.IGNORECASE).strip():
                raise SqlError(f"JSON_VALUE(... {tail.strip()}) is not supported: only NULL ON EMPTY / ERROR")
            edits.append((tokens[i].start, tokens[i].end + 1, "TRY_CAST(JSON_VALUE"))
            edits.append((tokens[returning].start, tokens[j].start, ""))
            edits.append((tokens[j].end + 1, tokens[j].end + 1, f" AS {type_text})"))
            return


def _timestamp_unit(tokens: list[Any], i: int, edits: list[tuple[int, int, str]]) -> int:
    """``TIMESTAMPADD(DAY, ...)`` / ``TIMESTAMPDIFF(HOUR, ...)`` -> ``__TIMESTAMPADD('DAY', ...)``
    (sqlglot reads Flink's argument order otherwise); returns the index of the unit token."""
    tok, unit = tokens[i], tokens[i + 2]
    edits.append((tok.start, unit.end + 1, f"__{tok.text.upper()}('{unit.text.upper()}'"))
    return i + 2


def _type_name(tok: Any, nxt: Any, depth: int) -> str | None:
    """sqlglot's name of a Flink type name: BYTES is BINARY, ``ROW<f type, ...>`` is
    ``STRUCT<f type, ...>``; None for any other token."""
    from sqlglot.tokens import TokenType

    text = tok.text.upper()
    if text == "BYTES" and tok.token_type == TokenType.VAR and depth >= 1:
        return "BINARY"
    if text == "ROW" and nxt is not None and nxt.token_type == TokenType.LT:
        return "STRUCT"
    return None


def _partition_by(statement: str, tokens: list[Any], i: int, edits: list[tuple[int, int, str]]) -> int:
    """``PARTITION BY k`` / ``PARTITION BY (k1, k2)`` of a TVF's table argument; returns the
    index of its last token."""
    from sqlglot.tokens import TokenType

    tok, nxt = tokens[i], tokens[i + 1]
    if nxt.token_type == TokenType.L_PAREN:
        close = next(j for j in range(i + 1, len(tokens)) if tokens[j].token_type == TokenType.R_PAREN)
        inner = statement[tokens[i + 2].start : tokens[close - 1].end + 1]
        edits.append((tok.start, tokens[close].end + 1, f", MS_PARTITION_BY({inner})"))
        return close
    edits.append((tok.start, nxt.end + 1, f", MS_PARTITION_BY({nxt.text})"))
    return i + 1


_METADATA_MARK = "\x00metadata "


def _metadata_clause(tokens: list[Any], i: int, edits: list[tuple[int, int, str]]) -> int:
    """``METADATA [FROM 'key'] [VIRTUAL]`` after a column's type, rewritten into a column
    comment sqlglot parses (read back by ``_metadata_of``); returns its last token's index."""
    from sqlglot.tokens import TokenType

    key, end = "", i
    if end + 2 < len(tokens) and tokens[end + 1].token_type == TokenType.FROM:
        key, end = tokens[end + 2].text, end + 2
    virtual = end + 1 < len(tokens) and tokens[end + 1].text.upper() == "VIRTUAL"
    end += 1 if virtual else 0
    mark = f"{_METADATA_MARK}{'virtual' if virtual else 'persisted'} {key}".replace("'", "''")
    edits.append((tokens[i].start, tokens[end].end + 1, f"COMMENT '{mark}'"))
    return end


def _metadata_of(column: exp.ColumnDef) -> tuple[str | None, bool] | None:
    """(metadata key or None for the column's name, virtual) of a METADATA column."""
    for constraint in column.args.get("constraints") or []:
        kind = constraint.args.get("kind")
        if isinstance(kind, exp.CommentColumnConstraint) and kind.this.this.startswith(_METADATA_MARK):
            virtual, _, key = kind.this.this[len(_METADATA_MARK) :].partition(" ")
            return key or None, virtual == "virtual"
    return None


def _watermark_clause(
    statement: str,
    tokens: list[Any],
    i: int,
    edits: list[tuple[int, int, str]],
    watermarks: list[tuple[str, str]],
) -> int:
    """Take ``WATERMARK FOR column AS expression`` out of a column list; returns the index of
    the token before the comma or parenthesis that ends it."""
    from sqlglot.tokens import TokenType

    column = tokens[i + 2].text
    j = i + 4  # after AS
    level = 0
    while j < len(tokens):
        kind = tokens[j].token_type
        if (kind == TokenType.R_PAREN and level == 0) or (kind == TokenType.COMMA and level == 0):
            break
        level += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(kind, 0)
        j += 1
    watermarks.append((column, statement[tokens[i + 4].start : tokens[j - 1].end + 1]))
    prev = tokens[i - 1]
    start = prev.start if prev.token_type == TokenType.COMMA else tokens[i].start
    end = tokens[j].start if tokens[j].token_type == TokenType.R_PAREN else tokens[j].end + 1
    edits.append((start, end, ""))
    return j - 1


def _parse(statement: str) -> tuple[Any, list[tuple[str, str]]]:
    text, watermarks = _flink_syntax(statement)
    try:
        return sqlglot.parse_one(text, read=_DIALECT), watermarks
    except sqlglot.errors.ParseError as err:
        raise SqlError(f"SQL parse failed: {err}") from err


def _insert(t_env: TableEnvironment, tree: exp.Insert) -> Any:
    query = tree.expression
    if not isinstance(query, exp.Select):
        raise SqlError("INSERT INTO needs a SELECT")
    return t_env._sink_plan(_select(t_env, query)._plan, tree.this.name)


def insert_plan(t_env: TableEnvironment, statement: str) -> Any:
    """The sink plan of ``INSERT INTO sink SELECT ...`` (a statement set's)."""
    tree, _ = _parse(statement)
    if not isinstance(tree, exp.Insert):
        raise SqlError(f"add_insert_sql expects an INSERT statement, got: {statement.strip()[:80]}")
    return _insert(t_env, tree)


def flink_text(text: str) -> str:
    """An SQL expression as Flink prints it in a schema (identifiers quoted)."""
    tree, _ = _parse(f"SELECT {text}")
    assert isinstance(tree, exp.Select)
    return str(tree.expressions[0].sql(dialect=_DIALECT, identify=True))


def parse_expression(text: str) -> Expression:
    """An SQL scalar expression (computed columns, watermark expressions)."""
    tree, _ = _parse(f"SELECT {text}")
    assert isinstance(tree, exp.Select)
    return _expression(tree.expressions[0])


def watermark_delay_ms(text: str, rowtime: str) -> int | None:
    """``d`` when the watermark expression is ``rowtime - INTERVAL d`` (or ``rowtime``, 0): a
    bounded out-of-orderness watermark; None for any other expression."""
    tree, _ = _parse(f"SELECT {text}")
    assert isinstance(tree, exp.Select)
    node = tree.expressions[0]
    if isinstance(node, exp.Column) and node.name.lower() == rowtime.lower():
        return 0
    if (
        isinstance(node, exp.Sub)
        and isinstance(node.this, exp.Column)
        and node.this.name.lower() == rowtime.lower()
        and isinstance(node.expression, exp.Interval)
    ):
        return _interval_ms(node.expression)
    return None


def parse_query(t_env: TableEnvironment, statement: str) -> Table:
    """The table a SELECT statement describes."""
    tree, _ = _parse(statement)
    if not isinstance(tree, exp.Select):
        raise SqlError(f"only SELECT queries are supported here, got: {statement.strip()[:80]}")
    return _select(t_env, tree)


def execute_statement(t_env: TableEnvironment, statement: str) -> TableResult:
    """Run one statement: ``CREATE TABLE name (columns) WITH (options)`` (a connector table),
    ``INSERT INTO sink SELECT ...`` (its job starts), or a SELECT (its rows)."""
    from millstream.table.table_result import TableResult

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
    tree, watermarks = _parse(statement)
    if isinstance(tree, exp.Select):
        return _select(t_env, tree).execute()
    if isinstance(tree, exp.Insert):
        return t_env._run_many([_insert(t_env, tree)])
    if isinstance(tree, exp.Create) and str(tree.args.get("kind", "")).upper() == "TABLE":
        properties = tree.args.get("properties")
        temporary = properties is not None and any(
            isinstance(p, exp.TemporaryProperty) for p in properties.expressions
        )
        name, descriptor = _table_definition(tree, watermarks)
        (t_env.create_temporary_table if temporary else t_env.create_table)(name, descriptor)
        return TableResult.ok()
    if isinstance(tree, exp.Create) and str(tree.args.get("kind", "")).upper() == "VIEW":
        _create_view(t_env, tree)
        return TableResult.ok()
    if isinstance(tree, exp.Drop) and str(tree.args.get("kind", "")).upper() in ("VIEW", "TABLE"):
        _drop(t_env, tree)
        return TableResult.ok()
    raise SqlError(f"unsupported statement: {statement.strip()[:80]}")


def _columnar(t_env: TableEnvironment) -> bool:
    value = t_env.get_config().get("table.exec.columnar.enabled", None)
    return value is None or str(value).lower() != "false"


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
    query = tree.expression
    if not isinstance(query, (exp.Select, exp.Subquery)):
        raise SqlError(f"CREATE VIEW needs AS SELECT ..., got: {tree.sql()[:80]}")
    table = _select(t_env, query.this if isinstance(query, exp.Subquery) else query)
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

    from millstream.table.udf import _REGISTERED

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
    from millstream.table.explain import explain_text

    details = {d.strip().upper() for d in match.group(1).split(",") if d.strip()}
    tree, _ = _parse(match.group(2))
    if isinstance(tree, exp.Select):
        plan = _select(t_env, tree)._plan
    elif isinstance(tree, exp.Insert):
        plan = _insert(t_env, tree)
    else:
        raise SqlError(f"EXPLAIN supports SELECT and INSERT statements, got: {match.group(2).strip()[:80]}")
    return explain_text(plan, "CHANGELOG_MODE" in details, _columnar(t_env))


def _add_column(builder: Any, column: exp.Expression) -> None:
    """One item of a CREATE TABLE's column list: a physical, computed or metadata column, or
    the primary key."""
    if isinstance(column, exp.PrimaryKey):
        builder.primary_key(*(c.name for c in column.expressions))
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
        builder.column_by_metadata(column.name, _data_type(column.args["kind"]), *metadata)
        return
    if any(isinstance(c, exp.PrimaryKeyColumnConstraint) for c in constraints):
        builder.primary_key(column.name)
    builder.column(column.name, _data_type(column.args["kind"]))


def _table_definition(tree: exp.Create, watermarks: list[tuple[str, str]]) -> tuple[str, TableDescriptor]:
    from millstream.table.schema import Schema
    from millstream.table.table_descriptor import TableDescriptor

    target = tree.this
    if not isinstance(target, exp.Schema):
        raise SqlError("CREATE TABLE needs its columns")
    builder = Schema.new_builder()
    for column in target.expressions:
        _add_column(builder, column)
    for column_name, expression in watermarks:
        builder.watermark(column_name, expression)
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


@dataclass
class _Windowed:
    """A window TVF in FROM: the table it windows, the window and its time column."""

    table: Table
    spec: WindowSpec
    time_column: int


def _from_item(t_env: TableEnvironment, node: exp.Expression) -> tuple[Table, _Windowed | None]:
    if isinstance(node, exp.Subquery):
        return _select(t_env, node.this), None
    if (
        isinstance(node, exp.Table)
        and isinstance(node.this, exp.Anonymous)
        and node.this.name.upper() == "TABLE"
    ):
        return _window_tvf(t_env, node.this.expressions[0])
    if isinstance(node, exp.Table):
        if node.args.get("version") is not None:
            # never run as a regular join: that would join every version, not the one valid then
            raise SqlError(
                f"FOR SYSTEM_TIME AS OF on table '{node.name}' (a temporal join) is not supported "
                "yet; millstream refuses it rather than join every version of the table"
            )
        return t_env.from_path(node.name), None
    if isinstance(node, exp.Values):
        return _values(t_env, node), None
    raise SqlError(f"unsupported FROM: {node.sql()}")


def _values(t_env: TableEnvironment, node: exp.Values) -> Table:
    """``(VALUES (1, 'a'), (2, 'b')) AS t(x, y)``: the rows as a table (columns ``EXPR$0`` ...
    unless named); a column's type is its first non-NULL value's, nullable when one is NULL."""
    from millstream.table.planner import Values
    from millstream.table.table import Table as TableClass

    rows: list[tuple[Any, ...]] = []
    typed: list[list[DataType]] = []
    for row in node.expressions:
        items = row.expressions if isinstance(row, exp.Tuple) else [row]
        compiled = [_expression(item).resolve([], []) for item in items]
        rows.append(tuple(c.fn(()) for c in compiled))
        typed.append([c.data_type for c in compiled])
    width = len(rows[0]) if rows else 0
    if any(len(r) != width for r in rows):
        raise SqlError(f"the rows of VALUES differ in length: {node.sql()[:80]}")
    alias = node.args.get("alias")
    names = [c.name for c in alias.columns] if alias is not None and alias.columns else []
    names = names or [f"EXPR${i}" for i in range(width)]
    types = []
    for i in range(width):
        known = [t[i] for t in typed if t[i].root != "NULL"]
        column = known[0] if known else DataTypes.NULL()
        types.append(column.nullable() if any(r[i] is None for r in rows) else column)
    return TableClass(Values(names, types, False, rows, label="Values"), t_env)


def _interval_ms(node: exp.Expression) -> int:
    from millstream.table.expressions import interval_millis

    return interval_millis(_expression(node))


def _window_tvf(t_env: TableEnvironment, call: exp.Expression) -> tuple[Table, _Windowed]:
    """``TUMBLE(t, DESCRIPTOR(ts), size [, offset])``, ``HOP(t, DESCRIPTOR(ts), slide, size)``,
    ``CUMULATE(t, DESCRIPTOR(ts), step, size)``, ``SESSION(t [PARTITION BY k], DESCRIPTOR(ts), gap)``."""
    from millstream.table.table import Table
    from millstream.table.window_agg import WindowTVF, tvf_columns, window_time_column

    name = call.name.upper().removeprefix("MS_")
    args = list(call.expressions)
    if name not in _TVFS or len(args) < 3:
        raise SqlError(f"unsupported table function in FROM: {call.sql()}")
    source = args.pop(0)
    table, _ = _from_item(
        t_env, source if not isinstance(source, exp.Column) else exp.Table(this=source.this)
    )
    if args and isinstance(args[0], exp.Anonymous) and args[0].name.upper() == "MS_PARTITION_BY":
        args.pop(0)  # a session's partition keys: its GROUP BY keys group it
    descriptor = args.pop(0)
    if not (isinstance(descriptor, exp.Anonymous) and descriptor.name.upper() == "DESCRIPTOR"):
        raise SqlError(f"{name} needs DESCRIPTOR(time_column) as its second argument")
    time_name = descriptor.expressions[0].name
    plan = table._plan
    if time_name not in plan.names:
        raise SqlError(f"Column '{time_name}' not found in {name}'s input {plan.names}")
    time_column = plan.names.index(time_name)
    sizes = [_interval_ms(a) for a in args]
    if name == "TUMBLE":
        spec = WindowSpec("TUMBLE", sizes[0], 0, sizes[1] if len(sizes) > 1 else 0)
    elif name in ("HOP", "CUMULATE"):
        spec = WindowSpec(name, sizes[1], sizes[0], sizes[2] if len(sizes) > 2 else 0)
    else:
        spec = WindowSpec("SESSION", sizes[0])
    if not window_time_column(plan, time_column, t_env._batch):
        raise SqlError(
            "The window function requires the timecol is a time attribute type, but is "
            f"{plan.types[time_column]!r}"
        )
    names, types = tvf_columns(plan, time_column)
    node = WindowTVF(
        names,
        types,
        False,
        plan,
        spec,
        time_column,
        rowtime=len(names) - 1,
        window=(len(names) - 3, len(names) - 2),
    )
    return Table(node, t_env), _Windowed(table, spec, time_column)


# the column names visible to the expressions being converted: (table alias, column) and
# unqualified names, to the column of the current input (joins rename clashing columns)
_SCOPES: list[dict[tuple[str | None, str], str]] = []


def _column_name(node: exp.Column) -> str:
    name = node.name
    if not _SCOPES:
        return name
    scope = _SCOPES[-1]
    qualifier = node.table or None
    if (qualifier, name) in scope:
        return scope[(qualifier, name)]
    if qualifier is not None:
        raise SqlError(f"Column '{qualifier}.{name}' not found in any table")
    return name


# Flink's functions written without parentheses that sqlglot reads as column names
_NILADIC = {"LOCALTIMESTAMP": "LOCALTIMESTAMP", "LOCALTIME": "CURRENT_TIME", "CURRENT_ROW_TIMESTAMP": "NOW"}


def _is_map_constructor(node: exp.Expression) -> bool:
    """``MAP`` before ``[...]``: the constructor, unless a column of that name is in scope."""
    if not (isinstance(node, exp.Column) and not node.table and node.name.upper() == "MAP"):
        return False
    return not node.this.quoted and (None, node.name) not in (_SCOPES[-1] if _SCOPES else {})


def _column_ref(node: exp.Column) -> Expression:
    """A column, ``alias.column``, or a field of a ROW column: ``person.name``,
    ``P.person.name`` (a qualifier that names no table but a column of ROW type)."""
    parts = [p.name for p in node.parts]
    niladic = len(parts) == 1 and parts[0].upper() in _NILADIC and not node.this.quoted
    if niladic and (None, parts[0]) not in (_SCOPES[-1] if _SCOPES else {}):  # LOCALTIMESTAMP: a call
        return call_builtin(_NILADIC[parts[0].upper()])
    if len(parts) == 1:
        return col(_column_name(node))
    scope = _SCOPES[-1] if _SCOPES else None
    if scope is not None and (parts[0], parts[1]) in scope:  # alias.column[.field ...]
        base, fields = scope[(parts[0], parts[1])], parts[2:]
    elif scope is None or (None, parts[0]) in scope:  # column.field[.field ...]
        base, fields = scope[(None, parts[0])] if scope is not None else parts[0], parts[1:]
    else:
        raise SqlError(f"Column '{parts[0]}.{parts[1]}' not found in any table")
    result = col(base)
    for name in fields:
        result = _FieldAccess(result, name, sql_name=True)
    return result


def _scope_of(table: Table, alias: str | None) -> dict[tuple[str | None, str], str]:
    names = table.get_schema().get_field_names()
    scope: dict[tuple[str | None, str], str] = {(None, n): n for n in names}
    if alias:
        scope.update({(alias, n): n for n in names})
    return scope


def _alias_of(node: exp.Expression) -> str | None:
    alias = node.alias_or_name if hasattr(node, "alias_or_name") else None
    return alias or None


def _source(t_env: TableEnvironment, select: exp.Select) -> tuple[Table, _Windowed | None]:
    """The FROM clause: a table, view, subquery or window TVF, joined with the JOINs and
    LATERAL TABLEs after it. Sets the column scope for the rest of the query."""
    source = select.args.get("from_") or select.args.get("from")
    if source is None:  # SELECT 1 + 1: over one row of no columns, as Flink's VALUES
        from millstream.table.planner import Values
        from millstream.table.table import Table as TableClass

        table, windowed = TableClass(Values([], [], False, [()], label="Values"), t_env), None
        _SCOPES.append(_scope_of(table, None))
        return table, windowed
    table, windowed = _from_item(t_env, source.this)
    scope = _scope_of(table, _alias_of(source.this))
    _SCOPES.append(scope)
    joins = select.args.get("joins") or []
    for i, join in enumerate(joins):
        where = select.args.get("where")
        if isinstance(join.this, (exp.Lateral, exp.Unnest)):
            table = _lateral(t_env, table, join, scope)
        else:
            implicit = join.args.get("on") is None and i == len(joins) - 1 and where is not None
            table = _join(t_env, table, join, scope, where.this if implicit and where is not None else None)
            if implicit:  # FROM a, b WHERE a.k = b.k: the WHERE is the join's condition
                select.set("where", None)
        windowed = None
    return table, windowed


def _join(
    t_env: TableEnvironment,
    left: Table,
    join: exp.Join,
    scope: dict[tuple[str | None, str], str],
    implicit_condition: exp.Expression | None,
) -> Table:
    """``left [INNER | LEFT | RIGHT | FULL] JOIN right ON condition``; right's columns whose
    names are taken get a number (``k`` -> ``k0``), as Calcite names them."""
    from millstream.table.join import join_plans
    from millstream.table.table import Table as TableClass

    right, _ = _from_item(t_env, join.this)
    alias = _alias_of(join.this)
    taken = set(left.get_schema().get_field_names())
    renamed: list[Expression] = []
    for name in right.get_schema().get_field_names():
        new = name
        n = 0
        while new in taken:
            new = f"{name}{n}"
            n += 1
        taken.add(new)
        renamed.append(col(name).alias(new) if new != name else col(name))
        scope[(alias, name)] = new
        if (None, name) not in scope:
            scope[(None, name)] = new
    right = right.select(*renamed)
    side = str(join.args.get("side") or "").upper()
    join_type = {"LEFT": "LEFT", "RIGHT": "RIGHT", "FULL": "FULL"}.get(side, "INNER")
    on = join.args.get("on")
    condition = on if on is not None else implicit_condition
    predicate = _expression(condition) if condition is not None else None
    plan = join_plans(left._plan, right._plan, join_type, predicate)
    return TableClass(plan, left._t_env)


def _lateral(
    t_env: TableEnvironment, left: Table, join: exp.Join, scope: dict[tuple[str | None, str], str]
) -> Table:
    """``[CROSS | LEFT] JOIN LATERAL TABLE(udtf(args)) [AS] t(a, b) [ON TRUE]`` (each row with
    every row the function yields for it) or ``CROSS JOIN UNNEST(array) [AS] t(x)`` (each row
    with every element; a ROW element's fields are columns). LEFT keeps a row the function
    yields nothing for, padded with NULLs, as Flink's; its condition must be ``ON TRUE``."""
    from millstream.table.planner import FlatMap
    from millstream.table.table import Table as TableClass

    node = join.this
    outer = str(join.args.get("side") or "").upper() == "LEFT"
    condition = join.args.get("on")
    if outer and not (isinstance(condition, exp.Boolean) and condition.this):
        raise SqlError("LEFT JOIN LATERAL TABLE(...) supports the condition ON TRUE only, as Flink's")
    plan = left._plan
    if isinstance(node, exp.Unnest):
        rows_of, columns, types = _unnest(node, plan)
    else:
        rows_of, columns, types = _table_function(node, plan)
    alias = node.args.get("alias")
    if alias is not None and alias.columns:
        if len(alias.columns) != len(columns):
            raise SqlError(
                f"{node.sql()[:60]} has {len(columns)} columns, its alias names {len(alias.columns)}"
            )
        columns = [c.name for c in alias.columns]
    padding = (None,) * len(columns)

    def joined(row: Any) -> list[tuple[Any, ...]]:
        values = tuple(row)
        produced = [values + tuple(r) for r in rows_of(values)]
        return produced if produced or not outer else [values + padding]

    for c in columns:
        scope[(None, c)] = c
        if alias is not None and alias.name:
            scope[(alias.name, c)] = c
    if outer:
        types = [t.nullable() for t in types]
    return TableClass(
        FlatMap(list(plan.names) + columns, list(plan.types) + types, plan.updating, plan, joined), t_env
    )


def _table_function(
    node: exp.Lateral, plan: PlanNode
) -> tuple[Callable[..., Any], list[str], list[DataType]]:
    """A registered table function's call: its rows of an input row, its columns and types."""
    from millstream.table.udf import registered_function

    call = node.this
    if isinstance(call, exp.Anonymous) and call.name.upper() == "TABLE":
        call = call.expressions[0]
    if isinstance(call, exp.Anonymous):
        name, arguments = call.name, list(call.expressions)
    elif isinstance(call, exp.Func):  # a name sqlglot knows (EXPLODE ...) registered as a UDTF
        name, arguments = call.sql_name(), [v for v in call.args.values() if isinstance(v, exp.Expression)]
    else:
        raise SqlError(f"LATERAL TABLE expects a table function call, got {call.sql()}")
    function = registered_function(name)
    args = [_expression(a).resolve(plan.names, plan.types).fn for a in arguments]
    rows = function.rows_of()
    return (
        (lambda values: rows(*[a(values) for a in args])),
        function.result_names(),
        list(function.result_types),
    )


def _unnest(node: exp.Unnest, plan: PlanNode) -> tuple[Callable[..., Any], list[str], list[DataType]]:
    """UNNEST(array): one row per element (a ROW element's fields as columns, a MAP's entries as
    key and value); NULL or empty: no row."""
    if len(node.expressions) != 1:
        raise SqlError(f"UNNEST takes one array here, got: {node.sql()}")
    compiled = _expression(node.expressions[0]).resolve(plan.names, plan.types)
    value, data_type = compiled.fn, compiled.data_type
    if data_type.root == "MAP":
        key_type, value_type = data_type.key_type, data_type.value_type  # type: ignore[attr-defined]
        return (lambda row: list((value(row) or {}).items())), ["f0", "f1"], [key_type, value_type]
    if data_type.root != "ARRAY":
        raise SqlError(f"UNNEST needs an ARRAY or MAP, got {data_type!r}: {node.sql()}")
    element = data_type.element_type  # type: ignore[attr-defined]
    fields = getattr(element, "fields", None)
    if element.root == "ROW" and fields is not None:
        return (
            (lambda row: [tuple(e) if e is not None else (None,) * len(fields) for e in value(row) or []]),
            [f.name for f in fields],
            [f.data_type for f in fields],
        )
    return (lambda row: [(e,) for e in value(row) or []]), ["f0"], [element]


_GROUP_WINDOWS = {"MS_GW_TUMBLE": "TUMBLE", "MS_GW_HOP": "HOP", "MS_GW_SESSION": "SESSION"}
_WINDOW_PROPERTIES = {"START": "start", "END": "end", "ROWTIME": "rowtime"}
_LEGACY_WINDOW = "$w"


def _select(t_env: TableEnvironment, select: exp.Select) -> Table:
    depth = len(_SCOPES)
    frames: dict[str, Any] = {}
    for window in select.args.get("windows") or []:  # WINDOW w AS (...)
        frames[window.name] = window
    _OVER.append(frames)
    try:
        return _select_in_scope(t_env, select)
    finally:
        del _SCOPES[depth:]
        _OVER.pop()


def _row_number_item(select: exp.Select) -> tuple[int, exp.Window, str] | None:
    """The ``ROW_NUMBER() OVER (...) AS rn`` item of a select list: position, window, name."""
    for position, item in enumerate(select.expressions):
        node = item.this if isinstance(item, exp.Alias) else item
        if isinstance(node, exp.Window) and isinstance(node.this, (exp.RowNumber, exp.Rank, exp.DenseRank)):
            return position, node, item.alias if isinstance(item, exp.Alias) else f"EXPR${position}"
    return None


def _rank_limit(condition: Any, name: str) -> tuple[int, Any] | None:
    """N of ``rn <= N`` / ``rn < N`` / ``rn = 1`` (and the other conjuncts) in a WHERE."""
    if condition is None:
        return None
    conjuncts = list(condition.flatten()) if isinstance(condition, exp.And) else [condition]
    limit = None
    rest = []
    for c in conjuncts:
        if (
            isinstance(c, (exp.LTE, exp.LT, exp.EQ))
            and isinstance(c.this, exp.Column)
            and c.this.name == name
            and isinstance(c.expression, exp.Literal)
        ):
            n = int(c.expression.this)
            limit = n - 1 if isinstance(c, exp.LT) else n
            if isinstance(c, exp.EQ) and n != 1:
                raise SqlError("Top-N supports rn <= N, rn < N and rn = 1")
        else:
            rest.append(c)
    if limit is None:
        return None
    remaining = None
    for c in rest:
        remaining = c if remaining is None else exp.And(this=remaining, expression=c)
    return limit, remaining


def _rank_type(t_env: TableEnvironment, window: exp.Window) -> str:
    """ROW_NUMBER, RANK or DENSE_RANK; the last two in batch mode only, as Flink's."""
    rank_type = {exp.Rank: "RANK", exp.DenseRank: "DENSE_RANK"}.get(type(window.this), "ROW_NUMBER")
    if rank_type != "ROW_NUMBER" and not t_env._batch:  # Flink's Top-N streams ROW_NUMBER only
        raise SqlError(f"{rank_type}() on streaming table is not supported currently")
    return rank_type


def _top_n(t_env: TableEnvironment, select: exp.Select) -> Table | None:
    """``SELECT ... FROM (SELECT ..., ROW_NUMBER() OVER (PARTITION BY k ORDER BY s) AS rn FROM t)
    WHERE rn <= N``: Flink's Top-N (deduplication when ordered by the time attribute, N = 1)."""
    from millstream.table.over import Rank
    from millstream.table.table import Table as TableClass

    source = select.args.get("from_") or select.args.get("from")
    if source is None or not isinstance(source.this, exp.Subquery) or select.args.get("joins"):
        return None
    inner = source.this.this
    if not isinstance(inner, exp.Select):
        return None
    found = _row_number_item(inner)
    if found is None:
        return None
    position, window, name = found
    rank_type = _rank_type(t_env, window)
    where = select.args.get("where")
    limited = _rank_limit(where.this if where is not None else None, name)
    if limited is None:
        raise SqlError(f"{rank_type}() is supported in Top-N queries only (WHERE rn <= N)")
    limit, rest = limited
    without = inner.copy()
    without.set("expressions", [e for i, e in enumerate(inner.expressions) if i != position])
    order = window.args.get("order")
    partition = list(window.args.get("partition_by") or [])
    ordering = list(order.expressions if order is not None else [])
    base = _select(t_env, without.copy())  # a copy: planning a FROM a, b WHERE moves the WHERE
    # a key or ordering over the FROM's columns that the select list does not have (A.id of
    # ``SELECT A.*, B.price``): computed as hidden columns of the ranked rows, dropped after
    hidden = [n for n in partition + [o.this for o in ordering] if not _resolves(base, n)]
    if hidden:
        without.set(
            "expressions",
            without.expressions + [exp.alias_(n.copy(), f"$rank{i}") for i, n in enumerate(hidden)],
        )
        base = _select(t_env, without)
    plan = base._plan

    def key(node: exp.Expression) -> Any:
        if node in hidden:
            return col(f"$rank{hidden.index(node)}").resolve(plan.names, plan.types)
        return _expression(node).resolve(plan.names, plan.types)

    _SCOPES.append(_scope_of(base, None))
    try:
        partition_keys = [key(p) for p in partition]
        sort = [(key(o.this).fn, bool(o.args.get("desc"))) for o in ordering]
    finally:
        _SCOPES.pop()
    keys = [c.fn for c in partition_keys]
    # Flink's Rank partitions by its input's fields in their order there (a computed key after them)
    at = [plan.names.index(c.name) if c.name in plan.names else len(plan.names) + i
          for i, c in enumerate(partition_keys)]  # fmt: skip
    in_input_order = sorted(range(len(at)), key=at.__getitem__)
    key_type = BinaryRowKeyType.of([c.data_type for c in partition_keys], in_input_order)
    names, types = list(plan.names), list(plan.types)
    after = inner.expressions[position + 1 :]  # the row number's column: before the items after it
    after = after + [exp.column(f"$rank{i}") for i in range(len(hidden))]
    if any(
        isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star)) for e in after
    ):
        raise SqlError("put ROW_NUMBER() OVER (...) after the * of the select list")
    position = len(names) - len(after)
    outputs_rank = any(
        isinstance(e, exp.Star) or any(c.name == name for c in e.find_all(exp.Column))
        for e in select.expressions
    )
    if outputs_rank:
        names.insert(position, name)
        types.insert(position, DataTypes.BIGINT(False))
    time_name = plan.names[plan.rowtime] if plan.rowtime is not None else None
    by_time = (
        limit == 1
        and not outputs_rank
        and order is not None
        and len(order.expressions) == 1
        and not hidden
        and _expression(order.expressions[0].this).resolve(plan.names, plan.types).name == time_name
    )
    rank_at = position if outputs_rank else None
    partition_names = [p.name for p in window.args.get("partition_by") or [] if isinstance(p, exp.Column)]
    windowed = (
        "window_start" in partition_names and "window_end" in partition_names and "window_end" in plan.names
    )
    node: PlanNode
    if windowed and not plan.updating:  # window Top-N: each window ranked once, when it ends
        from millstream.table.over import WindowRank

        rowtime = None if plan.rowtime is None else names.index(plan.names[plan.rowtime])
        end_column = plan.names.index("window_end")
        node = WindowRank(names, types, False, plan, keys, sort, limit, rank_at, end_column, rowtime=rowtime)
    else:
        dedup = by_time and rank_type == "ROW_NUMBER"
        node = Rank(names, types, True, plan, keys, sort, limit, rank_at, dedup=dedup, rank_type=rank_type)
        node.key_type = key_type
    ranked = TableClass(node, t_env)
    if hidden:
        ranked = ranked.select(*(col(n) for n in names if not n.startswith("$rank")))
    outer = select.copy()
    outer.set("from_", exp.From(this=exp.Table(this=exp.to_identifier(str(ranked)))))
    outer.set("where", exp.Where(this=rest) if rest is not None else None)
    return _select(t_env, outer)


def _resolves(table: Table, node: exp.Expression) -> bool:
    """Whether ``node`` is an expression over ``table``'s own columns."""
    _SCOPES.append(_scope_of(table, None))
    try:
        _expression(node).resolve(table._plan.names, table._plan.types)
        return True
    except (SqlError, ValueError):
        return False
    finally:
        _SCOPES.pop()


def _subquery_predicates(
    t_env: TableEnvironment, select: exp.Select, table: Table, condition: Any
) -> tuple[Table, Any]:
    """``x IN (SELECT ...)`` and ``[NOT] EXISTS (SELECT ... WHERE inner = outer ...)`` among the
    WHERE's conjuncts become semi / anti joins of ``table``; the other conjuncts are returned
    (None: none left)."""
    conjuncts = list(condition.flatten()) if isinstance(condition, exp.And) else [condition]
    remaining = []
    for c in conjuncts:
        negated = isinstance(c, exp.Not)
        inner = c.this if negated else c
        if isinstance(inner, exp.In) and inner.args.get("query") is not None:
            sub = inner.args["query"]
            right = _select(t_env, sub.this if isinstance(sub, exp.Subquery) else sub)
            names = right.get_schema().get_field_names()
            if len(names) != 1:
                raise SqlError("the subquery of IN must select one column")
            right = right.select(col(names[0]).alias("$in0"))
            if negated:
                table = _not_in(table, right, _expression(inner.this))
            else:
                table = _semi_join(table, right, "SEMI", _expression(inner.this) == col("$in0"))
        elif isinstance(inner, exp.Exists):
            table = _exists(t_env, table, inner.this, "ANTI" if negated else "SEMI")
        else:
            remaining.append(c)
    if len(remaining) == len(conjuncts):
        return table, condition
    rest = None
    for c in remaining:
        rest = c if rest is None else exp.And(this=rest, expression=c)
    return table, rest


def _where_subqueries(t_env: TableEnvironment, select: exp.Select, table: Table) -> tuple[Table, Any]:
    """The WHERE's subquery predicates joined into ``table``; the WHERE that remains."""
    where = select.args.get("where")
    if where is None:
        return table, None
    table, rest = _subquery_predicates(t_env, select, table, where.this)
    if rest is None:
        return table, None
    return table, where if rest is where.this else exp.Where(this=rest)


def _semi_join(left: Table, right: Table, kind: str, condition: Expression) -> Table:
    from millstream.table.join import join_plans
    from millstream.table.table import Table as TableClass

    return TableClass(join_plans(left._plan, right._plan, kind, condition), left._t_env)


def _not_in(left: Table, right: Table, value: Expression) -> Table:
    """``value NOT IN (subquery)``: a null-aware anti join."""
    from millstream.table.join import NullAwareAntiJoin
    from millstream.table.table import Table as TableClass

    plan = left._plan
    fn = value.resolve(plan.names, plan.types).fn
    node = NullAwareAntiJoin(list(plan.names), list(plan.types), True, left=plan, right=right._plan, value=fn)
    return TableClass(node, left._t_env)


def _exists(t_env: TableEnvironment, table: Table, sub: Any, kind: str) -> Table:
    """``EXISTS (SELECT ... FROM u WHERE u.k = t.k AND ...)``: the equalities with the outer
    query's columns become the semi join's keys, the rest stays in the subquery."""
    if isinstance(sub, exp.Subquery):
        sub = sub.this
    if not isinstance(sub, exp.Select):
        raise SqlError("EXISTS needs a SELECT")
    source = sub.args.get("from_") or sub.args.get("from")
    inner_aliases = (
        {_alias_of(source.this), getattr(source.this, "name", None)} if source is not None else set()
    )
    outer_aliases = {q for (q, _) in _SCOPES[-1]} - {None} - inner_aliases if _SCOPES else set()
    where = sub.args.get("where")
    conjuncts = (
        []
        if where is None
        else (list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this])
    )
    pairs: list[tuple[exp.Column, exp.Column]] = []  # (outer column, inner column)
    kept = []
    for c in conjuncts:
        if isinstance(c, exp.EQ) and isinstance(c.this, exp.Column) and isinstance(c.expression, exp.Column):
            a, b = c.this, c.expression
            if a.table in outer_aliases and b.table not in outer_aliases:
                pairs.append((a, b))
                continue
            if b.table in outer_aliases and a.table not in outer_aliases:
                pairs.append((b, a))
                continue
        kept.append(c)
    if not pairs:
        raise SqlError("EXISTS is supported with equalities between the subquery and the outer query")
    inner = sub.copy()
    rest = None
    for c in kept:
        rest = c if rest is None else exp.And(this=rest, expression=c)
    inner.set("where", exp.Where(this=rest) if rest is not None else None)
    inner.set(
        "expressions",
        [exp.Alias(this=b.copy(), alias=exp.to_identifier(f"$ex{i}")) for i, (_, b) in enumerate(pairs)],
    )
    right = _select(t_env, inner)
    condition = None
    for i, (a, _) in enumerate(pairs):
        equal = _expression(a) == col(f"$ex{i}")
        condition = equal if condition is None else and_(condition, equal)
    assert condition is not None
    return _semi_join(table, right, kind, condition)


def _select_in_scope(t_env: TableEnvironment, select: exp.Select) -> Table:
    ranked = _top_n(t_env, select)
    if ranked is not None:
        return ranked
    table, windowed = _source(t_env, select)
    table, where = _where_subqueries(t_env, select, table)
    if where is not None:
        condition = _expression(where.this)
        table = table.filter(condition)
        if windowed is not None:  # a window aggregation reads the TVF's input: filter that too
            try:
                windowed.table = windowed.table.filter(condition)
            except ValueError:
                windowed = None  # the condition reads window columns: aggregate the filtered TVF rows
    items: list[Expression] = []
    for position, e in enumerate(select.expressions):
        items.extend(_items(table, e, position))
    items = _uniquify(items)
    group = select.args.get("group")
    having = select.args.get("having")
    aggregating = group is not None or any(e.aggregates() for e in items)
    if aggregating:
        group_nodes = list(group.expressions) if group is not None else []
        aggregate = _window_grouping(table, windowed, group_nodes)
        if having is not None:
            condition = _expression(having.this).alias("$having")
            grouped = aggregate(items + [condition])
            visible = [col(name) for name in grouped.get_schema().get_field_names() if name != "$having"]
            table = grouped.filter(col("$having")).select(*visible)
        else:
            table = aggregate(items)
    elif _OVER[-1]:
        from millstream.table.over import over_aggregate
        from millstream.table.table import Table as TableClass

        frames = {n: f if not isinstance(f, exp.Window) else _frame(f) for n, f in _OVER[-1].items()}
        table = TableClass(over_aggregate(table._plan, frames, items), table._t_env)
    else:
        table = table.select(*items)
    if select.args.get("distinct") is not None:
        table = table.distinct()
    return _order_and_limit(t_env, table, select)


def _order_and_limit(t_env: TableEnvironment, table: Table, select: exp.Select) -> Table:
    """ORDER BY (batch mode: a sort; streaming: refused as Flink refuses sorting on anything
    but time) and LIMIT / OFFSET."""
    from millstream.table.planner import Sort
    from millstream.table.table import Table as TableClass

    order = select.args.get("order")
    limit = select.args.get("limit")
    offset = select.args.get("offset")
    fetch = int(limit.expression.this) if limit is not None else None
    skip = int(offset.expression.this) if offset is not None else 0
    if order is None:
        return table.limit(fetch, skip) if fetch is not None or skip else table
    if not t_env._batch:
        raise SqlError(
            "Sort on a non-time-attribute field is not supported: ORDER BY runs in batch mode "
            "(EnvironmentSettings.in_batch_mode())"
        )
    plan = table._plan
    keys = []
    key_expressions = []
    for ordered in order.expressions:
        expression = _expression(ordered.this)
        try:
            compiled = expression.resolve(plan.names, plan.types)
        except ValueError as err:
            raise SqlError(f"ORDER BY {ordered.this.sql()}: {err}") from err
        keys.append((compiled.fn, bool(ordered.args.get("desc"))))
        key_expressions.append((expression, bool(ordered.args.get("desc"))))
    node = Sort(plan.names, plan.types, False, plan, keys, skip, fetch, key_expressions)
    return TableClass(node, t_env)


def _window_grouping(
    table: Table, windowed: _Windowed | None, group_nodes: list[exp.Expression]
) -> Callable[[list[Expression]], Table]:
    """How the select list is aggregated: a window aggregation (GROUP BY window_start,
    window_end of a window TVF, or GROUP BY TUMBLE(ts, size) ...) or a group aggregation."""
    from millstream.table.table import Table as TableClass
    from millstream.table.window_agg import window_aggregate

    names = [n.name if isinstance(n, exp.Column) else None for n in group_nodes]
    legacy = [n for n in group_nodes if isinstance(n, exp.Anonymous) and n.name.upper() in _GROUP_WINDOWS]
    if windowed is not None and "window_start" in names and "window_end" in names:
        keys = [_expression(n) for n, name in zip(group_nodes, names, strict=True)
                if name not in ("window_start", "window_end", "window_time")]  # fmt: skip
        base = windowed.table

        def by_window(items: list[Expression]) -> Table:
            plan = window_aggregate(base._plan, windowed.spec, windowed.time_column, keys, items,
                                    ("window_start", "window_end", "window_time"),
                                    batch=base._t_env._batch)  # fmt: skip
            return TableClass(plan, base._t_env)

        return by_window
    if legacy:
        call = legacy[0]
        kind = _GROUP_WINDOWS[call.name.upper()]
        time_expression = call.expressions[0]
        sizes = [_interval_ms(a) for a in call.expressions[1:]]
        spec = WindowSpec(kind, sizes[1], sizes[0]) if kind == "HOP" else WindowSpec(kind, sizes[0])
        keys = [_expression(n) for n in group_nodes if n is not call]
        plan = table._plan
        time_column = plan.names.index(time_expression.name)

        def by_group_window(items: list[Expression]) -> Table:
            result = window_aggregate(plan, spec, time_column, keys, items,
                                      tuple(f"{_LEGACY_WINDOW}${p}" for p in ("start", "end", "rowtime")),  # type: ignore[arg-type]
                                      batch=table._t_env._batch)  # fmt: skip
            return TableClass(result, table._t_env)

        return by_group_window
    keys = [_expression(k) for k in group_nodes]
    return lambda items: table.group_by(*keys).select(*items)


def _uniquify(items: list[Expression]) -> list[Expression]:
    """Select items with unique names, as Calcite names repeats: ``ts``, ``ts0``, ``ts1`` ..."""
    seen: set[str] = set()
    result = []
    for item in items:
        name = getattr(item, "name", None)
        if isinstance(name, str) and name in seen:
            n = 0
            while f"{name}{n}" in seen:
                n += 1
            name = f"{name}{n}"
            item = item.alias(name)
        if isinstance(name, str):
            seen.add(name)
        result.append(item)
    return result


def _items(table: Table, node: exp.Expression, position: int) -> list[Expression]:
    """A select item with its column name (Flink's ``EXPR$<position>`` when unnamed); ``*``
    is every column."""
    names = [n for n in table.get_schema().get_field_names() if not n.startswith("$")]
    if isinstance(node, exp.Column) and isinstance(node.this, exp.Star) and node.table and _SCOPES:
        qualified = {v for (q, _), v in _SCOPES[-1].items() if q == node.table}
        return [col(n) for n in names if n in qualified]
    if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
        return [col(n) for n in names]
    return [_item(node, position)]


def _item(node: exp.Expression, position: int) -> Expression:
    """A select item with its column name (Flink's ``EXPR$<position>`` when unnamed)."""
    if isinstance(node, exp.Alias):
        return _expression(node.this).alias(node.alias)
    if isinstance(node, exp.Column):
        converted = _expression(node)
        return converted if getattr(converted, "name", None) == node.name else converted.alias(node.name)
    return _expression(node).alias(f"EXPR${position}")


# -- expressions -----------------------------------------------------------------------------------------

_BINARY: dict[type, Callable[[Expression, Expression], Expression]] = {
    exp.Add: lambda a, b: a + b,
    exp.Sub: lambda a, b: a - b,
    exp.Mul: lambda a, b: a * b,
    exp.Div: lambda a, b: a / b,
    exp.Mod: lambda a, b: a % b,
    exp.EQ: lambda a, b: a == b,
    exp.NEQ: lambda a, b: a != b,
    exp.GT: lambda a, b: a > b,
    exp.GTE: lambda a, b: a >= b,
    exp.LT: lambda a, b: a < b,
    exp.LTE: lambda a, b: a <= b,
}

_AGGREGATES: dict[type, str] = {
    exp.Count: "count",
    exp.Sum: "sum",
    exp.Avg: "avg",
    exp.Min: "min",
    exp.Max: "max",
    exp.StddevPop: "stddev_pop",
    exp.StddevSamp: "stddev_samp",
    exp.Stddev: "stddev_samp",
    exp.VariancePop: "var_pop",
    exp.Variance: "var_samp",
    exp.FirstValue: "first_value",
    exp.LastValue: "last_value",
    exp.ArrayAgg: "array_agg",
}

_TYPES: dict[str, Callable[[exp.DataType], DataType]] = {
    "TINYINT": lambda t: DataTypes.TINYINT(),
    "SMALLINT": lambda t: DataTypes.SMALLINT(),
    "INT": lambda t: DataTypes.INT(),
    "BIGINT": lambda t: DataTypes.BIGINT(),
    "FLOAT": lambda t: DataTypes.FLOAT(),
    "DOUBLE": lambda t: DataTypes.DOUBLE(),
    "BOOLEAN": lambda t: DataTypes.BOOLEAN(),
    "TEXT": lambda t: DataTypes.STRING(),
    "VARCHAR": lambda t: DataTypes.STRING(),
    "CHAR": lambda t: DataTypes.STRING(),
    "DATE": lambda t: DataTypes.DATE(),
    "TIMESTAMP": lambda t: DataTypes.TIMESTAMP(_params(t)[0] if _params(t) else 6),
    "TIMESTAMPTZ": lambda t: DataTypes.TIMESTAMP(
        _params(t)[0] if _params(t) else 6
    ),  # sqlglot's Spark TIMESTAMP
    "TIMESTAMPNTZ": lambda t: DataTypes.TIMESTAMP(_params(t)[0] if _params(t) else 6),
    "TIMESTAMPLTZ": lambda t: DataTypes.TIMESTAMP_LTZ(_params(t)[0] if _params(t) else 6),
    "TIME": lambda t: DataTypes.TIME(_params(t)[0] if _params(t) else 0),
    "DECIMAL": lambda t: _decimal(_params(t)),
    "BINARY": lambda t: DataTypes.BYTES(),
    "VARBINARY": lambda t: DataTypes.BYTES(),
    "MAP": lambda t: DataTypes.MAP(_data_type(t.expressions[0]), _data_type(t.expressions[1])),
    "ARRAY": lambda t: DataTypes.ARRAY(_data_type(t.expressions[0])),
    "STRUCT": lambda t: DataTypes.ROW(
        [DataTypes.FIELD(f.name, _data_type(f.args["kind"])) for f in t.expressions]
    ),
}


def _decimal(params: list[int]) -> DataType:
    """DECIMAL, DECIMAL(p) or DECIMAL(p, s) (defaults 10 and 0, as Flink's)."""
    precision = params[0] if params else 10
    scale = params[1] if len(params) > 1 else 0
    return DataTypes.DECIMAL(precision, scale)


def _params(t: exp.DataType) -> list[int]:
    return [int(p.this.this) for p in t.expressions]


def _data_type(node: exp.DataType) -> DataType:
    name = node.this.name if hasattr(node.this, "name") else str(node.this)
    if name not in _TYPES:
        raise SqlError(f"unsupported type in CAST: {node.sql()}")
    return _TYPES[name](node)


def _expression(node: exp.Expression) -> Expression:  # noqa: C901 - one case per node kind
    if isinstance(node, exp.Paren):
        return _expression(node.this)
    special = special_form(node, _expression)  # NOT LIKE, CASE x WHEN, TRIM(LEADING ...), EXTRACT ...
    if special is not None:
        return special
    if isinstance(node, exp.Column):
        return _column_ref(node)
    if isinstance(node, exp.Bracket) and _is_map_constructor(node.this):  # MAP[k1, v1, k2, v2]
        return call_builtin("MAP", *(_expression(e) for e in node.expressions))
    if isinstance(node, exp.Bracket) and len(node.expressions) == 1:  # array[i], map[k]
        return call_builtin("AT", _expression(node.this), _expression(node.expressions[0]))
    if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier):
        return _FieldAccess(_expression(node.this), node.expression.name, sql_name=True)  # a.b.c.d.e
    if isinstance(node, exp.Literal):
        if node.is_string:
            return lit(node.this)
        text = node.this
        digits_text = text.lstrip("-")
        if any(c in text for c in "eE"):
            return lit(float(text))  # an approximate literal: DOUBLE
        if "." in text:  # an exact literal: DECIMAL(digits written, digits after the point), as Calcite's
            digits = sum(c.isdigit() for c in digits_text)
            return lit(decimal.Decimal(text), DataTypes.DECIMAL(digits, len(text.split(".")[1]), False))
        return lit(int(text))
    if isinstance(node, exp.Boolean):
        return lit(bool(node.this))
    if isinstance(node, exp.Null):
        return lit(None)
    if type(node) in _BINARY:
        return _BINARY[type(node)](_expression(node.this), _expression(node.expression))
    if isinstance(node, exp.And):
        return and_(_expression(node.this), _expression(node.expression))
    if isinstance(node, exp.Or):
        return or_(_expression(node.this), _expression(node.expression))
    if isinstance(node, exp.Not):
        inner = node.this
        if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
            return _expression(inner.this).is_not_null
        return not_(_expression(inner))
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        return _expression(node.this).is_null
    if isinstance(node, exp.Neg):
        if isinstance(node.this, exp.Literal) and not node.this.is_string:  # -7.89: DECIMAL(3, 2), as written
            return _expression(exp.Literal(this=f"-{node.this.this}", is_string=False))
        return -_expression(node.this)
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return _expression(node.this).cast(_data_type(node.to))
    if isinstance(node, exp.Filter) and type(node.this) in _AGGREGATES:  # agg(x) FILTER (WHERE c)
        return _aggregate(node.this, _expression(node.expression.this))
    if isinstance(node, exp.Filter):  # a Python UDAF's call FILTER (WHERE c)
        call = _expression(node.this)
        if not isinstance(call, UserAggregateCall):
            raise SqlError(f"FILTER (WHERE ...) follows an aggregate function's call, not: {node.this.sql()}")
        return call.filtered(_expression(node.expression.this))
    if type(node) in _AGGREGATES:
        return _aggregate(node, None)
    if isinstance(node, exp.Case):
        return _case(node)
    return _function(node)


def _aggregate(node: exp.Expression, where: Expression | None) -> AggregateCall:
    """COUNT, SUM, AVG, MIN, MAX, over ``*``, a value or ``DISTINCT`` values, maybe with a
    FILTER (WHERE ...) condition."""
    operand = node.this
    function = _AGGREGATES[type(node)].upper()
    if isinstance(node, exp.Count) and (operand is None or isinstance(operand, exp.Star)):
        return AggregateCall("COUNT", lit(1), where=where)
    if isinstance(operand, exp.Distinct):
        if len(operand.expressions) != 1:
            raise SqlError(f"{function}(DISTINCT ...) takes one expression, got: {operand.sql()}")
        return AggregateCall(function, _expression(operand.expressions[0]), True, where)
    return AggregateCall(function, _expression(operand), where=where)


_INTERVAL_UNITS = {"MILLISECOND": 1, "SECOND": 1000, "MINUTE": 60_000, "HOUR": 3_600_000, "DAY": 86_400_000}

# sqlglot's nodes for Flink's built-in functions: node type -> (function, its argument keys)
_SQLGLOT_FUNCTIONS: dict[type, tuple[str, tuple[str, ...]]] = {
    exp.Upper: ("UPPER", ("this",)),
    exp.Lower: ("LOWER", ("this",)),
    exp.Length: ("CHAR_LENGTH", ("this",)),
    exp.Substring: ("SUBSTRING", ("this", "start", "length")),
    exp.Abs: ("ABS", ("this",)),
    exp.Floor: ("FLOOR", ("this",)),
    exp.Ceil: ("CEIL", ("this",)),
    exp.Round: ("ROUND", ("this", "decimals")),
    exp.Sqrt: ("SQRT", ("this",)),
    exp.Ln: ("LN", ("this",)),
    exp.Exp: ("EXP", ("this",)),
    exp.Pow: ("POWER", ("this", "expression")),
    exp.Like: ("LIKE", ("this", "expression")),
    exp.DPipe: ("CONCAT", ("this", "expression")),
    exp.Initcap: ("INITCAP", ("this",)),
    exp.Trim: ("TRIM", ("this",)),
    exp.Greatest: ("GREATEST", ("this", "expressions")),
    exp.Least: ("LEAST", ("this", "expressions")),
    exp.Coalesce: ("COALESCE", ("this", "expressions")),
    exp.Concat: ("CONCAT", ("expressions",)),
    exp.ConcatWs: ("CONCAT_WS", ("expressions",)),
    exp.Nullif: ("NULLIF", ("this", "expression")),
    exp.RegexpSplit: ("SPLIT", ("this", "expression")),
    exp.CurrentTimestamp: ("CURRENT_TIMESTAMP", ()),
    exp.CurrentDate: ("CURRENT_DATE", ()),
    exp.CurrentTime: ("CURRENT_TIME", ()),
    exp.Array: ("ARRAY", ("expressions",)),
}


def _arguments(node: exp.Expression, keys: tuple[str, ...]) -> list[Expression]:
    args: list[Expression] = []
    for key in keys:
        value = node.args.get(key)
        if value is None:
            continue
        args.extend(_expression(v) for v in (value if isinstance(value, list) else [value]))
    return args


# the over windows of the SELECT being converted: alias -> frame (OVER (...) and WINDOW w AS (...))
_OVER: list[dict[str, Any]] = []


def _over(node: exp.Window) -> Expression:
    """``agg(x) OVER (PARTITION BY k ORDER BY ts ROWS|RANGE BETWEEN ... AND CURRENT ROW)``."""
    from millstream.table.over import OverCall

    if not _OVER:
        raise SqlError("OVER is only valid in a SELECT list")
    frames = _OVER[-1]
    inner = _expression(node.this)
    if not isinstance(inner, AggregateCall):
        raise SqlError(f"unsupported OVER function: {node.this.sql()} (aggregates only; ROW_NUMBER in Top-N)")
    alias = node.args.get("alias")
    window_name = alias.name if alias is not None else None
    named = node.args.get("partition_by") is None and node.args.get("order") is None
    if named and window_name in frames:  # OVER w of a WINDOW clause
        return OverCall(inner, col(str(window_name)))
    name = f"$w{len(frames)}"
    frames[name] = _frame(node)
    return OverCall(inner, col(name))


def _frame(node: exp.Window) -> Any:
    from millstream.table.over import OverFrame

    partition = tuple(_expression(p) for p in node.args.get("partition_by") or [])
    order = node.args.get("order")
    if order is None or len(order.expressions) != 1:
        raise SqlError("OVER windows must be ordered by one time attribute")
    time = _expression(order.expressions[0].this)
    spec = node.args.get("spec")
    if spec is None:  # Flink's default frame: RANGE UNBOUNDED PRECEDING
        return OverFrame(partition, time, False, None)
    if str(spec.args.get("end", "")).upper() not in ("CURRENT ROW", ""):
        raise SqlError("OVER windows end at CURRENT ROW in Flink")
    start = spec.args.get("start")
    rows = str(spec.args.get("kind", "")).upper() == "ROWS"
    if str(start).upper() == "UNBOUNDED":
        return OverFrame(partition, time, rows, None)
    if str(start).upper() == "CURRENT ROW":
        return OverFrame(partition, time, rows, 0)
    return OverFrame(partition, time, rows, int(start.this) if rows else _interval_ms(start))


def _function(node: exp.Expression) -> Expression:  # noqa: C901 - one case per function family
    from millstream.table.expressions import WindowProperty, call
    from millstream.table.functions import call_builtin, is_builtin

    if isinstance(node, exp.Window):
        return _over(node)

    if isinstance(node, exp.Interval):
        unit = str(node.args["unit"].name).upper().rstrip("S")
        amount = float(node.this.this) if isinstance(node.this, exp.Literal) else None
        if amount is None or unit not in _INTERVAL_UNITS:
            raise SqlError(f"unsupported interval: {node.sql()}")
        import datetime

        return lit(datetime.timedelta(milliseconds=amount * _INTERVAL_UNITS[unit]))
    if isinstance(node, exp.In):
        value = _expression(node.this)
        return or_(*(value == _expression(v) for v in node.expressions))
    if isinstance(node, exp.Between):
        value = _expression(node.this)
        return and_(value >= _expression(node.args["low"]), value <= _expression(node.args["high"]))
    if isinstance(node, exp.TimeToStr):  # DATE_FORMAT(ts, 'yyyy-MM-dd'): sqlglot hands a strftime format
        fmt = node.args["format"].this
        inner = node.this.this if isinstance(node.this, exp.TimeStrToTime) else node.this
        return call_builtin("DATE_FORMAT_PY", _expression(inner), lit(fmt))
    spec = _SQLGLOT_FUNCTIONS.get(type(node))
    if spec is not None:
        return call_builtin(spec[0], *_arguments(node, spec[1]))
    if isinstance(node, exp.Anonymous):
        name = node.name.upper()
        args = list(node.expressions)
        for prefix in ("TUMBLE_", "HOP_", "SESSION_"):
            if name.startswith(prefix) and name[len(prefix) :] in _WINDOW_PROPERTIES:
                return WindowProperty(col(_LEGACY_WINDOW), _WINDOW_PROPERTIES[name[len(prefix) :]])
        if is_builtin(name):
            return call_builtin(name, *(_expression(a) for a in args))
        return call(node.name, *(_expression(a) for a in args))
    if isinstance(node, exp.Func) and is_builtin(node.sql_name()):
        return call_builtin(node.sql_name(), *_arguments(node, tuple(node.arg_types)))
    raise SqlError(f"unsupported SQL expression: {node.sql()}")


def _case(node: exp.Case) -> Expression:
    otherwise: Any = node.args.get("default")
    result = _expression(otherwise) if otherwise is not None else lit(None)
    for branch in reversed(node.args.get("ifs") or []):
        result = if_then_else(_expression(branch.this), _expression(branch.args["true"]), result)
    return result
