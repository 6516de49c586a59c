"""Vectorized Calc: a filter and a projection evaluated on Arrow arrays (``pyarrow.compute``)
for a whole batch of rows at once, instead of a Python call per row.

A batch of ``(kind, row)`` changes becomes one Arrow array per column the expressions read;
each expression becomes an Arrow compute call with SQL's semantics (comparisons and
arithmetic propagate NULL, AND/OR are Kleene logic, CASE takes the ELSE branch for a NULL
condition); the kept rows are rebuilt from the result arrays. Only expressions with an exact
Arrow equal are vectorized (``vectorizable``); the planner uses the generated row-at-a-time
code (``runtime/codegen.py``) for the others, and a batch whose values Arrow cannot hold (a column of
mixed Python types) falls back to that code too, so results never depend on the path.
"""

from __future__ import annotations

import datetime
import decimal
import operator
import struct
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from millstream.table.common.casts import INTEGER_RANGES
from millstream.table.common.timestamps import arrow_nano_timestamps
from millstream.table.common.types import DataType
from millstream.table.expression import expression as e
from millstream.table.expression.calls import _IfThenElse
from millstream.table.functions.arrow_temporal import converts_between_zones, from_ltz, ltz_input, ltz_values
from millstream.table.functions.builtins import BUILTIN_FUNCTIONS, _Call
from millstream.table.runtime.arrow_casts import arrow_cast, cast_vectorizable

__all__ = ["VectorizedCalc", "int64_arrow", "int64_numpy", "python_values", "true_only", "vectorizable"]

_COMPARE = {
    "=": "equal",
    "<>": "not_equal",
    "<": "less",
    "<=": "less_equal",
    ">": "greater",
    ">=": "greater_equal",
}
_ARITHMETIC = {"+": "add", "-": "subtract", "*": "multiply"}
_NEGATABLE = {"TINYINT", "SMALLINT", "INT", "BIGINT", "DOUBLE", "DECIMAL"}
_ARROW_ROOTS = {
    "DATE",
    "TIMESTAMP",
    "DECIMAL",
    "TINYINT",
    "SMALLINT",
    "INT",
    "BIGINT",
    "FLOAT",
    "DOUBLE",
    "BOOLEAN",
    "STRING",
    "VARCHAR",
    "CHAR",
}


def arrow_type_exact(data_type: DataType) -> bool:
    """Whether values of this type come out of Arrow (``to_pylist``, then ``arrow_output``) as
    the row path holds them: flat types of ``_ARROW_ROOTS``, TIMESTAMP and TIMESTAMP_LTZ up to
    precision 3, and ROWs of them."""
    fields = getattr(data_type, "fields", None)
    if data_type.root == "ROW" and fields is not None:  # a field's value as from_arrow gives it
        return all(arrow_type_exact(f.data_type) and f.data_type.root != "TIMESTAMP_LTZ" for f in fields)
    if data_type.root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return not data_type.params or data_type.params[0] <= 3
    return data_type.root in _ARROW_ROOTS


