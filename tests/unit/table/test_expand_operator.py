"""The Expand operator (``runtime/expand.py``) on Arrow batches gives the rows it gives on rows,
in the same order, for columns of every type a columnar scan produces (nested ROWs, arrays,
maps, DECIMALs, timestamps, bytes, strings with NULLs), each row's timestamp repeated with its
copies; and it survives pickling (shipped to the task managers)."""

from __future__ import annotations

import datetime
import decimal
import pickle

import numpy as np
import pyarrow as pa

from millstream.table.common.types import DataTypes
from millstream.table.runtime.change_batch import ChangeBatch, to_changes
from millstream.table.runtime.expand import ExpandBatches, ExpandRows

_TYPES = [
    DataTypes.STRING(),
    DataTypes.INT(),
    DataTypes.DECIMAL(10, 2),
    DataTypes.TIMESTAMP(3),
    DataTypes.BYTES(),
    DataTypes.ARRAY(DataTypes.INT()),
    DataTypes.ROW([DataTypes.FIELD("a", DataTypes.STRING()), DataTypes.FIELD("b", DataTypes.BIGINT())]),
    DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()),
]


def _batch() -> pa.RecordBatch:
    size = 7
    moment = datetime.datetime(2024, 1, 1, 12, 0)
    columns = [
        pa.array([None if i % 3 == 0 else f"k{i % 2}" for i in range(size)]),
        pa.array([None if i == 4 else i for i in range(size)], pa.int32()),
        pa.array([decimal.Decimal(f"{i}.25") for i in range(size)], pa.decimal128(10, 2)),
        pa.array([moment + datetime.timedelta(seconds=i) for i in range(size)], pa.timestamp("ms")),
        pa.array([bytes([i]) for i in range(size)], pa.binary()),
        pa.array([[i, None] if i % 2 else None for i in range(size)], pa.list_(pa.int32())),
        pa.array(
            [{"a": f"r{i}", "b": i} if i != 2 else None for i in range(size)],
            pa.struct([("a", pa.string()), ("b", pa.int64())]),
        ),
        pa.array([[("m", i)] for i in range(size)], pa.map_(pa.string(), pa.int32())),
    ]
    return pa.RecordBatch.from_arrays(columns, names=[f"f{i}" for i in range(len(columns))])


# ROLLUP(f0, f1) over every column, f1 copied for an aggregate reading it: each copy keeps the
# other columns whole; the expand id in column 8, the copy of f1 after it
_PROJECTIONS = [
    (0, 1, 2, 3, 4, 5, 6, 7, 1),
    (0, None, 2, 3, 4, 5, 6, 7, 1),
    (None, None, 2, 3, 4, 5, 6, 7, 1),
]
_IDS = [0, 1, 3]


def test_the_arrow_expand_gives_the_row_expands_rows_in_order() -> None:
    batch = _batch()
    stamps = np.arange(100, 107, dtype=np.int64)
    expanded_types = [*_TYPES, DataTypes.BIGINT(False), DataTypes.INT()]
    [out], kept = ExpandBatches(_PROJECTIONS, _IDS, 8)([ChangeBatch(batch, stamps)])
    rows, row_kept = ExpandRows(_PROJECTIONS, _IDS, 8, len(_TYPES))(to_changes(ChangeBatch(batch), _TYPES))
    assert kept == [0]
    assert to_changes(out, expanded_types) == rows
    assert row_kept == [i for i in range(7) for _ in range(3)]
    assert out.stamps.tolist() == [s for s in range(100, 107) for _ in range(3)]
    assert [row[8] for _, row in rows[:3]] == [0, 1, 3]
    assert rows[4][1][:2] == ("k1", None) and rows[5][1][:2] == (None, None) and rows[4][1][9] == 1  # row 1


def test_the_expand_keeps_each_changes_kind_and_pickles() -> None:
    expand = pickle.loads(pickle.dumps(ExpandRows([(0, None), (None, 1)], [1, 2], 2, 2)))
    out, kept = expand([("-U", ("a", 1)), ("+U", ("b", 2))])
    assert out == [
        ("-U", ("a", None, 1)),
        ("-U", (None, 1, 2)),
        ("+U", ("b", None, 1)),
        ("+U", (None, 2, 2)),
    ]
    assert kept == [0, 0, 1, 1]
    empty = pa.RecordBatch.from_arrays(
        [pa.array([], pa.string()), pa.array([], pa.int32())], names=["f0", "f1"]
    )
    assert ExpandBatches([(0, None), (None, 1)], [1, 2], 2)([ChangeBatch(empty)]) == ([], [])
