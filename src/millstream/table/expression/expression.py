"""The Table API's expression tree, as ``pyflink.table.expression``'s ``Expression``.

An ``Expression`` is a tree the user builds (``col('k') + 1 > lit(3)``, ``col('x').max``);
``resolve`` turns it, against a table's columns, into a ``Compiled`` (``expression/resolved.py``: the
typing rules live there). Aggregates (``.count``, ``.sum``, ``.avg``, ``.min``, ``.max``)
are resolved by the aggregation (``planner/projection.py``). The functions users call to build trees
(``col``, ``lit``, ``and_`` ...) are ``api/expressions.py``, PyFlink's ``pyflink.table.expressions``;
importing it also installs the methods that call built-in functions (``upper_case``,
``substring`` ...: ``expression/calls.py``), so build expressions from there.
"""

from __future__ import annotations

import copy
import operator
from typing import Any

from millstream.table.common.aggregate_skip import SKIP
from millstream.table.common.intervals import YEAR_MONTH
from millstream.table.common.printing import summary_string
from millstream.table.common.types import DataType, DataTypes
from millstream.table.expression.comparisons import compile_binary, compile_reflexive, same_expression
from millstream.table.expression.enums import JsonValueOnEmptyOrError, TimeIntervalUnit
from millstream.table.expression.resolved import (
    COMPARISONS,
    Compiled,
    check_boolean,
    compile_cast,
    compile_field_access,
    compile_interval,
    compile_logic,
    compile_negate,
    literal_type,
)
from millstream.table.expression.unresolved import UnresolvedFieldError

__all__ = [
    "AggregateCall",
    "Compiled",
    "Expression",
    "JsonValueOnEmptyOrError",
    "Ordering",
    "RowInterval",
    "TimeIntervalUnit",
    "WindowProperty",
]


def _aggregate(function: str, doc: str) -> Any:
    """A property of an expression: its values aggregated by the built-in ``function``."""
    return property(lambda self: AggregateCall(function, self), doc=doc)


def _interval(unit_ms: int, doc: str) -> Any:
    """A property of an expression: a day-time interval of that many ``unit_ms`` ms."""
    return property(lambda self: _Interval(self, unit_ms), doc=doc)


def _months(unit_months: int, doc: str) -> Any:
    """A property of an expression: a year-month interval of that many ``unit_months`` months."""
    return property(lambda self: _MonthsInterval(self, unit_months), doc=doc)