def vectorizable(expression: Any, names: list[str], types: list[DataType]) -> bool:  # noqa: C901
    """Whether ``expression`` has an exact Arrow compute equal over these columns."""

    kind = type(expression)
    if kind is e._Column:
        return expression.name in names and arrow_type_exact(types[names.index(expression.name)])
    if kind is e._Literal:
        value = expression.value
        if isinstance(value, decimal.Decimal):
            return expression.data_type.root == "DECIMAL"
        return value is None or isinstance(value, (bool, int, float, str, datetime.timedelta))
    if kind is e._FieldAccess:
        return vectorizable(expression.operand, names, types)
    if kind in (e._Alias, e._Not, e._IsNull):
        return vectorizable(expression.operand, names, types)
    if kind is e._Cast:
        source = expression.operand.resolve(names, types).data_type
        return vectorizable(expression.operand, names, types) and cast_vectorizable(
            source, expression.data_type
        )
    if kind is e._Negate:  # of an integer, DOUBLE or DECIMAL
        operand = expression.operand
        root = operand.resolve(names, types).data_type.root
        return root in _NEGATABLE and vectorizable(operand, names, types)
    if kind is e._Logic:
        return all(vectorizable(o, names, types) for o in expression.operands)
    if kind is e._Binary and expression.op == "%":  # MOD of integers
        integral = {"TINYINT", "SMALLINT", "INT", "BIGINT"}
        operands = (expression.left, expression.right)
        return all(
            vectorizable(o, names, types) and o.resolve(names, types).data_type.root in integral
            for o in operands
        )
    if kind is e._Binary and (expression.op in _COMPARE or expression.op in _ARITHMETIC):
        if not (vectorizable(expression.left, names, types) and vectorizable(expression.right, names, types)):
            return False
        if expression.reflexive():  # x = x: TRUE unless NULL, even for NaN (its closure)
            return False
        left = expression.left.resolve(names, types).data_type.root
        right = expression.right.resolve(names, types).data_type.root
        numeric = {"TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "NULL"}
        text = {"STRING", "VARCHAR", "CHAR", "NULL"}
        if "TIMESTAMP_LTZ" in (left, right):  # an instant: its epoch values on Arrow
            left, right = ("TIMESTAMP" if r == "TIMESTAMP_LTZ" else r for r in (left, right))
        if expression.op in _ARITHMETIC:
            if "DATE" in (left, right):  # Arrow's date + duration is a timestamp; Flink's a date
                return False
            if "TIMESTAMP" in (left, right):
                return expression.op != "*" and "INTERVAL_DAY_TIME" in (left, right)  # ts -/+ interval
            if "DECIMAL" in (left, right):  # exact: both decimal or integral, the result typed as Flink's
                typed = [o.resolve(names, types).data_type for o in (expression.left, expression.right)]
                return {left, right} <= {"DECIMAL", "TINYINT", "SMALLINT", "INT", "BIGINT"} and (
                    _arrow_decimal_precision(expression.op, *typed) <= 38  # else Arrow refuses it
                )
            return left in numeric and right in numeric and "FLOAT" not in (left, right)
        ordered = {"TIMESTAMP", "DATE", "DECIMAL"}
        if "FLOAT" in (left, right) and left != right:  # compared as FLOATs or doubles: the closures
            return False
        return (
            (left in numeric and right in numeric)
            or (left in text and right in text)
            or (left == right and left in ordered)
            or ({left, right} <= {"DECIMAL", "TINYINT", "SMALLINT", "INT", "BIGINT"})
        )
    if kind is _IfThenElse:  # branches of other types than the result's: the closure converts them
        return expression.typed_as_branches(names, types) and all(
            vectorizable(x, names, types)
            for x in (expression.condition, expression.then, expression.otherwise)
        )
    if kind is _Call:  # a built-in function with an Arrow kernel for these argument types
        definition = BUILTIN_FUNCTIONS.get(expression.name_)
        roots = [a.resolve(names, types).data_type.root for a in expression.args]
        accepts = getattr(definition.arrow, "accepts", None) if definition is not None else None
        return (
            definition is not None
            and definition.arrow_applies(roots)
            and (accepts is None or accepts(expression.args))  # a kernel may take some literals only
            and all(vectorizable(a, names, types) for a in expression.args)
        )
    return False


def _evaluate(
    expression: Any, names: list[str], columns: Callable[[int], Any], size: int, types: list[DataType]
) -> Any:
    kind = type(expression)
    if kind is e._Column:
        return columns(names.index(expression.name))
    if kind is e._Literal:
        return _literal(expression)
    if kind is e._FieldAccess:
        inner = _evaluate(expression.operand, names, columns, size, types)
        fields = [inner.type.field(i).name for i in range(inner.type.num_fields)]
        index = expression.field - 1 if isinstance(expression.field, int) else fields.index(expression.field)
        return pc.struct_field(inner, [index])
    if kind is e._Alias:
        return _evaluate(expression.operand, names, columns, size, types)
    if kind in (e._IsNull, e._Cast, e._Negate, e._Not):
        return _unary(expression, _evaluate(expression.operand, names, columns, size, types), names, types)
    if kind is e._Logic:
        values = [_evaluate(o, names, columns, size, types) for o in expression.operands]
        combine = pc.or_kleene if expression.op == "OR" else pc.and_kleene
        result = values[0]
        for v in values[1:]:
            result = combine(result, v)
        return result
    if kind is e._Binary:
        left = _evaluate(expression.left, names, columns, size, types)
        right = _evaluate(expression.right, names, columns, size, types)
        return _binary(expression, left, right, names, types)
    if kind is _IfThenElse:
        condition = true_only(_evaluate(expression.condition, names, columns, size, types))
        then = _evaluate(expression.then, names, columns, size, types)
        otherwise = _evaluate(expression.otherwise, names, columns, size, types)
        return pc.if_else(condition, then, otherwise)
    args = [_evaluate(a, names, columns, size, types) for a in expression.args]
    kernel = BUILTIN_FUNCTIONS[expression.name_].arrow
    assert kernel is not None  # vectorizable() admitted the call
    return _in_width(kernel(*args), expression.resolve(names, types).data_type)


def _unary(expression: Any, inner: Any, names: list[str], types: list[DataType]) -> Any:
    """IS [NOT] NULL, CAST, unary minus or NOT of the operand's values ``inner``."""
    kind = type(expression)
    if kind is e._IsNull:
        return pc.is_null(inner) if expression.null else pc.is_valid(inner)
    if kind is e._Cast:
        return arrow_cast(inner, expression.operand.resolve(names, types).data_type, expression.data_type)
    if kind is e._Negate:  # Arrow's unchecked negation wraps as Java's: -(-128) on TINYINT is -128
        return _in_width(pc.negate(inner), expression.resolve(names, types).data_type)
    return pc.invert(inner)


def arrow_output(data_type: DataType) -> Callable[[list[Any]], list[Any]] | None:
    """Arrow's Python values of a column -> the row path's (a ROW column's dicts -> ``Row``, a
    TIMESTAMP_LTZ column's instants -> the session zone's date-times); None: the same values."""
    if data_type.root == "TIMESTAMP_LTZ":
        return ltz_values
    if data_type.root != "ROW":
        return None
    convert = data_type.from_arrow()
    return lambda values: [None if v is None else convert(v) for v in values]


def python_values(array: Any, data_type: DataType) -> list[Any]:
    """A column's values as the row path holds them (``to_pylist`` then ``arrow_output``).
    TIMESTAMP and TIMESTAMP_LTZ values of milliseconds are made by numpy from their epoch
    values, twenty times faster than pyarrow's ``to_pylist`` makes ``datetime`` objects; the
    instants of a TIMESTAMP_LTZ as the session zone's wall clock."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    kind = array.type
    if pa.types.is_timestamp(kind) and kind.unit == "ms" and data_type.root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        if kind.tz is not None and converts_between_zones(False):
            array = from_ltz(array, "ms")
        if array.type.tz is None:
            epoch = int64_numpy(array.cast(pa.int64()))
            if not len(epoch) or (epoch.min() >= _MIN_DATETIME_MS and epoch.max() <= _MAX_DATETIME_MS):
                values: list[Any] = epoch.astype("datetime64[ms]").tolist()
                if array.null_count:
                    for index in int64_numpy(pc.indices_nonzero(pc.is_null(array))).tolist():
                        values[index] = None
                return values
    nanos = arrow_nano_timestamps(array)  # a TIMESTAMP(9)'s, to the nanosecond (to_pylist's lose them)
    if nanos is not None:
        return nanos
    values = array.to_pylist()
    convert = arrow_output(data_type)
    return values if convert is None else convert(values)


# the epoch milliseconds of datetime's first and last day: numpy's datetime64 as datetime objects
_MIN_DATETIME_MS, _MAX_DATETIME_MS = -62135596800000, 253402300799999


def _arrow_input(data_type: DataType) -> Callable[[Any], Any] | None:
    """A ROW value (a ``Row``, a tuple) as the dict Arrow builds a struct from, a
    TIMESTAMP_LTZ value as its instant; None: as is."""
    if data_type.root == "TIMESTAMP_LTZ":
        return ltz_input
    fields = getattr(data_type, "fields", None)
    if data_type.root != "ROW" or fields is None:
        return None
    names = [f.name for f in fields]
    inner = [_arrow_input(f.data_type) for f in fields]

    def convert(value: Any) -> dict[str, Any]:
        return {
            n: (v if c is None or v is None else c(v)) for n, c, v in zip(names, inner, value, strict=True)
        }

    return convert


def _literal(expression: Any) -> Any:
    root, value = expression.data_type.root, expression.value
    if root == "DECIMAL":
        arrow_type = expression.data_type.to_arrow()
    elif root == "INTERVAL_DAY_TIME":
        arrow_type = pa.duration("ms")
        if isinstance(value, datetime.timedelta):
            value = value // datetime.timedelta(milliseconds=1)
    else:
        arrow_type = None
    made = _from_bytes(value, arrow_type)
    if made is not None:
        return made
    return pa.scalar(value) if arrow_type is None else pa.scalar(value, type=arrow_type)


def int64_numpy(array: Any) -> Any:
    """An integer Arrow array as a numpy int64 array (NULL as 0), read from its buffer:
    pyarrow's ``to_numpy`` imports pandas (0.3 s of a TaskManager's first job)."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if array.type != pa.int64():
        array = array.cast(pa.int64())
    if array.null_count:
        array = pc.fill_null(array, _from_bytes(0, None))
    if not len(array):
        return np.zeros(0, dtype=np.int64)
    return np.frombuffer(array.buffers()[1], dtype=np.int64, count=len(array), offset=array.offset * 8)


