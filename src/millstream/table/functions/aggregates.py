"""The built-in aggregate functions of the Table API and SQL: COUNT, SUM, AVG, MIN, MAX.

Each is an ``Accumulator`` whose accumulator values are plain Python data (they live in keyed
state, so they are pickled into checkpoints): ``create`` a fresh one, ``add`` / ``retract`` a
value (NULLs are skipped, as SQL's aggregates skip them), ``merge`` another accumulator into
it (session windows merge, hopping windows merge their slices) and read the ``result``.

Types follow Flink's: COUNT is BIGINT NOT NULL; SUM, MIN and MAX keep the operand's type and
are NULL over no values; AVG of an integer type truncates in that type; FLOAT sums round to
32 bits after every addition, as Java's ``float`` arithmetic does (so ``86.399994`` prints
where a double sum would print ``86.4``).
"""

from __future__ import annotations

import decimal
import operator
import struct
from collections import Counter
from collections.abc import Callable
from typing import Any

from millstream.table.common.aggregate_skip import SKIP
from millstream.table.common.casts import decimal_context, wrap

__all__ = ["DISTINCT", "FILTERED", "NOT_NULL", "SORTED", "Accumulator", "to_float32"]

_INTEGRAL = ("TINYINT", "SMALLINT", "INT", "BIGINT")
_FLOAT = struct.Struct("f")


def to_float32(value: float) -> float:
    """``value`` rounded to the nearest 32-bit float (Java's ``float``)."""
    return _FLOAT.unpack(_FLOAT.pack(value))[0]


FILTERED = "FILTERED "  # prefixes of a built-in's name: ``COUNT(DISTINCT x) FILTER (WHERE c)``
DISTINCT = "DISTINCT "  # is "FILTERED DISTINCT COUNT"
SORTED = "SORTED "  # "SORTED DISTINCT ARRAY_AGG": the distinct values in ascending order (BATCH's)
NOT_NULL = "NOT NULL "  # a result typed NOT NULL: a NULL one is written as Java's default value


class Accumulator:
    """One aggregate function's accumulator operations."""

    def create(self) -> Any:
        """A new, empty accumulator."""
        raise NotImplementedError

    def add(self, acc: Any, value: Any) -> Any:
        """``acc`` with ``value`` added (may be ``acc`` itself)."""
        raise NotImplementedError

    def retract(self, acc: Any, value: Any) -> Any:
        """``acc`` with ``value`` taken out."""
        raise NotImplementedError

    def merge(self, acc: Any, other: Any) -> Any:
        """``acc`` with every value of ``other`` added."""
        raise NotImplementedError

    def result(self, acc: Any) -> Any:
        """The aggregate's value."""
        raise NotImplementedError


class _Filtered(Accumulator):
    """``agg(x) FILTER (WHERE c)``: the rows whose condition is not TRUE arrive as ``SKIP``."""

    def __init__(self, inner: Accumulator) -> None:
        self.inner = inner

    def create(self) -> Any:
        return self.inner.create()

    def add(self, acc: Any, value: Any) -> Any:
        return acc if value is SKIP else self.inner.add(acc, value)

    def retract(self, acc: Any, value: Any) -> Any:
        return acc if value is SKIP else self.inner.retract(acc, value)

    def merge(self, acc: Any, other: Any) -> Any:
        return self.inner.merge(acc, other)

    def result(self, acc: Any) -> Any:
        return self.inner.result(acc)


class _ValueCounts(Accumulator):
    """An accumulator of values with the number of rows holding each (Flink's MapView of the
    same); a value retracted from every row leaves. ``keep_nulls``: NULL is a value too."""

    keep_nulls = False

    def create(self) -> Any:
        return Counter()

    def add(self, acc: Any, value: Any) -> Any:
        if value is not None or self.keep_nulls:
            acc[value] += 1
        return acc

    def retract(self, acc: Any, value: Any) -> Any:
        if value is not None or self.keep_nulls:
            acc[value] -= 1
            if acc[value] <= 0:
                del acc[value]
        return acc

    def merge(self, acc: Any, other: Any) -> Any:
        acc.update(other)
        return acc


class _Distinct(_ValueCounts):
    """``agg(DISTINCT x)``: the inner aggregate over the distinct values (NULL among them:
    the inner aggregate skips it as it always does), in the order they first came, or
    ``ordered``: ascending, NULL first, as Flink's BATCH plan hands them over (it makes the
    values distinct by sorting them: PyFlink 2.3.0 gives ARRAY_AGG(DISTINCT x) of 3, 1, NULL,
    2, 1 as [NULL, 1, 2, 3])."""

    keep_nulls = True

    def __init__(self, inner: Accumulator, ordered: bool = False) -> None:
        self.inner = inner
        self.ordered = ordered

    def result(self, acc: Any) -> Any:
        inner = self.inner
        folded = inner.create()
        for value in sorted(acc, key=_nulls_first) if self.ordered else acc:
            folded = inner.add(folded, value)
        return inner.result(folded)


def _nulls_first(value: Any) -> tuple[bool, Any]:
    return (value is not None, value)