class Expression:
    """A Table API expression (immutable)."""

    __hash__ = object.__hash__

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        """This expression over rows with columns ``names`` of ``types``."""
        raise NotImplementedError

    def aggregates(self) -> list[AggregateCall]:
        """The aggregate calls inside this expression."""
        return []

    # -- arithmetic, comparison, logic -------------------------------------------------------------

    def _binary(self, op: str, other: Any, reverse: bool = False) -> Expression:
        other = _wrap(other)
        return _Binary(op, other, self) if reverse else _Binary(op, self, other)

    def __add__(self, other: Any) -> Expression:
        return self._binary("+", other)

    def __radd__(self, other: Any) -> Expression:
        return self._binary("+", other, True)

    def __sub__(self, other: Any) -> Expression:
        return self._binary("-", other)

    def __rsub__(self, other: Any) -> Expression:
        return self._binary("-", other, True)

    def __mul__(self, other: Any) -> Expression:
        return self._binary("*", other)

    def __rmul__(self, other: Any) -> Expression:
        return self._binary("*", other, True)

    def __truediv__(self, other: Any) -> Expression:
        return self._binary("/", other)

    def __rtruediv__(self, other: Any) -> Expression:
        return self._binary("/", other, True)

    def __mod__(self, other: Any) -> Expression:
        return self._binary("%", other)

    def __neg__(self) -> Expression:
        return _Negate(self)

    def __eq__(self, other: Any) -> Expression:  # type: ignore[override]
        return self._binary("=", other)

    def __ne__(self, other: Any) -> Expression:  # type: ignore[override]
        return self._binary("<>", other)

    def __lt__(self, other: Any) -> Expression:
        return self._binary("<", other)

    def __le__(self, other: Any) -> Expression:
        return self._binary("<=", other)

    def __gt__(self, other: Any) -> Expression:
        return self._binary(">", other)

    def __ge__(self, other: Any) -> Expression:
        return self._binary(">=", other)

    def __and__(self, other: Any) -> Expression:
        return _Logic("AND", [self, _wrap(other)])

    def __or__(self, other: Any) -> Expression:
        return _Logic("OR", [self, _wrap(other)])

    def __invert__(self) -> Expression:
        return _Not(self)

    # -- naming, casting, nulls ----------------------------------------------------------------------

    def alias(self, name: str, *extra_names: str) -> Expression:
        """The same values under another column name (several names: the fields of a ROW
        result, as ``aggregate(f(col('x')).alias('cnt', 'total'))``)."""
        return _Alias(self, name, extra_names)

    def cast(self, data_type: DataType) -> Expression:
        """The value converted to ``data_type``."""
        return _Cast(self, data_type)

    def try_cast(self, data_type: DataType) -> Expression:
        """The value converted to ``data_type``, NULL when it cannot be (SQL's TRY_CAST)."""
        return _Cast(self, data_type, safe=True)

    @property
    def is_null(self) -> Expression:
        """TRUE where the value is NULL."""
        return _IsNull(self, True)

    @property
    def is_not_null(self) -> Expression:
        """TRUE where the value is not NULL."""
        return _IsNull(self, False)

    # -- intervals (``lit(5).seconds``) and window properties (``col('w').start``) ---------------------

    years = year = _months(12, "An interval of this many years (a year-month interval).")
    quarters = quarter = _months(3, "An interval of this many quarters (a year-month interval).")
    months = month = _months(1, "An interval of this many months (a year-month interval).")
    weeks = week = _interval(604_800_000, "An interval of this many weeks.")
    millis = milli = _interval(1, "An interval of this many milliseconds.")
    seconds = second = _interval(1000, "An interval of this many seconds.")
    minutes = minute = _interval(60_000, "An interval of this many minutes.")
    hours = hour = _interval(3_600_000, "An interval of this many hours.")
    days = day = _interval(86_400_000, "An interval of this many days.")

    @property
    def rows(self) -> Expression:
        """A row interval (over windows: ``preceding(lit(2).rows)``)."""
        return RowInterval(self)

    row = rows

    @property
    def start(self) -> Expression:
        """The start of the group window aliased by this column (``col('w').start``)."""
        return WindowProperty(self, "start")

    @property
    def end(self) -> Expression:
        """The (exclusive) end of the group window aliased by this column."""
        return WindowProperty(self, "end")

    @property
    def rowtime(self) -> Expression:
        """The group window's time attribute: its end minus one millisecond."""
        return WindowProperty(self, "rowtime")

    def window_properties(self) -> list[WindowProperty]:
        """The window properties inside this expression."""
        return []

    def over(self, alias: Expression) -> Expression:
        """This aggregate over the over window aliased by ``alias``."""
        if not isinstance(self, AggregateCall):
            raise ValueError("over() applies to an aggregate (col('x').max.over(col('w')))")
        return OverCall(self, alias)

    # -- functions ---------------------------------------------------------------------------------------

    def get(self, name_or_index: str | int) -> Expression:
        """A field of this ROW value, by name or 1-based position; NULL of a NULL row."""
        return _FieldAccess(self, name_or_index)

    @property
    def flatten(self) -> Expression:
        """Every field of this ROW value, a column each (in ``select``: ``r$a``, ``r$b``)."""
        return _FieldAccess(self, "*")  # expanded by the select (projection.flattened)

    @property
    def asc(self) -> Expression:
        """Ascending order (``order_by``)."""
        return Ordering(self, False)

    @property
    def desc(self) -> Expression:
        """Descending order (``order_by``)."""
        return Ordering(self, True)

    # -- aggregates ------------------------------------------------------------------------------------

    count = _aggregate("COUNT", "The number of non-NULL values (BIGINT NOT NULL).")
    sum = _aggregate("SUM", "The sum of the values (NULL when there are none).")
    avg = _aggregate("AVG", "The average of the values, in their type (integers truncate, as Flink's AVG).")
    min = _aggregate("MIN", "The least value.")
    max = _aggregate("MAX", "The greatest value.")
    stddev_pop = _aggregate("STDDEV_POP", "The population standard deviation of the values.")
    stddev_samp = _aggregate("STDDEV_SAMP", "The sample standard deviation of the values.")
    var_pop = _aggregate("VAR_POP", "The population variance of the values.")
    var_samp = _aggregate("VAR_SAMP", "The sample variance of the values.")
    first_value = _aggregate("FIRST_VALUE", "The first non-NULL value.")
    last_value = _aggregate("LAST_VALUE", "The last non-NULL value.")
    collect = _aggregate("COLLECT", "The multiset of the non-NULL values (a map of each value to its count).")
    array_agg = _aggregate("ARRAY_AGG", "The values (NULLs too) as an array, in arrival order.")