def int64_arrow(values: Any) -> Any:
    """A numpy integer array (or a sequence of ints) as an Arrow int64 array, from its bytes
    (``pa.array`` of numpy or Python values imports pandas)."""
    data = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(data), [None, pa.py_buffer(data)])


def true_only(condition: Any) -> Any:
    """A condition's values with NULL as FALSE (a filter keeps the rows where it is TRUE)."""
    return pc.fill_null(condition, _from_bytes(False, None))  # a Python False: pa.scalar(False)


def _from_bytes(value: Any, arrow_type: Any) -> Any:
    """``value`` (None, a bool, int, float, string or Decimal) as an Arrow scalar of ``arrow_type``
    (None: the type ``pa.scalar`` infers), built from its bytes; None for other values.
    Converting a Python value (``pa.scalar``, ``pa.array``) makes pyarrow import pandas, which
    costs a TaskManager's first job 0.3 s; a Calc of literals and columns needs none."""
    if value is None:
        return pa.nulls(1, arrow_type or pa.null())[0]
    if isinstance(value, bool):
        base = pa.Array.from_buffers(pa.bool_(), 1, [None, pa.py_buffer(bytes([value]))])
    elif isinstance(value, int) and -(2**63) <= value < 2**63:
        base = pa.Array.from_buffers(pa.int64(), 1, [None, pa.py_buffer(struct.pack("<q", value))])
    elif isinstance(value, float):
        base = pa.Array.from_buffers(pa.float64(), 1, [None, pa.py_buffer(struct.pack("<d", value))])
    elif isinstance(value, (str, decimal.Decimal)):
        data = str(value).encode()
        offsets = pa.py_buffer(struct.pack("<ii", 0, len(data)))
        base = pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(data)])
    else:
        return None
    if arrow_type is not None and base.type != arrow_type:
        if isinstance(value, (bool, float)) or (
            isinstance(value, str) and not pa.types.is_decimal(arrow_type)
        ):
            return None
        base = base.cast(arrow_type)
    elif isinstance(value, decimal.Decimal):
        return None  # its inferred precision and scale: pa.scalar's
    return base[0]


