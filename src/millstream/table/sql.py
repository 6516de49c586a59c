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

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp

from millstream.table.expressions import AggregateCall, Expression, and_, col, if_then_else, lit, not_, or_
from millstream.table.types import DataType, DataTypes

if TYPE_CHECKING:
    from millstream.table.table import Table
    from millstream.table.table_descriptor import TableDescriptor
    from millstream.table.table_environment import TableEnvironment
    from millstream.table.table_result import TableResult

__all__ = ["SqlError", "execute_statement", "parse_query"]

_DIALECT = "spark"  # backquoted identifiers and Flink's operators; CAST arrives as TryCast


class SqlError(ValueError):
    """A statement that could not be parsed or is not supported (yet)."""


def parse_query(t_env: TableEnvironment, statement: str) -> Table:
    """The table a SELECT statement describes."""
    try:
        tree = sqlglot.parse_one(statement, read=_DIALECT)
    except sqlglot.errors.ParseError as err:
        raise SqlError(f"SQL parse failed: {err}") from err
    if not isinstance(tree, exp.Select):
        raise SqlError(f"only SELECT queries are supported here, got: {statement.strip()[:80]}")
    return _select(t_env, tree)


def execute_statement(t_env: TableEnvironment, statement: str) -> TableResult:
    """Run one statement: ``CREATE TABLE name (columns) WITH (options)`` (a connector table),
    ``INSERT INTO sink SELECT ...`` (its job starts), or a SELECT (its rows)."""
    from millstream.table.table_result import TableResult

    try:
        tree = sqlglot.parse_one(statement, read=_DIALECT)
    except sqlglot.errors.ParseError as err:
        raise SqlError(f"SQL parse failed: {err}") from err
    if isinstance(tree, exp.Select):
        return _select(t_env, tree).execute()
    if isinstance(tree, exp.Insert):
        query = tree.expression
        if not isinstance(query, exp.Select):
            raise SqlError("INSERT INTO needs a SELECT")
        return _select(t_env, query).execute_insert(tree.this.name)
    if isinstance(tree, exp.Create) and str(tree.args.get("kind", "")).upper() == "TABLE":
        t_env.create_temporary_table(*_table_definition(tree))
        return TableResult.ok()
    raise SqlError(f"unsupported statement: {statement.strip()[:80]}")


def _table_definition(tree: exp.Create) -> tuple[str, TableDescriptor]:
    from millstream.table.schema import Schema
    from millstream.table.table_descriptor import TableDescriptor

    target = tree.this
    if not isinstance(target, exp.Schema):
        raise SqlError("CREATE TABLE needs its columns")
    builder = Schema.new_builder()
    for column in target.expressions:
        if not isinstance(column, exp.ColumnDef):
            raise SqlError(f"not supported yet in CREATE TABLE: {column.sql()}")
        builder.column(column.name, _data_type(column.args["kind"]))
    options: dict[str, str] = {}
    properties = tree.args.get("properties")
    for prop in properties.expressions if properties is not None else []:
        key = prop.this.this if isinstance(prop.this, exp.Literal) else prop.name
        value = prop.args.get("value")
        options[str(key)] = str(value.this if isinstance(value, exp.Literal) else value)
    connector = options.pop("connector", None)
    if connector is None:
        raise SqlError(f"table '{target.this.name}' needs WITH ('connector' = ...)")
    descriptor = TableDescriptor.for_connector(connector).schema(builder.build())
    for key, value in options.items():
        descriptor.option(key, value)
    return target.this.name, descriptor.build()


def _source(t_env: TableEnvironment, select: exp.Select) -> Table:
    source = select.args.get("from_") or select.args.get("from")
    if source is None:
        raise SqlError("a query needs FROM")
    node = source.this
    if isinstance(node, exp.Subquery):
        return _select(t_env, node.this)
    if isinstance(node, exp.Table):
        return t_env.from_path(node.name)
    raise SqlError(f"unsupported FROM: {node.sql()}")


def _select(t_env: TableEnvironment, select: exp.Select) -> Table:
    if select.args.get("joins"):
        raise SqlError("joins are not supported yet")
    table = _source(t_env, select)
    where = select.args.get("where")
    if where is not None:
        table = table.filter(_expression(where.this))
    items = [_item(e, position) for position, e in enumerate(select.expressions)]
    group = select.args.get("group")
    having = select.args.get("having")
    aggregating = group is not None or any(e.aggregates() for e in items)
    if aggregating:
        keys = [_expression(k) for k in group.expressions] if group is not None else []
        if having is not None:
            condition = _expression(having.this).alias("$having")
            grouped = table.group_by(*keys).select(*items, condition)
            visible = [col(name) for name in grouped.get_schema().get_field_names() if name != "$having"]
            table = grouped.filter(col("$having")).select(*visible)
        else:
            table = table.group_by(*keys).select(*items)
    else:
        table = table.select(*items)
    if select.args.get("distinct") is not None:
        table = table.distinct()
    return table


def _item(node: exp.Expression, position: int) -> Expression:
    """A select item with its column name (Flink's ``EXPR$<position>`` when unnamed)."""
    if isinstance(node, exp.Alias):
        return _expression(node.this).alias(node.alias)
    if isinstance(node, exp.Column):
        return _expression(node)
    if isinstance(node, exp.Star):
        raise SqlError("SELECT * is not supported yet: name the columns")
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
    "DECIMAL": lambda t: _decimal(_params(t)),
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
    if isinstance(node, exp.Column):
        return col(node.name)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return lit(node.this)
        text = node.this
        return lit(float(text) if any(c in text for c in ".eE") else int(text))
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
        return -_expression(node.this)
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return _expression(node.this).cast(_data_type(node.to))
    if type(node) in _AGGREGATES:
        operand = node.this
        if isinstance(node, exp.Count) and (operand is None or isinstance(operand, exp.Star)):
            return AggregateCall("COUNT", lit(1))
        if isinstance(operand, exp.Distinct):
            raise SqlError("aggregates over DISTINCT are not supported yet")
        call: Expression = getattr(_expression(operand), _AGGREGATES[type(node)])
        return call
    if isinstance(node, exp.Case):
        return _case(node)
    raise SqlError(f"unsupported SQL expression: {node.sql()}")


def _case(node: exp.Case) -> Expression:
    otherwise: Any = node.args.get("default")
    result = _expression(otherwise) if otherwise is not None else lit(None)
    for branch in reversed(node.args.get("ifs") or []):
        result = if_then_else(_expression(branch.this), _expression(branch.args["true"]), result)
    return result
