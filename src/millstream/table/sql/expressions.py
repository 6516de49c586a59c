"""SQL expressions to Table API expressions: column references resolved in the query's
scopes, literals with Flink's types, operators, CASE, CAST / TRY_CAST, aggregate calls,
built-in and user functions, OVER windows."""

from __future__ import annotations

import datetime
import decimal
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from millstream.table.common.types import DataTypes
from millstream.table.expression.expression import (
    AggregateCall,
    Expression,
    OverCall,
    WindowProperty,
    _FieldAccess,
    col,
    interval_millis,
    lit,
)
from millstream.table.expression.logic import and_, if_then_else, not_, or_
from millstream.table.expression.over_frame import OverFrame
from millstream.table.functions.aggregates_more import ARRAY_AGG_IGNORE_NULLS, NTILE
from millstream.table.functions.builtins import call_builtin, is_builtin
from millstream.table.functions.lookup import call
from millstream.table.functions.udf import UserAggregateCall
from millstream.table.sql.errors import column_not_in_table
from millstream.table.sql.forms import special_form
from millstream.table.sql.literals import (
    INTERVAL_UNITS,
    LiteralError,
    approximate_numeric,
    char_length,
    date_literal,
    exact_numeric,
    interval_literal,
    interval_qualifier,
    time_literal,
    timestamp_literal,
)
from millstream.table.sql.parser import _DIALECT, SqlError, _parse
from millstream.table.sql.types import _data_type, column_type, parse_data_type

if TYPE_CHECKING:
    from millstream.table.planner.nodes import PlanNode

__all__ = ["column_type", "parse_data_type"]  # sql/types.py's; and the internals of the SQL translation


def _interval_ms(node: exp.Expression) -> int:
    return interval_millis(_expression(node))


class _Translation(threading.local):
    """The SQL translation's state, one per thread (two threads may translate queries at once).

    Attributes:
        scopes: the column names visible to the expressions being converted, innermost
            last: (table alias, column) and unqualified names, to the column of the current
            input (joins rename clashing columns).
        over: the over windows of the SELECTs being converted, innermost last: alias ->
            frame (``OVER (...)`` and ``WINDOW w AS (...)``).
        database: the current database of the query being converted (``CURRENT_DATABASE()``,
            a constant of the query as in Flink's planner).
    """

    def __init__(self) -> None:
        self.scopes: list[dict[tuple[str | None, str], str]] = []
        self.over: list[dict[str, Any]] = []
        self.database = "default_database"


_STATE = _Translation()


def _column_name(node: exp.Column) -> str:
    name = node.name
    if not _STATE.scopes:
        return name
    scope = _STATE.scopes[-1]
    qualifier = node.table or None
    if (qualifier, name) in scope:
        return scope[(qualifier, name)]
    if qualifier is not None:
        raise column_not_in_table(node, scope)
    return name


_NILADIC = {"LOCALTIMESTAMP": "LOCALTIMESTAMP", "LOCALTIME": "CURRENT_TIME", "CURRENT_TIME": "CURRENT_TIME"}
_NILADIC["CURRENT_ROW_TIMESTAMP"] = "CURRENT_ROW_TIMESTAMP"  # without parentheses, read as columns by sqlglot
_NILADIC["PI"] = "PI"  # Flink's PI takes no parentheses (PyFlink 2.3.0: PI is 3.141592653589793)


def _is_map_constructor(node: exp.Expression) -> bool:
    """``MAP`` before ``[...]``: the constructor, unless a column of that name is in scope."""
    if not (isinstance(node, exp.Column) and not node.table and node.name.upper() == "MAP"):
        return False
    return not node.this.quoted and (None, node.name) not in (_STATE.scopes[-1] if _STATE.scopes else {})