def _wrap(value: Any) -> Expression:
    return value if isinstance(value, Expression) else lit(value)


# -- leaves -------------------------------------------------------------------------------------------


class _Column(Expression):
    def __init__(self, name: str) -> None:
        self.name = name

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        if self.name not in names:
            raise UnresolvedFieldError(self.name, names)
        index = names.index(self.name)
        return Compiled(operator.itemgetter(index), types[index], self.name)

    def __repr__(self) -> str:
        return self.name


class _Literal(Expression):
    def __init__(self, value: Any, data_type: DataType | None = None) -> None:
        self.value = value
        self.data_type = data_type or literal_type(value)

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        value = self.value
        return Compiled(lambda row: value, self.data_type, None)

    def __repr__(self) -> str:
        return repr(self.value)


def col(name: str) -> Expression:
    """The column ``name``."""
    return _Column(name)


def lit(v: Any, data_type: DataType | None = None) -> Expression:
    """A literal (``data_type``: its type, else Flink's type of the Python value)."""
    return _Literal(v, data_type)


# -- operators -------------------------------------------------------------------------------------------


class _Binary(Expression):
    def __init__(self, op: str, left: Expression, right: Expression) -> None:
        self.op, self.left, self.right = op, left, right

    def aggregates(self) -> list[AggregateCall]:
        return self.left.aggregates() + self.right.aggregates()

    def window_properties(self) -> list[WindowProperty]:
        return self.left.window_properties() + self.right.window_properties()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        left, right = self.left.resolve(names, types), self.right.resolve(names, types)
        if self.reflexive():  # simplified before Flink's code generator refuses an ARRAY's order
            return compile_reflexive(self.op, left)
        if self.op in ("<", "<=", ">", ">="):  # Flink orders ROW values, but not a ROW(...) call's
            for operand, compiled in ((self.left, left), (self.right, right)):
                if getattr(operand, "name_", None) == "ROW":
                    shown = summary_string(compiled.data_type)
                    raise TypeError(f"Comparable type expected, but was '{shown}'.")
        return compile_binary(self.op, left, right)

    def reflexive(self) -> bool:
        """Whether this is a comparison of an expression with itself (``x = x``), which Flink's
        planner simplifies before it runs (``compile_reflexive``)."""
        return self.op in COMPARISONS and same_expression(self.left, self.right)

    def __repr__(self) -> str:
        return f"({self.left!r} {self.op} {self.right!r})"


class _Negate(Expression):
    """Unary minus: ``-x`` of ``x``'s type (``-CAST(-128 AS TINYINT)`` is -128, as Java's)."""

    def __init__(self, operand: Expression) -> None:
        self.operand = operand

    def aggregates(self) -> list[AggregateCall]:
        return self.operand.aggregates()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        return compile_negate(self.operand.resolve(names, types))

    def __repr__(self) -> str:
        return f"-({self.operand!r})"


class _Interval(Expression):
    """``lit(5).seconds``: a day-time interval of ``operand`` units of ``unit_ms`` ms."""

    def __init__(self, operand: Expression, unit_ms: int) -> None:
        self.operand, self.unit_ms = operand, unit_ms

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        return compile_interval(self.operand.resolve(names, types), self.unit_ms)

    def millis_value(self) -> int:
        """The interval's length in ms (a literal's)."""
        if not isinstance(self.operand, _Literal):
            raise ValueError("a window's size must be a literal interval (lit(5).seconds)")
        return int(self.operand.value * self.unit_ms)

    def __repr__(self) -> str:
        return f"INTERVAL {self.operand!r} * {self.unit_ms} ms"


