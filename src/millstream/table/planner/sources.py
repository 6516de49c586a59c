"""Plan nodes that bring rows in: a DataStream's elements (``from_data_stream``). (A connector
table's rows come through ``nodes.SourceScan`` over its ``TableSource``.)"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from millstream.common.types import Row
from millstream.datastream.functions import ProcessFunction
from millstream.table.common.row_kind import INSERT
from millstream.table.common.timestamps import from_epoch_millis
from millstream.table.functions.aggregates import to_float32
from millstream.table.planner.nodes import PlanNode

if TYPE_CHECKING:
    from millstream.table.planner.planning import PlanningContext

__all__ = ["FromDataStream"]


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
