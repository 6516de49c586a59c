"""Plan nodes that bring rows in: a DataStream's elements (``from_data_stream``) and the
``datagen`` connector."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from millstream.common.types import Row
from millstream.datastream.functions import ProcessFunction
from millstream.table.aggregates import to_float32
from millstream.table.planner import INSERT, PlanNode, SourceScan
from millstream.table.timestamps import from_epoch_millis
from millstream.table.types import DataType

if TYPE_CHECKING:
    from millstream.table.planning import PlanningContext

__all__ = ["DataGen", "FromDataStream"]


@dataclass(frozen=True)
class FromDataStream(PlanNode):
    """A DataStream's elements as rows (``from_data_stream``): Rows, tuples or atomic values;
    with ``record_timestamp`` the last column is each record's timestamp (the ``rowtime``
    metadata column a Schema declares, TIMESTAMP_LTZ(3); NULL for a record without one)."""

    stream: Any = None
    record_timestamp: bool = False

    def translate(self, ctx: PlanningContext) -> Any:
        width = len(self.names) - (1 if self.record_timestamp else 0)
        instants = [i for i, t in enumerate(self.types[:width]) if t.root == "TIMESTAMP_LTZ"]
        floats = [i for i, t in enumerate(self.types[:width]) if t.root == "FLOAT"]

        def to_change(value: Any) -> tuple[str, tuple[Any, ...]]:
            if isinstance(value, Row):
                change = (str(value.get_row_kind()), tuple(value))
            elif isinstance(value, (tuple, list)) and width > 1:
                change = (INSERT, tuple(value))
            else:
                change = (INSERT, (value,))
            if instants or floats:  # Instants become TIMESTAMP_LTZ values, FLOATs 32-bit floats
                values = list(change[1])
                for i in instants:
                    if hasattr(values[i], "to_epoch_milli"):
                        values[i] = from_epoch_millis(values[i].to_epoch_milli(), "TIMESTAMP_LTZ")
                for i in floats:
                    if values[i] is not None:
                        values[i] = to_float32(values[i])
                change = (change[0], tuple(values))
            return change

        if self.record_timestamp:
            return self.stream.process(_WithRecordTimestamp(to_change))
        return self.stream.map(to_change)


class _WithRecordTimestamp(ProcessFunction):
    """A DataStream element as a change whose last column is the record's timestamp."""

    def __init__(self, to_change: Callable[[Any], tuple[str, tuple[Any, ...]]]) -> None:
        self.to_change = to_change

    def process_element(self, value: Any, ctx: Any) -> Any:
        kind, values = self.to_change(value)
        timestamp = ctx.timestamp()
        rowtime = None if timestamp is None else from_epoch_millis(timestamp, "TIMESTAMP_LTZ")
        yield (kind, (*values, rowtime))


@dataclass(frozen=True)
class DataGen(SourceScan):
    """The ``datagen`` connector: ``number-of-rows`` rows (unbounded without it) at
    ``rows-per-second``, each field random (``fields.<f>.min/max/length``) or a sequence
    (``fields.<f>.kind = sequence``, ``start``/``end``), as Flink's."""

    options: dict[str, str] = field(default_factory=dict)

    def translate(self, ctx: PlanningContext) -> Any:
        from millstream.common import WatermarkStrategy
        from millstream.datastream.connectors.datagen import DataGeneratorSource

        fields = [
            _field_generator(name, t, self.options) for name, t in zip(self.names, self.types, strict=True)
        ]
        rows = self.options.get("number-of-rows")
        sequences = [
            int(self.options[f"fields.{n}.end"]) - int(self.options[f"fields.{n}.start"]) + 1
            for n in self.names
            if self.options.get(f"fields.{n}.kind") == "sequence"
        ]
        count = int(rows) if rows is not None else (min(sequences) if sequences else None)
        rate = float(self.options.get("rows-per-second", "10000"))

        def generate(index: int) -> tuple[str, tuple[Any, ...]]:
            return (INSERT, tuple(f(index) for f in fields))

        source = DataGeneratorSource(generate, count, rate)
        return ctx.env.from_source(source, WatermarkStrategy.no_watermarks(), "datagen")


def _field_generator(name: str, data_type: DataType, options: dict[str, str]) -> Callable[[int], Any]:
    """Field ``name``'s value for row ``index``: a sequence, or random (seeded by the index, so
    a restarted source produces the same rows)."""
    import random
    import string
    import zlib

    prefix = f"fields.{name}."
    root = data_type.root
    if options.get(prefix + "kind") == "sequence":
        start = int(options[prefix + "start"])
        return (lambda i: str(start + i)) if root in ("STRING", "VARCHAR", "CHAR") else (lambda i: start + i)
    salt = zlib.crc32(name.encode()) & 0xFFFF  # the same in every process (str hashes are not)
    if root in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
        bits = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}[root]
        low = int(options.get(prefix + "min", -(1 << (bits - 1))))
        high = int(options.get(prefix + "max", (1 << (bits - 1)) - 1))
        return lambda i: random.Random(i * 65537 + salt).randint(low, high)
    if root in ("DOUBLE", "FLOAT", "DECIMAL"):
        lo = float(options.get(prefix + "min", "0"))
        hi = float(options.get(prefix + "max", str(2**31)))
        return lambda i: random.Random(i * 65537 + salt).uniform(lo, hi)
    if root == "BOOLEAN":
        return lambda i: random.Random(i * 65537 + salt).random() < 0.5
    if root in ("STRING", "VARCHAR", "CHAR"):
        length = int(options.get(prefix + "length", "100"))
        alphabet = string.ascii_letters + string.digits
        return lambda i: "".join(random.Random(i * 65537 + salt).choices(alphabet, k=length))
    raise ValueError(f"datagen cannot generate {root} values for field '{name}' yet")
