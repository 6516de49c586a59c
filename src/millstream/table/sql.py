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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp

from millstream.table.expressions import AggregateCall, Expression, and_, col, if_then_else, lit, not_, or_
from millstream.table.types import DataType, DataTypes
from millstream.table.window_agg import WindowSpec

if TYPE_CHECKING:
    from millstream.table.table import Table
    from millstream.table.table_descriptor import TableDescriptor
    from millstream.table.table_environment import TableEnvironment
    from millstream.table.table_result import TableResult

__all__ = ["SqlError", "execute_statement", "parse_query"]

_DIALECT = "spark"  # backquoted identifiers and Flink's operators; CAST arrives as TryCast


class SqlError(ValueError):
    """A statement that could not be parsed or is not supported (yet)."""


_TVFS = {"TUMBLE", "HOP", "CUMULATE", "SESSION"}


def _flink_syntax(statement: str) -> tuple[str, list[tuple[str, str]]]:
    """Flink SQL's own syntax rewritten into what sqlglot parses, by token positions:
    ``TABLE(TUMBLE(TABLE t, ...))`` -> ``TABLE(MS_TUMBLE(t, ...))``, ``GROUP BY TUMBLE(ts, ...)``
    -> ``MS_GW_TUMBLE(ts, ...)``, ``TABLE t PARTITION BY k`` -> ``t, MS_PARTITION_BY(k)``,
    ``NOT ENFORCED`` dropped, and ``WATERMARK FOR c AS expr`` taken out of a CREATE TABLE
    (returned as (column, expression text) pairs)."""
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
        i += 1
    for start, end, replacement in sorted(edits, reverse=True):
        statement = statement[:start] + replacement + statement[end:]
    return statement, watermarks


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


def parse_expression(text: str) -> Expression:
    """An SQL scalar expression (computed columns, watermark expressions)."""
    tree, _ = _parse(f"SELECT {text}")
    assert isinstance(tree, exp.Select)
    return _expression(tree.expressions[0])


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

    tree, watermarks = _parse(statement)
    if isinstance(tree, exp.Select):
        return _select(t_env, tree).execute()
    if isinstance(tree, exp.Insert):
        return t_env._run_many([_insert(t_env, tree)])
    if isinstance(tree, exp.Create) and str(tree.args.get("kind", "")).upper() == "TABLE":
        t_env.create_temporary_table(*_table_definition(tree, watermarks))
        return TableResult.ok()
    raise SqlError(f"unsupported statement: {statement.strip()[:80]}")


def _table_definition(tree: exp.Create, watermarks: list[tuple[str, str]]) -> tuple[str, TableDescriptor]:
    from millstream.table.schema import Schema
    from millstream.table.table_descriptor import TableDescriptor

    target = tree.this
    if not isinstance(target, exp.Schema):
        raise SqlError("CREATE TABLE needs its columns")
    builder = Schema.new_builder()
    for column in target.expressions:
        if isinstance(column, exp.PrimaryKey):
            builder.primary_key(*(c.name for c in column.expressions))
            continue
        if not isinstance(column, exp.ColumnDef):
            raise SqlError(f"not supported yet in CREATE TABLE: {column.sql()}")
        computed = [
            c.args["kind"]
            for c in column.args.get("constraints") or []
            if isinstance(c.args.get("kind"), exp.ComputedColumnConstraint)
        ]
        if computed:
            builder.column_by_expression(column.name, computed[0].this.sql(dialect=_DIALECT))
            continue
        if any(
            isinstance(c.args.get("kind"), exp.PrimaryKeyColumnConstraint)
            for c in column.args.get("constraints") or []
        ):
            builder.primary_key(column.name)
        builder.column(column.name, _data_type(column.args["kind"]))
    for column_name, expression in watermarks:
        builder.watermark(column_name, expression)
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
        return t_env.from_path(node.name), None
    raise SqlError(f"unsupported FROM: {node.sql()}")


