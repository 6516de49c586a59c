"""SQL's special syntax for built-in functions, as sqlglot parses it, turned into calls with
Flink's meaning: ``x [NOT] LIKE p [ESCAPE c]``, ``x [NOT] SIMILAR TO p [ESCAPE c]``,
``CASE x WHEN ...``, ``TRIM(LEADING c FROM s)``,
``x BETWEEN SYMMETRIC a AND b``, ``x IS [NOT] TRUE | FALSE | UNKNOWN``,
``x IS [NOT] DISTINCT FROM y``, ``POSITION(a IN b)``, ``LPAD`` / ``RPAD``,
``OVERLAY(s PLACING r FROM i [FOR n])``, ``EXTRACT(unit FROM t)`` and ``YEAR(t)`` ...,
``FLOOR`` / ``CEIL`` of a number or of a time ``TO unit``, ``LOG10`` / ``LOG2`` / ``LOG``,
``TRY_CAST``, ``CHR``, ``TIMESTAMPADD`` / ``TIMESTAMPDIFF``, the JSON functions' clauses
(``JSON_VALUE(j, p RETURNING INT DEFAULT -1 ON ERROR)``, ``JSON_OBJECT(KEY k VALUE v ABSENT ON
NULL)``, ``JSON_ARRAYAGG(x NULL ON NULL)`` ...).

``special_form(node, expression)`` is the call for ``node``, or None when ``node`` is not one
of these (``expression`` turns a child node into an expression).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlglot import exp

from millstream.table.common.intervals import is_interval
from millstream.table.common.printing import summary_string
from millstream.table.common.types import DataTypes
from millstream.table.expression.calls import _Tuple
from millstream.table.expression.comparisons import same_expression
from millstream.table.expression.expression import AggregateCall, Expression, lit
from millstream.table.expression.logic import and_, if_then_else, not_, or_
from millstream.table.expression.resolved import Compiled
from millstream.table.expression.watermarks import CurrentWatermark
from millstream.table.functions.aggregates_more import (
    JSON_ARRAYAGG,
    JSON_OBJECTAGG,
    LAG,
    LEAD,
    LISTAGG,
    PERCENTILE,
)
from millstream.table.functions.bitmaps import BITMAP_AGGREGATES
from millstream.table.functions.builtins import call_builtin
from millstream.table.functions.temporal import EXTRACT_UNITS
from millstream.table.sql.errors import within_group_refused
from millstream.table.sql.types import _data_type

__all__ = ["TIME_UNITS", "special_form"]

Convert = Callable[[exp.Expression], Expression]

# EXTRACT(unit FROM t): Calcite's units, and the longer names of three of them
_EXTRACT_ALIASES = {"DAYOFMONTH": "DAY", "DAYOFYEAR": "DOY", "DAYOFWEEK": "DOW"}
_PARTS: dict[type, str] = {
    exp.Year: "YEAR",
    exp.Quarter: "QUARTER",
    exp.Month: "MONTH",
    exp.Week: "WEEK",
    exp.Day: "DAYOFMONTH",
    exp.DayOfMonth: "DAYOFMONTH",
    exp.DayOfYear: "DAYOFYEAR",
    exp.DayOfWeek: "DAYOFWEEK",
}
# the units of FLOOR / CEIL ... TO, TIMESTAMPADD and TIMESTAMPDIFF (each function checks its own)
TIME_UNITS = (
    "NANOSECOND", "MICROSECOND", "MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER",
    "YEAR", "DECADE", "CENTURY", "MILLENNIUM",
)  # fmt: skip


def _unit(node: Any) -> str:
    name = str(node.name if isinstance(node, (exp.Var, exp.Column, exp.Identifier)) else node).upper()
    name = {"DAYS": "DAY", "HOURS": "HOUR", "MINUTES": "MINUTE", "SECONDS": "SECOND"}.get(name, name)
    if name not in TIME_UNITS:
        raise ValueError(f"unknown time unit {name}: one of {', '.join(TIME_UNITS)}")
    return name


def _truth(value: Expression, wanted: bool | None, negated: bool) -> Expression:
    """``value IS [NOT] TRUE | FALSE | UNKNOWN``: never NULL."""
    if wanted is None:
        test = value.is_null
    else:
        test = call_builtin("COALESCE", value if wanted else not_(value), lit(False))  # BOOLEAN NOT NULL
    return not_(test) if negated else test


def _distinct(a: Expression, b: Expression, negated: bool) -> Expression:
    """``a IS [NOT] DISTINCT FROM b``: NULL equals NULL, never NULL; of an expression with
    itself FALSE (TRUE), as Calcite's simplifier makes it before it runs."""
    if same_expression(a, b):
        return lit(negated)
    return call_builtin("IS NOT DISTINCT FROM" if negated else "IS DISTINCT FROM", a, b)