def _binary(expression: Any, left: Any, right: Any, names: list[str], types: list[DataType]) -> Any:
    if pa.types.is_floating(left.type) != pa.types.is_floating(right.type):
        # an integer with a double: Java converts it, rounding (Arrow's implicit cast refuses
        # one past 2^53: 9223372036854775807 + 1e0 is 9.223372036854776E18, as the row path's)
        left, right = (_as_double(x) for x in (left, right))
    if expression.op in _COMPARE:
        return getattr(pc, _COMPARE[expression.op])(left, right)
    result_type = expression.resolve(names, types).data_type
    if expression.op == "%":  # Java's %: the dividend's sign (Arrow divides toward zero)
        remainder = pc.subtract(left, pc.multiply(pc.divide(left, right), right))
        # x % -1 is 0 (NULL for a NULL x): Arrow's unchecked MIN / -1 is 0, where Java's is MIN
        zero = pc.subtract(left, left)
        return _in_width(pc.if_else(pc.equal(right, _from_bytes(-1, None)), zero, remainder), result_type)
    result = getattr(pc, _ARITHMETIC[expression.op])(left, right)
    if pa.types.is_decimal(result.type):  # Flink's result precision and scale, the same value
        result = result.cast(result_type.to_arrow())
    return _in_width(result, result_type)