def _column_ref(node: exp.Column) -> Expression:
    """A column, ``alias.column``, or a field of a ROW column: ``person.name``,
    ``P.person.name`` (a qualifier that names no table but a column of ROW type)."""
    parts = [p.name for p in node.parts]
    keyword = len(parts) == 1 and not node.this.quoted
    keyword = keyword and (None, parts[0]) not in (_STATE.scopes[-1] if _STATE.scopes else {})
    if keyword and parts[0].upper() in _NILADIC:  # a call
        return call_builtin(_NILADIC[parts[0].upper()])
    if keyword and parts[0].upper() == "UNKNOWN":  # SQL's unknown truth value: a NULL BOOLEAN
        return lit(None, DataTypes.BOOLEAN())
    if len(parts) == 1:
        return col(_column_name(node))
    scope = _STATE.scopes[-1] if _STATE.scopes else None
    if scope is not None and (parts[0], parts[1]) in scope:  # alias.column[.field ...]
        base, fields = scope[(parts[0], parts[1])], parts[2:]
    elif scope is None or (None, parts[0]) in scope:  # column.field[.field ...]
        base, fields = scope[(None, parts[0])] if scope is not None else parts[0], parts[1:]
    else:
        raise column_not_in_table(node, scope)
    result = col(base)
    for name in fields:
        result = _FieldAccess(result, name, sql_name=True)
    return result


def _scope_of(plan: PlanNode, alias: str | None) -> dict[tuple[str | None, str], str]:
    names = list(plan.names)
    scope: dict[tuple[str | None, str], str] = {(None, n): n for n in names}
    if alias:
        scope.update({(alias, n): n for n in names})
    return scope


def _alias_of(node: exp.Expression) -> str | None:
    alias = node.alias_or_name if hasattr(node, "alias_or_name") else None
    return alias or None


_GROUP_WINDOWS = {"MS_GW_TUMBLE": "TUMBLE", "MS_GW_HOP": "HOP", "MS_GW_SESSION": "SESSION"}


_WINDOW_PROPERTIES = {"START": "start", "END": "end", "ROWTIME": "rowtime"}


_LEGACY_WINDOW = "$w"


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
    exp.Stddev: "stddev",
    exp.VariancePop: "var_pop",
    exp.Variance: "variance",
    exp.FirstValue: "first_value",
    exp.LastValue: "last_value",
    exp.ArrayAgg: "array_agg",
}


def _negative_literal(node: exp.Neg) -> exp.Literal | None:
    """``-`` of a number written as a literal (in parentheses too) as the literal of the negated
    number, as Calcite's parser folds it: ``-2147483648`` is an INT, ``-(-2147483648)`` the BIGINT
    2147483648; None for other operands."""
    inner = node.this
    while isinstance(inner, exp.Paren):
        inner = inner.this
    if isinstance(inner, exp.Neg):
        inner = _negative_literal(inner)
    if not isinstance(inner, exp.Literal) or inner.is_string:
        return None
    text = inner.this
    return exp.Literal(this=text[1:] if text.startswith("-") else f"-{text}", is_string=False)


