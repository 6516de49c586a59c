"""A sink's NOT NULL columns enforced on the rows written into it (Flink's
``SinkNotNullEnforcer`` of ``flink-table-runtime``'s ``operators/sink/constraint``), as
``table.exec.sink.not-null-enforcer`` says: ERROR fails the job naming the column, DROP drops
the row silently. The rows come as ``(kind, values)`` changes or as Arrow ``ChangeBatch``es."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow.compute as pc

from millstream.table.common.options import SINK_NOT_NULL_ENFORCER
from millstream.table.runtime.change_batch import ChangeBatch

__all__ = ["EnforcerError", "NotNullBatchEnforcer", "NotNullEnforcer"]


class EnforcerError(RuntimeError):
    """A NULL written into a sink's NOT NULL column (Flink's ``EnforcerException``)."""

    def __init__(self, column: str) -> None:
        super().__init__(
            f"Column '{column}' is NOT NULL, however, a null value is being written into it. "
            f"You can set job configuration '{SINK_NOT_NULL_ENFORCER.key}'='DROP' to suppress "
            "this exception and drop such records silently."
        )

    def describe_failure(self, subtask: str) -> str:
        """The line of the failed job: Flink's message, then the sink's subtask."""
        return f"{self} (the sink's subtask {subtask})"


class NotNullEnforcer:
    """A filter of changes: keeps a row whose NOT NULL ``columns`` (indexes) hold values;
    a row with a NULL there is dropped (``drop``) or fails the job."""

    def __init__(self, names: Sequence[str], columns: Sequence[int], drop: bool) -> None:
        self.names, self.columns, self.drop = list(names), list(columns), drop

    def __call__(self, change: tuple[str, tuple[Any, ...]]) -> bool:
        values = change[1]
        for i in self.columns:
            if values[i] is None:
                if self.drop:
                    return False
                raise EnforcerError(self.names[i])
        return True


class NotNullBatchEnforcer:
    """The same over Arrow ``ChangeBatch``es: a batch without NULLs there is kept as it is."""

    def __init__(self, names: Sequence[str], columns: Sequence[int], drop: bool) -> None:
        self.names, self.columns, self.drop = list(names), list(columns), drop

    def __call__(self, element: Any) -> Any:
        if not isinstance(element, ChangeBatch):
            return element
        batch = element.batch
        valid = None
        for i in self.columns:
            column = batch.column(i)
            if not column.null_count:
                continue
            if not self.drop:
                raise EnforcerError(self.names[i])
            valid = column.is_valid() if valid is None else pc.and_(valid, column.is_valid())
        if valid is None:
            return element
        stamps = element.stamps
        if stamps is not None:
            stamps = stamps[valid.to_numpy(zero_copy_only=False)]
        return ChangeBatch(batch.filter(valid), stamps)