_INTEGER_PRECISION = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}


def _arrow_decimal_precision(op: str, a: DataType, b: DataType) -> int:
    """The precision of Arrow's decimal result of ``a op b`` (+, -, *; an integer as the
    DECIMAL of its digits): past 38 Arrow raises, where Flink bounds the type."""
    (pa_, sa), (pb, sb) = (
        (int(t.params[0]), int(t.params[1])) if t.root == "DECIMAL" else (_INTEGER_PRECISION[t.root], 0)
        for t in (a, b)
    )
    if op == "*":
        return pa_ + pb + 1
    return max(pa_ - sa, pb - sb) + max(sa, sb) + 1


def _as_double(value: Any) -> Any:
    """An integer array or scalar as doubles, rounded as Java's ``(double)`` rounds."""
    return pc.cast(value, pa.float64(), safe=False) if pa.types.is_integer(value.type) else value


def _in_width(result: Any, data_type: DataType) -> Any:
    """An integer result in its Flink type's width, wrapped as Java's (Arrow computed it in the
    operands' type: an INT column plus a literal in int64)."""
    if data_type.root not in INTEGER_RANGES:
        return result
    arrow_type = data_type.to_arrow()
    return result if result.type == arrow_type else result.cast(arrow_type, safe=False)


class _Projection:
    """The projection of a vectorized Calc, computed on Arrow and returned as Python columns."""

    names: list[str]
    types: list[DataType]
    projection: list[Any] | None
    from_arrow: list[Callable[[list[Any]], list[Any]] | None] | None

    def _projected(
        self, column: Callable[[int], Any], size: int, rows: list[Any] | None = None
    ) -> list[list[Any]]:
        """Each projected column's values; ``rows``: the input rows' values, which a column
        handed on unchanged takes as they are (no round trip through Arrow)."""
        assert self.projection is not None
        if self.from_arrow is None:
            self.from_arrow = [
                arrow_output(e.resolve(self.names, self.types).data_type) for e in self.projection
            ]
        results = []
        for expression, convert in zip(self.projection, self.from_arrow, strict=True):
            inner = expression.operand if type(expression) is e._Alias else expression
            if rows is not None and type(inner) is e._Column:
                index = self.names.index(inner.name)
                results.append([row[index] for row in rows])
                continue
            result = _evaluate(expression, self.names, column, size, self.types)
            if isinstance(result, pa.Scalar):
                python = [result.as_py()] * size
                results.append(python if convert is None else convert(python))
            else:
                results.append(python_values(result, expression.resolve(self.names, self.types).data_type))
        return results