def special_form(node: exp.Expression, expression: Convert) -> Expression | None:  # noqa: C901
    """The call for ``node`` when it is one of the forms above, else None."""
    if isinstance(node, exp.Escape) and isinstance(node.this, (exp.Like, exp.SimilarTo)):  # ... ESCAPE c
        pattern = node.this
        name = "LIKE" if isinstance(pattern, exp.Like) else "SIMILAR"
        matched = call_builtin(
            name, expression(pattern.this), expression(pattern.expression), expression(node.expression)
        )
        return not_(matched) if pattern.args.get("negate") else matched
    if isinstance(node, exp.Like) and node.args.get("negate"):
        return not_(call_builtin("LIKE", expression(node.this), expression(node.expression)))
    if isinstance(node, exp.SimilarTo):
        return call_builtin("SIMILAR", expression(node.this), expression(node.expression))
    if isinstance(node, exp.Case) and node.this is not None:  # CASE x WHEN v THEN r ...
        subject = expression(node.this)
        otherwise = node.args.get("default")
        result = expression(otherwise) if otherwise is not None else lit(None)
        for branch in reversed(node.args.get("ifs") or []):
            result = if_then_else(subject == expression(branch.this), expression(branch.args["true"]), result)
        return result
    if isinstance(node, exp.Trim):
        position = str(node.args.get("position") or "BOTH").upper()
        name = {"LEADING": "LTRIM", "TRAILING": "RTRIM"}.get(position, "TRIM")
        characters = node.args.get("expression")
        args = [expression(node.this)] + ([expression(characters)] if characters is not None else [])
        return call_builtin(name, *args)
    if isinstance(node, exp.Between) and node.args.get("symmetric"):
        value, low, high = expression(node.this), expression(node.args["low"]), expression(node.args["high"])
        return or_(and_(value >= low, value <= high), and_(value >= high, value <= low))
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Boolean):
        return _truth(expression(node.this), bool(node.expression.this), False)
    if (
        isinstance(node, exp.Not)
        and isinstance(node.this, exp.Is)
        and isinstance(node.this.expression, exp.Boolean)
    ):
        return _truth(expression(node.this.this), bool(node.this.expression.this), True)
    if isinstance(node, exp.NullSafeNEQ):
        return _distinct(expression(node.this), expression(node.expression), False)
    if isinstance(node, exp.NullSafeEQ):
        return _distinct(expression(node.this), expression(node.expression), True)
    if isinstance(node, exp.StrPosition):  # POSITION(needle IN text [FROM start])
        start = node.args.get("position")
        if start is not None:  # Calcite's POSITION ... FROM: LOCATE(needle, text, start)
            return call_builtin(
                "LOCATE", expression(node.args["substr"]), expression(node.this), expression(start)
            )
        return call_builtin("POSITION", expression(node.args["substr"]), expression(node.this))
    if isinstance(node, exp.Pad):
        fill = node.args.get("fill_pattern")
        args = [expression(node.this), expression(node.expression), expression(fill) if fill else lit(" ")]
        return call_builtin("LPAD" if node.args.get("is_left") else "RPAD", *args)
    if isinstance(node, exp.Overlay):
        length = node.args.get("for_")
        args = [expression(node.this), expression(node.expression), expression(node.args["from_"])]
        return call_builtin("OVERLAY", *args, *([expression(length)] if length is not None else []))
    if isinstance(node, exp.Extract):
        unit = str(node.this.name).upper()
        unit = _EXTRACT_ALIASES.get(unit, unit)
        if unit not in EXTRACT_UNITS:
            raise ValueError(f"EXTRACT({unit} FROM ...) is not supported: one of {', '.join(EXTRACT_UNITS)}")
        return call_builtin("EXTRACT", lit(unit), expression(node.expression))
    if type(node) in _PARTS:
        return call_builtin(_PARTS[type(node)], expression(node.this))
    if isinstance(node, (exp.Floor, exp.Ceil)):
        name = "FLOOR" if isinstance(node, exp.Floor) else "CEIL"
        to = node.args.get("to") or node.args.get("unit")
        if to is not None:  # FLOOR(t TO MINUTE)
            return call_builtin(f"{name}_TO", expression(node.this), lit(_unit(to)))
        if node.args.get("decimals") is not None:
            return None
        return call_builtin(name, expression(node.this))
    if isinstance(node, exp.Log):
        base, value = node.this, node.expression
        if value is None:
            return call_builtin("LN", expression(base))
        if isinstance(base, exp.Literal) and base.this in ("10", 10):
            return call_builtin("LOG10", expression(value))
        if isinstance(base, exp.Literal) and base.this in ("2", 2):
            return call_builtin("LOG2", expression(value))
        return call_builtin("LOG", expression(base), expression(value))
    if isinstance(node, (exp.Cast, exp.TryCast)) and node.args.get("safe"):  # TRY_CAST (CAST: not safe)
        return expression(node.this).try_cast(_data_type(node.to))
    if isinstance(node, exp.Chr):
        return call_builtin("CHR", *(expression(e) for e in node.expressions))
    if isinstance(node, exp.Anonymous) and str(node.this).upper() == "__DATETIME_MINUS":  # (a - b) HOUR
        unit, left, right = node.expressions
        return call_builtin("DATETIME_MINUS", lit(unit.this), expression(left), expression(right))
    if isinstance(node, exp.Anonymous) and str(node.this).upper() in ("__TIMESTAMPADD", "__TIMESTAMPDIFF"):
        unit, *rest = node.expressions
        name = str(node.this).upper().lstrip("_")
        return call_builtin(
            name, lit(_unit(unit.this if isinstance(unit, exp.Literal) else unit)), *map(expression, rest)
        )
    if _json_call_name(node) == "TYPEOF" and len(node.expressions) in (1, 2):  # TYPEOF(x [, force])
        return _TypeOf(expression(node.expressions[0]))
    if _json_call_name(node) == "CURRENT_WATERMARK" and len(node.expressions) == 1:
        return CurrentWatermark(expression(node.expressions[0]))  # the Calc's watermark
    return _json_form(node, expression) or _aggregate_form(node, expression) or _overlaps(node, expression)


