"""Many inserted rows in one stream element: an Arrow record batch.

A columnar scan (``planner/columnar.py``) computes its rows on Arrow batches and hands each
slice between two watermarks on as one ``ChangeBatch``. Every row of a ``ChangeBatch`` is an
INSERT; its columns are the plan node's, in order (named ``f0``, ``f1`` ... since output names
may repeat); ``stamps``, when the table has an event time, is each row's timestamp.

Operators that take batches read them as they are: a sink that writes Arrow or discards
(``TableSink.consume_batches``), the Arrow local phase of a window aggregation
(``runtime/arrow_window.py``). Every other operator gets rows: ``BatchRows`` turns a batch into
``(INSERT, row)`` changes, each with its own timestamp.
"""

from __future__ import annotations

from typing import Any

from millstream.table.common.row_kind import INSERT
from millstream.table.common.types import DataType
from millstream.table.runtime.vectorized import python_values

__all__ = ["BatchRows", "ChangeBatch", "to_changes"]


class ChangeBatch:
    """``batch``: a ``pyarrow.RecordBatch`` of inserted rows; ``stamps``: their timestamps (a
    numpy int64 array) or None."""

    __slots__ = ("batch", "stamps")

    def __init__(self, batch: Any, stamps: Any = None) -> None:
        self.batch = batch
        self.stamps = stamps

    def __len__(self) -> int:
        return int(self.batch.num_rows)

    @property
    def record_count(self) -> int:
        """The rows this element stands for (the runtime counts them in numRecordsIn)."""
        return int(self.batch.num_rows)

    def slice(self, offset: int, length: int | None = None) -> ChangeBatch:
        """Rows ``offset`` to ``offset + length`` (to the end without ``length``)."""
        end = len(self) if length is None else offset + length
        stamps = None if self.stamps is None else self.stamps[offset:end]
        return ChangeBatch(self.batch.slice(offset, end - offset), stamps)

    def __reduce__(self) -> tuple[Any, ...]:  # pickled across a network exchange (Arrow's IPC)
        return ChangeBatch, (self.batch, self.stamps)

    def __repr__(self) -> str:
        return f"ChangeBatch({self.batch.num_rows} rows)"


def to_changes(rows: ChangeBatch, types: list[DataType]) -> list[tuple[str, tuple[Any, ...]]]:
    """The ``(INSERT, row)`` changes of ``rows``, each value as the row path holds it."""
    columns = [python_values(c, t) for c, t in zip(rows.batch.columns, types, strict=True)]
    if not columns:
        return [(INSERT, ())] * len(rows)
    return [(INSERT, row) for row in zip(*columns, strict=True)]


def to_sided_changes(rows: ChangeBatch, types: list[DataType], side: int) -> list[tuple[Any, ...]]:
    """The ``(side, INSERT, row)`` changes of ``rows``: a regular join's input, its side given."""
    columns = [python_values(c, t) for c, t in zip(rows.batch.columns, types, strict=True)]
    if not columns:
        return [(side, INSERT, ())] * len(rows)
    return [(side, INSERT, row) for row in zip(*columns, strict=True)]


class BatchRows:
    """``fn(batches) -> (changes, None, timestamps)`` for the batch operator: each batch's rows
    as ``(INSERT, row)`` changes, each with its row's own timestamp. With ``side`` (a join's
    input) as ``(side, INSERT, row)``, the form a regular join takes its inputs in."""

    def __init__(self, types: list[DataType], side: int | None = None) -> None:
        self.types = types
        self.side = side

    def __call__(self, values: list[Any]) -> tuple[list[Any], None, list[int] | None]:
        changes: list[Any] = []
        stamps: list[int] | None = []
        side = self.side
        for element in values:
            if side is None:
                changes.extend(to_changes(element, self.types))
            else:
                changes.extend(to_sided_changes(element, self.types, side))
            if stamps is not None and element.stamps is not None:
                stamps.extend(element.stamps.tolist())
            else:
                stamps = None
        return changes, None, stamps
