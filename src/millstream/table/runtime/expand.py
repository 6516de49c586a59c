"""Flink's Expand operator (``StreamExecExpand`` / ``BatchExecExpand``): every input row once per
projection, for the grouping sets of one aggregation.

``GROUP BY ROLLUP(k, x)`` aggregates the groups of three grouping sets, ``(k, x)``, ``(k)`` and
``()``, in one aggregation: the Expand below it emits each row three times, the group keys a
set leaves out NULL, and an expand id ``$e`` saying which set the copy is for (a bit per key,
set when the key is left out: 0, 1 and 3 here). The aggregation groups by the keys and ``$e``,
so the group ``(k = 'a', x = NULL)`` of set ``(k)`` never meets the rows whose ``x`` is NULL
in the data (set ``(k, x)``, ``$e`` 0).

A projection is, for every output column, the input column it reads (``None``: NULL), except
the expand id's column, a constant per projection. A row's copies leave in the order of the
projections, one row after the other, the row's change kind kept (a retraction retracts every
copy), as Flink's generated Expand emits them.

Two forms: ``ExpandRows`` on ``(kind, row)`` changes, ``ExpandBatches`` on the Arrow batches of
a columnar scan (``change_batch.ChangeBatch``), the copies interleaved as on rows.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from millstream.table.runtime.change_batch import ChangeBatch

__all__ = ["ExpandBatches", "ExpandRows"]

Projection = Sequence[int | None]  # per output column but the expand id's: the input column read


class ExpandRows:
    """``fn(changes) -> (changes, kept)`` for the batch operator: each ``(kind, row)`` change
    once per projection. ``projections[j][c]``: the input column output column ``c`` of copy
    ``j`` reads (None: NULL); ``ids[j]``: copy ``j``'s expand id, at column ``id_column``."""

    def __init__(
        self, projections: Sequence[Projection], ids: Sequence[int], id_column: int, width: int
    ) -> None:
        self.projections, self.ids, self.id_column, self.width = (
            list(projections),
            list(ids),
            id_column,
            width,
        )
        self._copies = self._getters()

    def _getters(self) -> list[tuple[Any, tuple[Any, ...]]]:
        """Per copy: an itemgetter over the row extended with ``(None, id)``, and that extension
        (a C-level tuple build per copy, no Python call per column)."""
        null, expand_id = self.width, self.width + 1
        copies = []
        for projection, value in zip(self.projections, self.ids, strict=True):
            indexes = [null if source is None else source for source in projection]
            indexes.insert(self.id_column, expand_id)
            copies.append((operator.itemgetter(*indexes), (None, value)))
        return copies

    def __call__(self, values: list[Any]) -> tuple[list[Any], list[int]]:
        copies = self._copies
        out = [(kind, get(row + extra)) for kind, row in values for get, extra in copies]
        count = len(copies)
        kept = [index for index in range(len(values)) for _ in range(count)]
        return out, kept

    def __getstate__(self) -> dict[str, Any]:  # itemgetters are rebuilt where it runs
        return {
            "projections": self.projections,
            "ids": self.ids,
            "id_column": self.id_column,
            "width": self.width,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._copies = self._getters()


class ExpandBatches:
    """``fn(batches) -> (batches, kept)`` for the batch operator: each ``ChangeBatch`` of a
    columnar scan with its rows expanded as ``ExpandRows`` expands them, in the same order (a
    row's copies one after the other): one ``take`` per column from the column with one NULL
    after its last row, the expand ids a tiled array; the rows' timestamps repeated with them."""

    def __init__(self, projections: Sequence[Projection], ids: Sequence[int], id_column: int) -> None:
        self.projections, self.ids, self.id_column = list(projections), list(ids), id_column

    def __call__(self, values: list[ChangeBatch]) -> tuple[list[ChangeBatch], list[int]]:
        out, kept = [], []
        for index, element in enumerate(values):
            if len(element):
                out.append(self._expand(element))
                kept.append(index)
        return out, kept

    def _expand(self, element: ChangeBatch) -> ChangeBatch:
        batch, copies = element.batch, len(self.projections)
        size = batch.num_rows
        rows = np.arange(size, dtype=np.int64)[:, None]  # row i's copies side by side, then row i + 1's
        columns: list[Any] = []
        for column in range(len(self.projections[0])):
            sources = [projection[column] for projection in self.projections]
            read = next(s for s in sources if s is not None) if any(s is not None for s in sources) else None
            if read is None:  # NULL in every copy: a column of no input's (never built so; kept general)
                raise ValueError(f"Expand: output column {column} reads no input column")
            array = batch.column(read)
            keep = np.array([s is not None for s in sources])
            if keep.all():
                indexes = np.repeat(rows[:, 0], copies)
            else:  # index ``size`` is the NULL appended after the last row
                array = pa.concat_arrays([array, pa.nulls(1, array.type)])
                indexes = np.where(keep[None, :], rows, size).ravel()
            columns.append(array.take(pa.array(indexes)))
        ids = np.tile(np.array(self.ids, dtype=np.int64), size)
        columns.insert(self.id_column, pa.array(ids, pa.int64()))
        names = [f"f{i}" for i in range(len(columns))]
        stamps = None if element.stamps is None else np.repeat(element.stamps, copies)
        return ChangeBatch(pa.RecordBatch.from_arrays(columns, names=names), stamps)
