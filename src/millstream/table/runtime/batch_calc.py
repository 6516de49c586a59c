"""Projections and filters on Arrow batches that already left a columnar scan.

When a node of a columnar chain feeds several consumers (a view read twice, as in Nexmark q7
and q8), the file is scanned once up to that node (``planner/reuse.py``: one ``ColumnarScan``
for every consumer) and each consumer runs its own Calc nodes above it on the scan's
``ChangeBatch`` elements here: the same Arrow steps the scan runs (``columnar_scan._Step``),
each batch's rowtimes filtered with its rows. A batch that no row passes is dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from millstream.table.common.types import DataType
from millstream.table.runtime.change_batch import ChangeBatch
from millstream.table.runtime.columnar_fields import needed_columns
from millstream.table.runtime.vectorized import (
    _evaluate,
    as_array,
    int64_numpy,
    true_only,
)

__all__ = ["BatchCalc"]


class BatchCalc:
    """``fn(batches) -> (batches, kept)`` for the batch operator: each ``ChangeBatch`` through
    ``steps`` (project and filter steps; the first reads the batch's columns in order), only
    what ``top`` (the output columns read, ``columnar_fields.needed_columns``) needs computed; an
    output nothing reads is NULLs of its type ``types``."""

    def __init__(self, steps: list[Any], types: list[Any], top: Any) -> None:
        needed_columns(steps, top)  # marks the outputs of each projection a later step or ``top`` reads
        self.steps, self.types = steps, types

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
        columns: list[Any] = list(element.batch.columns)
        stamps = element.stamps
        size = element.batch.num_rows
        for step in self.steps:
            evaluate = evaluator(step, columns, size)
            if step.kind == "project":
                columns = projected(step, evaluate)
            else:
                mask = true_only(evaluate(step.expressions[0]))
                columns = [None if c is None else pc.filter(c, mask) for c in columns]
                if stamps is not None:
                    stamps = stamps[int64_numpy(pc.indices_nonzero(mask))]
                size = int(pc.sum(mask).as_py() or 0)
        columns = [  # an output nothing reads
            pa.nulls(size, t.to_arrow()) if c is None else c for c, t in zip(columns, self.types, strict=True)
        ]
        names = [f"f{i}" for i in range(len(columns))]
        batch = pa.RecordBatch.from_arrays(columns, names=names) if columns else empty_batch(size)
        return ChangeBatch(batch, stamps)


@dataclass
class Step:
    """One operation of the fused chain over rows with columns ``names`` / ``types``."""

    kind: str  # "project", "filter" or "watermark"
    names: list[str]
    types: list[DataType]
    expressions: list[Any]  # project: one per output column; filter: [condition]; watermark: [expr]
    rowtime: int | None = None  # watermark: the rowtime column
    names_out: list[str] = field(default_factory=list)  # the columns after this step
    live: list[bool] = field(default_factory=list)  # project: which outputs a later step reads


def evaluator(step: Step, columns: list[Any], size: int) -> Callable[[Any], Any]:
    """``evaluate(expression)``: an expression of ``step`` over its input ``columns`` (Arrow
    arrays of ``size`` rows), as an Arrow array of ``size`` rows."""

    def evaluate(expression: Any) -> Any:
        return as_array(_evaluate(expression, step.names, columns.__getitem__, size, step.types), size)

    return evaluate


def projected(step: Step, evaluate: Callable[[Any], Any]) -> list[Any]:
    """The columns after a projection step: those a later step reads computed, None others."""
    return [evaluate(x) if live else None for x, live in zip(step.expressions, step.live, strict=True)]


def empty_batch(size: int) -> Any:
    """A batch of ``size`` rows without columns (``SELECT 1`` above a scan reads none)."""
    return pa.RecordBatch.from_arrays([pa.nulls(size)], names=["_"]).select([])