def _expression(node: exp.Expression) -> Expression:  # noqa: C901 - one case per node kind
    if isinstance(node, exp.Paren):
        return _expression(node.this)
    if isinstance(node, exp.Tuple):  # (a, b): the row constructor ROW(a, b)
        return call_builtin("ROW", *(_expression(e) for e in node.expressions))
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
    if isinstance(node, (exp.Literal, exp.HexString)) or _is_typed_literal(node):
        return _literal(node)
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
        negative = _negative_literal(node)
        if negative is not None:  # -7.89: DECIMAL(3, 2), as written; -(-2147483648): BIGINT
            return _expression(negative)
        if isinstance(node.this, exp.Interval):  # -INTERVAL '1' DAY: the interval negated
            return _interval(node.this, -1)
        return -_expression(node.this)
    if isinstance(node, (exp.Cast, exp.TryCast)) and isinstance(node.to.this, exp.Interval):
        return _interval_cast(node)
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return _expression(node.this).cast(_data_type(node.to))
    if isinstance(node, exp.Filter) and type(node.this) in _AGGREGATES:  # agg(x) FILTER (WHERE c)
        return _aggregate(node.this, _expression(node.expression.this))
    if isinstance(node, exp.Filter):  # a Python UDAF's or another aggregate's call FILTER (WHERE c)
        call = _expression(node.this)
        where = _expression(node.expression.this)
        if isinstance(call, UserAggregateCall):
            return call.filtered(where)
        if type(call) is AggregateCall and call.where is None:  # LISTAGG, COLLECT ...
            return AggregateCall(call.function, call.operand, call.is_distinct, where)
        raise SqlError(f"FILTER (WHERE ...) follows an aggregate function's call, not: {node.this.sql()}")
    if type(node) in _AGGREGATES:
        return _aggregate(node, None)
    if isinstance(node, (exp.RespectNulls, exp.IgnoreNulls)) and isinstance(node.this, exp.ArrayAgg):
        call = _aggregate(node.this, None)  # ARRAY_AGG(x RESPECT NULLS) is ARRAY_AGG(x), Flink's default
        if isinstance(node, exp.IgnoreNulls):
            call = AggregateCall(ARRAY_AGG_IGNORE_NULLS, call.operand, call.is_distinct)
        return call
    if isinstance(node, exp.Case):
        return _case(node)
    return _function(node)


def _is_typed_literal(node: exp.Expression) -> bool:
    """``DATE '2024-01-01'``, ``TIME '...'``, ``TIMESTAMP '...'``, ``TIMESTAMP WITH LOCAL TIME
    ZONE '...'``: the Cast the parser marked a literal (``parser.py``'s ``_typed_literal``)."""
    return isinstance(node, exp.Cast) and bool(node.meta_get("literal"))


def _literal(node: exp.Expression) -> Expression:
    """A literal with its value and type as Flink's parser gives them (``literals.py``)."""
    try:
        if isinstance(node, exp.HexString):
            value = bytes.fromhex(node.this)
            return lit(value, DataTypes.BINARY(len(value), False))
        if isinstance(node, exp.Cast):
            return _typed_literal(node.this.this, node.to)
        text = node.this
        if node.is_string:
            return lit(text, DataTypes.CHAR(char_length(text), False))
        if any(c in text for c in "eE"):
            return lit(*approximate_numeric(text))
        return lit(*exact_numeric(text))
    except LiteralError as err:
        raise SqlError(str(err)) from err


def _typed_literal(text: str, to: exp.DataType) -> Expression:
    """``DATE 'yyyy-MM-dd'``, ``TIME 'HH:mm:ss[.fff]'`` (TIME(p), p its fraction's digits),
    ``TIMESTAMP 'yyyy-MM-dd HH:mm:ss[.f]'`` (TIMESTAMP(p)), ``TIMESTAMP WITH LOCAL TIME ZONE
    '...'`` (the timestamp in the session's time zone, TIMESTAMP_LTZ(p)): NOT NULL values read
    as Calcite reads them, not as a CAST of the string would."""
    kind = to.this
    if kind == exp.DType.DATE:
        return lit(date_literal(text), DataTypes.DATE(False))
    if kind == exp.DType.TIME:
        value, precision = time_literal(text)
        return lit(value, DataTypes.TIME(precision, False))
    if kind in (exp.DType.TIMESTAMP, exp.DType.TIMESTAMPTZ, exp.DType.TIMESTAMPNTZ):
        stamp, precision = timestamp_literal(text)
        return lit(stamp, DataTypes.TIMESTAMP(precision, False))
    if kind == exp.DType.TIMESTAMPLTZ:
        stamp, precision = timestamp_literal(text, "TIMESTAMP WITH LOCAL TIME ZONE")
        local = lit(stamp, DataTypes.TIMESTAMP(precision, False))
        return local.cast(DataTypes.TIMESTAMP_LTZ(precision, False))
    raise SqlError(f"Incorrect syntax near the keyword '{to.sql(dialect=_DIALECT)}': not a literal's type")