def _selection(
    names: list[str], condition: Any | None, projection: list[Any] | None
) -> Callable[[tuple[Any, ...]], tuple[Any, ...]] | None:
    """A Calc that only picks columns (no condition): a row -> its projected row, as one C call
    (``operator.itemgetter``); None for a Calc that computes."""
    if condition is not None or projection is None:
        return None
    indexes = []
    for expression in projection:
        inner = expression.operand if type(expression) is e._Alias else expression
        if type(inner) is not e._Column or inner.name not in names:
            return None
        indexes.append(names.index(inner.name))
    if len(indexes) == 1:
        return operator.itemgetter(slice(indexes[0], indexes[0] + 1))
    return operator.itemgetter(*indexes) if indexes else operator.itemgetter(slice(0, 0))


class VectorizedCalc(_Projection):
    """``fn(values) -> (outputs, kept)`` for the batch operator: the filter and projection of a
    Calc over a batch; ``fallback``: the generated row-at-a-time calc (same meaning)."""

    def __init__(
        self,
        names: list[str],
        types: list[DataType],
        condition: Any | None,
        projection: list[Any] | None,
        fallback: Callable[[tuple[str, tuple[Any, ...]]], tuple[Any, ...]],
    ) -> None:
        self.names, self.types = names, types
        self.condition, self.projection = condition, projection
        self.fallback = fallback
        self.arrow_types: list[Any] | None = None
        self.to_arrow: list[Callable[[Any], Any] | None] = []
        self.from_arrow: list[Callable[[list[Any]], list[Any]] | None] | None = None
        self.select = _selection(names, condition, projection)

    def __call__(self, values: list[Any]) -> tuple[list[Any], list[int] | None]:
        select = self.select
        if select is not None:  # columns handed on: no Arrow to compute on
            return [(change[0], select(change[1])) for change in values], None
        try:
            return self._vectorized(values)
        except (pa.ArrowException, ArithmeticError, TypeError, ValueError):
            # values Arrow cannot hold or compute on (a column of mixed Python types, a division
            # by zero): the rows one by one, whose failure names the expression and row
            return self._row_by_row(values)

    def _row_by_row(self, values: list[Any]) -> tuple[list[Any], list[int] | None]:
        out: list[Any] = []
        kept: list[int] = []
        for i, change in enumerate(values):
            produced = self.fallback(change)
            if produced:
                out.extend(produced)
                kept.append(i)
        return out, (None if len(kept) == len(values) else kept)

    def _vectorized(self, values: list[Any]) -> tuple[list[Any], list[int] | None]:
        if self.arrow_types is None:
            self.arrow_types = [t.to_arrow() if arrow_type_exact(t) else None for t in self.types]
            self.to_arrow = [_arrow_input(t) for t in self.types]
        size = len(values)
        cache: dict[int, Any] = {}
        arrow_types, to_arrow = self.arrow_types, self.to_arrow

        def column(index: int) -> Any:
            array = cache.get(index)
            if array is None:
                convert = to_arrow[index]
                column_values = [change[1][index] for change in values]
                if convert is not None:
                    column_values = [None if v is None else convert(v) for v in column_values]
                array = cache[index] = pa.array(column_values, type=arrow_types[index])
            return array

        kept: list[int] | None = None
        if self.condition is not None:
            mask = true_only(_evaluate(self.condition, self.names, column, size, self.types))
            if isinstance(mask, pa.Scalar):
                if not mask.as_py():
                    return [], []
            else:
                kept = pc.indices_nonzero(mask).to_pylist()
                if len(kept) == size:
                    kept = None
                else:
                    cache = {i: pc.take(a, pa.array(kept, type=pa.int64())) for i, a in cache.items()}
                    values = [values[i] for i in kept]
                    size = len(values)
                    if not size:
                        return [], kept
        if self.projection is None:
            return values, kept
        results = self._projected(column, size, [change[1] for change in values])
        rows = list(zip(*results, strict=True))
        return [(change[0], row) for change, row in zip(values, rows, strict=True)], kept


def as_array(value: Any, size: int) -> Any:
    if isinstance(value, pa.ChunkedArray):
        return value.combine_chunks()
    if isinstance(value, pa.Scalar):  # a constant: repeated without a Python list
        return pa.repeat(value, size)
    return value