def _json_call_name(node: exp.Expression) -> str:
    return str(node.this).upper() if isinstance(node, exp.Anonymous) else ""


def _is_json_constructor(node: exp.Expression) -> bool:
    """JSON_OBJECT(...), JSON_ARRAY(...), JSON(...): a value written into an enclosing JSON
    value as JSON, not as text (Flink decides it by the call, ``JsonGenerateUtils``)."""
    return isinstance(node, exp.JSONObject) or _json_call_name(node) in ("__JSON_ARRAY", "JSON")


def _json_value_argument(node: exp.Expression, expression: Convert) -> Expression:
    """A JSON_OBJECT value or JSON_ARRAY element: JSON(s) there is the call ``$JSON``."""
    if _json_call_name(node) == "JSON":
        return call_builtin("$JSON", *(expression(e) for e in node.expressions))
    return expression(node)


class _TypeOf(Expression):
    """TYPEOF(x): the summary string of ``x``'s type (known when the query is planned)."""

    def __init__(self, operand: Expression) -> None:
        self.operand = operand

    def resolve(self, names: list[str], types: list[Any]) -> Any:
        text = summary_string(self.operand.resolve(names, types).data_type)
        return Compiled(lambda row: text, DataTypes.STRING(), None)  # Flink's TYPEOF: STRING