def _interval_ms(node: exp.Expression) -> int:
    from millstream.table.expressions import interval_millis

    return interval_millis(_expression(node))


def _window_tvf(t_env: TableEnvironment, call: exp.Expression) -> tuple[Table, _Windowed]:
    """``TUMBLE(t, DESCRIPTOR(ts), size [, offset])``, ``HOP(t, DESCRIPTOR(ts), slide, size)``,
    ``CUMULATE(t, DESCRIPTOR(ts), step, size)``, ``SESSION(t [PARTITION BY k], DESCRIPTOR(ts), gap)``."""
    from millstream.table.table import Table
    from millstream.table.window_agg import WindowTVF, tvf_columns

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
    if plan.rowtime != time_column:
        raise SqlError(
            "The window function requires the timecol is a time attribute type, but is "
            f"{plan.types[time_column]!r}"
        )
    names, types = tvf_columns(plan, time_column)
    node = WindowTVF(names, types, False, plan, spec, time_column, rowtime=len(names) - 1)
    return Table(node, t_env), _Windowed(table, spec, time_column)


def _source(t_env: TableEnvironment, select: exp.Select) -> tuple[Table, _Windowed | None]:
    source = select.args.get("from_") or select.args.get("from")
    if source is None:
        raise SqlError("a query needs FROM")
    table, windowed = _from_item(t_env, source.this)
    for join in select.args.get("joins") or []:
        table = _join(t_env, table, join)
        windowed = None
    return table, windowed


def _join(t_env: TableEnvironment, left: Table, join: exp.Join) -> Table:
    raise SqlError("joins are not supported yet")


_GROUP_WINDOWS = {"MS_GW_TUMBLE": "TUMBLE", "MS_GW_HOP": "HOP", "MS_GW_SESSION": "SESSION"}
_WINDOW_PROPERTIES = {"START": "start", "END": "end", "ROWTIME": "rowtime"}
_LEGACY_WINDOW = "$w"


def _select(t_env: TableEnvironment, select: exp.Select) -> Table:
    table, windowed = _source(t_env, select)
    where = select.args.get("where")
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
    else:
        table = table.select(*items)
    if select.args.get("distinct") is not None:
        table = table.distinct()
    return table


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
                                    ("window_start", "window_end", "window_time"))  # fmt: skip
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
                                      tuple(f"{_LEGACY_WINDOW}${p}" for p in ("start", "end", "rowtime")))  # type: ignore[arg-type]  # fmt: skip
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
    if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
        return [col(name) for name in table.get_schema().get_field_names() if not name.startswith("$")]
    return [_item(node, position)]


def _item(node: exp.Expression, position: int) -> Expression:
    """A select item with its column name (Flink's ``EXPR$<position>`` when unnamed)."""
    if isinstance(node, exp.Alias):
        return _expression(node.this).alias(node.alias)
    if isinstance(node, exp.Column):
        return _expression(node)
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
    "TIMESTAMPTZ": lambda t: DataTypes.TIMESTAMP(
        _params(t)[0] if _params(t) else 6
    ),  # sqlglot's Spark TIMESTAMP
    "TIMESTAMPNTZ": lambda t: DataTypes.TIMESTAMP(_params(t)[0] if _params(t) else 6),
    "TIMESTAMPLTZ": lambda t: DataTypes.TIMESTAMP_LTZ(_params(t)[0] if _params(t) else 6),
    "TIME": lambda t: DataTypes.TIME(_params(t)[0] if _params(t) else 0),
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
    return _function(node)


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
}


def _arguments(node: exp.Expression, keys: tuple[str, ...]) -> list[Expression]:
    args: list[Expression] = []
    for key in keys:
        value = node.args.get(key)
        if value is None:
            continue
        args.extend(_expression(v) for v in (value if isinstance(value, list) else [value]))
    return args


def _function(node: exp.Expression) -> Expression:
    from millstream.table.expressions import WindowProperty, call
    from millstream.table.functions import call_builtin, is_builtin

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
