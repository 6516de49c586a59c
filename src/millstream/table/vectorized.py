"""Vectorized Calc: a filter and a projection evaluated on Arrow arrays (``pyarrow.compute``)
for a whole batch of rows at once, instead of a Python call per row.

A batch of ``(kind, row)`` changes becomes one Arrow array per column the expressions read;
each expression becomes an Arrow compute call with SQL's semantics (comparisons and
arithmetic propagate NULL, AND/OR are Kleene logic, CASE takes the ELSE branch for a NULL
condition); the kept rows are rebuilt from the result arrays. Only expressions with an exact
Arrow equal are vectorized (``vectorizable``); the planner uses the generated row-at-a-time
code (``codegen.py``) for the others, and a batch whose values Arrow cannot hold (a column of
mixed Python types) falls back to that code too, so results never depend on the path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.table.types import DataType

__all__ = ["VectorizedCalc", "vectorizable"]

_COMPARE = {
    "=": "equal",
    "<>": "not_equal",
    "<": "less",
    "<=": "less_equal",
    ">": "greater",
    ">=": "greater_equal",
}
_ARITHMETIC = {"+": "add", "-": "subtract", "*": "multiply"}
_FUNCTIONS = {
    "UPPER": "utf8_upper",
    "LOWER": "utf8_lower",
    "CHAR_LENGTH": "utf8_length",
    "ABS": "abs",
    "TRIM": "utf8_trim_whitespace",
    "LTRIM": "utf8_ltrim_whitespace",
    "RTRIM": "utf8_rtrim_whitespace",
}
_ARROW_ROOTS = {
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


def vectorizable(expression: Any, names: list[str], types: list[DataType]) -> bool:
    """Whether ``expression`` has an exact Arrow compute equal over these columns."""
    from millstream.table import expressions as e
    from millstream.table.functions import _Call

    kind = type(expression)
    if kind is e._Column:
        return expression.name in names and types[names.index(expression.name)].root in _ARROW_ROOTS
    if kind is e._Literal:
        return expression.value is None or isinstance(expression.value, (bool, int, float, str))
    if kind in (e._Alias, e._Not, e._IsNull):
        return vectorizable(expression.operand, names, types)
    if kind is e._Logic:
        return all(vectorizable(o, names, types) for o in expression.operands)
    if kind is e._Binary and (expression.op in _COMPARE or expression.op in _ARITHMETIC):
        if not (vectorizable(expression.left, names, types) and vectorizable(expression.right, names, types)):
            return False
        left = expression.left.resolve(names, types).data_type.root
        right = expression.right.resolve(names, types).data_type.root
        numeric = {"TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "NULL"}
        text = {"STRING", "VARCHAR", "CHAR", "NULL"}
        if expression.op in _ARITHMETIC:
            return left in numeric and right in numeric and "FLOAT" not in (left, right)
        return (left in numeric and right in numeric) or (left in text and right in text)
    if kind is e._IfThenElse:
        return all(
            vectorizable(x, names, types)
            for x in (expression.condition, expression.then, expression.otherwise)
        )
    if kind is _Call and expression.name_ in _FUNCTIONS:
        return all(vectorizable(a, names, types) for a in expression.args)
    return False


def _evaluate(expression: Any, names: list[str], columns: Callable[[int], Any], size: int) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    from millstream.table import expressions as e

    kind = type(expression)
    if kind is e._Column:
        return columns(names.index(expression.name))
    if kind is e._Literal:
        return pa.scalar(expression.value)
    if kind is e._Alias:
        return _evaluate(expression.operand, names, columns, size)
    if kind is e._IsNull:
        inner = _evaluate(expression.operand, names, columns, size)
        return pc.is_null(inner) if expression.null else pc.is_valid(inner)
    if kind is e._Not:
        return pc.invert(_evaluate(expression.operand, names, columns, size))
    if kind is e._Logic:
        values = [_evaluate(o, names, columns, size) for o in expression.operands]
        combine = pc.or_kleene if expression.op == "OR" else pc.and_kleene
        result = values[0]
        for v in values[1:]:
            result = combine(result, v)
        return result
    if kind is e._Binary:
        left = _evaluate(expression.left, names, columns, size)
        right = _evaluate(expression.right, names, columns, size)
        if expression.op in _COMPARE:
            return getattr(pc, _COMPARE[expression.op])(left, right)
        return getattr(pc, _ARITHMETIC[expression.op])(left, right)
    if kind is e._IfThenElse:
        condition = pc.fill_null(_evaluate(expression.condition, names, columns, size), False)
        then = _evaluate(expression.then, names, columns, size)
        otherwise = _evaluate(expression.otherwise, names, columns, size)
        return pc.if_else(condition, then, otherwise)
    args = [_evaluate(a, names, columns, size) for a in expression.args]
    return getattr(pc, _FUNCTIONS[expression.name_])(*args)


class VectorizedCalc:
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

    def __call__(self, values: list[Any]) -> tuple[list[Any], list[int] | None]:
        import pyarrow as pa

        try:
            return self._vectorized(values)
        except (pa.ArrowException, TypeError, OverflowError):  # values Arrow cannot hold or compute on
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
        import pyarrow as pa
        import pyarrow.compute as pc

        if self.arrow_types is None:
            self.arrow_types = [t.to_arrow() if t.root in _ARROW_ROOTS else None for t in self.types]
        size = len(values)
        cache: dict[int, Any] = {}
        arrow_types = self.arrow_types

        def column(index: int) -> Any:
            array = cache.get(index)
            if array is None:
                array = cache[index] = pa.array(
                    [change[1][index] for change in values], type=arrow_types[index]
                )
            return array

        kept: list[int] | None = None
        if self.condition is not None:
            mask = pc.fill_null(_evaluate(self.condition, self.names, column, size), False)
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
        results = []
        for expression in self.projection:
            result = _evaluate(expression, self.names, column, size)
            results.append([result.as_py()] * size if isinstance(result, pa.Scalar) else result.to_pylist())
        rows = list(zip(*results, strict=True))
        return [(change[0], row) for change, row in zip(values, rows, strict=True)], kept