def _interval(node: exp.Interval, sign: int = 1) -> Expression:
    """``INTERVAL [-]'value' qualifier``: a year-month interval's months (INTERVAL MONTH) or a
    day-time interval (INTERVAL SECOND(3)), NOT NULL (``sign``: -1 when negated)."""
    value = node.this
    if isinstance(value, exp.Neg):
        value, sign = value.this, -sign
    try:
        qualifier = interval_qualifier(node.args["unit"].name)
        amount = interval_literal(value.name, qualifier, sign)
    except LiteralError as err:
        raise SqlError(str(err)) from err
    if qualifier.year_month:
        return lit(amount, qualifier.data_type())
    return lit(datetime.timedelta(milliseconds=amount), qualifier.data_type())


def _interval_cast(node: exp.Cast | exp.TryCast) -> Expression:
    """``CAST(x AS INTERVAL DAY)``: a numeric literal counts the qualifier's last unit
    (``CAST(2 AS INTERVAL DAY)`` is two days, as Calcite folds it); any other number is taken
    as the interval's milliseconds or months, as Flink's cast does at run time
    (``CAST(CAST(3 AS BIGINT) AS INTERVAL HOUR)`` is 3 ms on PyFlink 2.3)."""
    try:
        qualifier = interval_qualifier(node.to.this.args["unit"].name)
    except LiteralError as err:
        raise SqlError(str(err)) from err
    operand, sign = node.this, 1
    if isinstance(operand, exp.Neg) and isinstance(operand.this, exp.Literal):
        operand, sign = operand.this, -1
    target = qualifier.data_type(nullable=True)
    if isinstance(operand, exp.Literal) and not operand.is_string:
        amount = decimal.Decimal(operand.this) * sign * INTERVAL_UNITS[qualifier.unit][1]
        if qualifier.year_month:
            return lit(int(amount), target.not_null())
        return lit(datetime.timedelta(milliseconds=int(amount)), target.not_null())
    return _expression(node.this).cast(target)


def _aggregate(node: exp.Expression, where: Expression | None) -> AggregateCall:
    """COUNT, SUM, AVG, MIN, MAX, over ``*``, a value or ``DISTINCT`` values, maybe with a
    FILTER (WHERE ...) condition."""
    operand = node.this
    function = _AGGREGATES[type(node)].upper()
    if isinstance(node, exp.Count) and (operand is None or isinstance(operand, exp.Star)):
        return AggregateCall("COUNT", lit(1), where=where)
    if isinstance(node, exp.Count) and node.expressions:  # COUNT(x, y): rows where none is NULL
        values = [_expression(e) for e in (operand, *node.expressions)]
        counted = if_then_else(or_(*(v.is_null for v in values)), lit(None), lit(1))
        return AggregateCall("COUNT", counted, where=where)
    if isinstance(operand, exp.Distinct):
        if len(operand.expressions) != 1:
            raise SqlError(f"{function}(DISTINCT ...) takes one expression, got: {operand.sql()}")
        return AggregateCall(function, _expression(operand.expressions[0]), True, where)
    return AggregateCall(function, _expression(operand), where=where)


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
    exp.DPipe: ("||", ("this", "expression")),
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


# the ranking functions of an OVER window: sqlglot's node -> the function (ROW_NUMBER() ...)
_RANKINGS: dict[type, str] = {
    exp.RowNumber: "ROW_NUMBER",
    exp.Rank: "RANK",
    exp.DenseRank: "DENSE_RANK",
    exp.PercentRank: "PERCENT_RANK",
    exp.CumeDist: "CUME_DIST",
}


def _window_function(node: exp.Expression) -> Expression:
    """The function an OVER window computes: an aggregate, a ranking (``RANK()`` ...),
    ``NTILE(n)``, ``LEAD`` / ``LAG``."""
    if type(node) in _RANKINGS:
        return AggregateCall(_RANKINGS[type(node)], lit(1))
    if isinstance(node, exp.Ntile):
        buckets = _expression(node.this).resolve([], []).fn(())
        if not isinstance(buckets, int) or buckets <= 0:
            raise SqlError(f"NTILE takes a positive integer literal, got {node.this.sql()}")
        return AggregateCall(NTILE + str(buckets), lit(1))
    return _expression(node)


