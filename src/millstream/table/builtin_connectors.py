"""The connectors every table environment has: ``datagen`` (a source of generated rows),
``print`` (each change on standard output) and ``blackhole`` (discards), as Flink's."""

from __future__ import annotations

from typing import Any

from millstream.datastream import SinkFunction
from millstream.table.factories import DynamicTableFactory, TableContext, TableSink
from millstream.table.plan_sources import DataGen
from millstream.table.planner import PlanNode
from millstream.table.print_utils import row_to_string
from millstream.table.types import DataType

__all__ = ["BLACKHOLE", "DATAGEN", "PRINT"]


class DataGenFactory(DynamicTableFactory):
    """``'connector' = 'datagen'``."""

    identifier = "datagen"

    def create_source(self, context: TableContext) -> PlanNode:
        names = [n for n, _ in context.physical]
        return DataGen(names, [t for _, t in context.physical], False, dict(context.options))


class _PrintSink(TableSink):
    changelog = "all"

    def __init__(self, identifier: str | None) -> None:
        self.identifier = identifier

    def consume(self, stream: Any, names: list[str], types: list[DataType]) -> Any:
        """Each change as ``+I[a, 1]`` (a subtask prefix when parallel, ``print-identifier``
        before it), as Flink's print connector."""
        return stream.map(lambda kv: row_to_string(kv[0], kv[1], types)).print(self.identifier)


class PrintFactory(DynamicTableFactory):
    """``'connector' = 'print'``."""

    identifier = "print"

    def create_sink(self, context: TableContext) -> TableSink:
        return _PrintSink(context.option("print-identifier") or None)


class _Discard(SinkFunction):
    """The blackhole connector's sink."""

    def invoke(self, value: Any, context: Any) -> None:
        """Drop the change (or a ``ChangeBatch`` of them)."""


class _BlackholeSink(TableSink):
    changelog = "all"
    takes_batches = True  # Flink's blackhole drops its rows unconverted: so does this one

    def consume(self, stream: Any, names: list[str], types: list[DataType]) -> Any:
        return stream.add_sink(_Discard())

    def consume_batches(self, stream: Any, names: list[str], types: list[DataType]) -> Any:
        return stream.add_sink(_Discard())


class BlackholeFactory(DynamicTableFactory):
    """``'connector' = 'blackhole'``."""

    identifier = "blackhole"

    def create_sink(self, context: TableContext) -> TableSink:
        return _BlackholeSink()


DATAGEN = DataGenFactory()
PRINT = PrintFactory()
BLACKHOLE = BlackholeFactory()
