"""Projections and filters on Arrow batches that already left a columnar scan.

When a node of a columnar chain feeds several consumers (a view read twice, as in Nexmark q7
and q8), the file is scanned once up to that node (``plan_reuse.py``: one ``ColumnarScan``
for every consumer) and each consumer runs its own Calc nodes above it on the scan's
``ChangeBatch`` elements here: the same Arrow steps the scan runs (``columnar_scan._Step``),
each batch's rowtimes filtered with its rows. A batch that no row passes is dropped.
"""

from __future__ import annotations

from typing import Any

from millstream.table.change_batch import ChangeBatch

__all__ = ["BatchCalc"]


class BatchCalc:
    """``fn(batches) -> (batches, kept)`` for the batch operator: each ``ChangeBatch`` through
    ``steps`` (project and filter steps; the first reads the batch's columns in order)."""

    def __init__(self, steps: list[Any]) -> None:
        self.steps = steps

    def __call__(self, values: list[Any]) -> tuple[list[Any], list[int]]:
        out: list[Any] = []
        kept: list[int] = []
        for index, element in enumerate(values):
            computed = self._apply(element)
            if len(computed):
                out.append(computed)
                kept.append(index)
        return out, kept

    def _apply(self, element: ChangeBatch) -> ChangeBatch:
        import pyarrow as pa
        import pyarrow.compute as pc

        from millstream.table.columnar_scan import _as_array
        from millstream.table.vectorized import _evaluate

        columns: list[Any] = list(element.batch.columns)
        stamps = element.stamps
        size = element.batch.num_rows
        for step in self.steps:

            def column(index: int, columns: list[Any] = columns) -> Any:
                return columns[index]

            def evaluate(expression: Any, step: Any = step, column: Any = column, size: int = size) -> Any:
                return _as_array(_evaluate(expression, step.names, column, size, step.types), size)

            if step.kind == "project":
                columns = [evaluate(x) for x in step.expressions]
            else:
                mask = pc.fill_null(evaluate(step.expressions[0]), False)
                columns = [pc.filter(c, mask) for c in columns]
                if stamps is not None:
                    stamps = stamps[mask.to_numpy(zero_copy_only=False)]
                size = int(pc.sum(mask).as_py() or 0)
        names = [f"f{i}" for i in range(len(columns))]
        if not columns:
            batch = pa.RecordBatch.from_arrays([pa.nulls(size)], names=["_"]).select([])
        else:
            batch = pa.RecordBatch.from_arrays(columns, names=names)
        return ChangeBatch(batch, stamps)
