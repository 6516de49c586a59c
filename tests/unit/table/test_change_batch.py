"""ChangeBatch: many inserted rows in one stream element."""

from __future__ import annotations

import pickle

import numpy as np
import pyarrow as pa

from millstream.runtime.operators.base import record_count
from millstream.table.runtime.change_batch import BatchRows, ChangeBatch, to_changes
from millstream.table.types import DataTypes


def _batch() -> ChangeBatch:
    batch = pa.RecordBatch.from_arrays(
        [pa.array([1, 2, None]), pa.array([{"a": 1}, None, {"a": 3}], type=pa.struct([("a", pa.int32())]))],
        names=["f0", "f1"],
    )
    return ChangeBatch(batch, np.array([10, 20, 30], dtype=np.int64))


def test_rows_come_back_as_the_row_path_holds_them_each_with_its_timestamp() -> None:
    types = [DataTypes.BIGINT(), DataTypes.ROW([DataTypes.FIELD("a", DataTypes.INT())])]
    rows = _batch()
    changes = to_changes(rows, types)
    assert [c[0] for c in changes] == ["+I"] * 3
    assert changes[0][1][0] == 1 and changes[0][1][1].a == 1 and changes[1][1] == (2, None)
    out, kept, stamps = BatchRows(types)([rows, rows.slice(1)])
    assert len(out) == 5 and kept is None and stamps == [10, 20, 30, 20, 30]


def test_the_runtime_counts_the_rows_of_a_batch_as_records() -> None:
    """numRecordsIn of a columnar scan counts rows, as Flink's, not elements."""
    rows = _batch()
    assert record_count([rows, rows.slice(2)]) == 4
    assert record_count([("+I", (1,)), ("+I", (2,))]) == 2 and record_count([]) == 0


def test_a_batch_crosses_a_network_exchange_whole() -> None:
    rows = pickle.loads(pickle.dumps(_batch()))
    assert len(rows) == 3 and rows.batch.column(0).to_pylist() == [1, 2, None]
    assert rows.stamps.tolist() == [10, 20, 30]