class _MonthsInterval(Expression):
    """``lit(2).months``: a year-month interval (its value a number of months, as Flink's) of
    ``operand`` units of ``unit_months`` months."""

    def __init__(self, operand: Expression, unit_months: int) -> None:
        self.operand, self.unit_months = operand, unit_months

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        inner = self.operand.resolve(names, types)
        fn, unit = inner.fn, self.unit_months
        year_month = DataType(YEAR_MONTH, inner.data_type.is_nullable())
        return Compiled(lambda row: None if (v := fn(row)) is None else int(v) * unit, year_month, None)

    def __repr__(self) -> str:
        return f"INTERVAL {self.operand!r} * {self.unit_months} MONTH"


class RowInterval(Expression):
    """``lit(2).rows`` / ``row_interval(2)``: a count of rows (over windows)."""

    def __init__(self, operand: Expression) -> None:
        self.operand = operand

    def count(self) -> int:
        """The number of rows."""
        if not isinstance(self.operand, _Literal):
            raise ValueError("a row interval must be a literal (row_interval(2))")
        return int(self.operand.value)

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        raise ValueError("a row interval is only meaningful in an over window's preceding/following")


def interval_millis(expression: Expression) -> int:
    """The length in ms of a literal interval expression (``lit(5).seconds``)."""
    if isinstance(expression, _Interval):
        return expression.millis_value()
    if isinstance(expression, _Literal) and hasattr(expression.value, "total_seconds"):
        return round(expression.value.total_seconds() * 1000)
    raise ValueError(f"expected a literal interval (lit(5).seconds), got {expression!r}")


class WindowProperty(Expression):
    """``col('w').start`` / ``.end`` / ``.rowtime`` of the group window aliased ``w``: read from
    the window aggregation's output (its hidden column ``w$start`` ...)."""

    def __init__(self, window: Expression, prop: str) -> None:
        self.window, self.prop = window, prop

    def window_properties(self) -> list[WindowProperty]:
        return [self]

    def column_name(self) -> str:
        """The aggregation's column holding this property."""
        return f"{getattr(self.window, 'name', self.window)}${self.prop}"

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        name = self.column_name()
        if name not in names:
            raise ValueError(f"window property {name.replace('$', '.')} is only valid in a window's select")
        index = names.index(name)
        return Compiled(operator.itemgetter(index), types[index], None)

    def __repr__(self) -> str:
        return f"{self.window!r}.{self.prop}"


class _FieldAccess(Expression):
    """``row.field``: one field of a ROW value (Flink's GET); the field's type, made
    nullable when the row may be NULL. Named as Flink names it: ``p$name`` in the Table API,
    ``name`` in SQL (``sql_name``)."""

    def __init__(self, operand: Expression, field: str | int, sql_name: bool = False) -> None:
        self.operand, self.field, self.sql_name = operand, field, sql_name

    def aggregates(self) -> list[AggregateCall]:
        return self.operand.aggregates()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        if self.field == "*":
            raise ValueError(f"flatten makes columns of {self.operand!r}'s fields: use it in a select list")
        inner = self.operand.resolve(names, types)
        return compile_field_access(inner, self.field, self.sql_name, inner.name or repr(self.operand))

    def __repr__(self) -> str:
        if self.field == "*":
            return f"flatten({self.operand!r})"
        return (
            f"{self.operand!r}.{self.field}"
            if isinstance(self.field, str)
            else f"{self.operand!r}.get({self.field})"
        )


class _Logic(Expression):
    def __init__(self, op: str, operands: list[Expression]) -> None:
        self.op, self.operands = op, operands

    def aggregates(self) -> list[AggregateCall]:
        return [a for o in self.operands for a in o.aggregates()]

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        return compile_logic(self.op, [o.resolve(names, types) for o in self.operands])


class _Not(Expression):
    def __init__(self, operand: Expression) -> None:
        self.operand = operand

    def aggregates(self) -> list[AggregateCall]:
        return self.operand.aggregates()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        inner = self.operand.resolve(names, types)
        check_boolean("NOT", [inner.data_type])
        fn = inner.fn
        return Compiled(lambda row: None if (v := fn(row)) is None else not v, inner.data_type, None)