class _PeriodEnd(Expression):
    """An OVERLAPS period's end: ``start + length`` when the second item is an interval (by
    its type, as Calcite's ``convertOverlaps``: a year-month one moves by calendar months),
    else the item itself."""

    def __init__(self, origin: Expression, other: Expression) -> None:
        self.origin = origin
        self.other = other

    def aggregates(self) -> list[Any]:
        return self.origin.aggregates() + self.other.aggregates()

    def resolve(self, names: list[str], types: list[Any]) -> Any:
        kind = self.other.resolve(names, types).data_type
        end = self.origin + self.other if is_interval(kind.root) else self.other
        return end.resolve(names, types)

    def __repr__(self) -> str:
        return f"periodEnd({self.origin!r}, {self.other!r})"


def _overlaps(node: exp.Expression, expression: Convert) -> Expression | None:
    """``(start1, end1 | length1) OVERLAPS (start2, end2 | length2)``: the two periods share a
    point (Calcite's rule: each period ordered first, then ``s1 <= e2 AND s2 <= e1``). The
    order is Calcite's ``CASE WHEN start <= end THEN start ELSE end`` (and the reverse), so a
    NULL end leaves the start as the period's end: (DATE '2024-01-01', NULL) OVERLAPS (DATE
    '2024-01-05', DATE '2024-01-20') is FALSE, as PyFlink 2.3.0 gives it (LEAST / GREATEST
    made it NULL)."""
    if not isinstance(node, exp.Overlaps):
        return None
    periods = []
    for side in (node.this, node.expression):
        items = side.expressions if isinstance(side, exp.Tuple) else []
        if len(items) != 2:
            raise ValueError(f"OVERLAPS compares two periods (start, end or length), got: {side.sql()}")
        start = expression(items[0])
        end = _PeriodEnd(start, expression(items[1]))
        ordered = start <= end
        periods.append((if_then_else(ordered, start, end), if_then_else(ordered, end, start)))
    (s1, e1), (s2, e2) = periods
    return and_(s1 <= e2, s2 <= e1)


def _json_options(
    node: exp.Anonymous,
) -> tuple[dict[str, str], exp.Expression, list[exp.Expression], list[exp.Expression]]:
    """What ``_parse_json_call`` put in a ``__JSON_...`` call: its options, RETURNING type (a
    Null node: none), DEFAULT expressions (on empty, on error) and arguments."""
    options, returning, on_empty, on_error, *arguments = node.expressions
    return json.loads(options.this), returning, [on_empty, on_error], arguments


def _returning(node: exp.Expression, default: str) -> str:
    """A RETURNING type as Flink's messages write it (``INT``, ``VARCHAR(3)``, ``ARRAY<STRING>``)."""
    if isinstance(node, exp.Null):
        return default
    return summary_string(_data_type(node).nullable())  # type: ignore[arg-type]


