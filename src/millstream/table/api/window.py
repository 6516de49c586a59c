"""Group windows and over windows of the Table API, as ``pyflink.table.window``.

::

    table.window(Tumble.over(lit(5).seconds).on(col('ts')).alias('w'))
         .group_by(col('name'), col('w'))
         .select(col('name'), col('price').sum, col('w').start, col('w').end)

    table.over_window(Over.partition_by(col('name')).order_by(col('ts'))
                          .preceding(row_interval(2)).following(CURRENT_ROW).alias('w'))
         .select(col('name'), col('price').max.over(col('w')))
"""

from __future__ import annotations

from typing import Any

from millstream.table.common.window_spec import WindowSpec
from millstream.table.expression.expression import Expression, col, interval_millis

__all__ = ["GroupWindow", "Over", "OverWindow", "Session", "Slide", "Tumble"]


def _expression(value: Any) -> Expression:
    return value if isinstance(value, Expression) else col(str(value))


class GroupWindow:
    """A tumbling, sliding or session window on a time attribute, with an alias."""

    def __init__(self, kind: str, size: Expression, slide: Expression | None = None) -> None:
        self.kind, self.size, self.slide = kind, size, slide
        self.time_field: Expression | None = None
        self.alias_name: str | None = None

    def on(self, time_field: Any) -> GroupWindow:
        """The time attribute the window is defined on."""
        self.time_field = _expression(time_field)
        return self

    def every(self, slide: Any) -> GroupWindow:
        """The slide of a sliding window."""
        self.slide = _expression(slide) if isinstance(slide, str) else slide
        return self

    def alias(self, alias: str) -> GroupWindow:
        """The name the window is referred to by (``col('w').start``)."""
        self.alias_name = alias
        return self

    def spec(self) -> Any:
        """The window's definition in ms."""
        size = interval_millis(self.size)
        if self.kind == "HOP":
            if self.slide is None:
                raise ValueError("a sliding window needs every(slide)")
            return WindowSpec("HOP", size, interval_millis(self.slide))
        return WindowSpec(self.kind, size)


class Tumble:
    """Tumbling windows: ``Tumble.over(lit(5).seconds).on(col('ts')).alias('w')``."""

    @staticmethod
    def over(size: Any) -> GroupWindow:
        """Windows of length ``size``."""
        return GroupWindow("TUMBLE", size)


class Slide:
    """Sliding windows: ``Slide.over(lit(5).seconds).every(lit(2).seconds).on(...).alias('w')``."""

    @staticmethod
    def over(size: Any) -> GroupWindow:
        """Windows of length ``size`` (``every(slide)`` next)."""
        return GroupWindow("HOP", size)


class Session:
    """Session windows: ``Session.with_gap(lit(5).seconds).on(col('ts')).alias('w')``."""

    @staticmethod
    def with_gap(gap: Any) -> GroupWindow:
        """Sessions closed after ``gap`` without rows."""
        return GroupWindow("SESSION", gap)


class OverWindow:
    """An over window: partitioning, order (a time attribute), the preceding range or rows."""

    def __init__(self, partition_by: list[Expression]) -> None:
        self.partition_by = partition_by
        self.order_by_field: Expression | None = None
        self.preceding_bound: Expression | None = None
        self.following_bound: Expression | None = None
        self.alias_name: str | None = None

    def order_by(self, order_by: Any) -> OverWindow:
        """The time attribute ordering the rows."""
        self.order_by_field = _expression(order_by)
        return self

    def preceding(self, preceding: Any) -> OverWindow:
        """How far back the window reaches: ``row_interval(n)``, ``lit(5).seconds``, UNBOUNDED_ROW ..."""
        self.preceding_bound = preceding
        return self

    def following(self, following: Any) -> OverWindow:
        """CURRENT_ROW / CURRENT_RANGE (Flink supports nothing later)."""
        self.following_bound = following
        return self

    def alias(self, alias: str) -> OverWindow:
        """The name aggregates refer to (``.over(col('w'))``)."""
        self.alias_name = alias
        return self


class Over:
    """Over windows: ``Over.partition_by(...).order_by(...).preceding(...).alias('w')``."""

    @staticmethod
    def partition_by(*partition_by: Any) -> OverWindow:
        """Rows of the same partition keys share windows."""
        return OverWindow([_expression(p) for p in partition_by])

    @staticmethod
    def order_by(order_by: Any) -> OverWindow:
        """One partition over the whole table, ordered by ``order_by``."""
        return OverWindow([]).order_by(order_by)