class _IsNull(Expression):
    def __init__(self, operand: Expression, null: bool) -> None:
        self.operand, self.null = operand, null

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        fn, null = self.operand.resolve(names, types).fn, self.null
        return Compiled(lambda row: (fn(row) is None) is null, DataTypes.BOOLEAN(False), None)


class _Alias(Expression):
    def __init__(self, operand: Expression, name: str, extra_names: tuple[str, ...] = ()) -> None:
        self.operand, self.name = operand, name
        self.names = (name, *extra_names)

    def aggregates(self) -> list[AggregateCall]:
        return self.operand.aggregates()

    def window_properties(self) -> list[WindowProperty]:
        return self.operand.window_properties()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        inner = self.operand.resolve(names, types)
        return Compiled(inner.fn, inner.data_type, self.name)


class _Cast(Expression):
    """CAST (a value that cannot convert fails the job), or TRY_CAST (``safe``: it is NULL)."""

    def __init__(self, operand: Expression, data_type: DataType, safe: bool = False) -> None:
        self.operand, self.data_type, self.safe = operand, data_type, safe

    def aggregates(self) -> list[AggregateCall]:
        return self.operand.aggregates()

    def window_properties(self) -> list[WindowProperty]:
        return self.operand.window_properties()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        return compile_cast(self.operand.resolve(names, types), self.data_type, self.safe)


# -- aggregate calls ----------------------------------------------------------------------------------------


class AggregateCall(Expression):
    """An aggregate function over a group's rows (``col('x').sum``). The planner reads a call
    through a copy bound to the column its aggregation computes (``bound``); the call given
    is never changed, so one expression may serve several queries."""

    slot: str | None = None  # the aggregation's output column (a bound copy's)

    def __init__(
        self, function: str, operand: Expression, distinct: bool = False, where: Expression | None = None
    ) -> None:
        self.function, self.is_distinct, self.where = function, distinct, where
        self.operand = operand if where is None else _Filtered(operand, where)

    def aggregates(self) -> list[AggregateCall]:
        return [self]

    @property
    def distinct(self) -> AggregateCall:
        """This aggregate over distinct values (``col('x').count.distinct`` in PyFlink)."""
        operand = self.operand.operand if isinstance(self.operand, _Filtered) else self.operand
        return AggregateCall(self.function, operand, True, self.where)

    def bound(self, slot: str) -> AggregateCall:
        """A copy of this call that reads column ``slot`` of its aggregation's output."""
        bound = copy.copy(self)
        bound.slot = slot
        return bound

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        """The call's value, read from the aggregation's output (a bound copy's column)."""
        if self.slot is None or self.slot not in names:
            raise ValueError(f"{self.function}() is an aggregate: use it in group_by(...).select(...)")
        index = names.index(self.slot)
        return Compiled(operator.itemgetter(index), types[index], None)

    def __repr__(self) -> str:
        operand = self.operand.operand if isinstance(self.operand, _Filtered) else self.operand
        text = f"{self.function}({'DISTINCT ' if self.is_distinct else ''}{operand!r})"
        return text if self.where is None else f"{text} FILTER (WHERE {self.where!r})"


class _Filtered(Expression):
    """An aggregate's argument under ``FILTER (WHERE c)``: the value where c is TRUE, else ``SKIP``."""

    def __init__(self, operand: Expression, condition: Expression) -> None:
        self.operand, self.condition = operand, condition

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        value = self.operand.resolve(names, types)
        condition = self.condition.resolve(names, types).fn
        fn = value.fn
        return Compiled(lambda row: fn(row) if condition(row) is True else SKIP, value.data_type, value.name)

    def __repr__(self) -> str:
        return repr(self.operand)


class Ordering(Expression):
    """An expression with its sort direction (``col('x').desc``)."""

    def __init__(self, operand: Expression, descending: bool) -> None:
        self.operand, self.descending = operand, descending

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        return self.operand.resolve(names, types)


class OverCall(Expression):
    """``col('x').max.over(col('w'))``: an aggregate over the over window aliased ``w``."""

    def __init__(self, call: AggregateCall, window: Any) -> None:
        self.call, self.window = call, window

    def over_calls(self) -> list[OverCall]:
        return [self]

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        # over_aggregate() reads each over call's column by name instead
        raise ValueError("an over aggregate is only valid in the select of over_window(...)")