def _json_form(node: exp.Expression, expression: Convert) -> Expression | None:
    """JSON_OBJECT(KEY k VALUE v ...), JSON_ARRAY(v ...), JSON_VALUE / JSON_QUERY / JSON_EXISTS
    with their clauses, JSON_STRING of a JSON constructor, ``s IS [NOT] JSON [type]``; a nested
    constructor's value goes in as JSON, not as a string (decided here, by the syntax)."""
    name = _json_call_name(node)
    if isinstance(node, exp.JSONObject):
        pairs = list(node.expressions or [])
        on_null = "ABSENT" if "ABSENT" in str(node.args.get("null_handling") or "").upper() else "NULL"
        raw = "".join("1" if _is_json_constructor(p.expression) else "0" for p in pairs)
        args = [
            part
            for p in pairs
            for part in (expression(p.this), _json_value_argument(p.expression, expression))
        ]
        return call_builtin("JSON_OBJECT", lit(on_null), lit(raw), *args)
    if name == "__JSON_ARRAY":
        options, _, _, arguments = _json_options(node)  # type: ignore[arg-type]
        raw = "".join("1" if _is_json_constructor(e) else "0" for e in arguments)
        values = [_json_value_argument(e, expression) for e in arguments]
        return call_builtin("JSON_ARRAY", lit(options.get("null", "ABSENT")), lit(raw), *values)
    if name == "__JSON_VALUE":
        options, returning, defaults, arguments = _json_options(node)  # type: ignore[arg-type]
        behaviours = [options.get("empty", "NULL"), options.get("error", "NULL")]
        extra = [expression(d) for d, b in zip(defaults, behaviours, strict=True) if b == "DEFAULT"]
        return call_builtin(
            "JSON_VALUE",
            *map(expression, arguments),
            lit(_returning(returning, "STRING")),
            *map(lit, behaviours),
            *extra,
        )
    if name == "__JSON_QUERY":
        options, returning, _, arguments = _json_options(node)  # type: ignore[arg-type]
        wrapper, on_empty, on_error = (
            options.get("wrapper", "WITHOUT ARRAY"),
            options.get("empty", "NULL"),
            options.get("error", "NULL"),
        )
        return call_builtin(
            "JSON_QUERY",
            *map(expression, arguments),
            lit(_returning(returning, "STRING")),
            *map(lit, (wrapper, on_empty, on_error)),
        )
    if name == "__JSON_EXISTS":
        options, _, _, arguments = _json_options(node)  # type: ignore[arg-type]
        return call_builtin("JSON_EXISTS", *map(expression, arguments), lit(options.get("error", "FALSE")))
    if (
        name == "JSON_STRING"
        and len(node.expressions) == 1
        and _json_call_name(node.expressions[0]) != "JSON"
    ):
        if _is_json_constructor(node.expressions[0]):  # its JSON as it is
            return expression(node.expressions[0])
        return None
    if name == "JSON":
        example = """JSON_OBJECT('a', JSON('{"key": "value"}')) or JSON_ARRAY(JSON('{"key": "value"}'))"""
        raise ValueError(
            "The JSON() function is currently only supported inside JSON_ARRAY() or as the VALUE param of "
            f"JSON_OBJECT(). Example: {example}."
        )
    is_node = node.this if isinstance(node, exp.Not) else node
    if isinstance(is_node, exp.Is) and isinstance(is_node.expression, exp.JSON):
        kind = is_node.expression.this
        test = call_builtin("IS_JSON", expression(is_node.this), lit(str(kind).upper() if kind else "VALUE"))
        test = if_then_else(expression(is_node.this).is_null, lit(False), test)
        return not_(test) if is_node is not node else test
    return None


def _named_aggregate(node: exp.Expression, expression: Convert) -> Expression | None:
    """COLLECT(x) and the bitmap aggregates (BITMAP_OR_AGG(b) ...): sqlglot's node for the
    name, or an anonymous call."""
    if not isinstance(node, exp.Func):
        return None
    name = str(node.this).upper() if isinstance(node, exp.Anonymous) else node.sql_name()
    if name != "COLLECT" and name not in BITMAP_AGGREGATES:
        return None
    operand = node.expressions[0] if isinstance(node, exp.Anonymous) else node.this
    return AggregateCall(name, expression(operand))


class _Unordered(Expression):
    """An aggregate's argument whose ORDER BY keys Flink validates and ignores (JSON_ARRAYAGG's:
    PyFlink 2.3.0 aggregates in arrival order with any ORDER BY or WITHIN GROUP)."""

    def __init__(self, value: Expression, keys: list[Expression]) -> None:
        self.value = value
        self.keys = keys

    def aggregates(self) -> list[Any]:
        return self.value.aggregates()

    def resolve(self, names: list[str], types: list[Any]) -> Any:
        for key in self.keys:  # an unknown column is an error, as Flink's validator's
            key.resolve(names, types)
        return self.value.resolve(names, types)

    def __repr__(self) -> str:
        return repr(self.value)


def _json_arrayagg(node: exp.Anonymous, within: exp.Expression | None, expression: Convert) -> Expression:
    """``JSON_ARRAYAGG(x [ORDER BY k ...] [NULL | ABSENT ON NULL]) [WITHIN GROUP (ORDER BY k ...)]``."""
    options, _, _, arguments = _json_options(node)
    value, *inside = arguments
    orders = [o for o in (*inside, within) if isinstance(o, exp.Order)]
    keys = [expression(ordered.this) for order in orders for ordered in order.expressions]
    spec = {"null": options.get("null", "ABSENT"), "raw": _is_json_constructor(value)}
    argument = _json_value_argument(value, expression)
    return AggregateCall(JSON_ARRAYAGG + json.dumps(spec), _Unordered(argument, keys) if keys else argument)