def _over(node: exp.Window) -> Expression:
    """``agg(x) OVER (PARTITION BY k ORDER BY ts ROWS|RANGE BETWEEN ... AND CURRENT ROW)``."""
    if not _STATE.over:
        raise SqlError("OVER is only valid in a SELECT list")
    frames = _STATE.over[-1]
    inner = _window_function(node.this)
    if not isinstance(inner, AggregateCall):
        raise SqlError(f"unsupported OVER function: {node.this.sql()} (aggregates and window functions only)")
    alias = node.args.get("alias")
    window_name = alias.name if alias is not None else None
    named = node.args.get("partition_by") is None and node.args.get("order") is None
    if named and window_name in frames:  # OVER w of a WINDOW clause
        return OverCall(inner, col(str(window_name)))
    name = f"$w{len(frames)}"
    frames[name] = _frame(node)
    return OverCall(inner, col(name))


def _frame(node: exp.Window) -> Any:
    """The OVER window's partition, order and frame (the planner checks what a mode allows:
    streaming, one time attribute and a frame ending at the current row)."""
    partition = tuple(_expression(p) for p in node.args.get("partition_by") or [])
    order = node.args.get("order")
    ordered = order.expressions if order else []
    keys = tuple((_expression(o.this), bool(o.args.get("desc")), _nulls_first(o)) for o in ordered)
    time = keys[0][0] if keys else None
    spec = node.args.get("spec")
    if spec is None:  # Flink's default frame: RANGE UNBOUNDED PRECEDING (to the end without ORDER BY)
        return OverFrame(partition, time, False, None, keys, 0 if keys else None)
    rows = str(spec.args.get("kind", "")).upper() == "ROWS"
    preceding = _bound(spec.args.get("start"), rows)
    end = spec.args.get("end")
    following = 0 if end is None else _bound(end, rows)
    return OverFrame(partition, time, rows, preceding, keys, following)


def _bound(bound: Any, rows: bool) -> int | None:
    """A frame bound's distance from the current row: None for UNBOUNDED, 0 for CURRENT ROW,
    else rows, or milliseconds of an interval (a number as it is)."""
    if str(bound).upper() == "UNBOUNDED":
        return None
    if str(bound).upper() == "CURRENT ROW":
        return 0
    if rows or isinstance(bound, exp.Literal):
        return int(bound.this)
    return _interval_ms(bound)


def _nulls_first(ordered: exp.Ordered) -> bool:
    """Whether an ORDER BY key puts NULLs first: as written, else Flink's default (first
    ascending, last descending)."""
    written = ordered.args.get("nulls_first")
    return (not ordered.args.get("desc")) if written is None else bool(written)


def _function(node: exp.Expression) -> Expression:
    if isinstance(node, (exp.Window, exp.CurrentDatabase)):  # CURRENT_DATABASE(): the query's constant
        return _over(node) if isinstance(node, exp.Window) else lit(_STATE.database, DataTypes.STRING(False))

    if isinstance(node, exp.Interval):
        return _interval(node)
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


def flink_text(text: str) -> str:
    """An SQL expression as Flink prints it in a schema (identifiers quoted)."""
    tree = _parse(f"SELECT {text}")
    assert isinstance(tree, exp.Select)
    return str(tree.expressions[0].sql(dialect=_DIALECT, identify=True))


def parse_expression(text: str) -> Expression:
    """An SQL scalar expression (computed columns, watermark expressions)."""
    tree = _parse(f"SELECT {text}")
    assert isinstance(tree, exp.Select)
    return _expression(tree.expressions[0])


def watermark_delay_ms(text: str, rowtime: str) -> int | None:
    """``d`` when the watermark expression is ``rowtime - INTERVAL d`` (or ``rowtime``, 0): a
    bounded out-of-orderness watermark; None for any other expression."""
    tree = _parse(f"SELECT {text}")
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
