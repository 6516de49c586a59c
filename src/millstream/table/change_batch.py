"""Many inserted rows in one stream element: an Arrow record batch.

A columnar scan (``columnar_scan.py``) computes its rows on Arrow batches. When the operator
after it takes batches (a sink that writes Arrow, or discards), the scan hands each slice
between two watermarks on as one ``ChangeBatch`` instead of one ``(INSERT, row)`` tuple per
row, so no row ever becomes Python objects. Every row of a ``ChangeBatch`` is an INSERT; its
columns are the plan node's, in order (named ``f0``, ``f1`` ... since output names may repeat).

The planner only connects a ``ChangeBatch`` producer to a consumer that declares it takes
them (``TableSink.consume_batches``); any other operator gets rows.
"""

from __future__ import annotations

from typing import Any

from millstream.table.planner import INSERT
from millstream.table.types import DataType

__all__ = ["ChangeBatch", "to_changes"]


class ChangeBatch:
    """``batch``: a ``pyarrow.RecordBatch`` of inserted rows."""

    __slots__ = ("batch",)

    def __init__(self, batch: Any) -> None:
        self.batch = batch

    def __len__(self) -> int:
        return int(self.batch.num_rows)

    def __reduce__(self) -> tuple[Any, ...]:  # pickled across a network exchange (Arrow's IPC)
        return ChangeBatch, (self.batch,)

    def __repr__(self) -> str:
        return f"ChangeBatch({self.batch.num_rows} rows)"


def to_changes(rows: ChangeBatch, types: list[DataType]) -> list[tuple[str, tuple[Any, ...]]]:
    """The ``(INSERT, row)`` changes of ``rows``, each value as the row path holds it."""
    from millstream.table.vectorized import arrow_output

    columns = []
    for column, data_type in zip(rows.batch.columns, types, strict=True):
        values = column.to_pylist()
        convert = arrow_output(data_type)
        columns.append(values if convert is None else convert(values))
    if not columns:
        return [(INSERT, ())] * len(rows)
    return [(INSERT, row) for row in zip(*columns, strict=True)]