class _NotNull(Accumulator):
    """An aggregate whose result Flink types NOT NULL (a grouped SUM of NOT NULL values ...)
    though it may compute NULL (a DECIMAL sum out of its precision, VAR_SAMP of one value):
    Flink's generated code then writes the Java default of the type, -1 for an integer or an
    approximate number (PyFlink 2.3.0 gives VAR_SAMP of one INT -1 there), and fails the job
    for any other type as its sink's NOT NULL enforcer does."""

    def __init__(self, inner: Accumulator, function: str, root: str) -> None:
        self.inner, self.function, self.root = inner, function, root

    def create(self) -> Any:
        return self.inner.create()

    def add(self, acc: Any, value: Any) -> Any:
        return self.inner.add(acc, value)

    def retract(self, acc: Any, value: Any) -> Any:
        return self.inner.retract(acc, value)

    def merge(self, acc: Any, other: Any) -> Any:
        return self.inner.merge(acc, other)

    def result(self, acc: Any) -> Any:
        value = self.inner.result(acc)
        if value is not None:
            return value
        if self.root in _INTEGRAL:
            return -1
        if self.root in ("FLOAT", "DOUBLE"):
            return -1.0
        raise ValueError(
            f"{self.function} is typed NOT NULL, however, a null value is being written into it "
            "(Flink's sink NOT NULL enforcer fails the job)"
        )


class _Count(Accumulator):
    def create(self) -> Any:
        return 0

    def add(self, acc: Any, value: Any) -> Any:
        return acc if value is None else acc + 1

    def retract(self, acc: Any, value: Any) -> Any:
        return acc if value is None else acc - 1

    def merge(self, acc: Any, other: Any) -> Any:
        return acc + other

    def result(self, acc: Any) -> Any:
        return acc


class _Sum(Accumulator):
    """(sum, number of non-NULL values) of values of type ``root``: an integer sum wraps in its
    type's width as Java's (SUM of the INTs 2147483647 and 1 is -2147483648, as PyFlink 2.3.0
    gives), a FLOAT sum is rounded to 32 bits after every addition, a DECIMAL sum keeps all 38
    digits and is NULL past them, and the next value starts it again (Flink's sum is ``IF(sum
    IS NULL, x, sum + x)``: PyFlink 2.3.0 sums 10^38 - 1, 1 and -5 as DECIMAL(38, 0) to -5)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.round: Callable[[Any], Any] = to_float32 if root == "FLOAT" else _same
        self.plus: Callable[[Any, Any], Any] = _decimal_plus if root == "DECIMAL" else operator.add

    def create(self) -> Any:
        return (0, 0)

    def add(self, acc: Any, value: Any) -> Any:
        return acc if value is None else (self.round(self.plus(acc[0], value)), acc[1] + 1)

    def retract(self, acc: Any, value: Any) -> Any:
        return acc if value is None else (self.round(self.plus(acc[0], -value)), acc[1] - 1)

    def merge(self, acc: Any, other: Any) -> Any:
        return (self.round(self.plus(acc[0], other[0])), acc[1] + other[1]) if other[1] else acc

    def result(self, acc: Any) -> Any:
        if not acc[1]:
            return None
        return wrap(acc[0], self.root) if self.root in _INTEGRAL else acc[0]


def _same(value: Any) -> Any:
    return value


_WIDE = decimal_context()
_DECIMAL_LIMIT = decimal.Decimal(10) ** 38  # a DECIMAL(38, s) sum holds fewer digits


def _decimal_plus(total: Any, value: Any) -> Any:
    """A DECIMAL sum plus a value: NULL (None) when it needs more than 38 digits, the value
    itself after a NULL."""
    if total is None:
        return value
    result = _WIDE.add(total, value)
    exponent = result.as_tuple().exponent
    digits = result.scaleb(-int(exponent)) if isinstance(exponent, int) and exponent < 0 else result
    return None if digits.copy_abs() >= _DECIMAL_LIMIT else result  # abs() would round to 28 digits


class _Avg(_Sum):
    """AVG of ``root`` values summed in ``total_root`` (an integer type's AVG is that type,
    truncated toward zero, of the sum wrapped in the sum's type, as Flink's)."""

    def __init__(self, total_root: str, root: str | None = None) -> None:
        super().__init__(total_root)
        self.integral = (root or total_root) in _INTEGRAL

    def result(self, acc: Any) -> Any:
        total, n = acc
        if not n or total is None:
            return None
        if self.integral:
            total = wrap(total, self.root)
            quotient = abs(total) // n
            return -quotient if total < 0 else quotient
        return self.round(total / n)


class _DecimalAvg(_Sum):
    """AVG of a DECIMAL: DECIMAL(38, max(6, s)), rounded half up, as Flink's."""

    def __init__(self, scale: int) -> None:
        super().__init__("DECIMAL")
        self.quantum = decimal.Decimal(1).scaleb(-scale)

    def result(self, acc: Any) -> Any:
        total, n = acc
        if not n or total is None:
            return None
        return _WIDE.divide(decimal.Decimal(total), n).quantize(self.quantum, rounding=decimal.ROUND_HALF_UP)


class _Extreme(Accumulator):
    """MIN / MAX of an insert-only input."""

    def __init__(self, pick: Callable[..., Any]) -> None:
        self.pick = pick

    def create(self) -> Any:
        return None

    def add(self, acc: Any, value: Any) -> Any:
        if value is None:
            return acc
        return value if acc is None else self.pick(acc, value)

    def retract(self, acc: Any, value: Any) -> Any:
        raise ValueError("MIN/MAX over an updating input needs the retracting accumulator")

    def merge(self, acc: Any, other: Any) -> Any:
        return self.add(acc, other)

    def result(self, acc: Any) -> Any:
        return acc


class _RetractingExtreme(_ValueCounts):
    """MIN / MAX of an updating input: the values with their counts (Flink's MapView)."""

    def __init__(self, pick: Callable[..., Any]) -> None:
        self.pick = pick

    def result(self, acc: Any) -> Any:
        return self.pick(acc) if acc else None
