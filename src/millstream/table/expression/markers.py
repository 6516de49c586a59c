"""Expressions that mark a declaration rather than compute a value: ``source_watermark()``
(a schema's watermark is the source's own, Flink's ``SOURCE_WATERMARK()``) and
``descriptor('a', 'b')`` (a list of column names, an argument of table functions such as
Flink's window and changelog functions). Neither has a value in a select list, as in Flink."""

from __future__ import annotations

from millstream.table.common.types import DataType
from millstream.table.expression.expression import Compiled, Expression

__all__ = ["Descriptor", "SourceWatermark"]


class SourceWatermark(Expression):
    """``source_watermark()``: in ``Schema.watermark(column, source_watermark())``, the
    watermarks are the source's own (a DataStream's, for ``from_data_stream``)."""

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        raise ValueError(
            "source_watermark() declares that a schema's watermark is the source's own "
            "(Schema.new_builder().watermark(column, source_watermark())); it has no value in a query"
        )

    def __str__(self) -> str:
        return "SOURCE_WATERMARK()"  # Flink's summary of the call, as a schema prints it

    __repr__ = __str__


class Descriptor(Expression):
    """``descriptor('a', 'b')``: the column names, unvalidated (Flink's DESCRIPTOR literal)."""

    def __init__(self, column_names: tuple[str, ...]) -> None:
        self.column_names = column_names

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        raise ValueError(
            f"{self!r} names columns for a table function's argument; it has no value in a query "
            "(Flink: Cannot create literal for type 'COLUMN_LIST')"
        )

    def __str__(self) -> str:
        return "(" + ", ".join(f"`{name}`" for name in self.column_names) + ")"  # Flink's summary

    def __repr__(self) -> str:
        return "DESCRIPTOR" + str(self)
