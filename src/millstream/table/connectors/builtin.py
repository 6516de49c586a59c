"""The connectors every table environment has: ``datagen`` (a source of generated rows),
``print`` (each change on standard output) and ``blackhole`` (discards), as Flink's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from millstream.connectors.datagen import InterleavedDataGeneratorSource
from millstream.connectors.datagen_table import datagen_rows
from millstream.datastream import SinkFunction
from millstream.table.common.factories import DynamicTableFactory, TableContext, TableSink
from millstream.table.common.printing import row_to_string
from millstream.table.common.row_kind import INSERT
from millstream.table.common.table_source import TableSource
from millstream.table.common.types import DataType

__all__ = ["BLACKHOLE", "DATAGEN", "PRINT", "DataGenSource"]


@dataclass(frozen=True)
class DataGenSource(TableSource):
    """The ``datagen`` connector's rows (``connectors.datagen_table``: random or sequence
    fields, as Flink's): ``number-of-rows`` of them (unbounded without it, or as many as the
    shortest sequence) at ``rows-per-second`` (10000), dealt round-robin to the subtasks."""

    options: dict[str, str] = field(default_factory=dict)

    def produce(self, env: Any, watermarks: Any) -> Any:
        row, count = datagen_rows(list(self.names), list(self.types), self.options)
        rate = float(self.options.get("rows-per-second", "10000"))

        def generate(index: int) -> tuple[str, tuple[Any, ...]]:
            return (INSERT, row(index))

        source = InterleavedDataGeneratorSource(generate, count, rate)
        return env.from_source(source, watermarks, "datagen")


class DataGenFactory(DynamicTableFactory):
    """``'connector' = 'datagen'``."""

    identifier = "datagen"

    def create_source(self, context: TableContext) -> TableSource:
        names = [n for n, _ in context.physical]
        types = [t for _, t in context.physical]
        datagen_rows(names, types, dict(context.options))  # bad options fail at CREATE TABLE's use
        return DataGenSource(names, types, options=dict(context.options))


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
