"""An upsert changelog made a full one (Flink's ChangelogNormalize operator): per key, the last
row kept, so an upsert becomes -U/+U and a repeated row changes nothing."""

from __future__ import annotations

from typing import Any

from millstream.datastream import KeyedProcessFunction
from millstream.datastream.state import ValueStateDescriptor
from millstream.table.common.options import with_ttl
from millstream.table.common.row_kind import DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE

__all__ = ["NormalizeFunction"]


class NormalizeFunction(KeyedProcessFunction):
    """The last row of each key kept; an upsert as -U/+U of it, a repeated row dropped."""

    ttl_ms = 0

    def open(self, runtime_context: Any) -> None:
        self.last = runtime_context.get_state(with_ttl(ValueStateDescriptor("last"), self.ttl_ms))

    def process_element(self, value: Any, ctx: Any) -> Any:
        kind, row = value
        previous = self.last.value()
        if kind == DELETE:
            if previous is None:
                return None
            self.last.clear()
            return [(DELETE, previous)]
        if kind == UPDATE_BEFORE:  # an upsert stream's -U carries nothing the +U does not
            return None
        if previous == row:
            return None
        self.last.update(row)
        if previous is None:
            return [(INSERT, row)]
        return [(UPDATE_BEFORE, previous), (UPDATE_AFTER, row)]
