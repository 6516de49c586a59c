"""Comparisons as Flink plans and computes them: which types compare (Calcite's
COMPARABLE_TYPE, with the implicit casts of a character string), how approximate numbers and
ROWs compare, a comparison of an expression with itself as Calcite's simplifier rewrites it,
and ``compile_binary`` (a comparison, or arithmetic: ``resolved.py``'s)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.table.common.casts import cast_type_name, converter, to_float32
from millstream.table.common.printing import summary_string
from millstream.table.common.types import DataType, DataTypes
from millstream.table.expression.resolved import (
    APPROXIMATE,
    BINARY_ROOTS,
    CHARACTER_ROOTS,
    COMPARISONS,
    INTERVALS,
    NUMERIC_ORDER,
    Compiled,
    arithmetic,
    nullable_if_any,
)

__all__ = [
    "comparison",
    "comparison_type",
    "compile_binary",
    "compile_reflexive",
    "same_expression",
]


def comparison(
    op: str, ta: DataType, tb: DataType, shown: str | None = None, promoted: bool = False
) -> Callable[[Any, Any], Any]:
    """``ta op tb`` for a comparison of two non-NULL values, as Flink compares them; raises
    TypeError where Flink refuses the comparison (``shown``: the operator named in the error,
    ``op`` by default).

    Values of one family compare (numbers, character strings, binary strings, BOOLEANs,
    DATEs, TIMEs, TIMESTAMP with TIMESTAMP_LTZ, intervals of one kind, ARRAYs, MAPs and ROWs;
    ARRAYs and MAPs only for equality, ROWs field by field). A character string meets a DATE,
    TIME or TIMESTAMP cast to it (``DATE '2024-01-01' = '2024-1-1'`` is TRUE), a number or a
    BOOLEAN cast to it in an ordering (``2 < '9'``); it never equals a BOOLEAN or an interval
    (Java's ``equals`` of two classes), and ``1 = '1'`` is refused ("implicit type
    conversion"). Any other pair is refused as Calcite's validator refuses it:
    ``Cannot apply '=' to arguments of type '<DATE> = <TIMESTAMP(0)>'``.

    Approximate numbers compare as doubles, but for FLOAT = DOUBLE and FLOAT <> DOUBLE, as
    FLOATs (CAST(0.1 AS FLOAT) > CAST(0.1 AS DOUBLE) is TRUE, while CAST(0.1 AS FLOAT) =
    CAST(0.1 AS DOUBLE) is TRUE too, as PyFlink 2.3.0 gives both); ``promoted``: ``=`` and
    ``<>`` as the orderings (IS DISTINCT FROM's: CAST(0.1 AS FLOAT) IS DISTINCT FROM
    CAST(0.1 AS DOUBLE) is TRUE)."""
    shown = shown or op
    compare = COMPARISONS[op]
    ra, rb = ta.root, tb.root
    if "NULL" in (ra, rb):
        return compare
    fa, fb = _comparable_family(ra), _comparable_family(rb)
    if fa == fb:
        if fa in ("ARRAY", "MAP", "MULTISET", "VARIANT") and op not in ("=", "<>"):
            from_type = summary_string(ta)
            raise TypeError(f"Comparable type expected, but was '{from_type}'.")
        if fa == "ROW":
            return _row_comparison(op, ta, tb, shown)
        if fa == "NUMERIC":
            return _numeric_comparison(op, ta, tb, promoted)
        return compare
    if "CHARACTER" in (fa, fb):
        text_first = fa == "CHARACTER"
        text, other = (ta, tb) if text_first else (tb, ta)
        family = fb if text_first else fa
        ordering = op not in ("=", "<>")
        if family in ("DATE", "TIME", "TIMESTAMP") or (family in ("NUMERIC", "BOOLEAN") and ordering):
            cast_text = converter(text.not_null(), other.not_null())
            if text_first:
                return lambda a, b: compare(cast_text(a), b)
            return lambda a, b: compare(a, cast_text(b))
        if family == "NUMERIC":
            low, high = (cast_type_name(t).split("(")[0] for t in (ta, tb))
            raise TypeError(f"implicit type conversion between {low} and {high} is not supported now")
        if family == "BOOLEAN" or (family in INTERVALS and op in ("=", "<>")):
            unequal = op == "<>"
            return lambda a, b: unequal
    names = f"<{cast_type_name(ta)}> {shown} <{cast_type_name(tb)}>"
    raise TypeError(
        f"Cannot apply '{shown}' to arguments of type '{names}'. "
        f"Supported form(s): '<COMPARABLE_TYPE> {shown} <COMPARABLE_TYPE>'"
    )


def _comparable_family(root: str) -> str:
    """The family of types whose values compare with each other (Calcite's COMPARABLE_TYPE)."""
    if root in NUMERIC_ORDER:
        return "NUMERIC"
    if root in CHARACTER_ROOTS:
        return "CHARACTER"
    if root in BINARY_ROOTS:
        return "BINARY"
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return "TIMESTAMP"
    return root


def _numeric_comparison(op: str, ta: DataType, tb: DataType, promoted: bool) -> Callable[[Any, Any], bool]:
    """Two numbers compared as Flink compares them (``comparison``): exact ones exactly, a
    FLOAT = DOUBLE as FLOATs (Calcite's least restrictive type of two approximate ones is the
    first), anything else with an approximate one as doubles (PyFlink 2.3.0: CAST(0.1 AS FLOAT)
    = CAST(0.1 AS DECIMAL(2, 1)) is FALSE, and so is CAST(0.1 AS DOUBLE) = CAST(0.1 AS FLOAT))."""
    compare = COMPARISONS[op]
    ra, rb = ta.root, tb.root
    if ra not in APPROXIMATE and rb not in APPROXIMATE:
        return compare
    if ra == "FLOAT" and rb in APPROXIMATE and op in ("=", "<>") and not promoted:
        return lambda a, b: compare(to_float32(float(a)), to_float32(float(b)))
    return lambda a, b: compare(float(a), float(b))


def _row_comparison(op: str, ta: DataType, tb: DataType, shown: str) -> Callable[[Any, Any], Any]:
    """Two ROWs compared field by field, in SQL's three-valued logic: equal when every field
    is, ordered by their first unequal fields (NULL where a NULL field decides)."""
    left, right = getattr(ta, "fields", []), getattr(tb, "fields", [])
    if len(left) != len(right):
        names = f"<{summary_string(ta)}> {shown} <{summary_string(tb)}>"
        raise TypeError(f"Cannot apply '{shown}' to arguments of type '{names}'.")
    pairs = [(a.data_type, b.data_type) for a, b in zip(left, right, strict=True)]
    equal = [comparison("=", a, b) for a, b in pairs]
    if op in ("=", "<>"):
        return _row_equality(equal, op == "<>")
    before = [comparison(op.rstrip("="), a, b) for a, b in pairs]
    inclusive = op in ("<=", ">=")

    def ordered(a: Any, b: Any) -> Any:
        for eq, lt, x, y in zip(equal, before, a, b, strict=True):
            if x is None or y is None:
                return None
            if lt(x, y):
                return True
            if not eq(x, y):
                return False
        return inclusive

    return ordered


def _row_equality(equal: list[Callable[[Any, Any], Any]], negated: bool) -> Callable[[Any, Any], Any]:
    """ROW = ROW (``negated``: <>): every field equal, NULL where a NULL field leaves it open."""

    def fields_equal(a: Any, b: Any) -> Any:
        unknown = False
        for eq, x, y in zip(equal, a, b, strict=True):
            if x is None or y is None:
                unknown = True
            elif not eq(x, y):
                return False
        return None if unknown else True

    if negated:
        return lambda a, b: None if (same := fields_equal(a, b)) is None else not same
    return fields_equal


def comparison_type(ta: DataType, tb: DataType) -> DataType:
    """The type of a comparison of ``ta`` and ``tb``: BOOLEAN, nullable when an operand is, or
    a field of two ROWs (compared field by field)."""
    result = nullable_if_any(DataTypes.BOOLEAN(), ta, tb)
    if ta.root == tb.root == "ROW" and row_comparison_nullable(ta, tb):
        return result.nullable()
    return result


def row_comparison_nullable(ta: DataType, tb: DataType) -> bool:
    """Whether comparing the ROWs ``ta`` and ``tb`` may be NULL though neither is: a nullable
    field (Flink compares ROWs field by field)."""
    fields = [*getattr(ta, "fields", []), *getattr(tb, "fields", [])]
    return any(
        f.data_type.is_nullable()
        or (f.data_type.root == "ROW" and row_comparison_nullable(f.data_type, f.data_type))
        for f in fields
    )


def compile_reflexive(op: str, operand: Compiled) -> Compiled:
    """``x op x``, the same expression on both sides (typed as the comparison is), as
    Calcite's simplifier rewrites it before anything runs: ``x = x``, ``x <= x``
    and ``x >= x`` are TRUE, ``x <> x``, ``x < x`` and ``x > x`` FALSE, NULL when ``x`` is (so
    ``CAST('NaN' AS DOUBLE) = CAST('NaN' AS DOUBLE)`` is TRUE, and so is ``UUID() = UUID()``,
    as PyFlink 2.3.0 gives them). Calcite's conversion refuses ``x = x`` of a ROW whose
    comparison is typed nullable though ``x`` is not (its rewrite is NOT NULL), as PyFlink
    2.3.0 refuses ``CAST(ROW(1, 'a') AS ROW<a INT, b STRING>) = CAST(... the same)``."""
    row = operand.data_type
    result_type = comparison_type(row, row)
    if op == "=" and row.root == "ROW" and result_type.is_nullable() and not row.is_nullable():
        raise TypeError("Conversion to relational algebra failed to preserve datatypes:")
    fn = operand.fn
    result = op in ("=", "<=", ">=")
    return Compiled(lambda row: None if fn(row) is None else result, result_type, None)


def compile_binary(op: str, left: Compiled, right: Compiled) -> Compiled:
    """``left op right``: a comparison (BOOLEAN) or arithmetic; NULL if either side is."""
    fa, fb = left.fn, right.fn
    ta, tb = left.data_type, right.data_type
    if op in COMPARISONS:
        func: Callable[[Any, Any], Any] = comparison(op, ta, tb)
        result_type = comparison_type(ta, tb)
    else:
        result_type, func = arithmetic(op, ta, tb)

    def apply(row: tuple[Any, ...]) -> Any:
        a = fa(row)
        if a is None:
            return None
        b = fb(row)
        return None if b is None else func(a, b)

    return Compiled(apply, result_type, None)


def same_expression(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are the same expression (Calcite's equal digests): of one kind,
    with the same operands, literal values and types (compared field by field; a function or
    other callable by identity)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_expression(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and a != a:
        return b != b
    if hasattr(a, "__dict__") and not callable(a):
        left, right = vars(a), vars(b)
        return left.keys() == right.keys() and all(same_expression(left[k], right[k]) for k in left)
    return a is b or bool(a == b)