def _aggregate_form(node: exp.Expression, expression: Convert) -> Expression | None:
    """LISTAGG(x [, sep]), COLLECT(x), JSON_ARRAYAGG(x), JSON_OBJECTAGG(KEY k VALUE v)."""
    if isinstance(node, exp.Lag):  # LAG(x [, offset [, default]]) OVER (...)
        offset = node.args.get("offset")
        default = node.args.get("default")
        count = 1 if offset is None else int(offset.this)
        fallback = None if default is None else expression(default).resolve([], []).fn(())
        return AggregateCall(LAG + json.dumps([count, fallback]), expression(node.this))
    if isinstance(node, exp.Quantile):  # PERCENTILE(x, p), p a literal in [0, 1] or an ARRAY of them
        percentage = expression(node.args["quantile"]).resolve([], []).fn(())
        many = isinstance(percentage, list)
        values = percentage if many else [percentage]
        if not values or any(p is None or not 0 <= float(p) <= 1 for p in values):
            raise ValueError("Invalid input arguments.")  # Flink's: a percentage outside [0, 1]
        percentages = [float(p) for p in values] if many else float(percentage)
        return AggregateCall(PERCENTILE + json.dumps(percentages), expression(node.this))
    if isinstance(node, exp.Lead):  # LEAD(x [, offset [, default]]) OVER (...): BATCH only, as Flink's
        offset = node.args.get("offset")
        default = node.args.get("default")
        count = 1 if offset is None else int(offset.this)
        fallback = None if default is None else expression(default).resolve([], []).fn(())
        return AggregateCall(LEAD + json.dumps([count, fallback]), expression(node.this))
    if isinstance(node, exp.GroupConcat):  # LISTAGG([DISTINCT] x [, 'separator'])
        separator = node.args.get("separator")
        if separator is not None and not (isinstance(separator, exp.Literal) and separator.is_string):
            null = isinstance(separator, exp.Null) or (
                isinstance(separator, (exp.Cast, exp.TryCast)) and isinstance(separator.this, exp.Null)
            )
            wrong = "not be NULL" if null else "be a literal"
            raise ValueError(f"Argument to function 'LISTAGG' must {wrong}")
        text = "," if separator is None else str(separator.this)
        operand = node.this
        if isinstance(operand, exp.Order):  # sqlglot's LISTAGG(x) WITHIN GROUP (ORDER BY ...)
            raise within_group_refused(node)
        if isinstance(operand, exp.Distinct):
            return AggregateCall(LISTAGG + json.dumps(text), expression(operand.expressions[0]), True)
        return AggregateCall(LISTAGG + json.dumps(text), expression(operand))
    named = _named_aggregate(node, expression)
    if named is not None:
        return named
    return _json_aggregate_form(node, expression)


def _json_aggregate_form(node: exp.Expression, expression: Convert) -> Expression | None:
    """JSON_ARRAYAGG(x [ORDER BY ...]) [WITHIN GROUP (ORDER BY ...)] and JSON_OBJECTAGG(KEY k
    VALUE v); a WITHIN GROUP after any other aggregate is Calcite's validation error."""
    if isinstance(node, exp.WithinGroup):  # f(x) WITHIN GROUP (ORDER BY ...): JSON_ARRAYAGG's only
        if _json_call_name(node.this) != "__JSON_ARRAYAGG":
            raise within_group_refused(node.this)
        return _json_arrayagg(node.this, node.expression, expression)
    if _json_call_name(node) == "__JSON_ARRAYAGG":  # JSON_ARRAYAGG(x [ORDER BY ...] [NULL | ABSENT ON NULL])
        return _json_arrayagg(node, None, expression)  # type: ignore[arg-type]
    if isinstance(node, exp.JSONObjectAgg):
        pair = node.expressions[0]
        on_null = "ABSENT" if "ABSENT" in str(node.args.get("null_handling") or "").upper() else "NULL"
        spec = {"null": on_null, "raw": _is_json_constructor(pair.expression)}
        entry_value = _json_value_argument(pair.expression, expression)
        return AggregateCall(JSON_OBJECTAGG + json.dumps(spec), _Tuple([expression(pair.this), entry_value]))
    return None
