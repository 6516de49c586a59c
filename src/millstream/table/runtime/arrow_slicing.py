"""The global phase of a two-phase window aggregation on Arrow: every key's windows fired at
once when the watermark passes their end.

The row path's global phase (``SlicingAggregate(partial=True)``, a KeyedProcessFunction)
keeps a map of slices per key and one timer per key and window, so a watermark that closes a
HOP window of 60,000 auctions makes 60,000 timer calls, each merging the key's slices. This
function (Flink's ``SlicingWindowOperator`` over the local phase's partials), run by a
``ColumnarKeyedOperator`` (``runtime/operators/columnar.py``), keeps the same slices for
every key in one Arrow table and fires windows per watermark instead of per key:

* partials ``(key, slice end, rows, accumulators)`` of the local phase (on Arrow,
  ``runtime/arrow_window.py``, or on rows) are held as they come; a partial whose last window has
  already fired is late and dropped, as in the row path;
* when the watermark passes the end of windows holding rows, the held partials are merged
  into the slice table (Arrow's hash aggregation per key and slice), each due window's
  slices are aggregated per key and its rows emitted in window order, the keys in the order
  their first partial came (the order the row path's timers fire in), each with the window
  end - 1 as its timestamp; slices no later window needs are dropped;
* COUNT counts, SUM adds sums and counts, MIN / MAX pick (``exact_aggregate``: the
  functions whose accumulators Arrow merges as the row path does).

At a snapshot the slices are written into the keyed backend as the row path keeps them (a
``slices`` map per key) with an event-time timer per key and pending window, so a snapshot
of either path restores into the other. The embedded runtime runs this in STREAMING mode;
BATCH (keys sorted, state dropped per key) and the Spark runner run the row function it
stands in for (``KeyedProcessSpec.columnar``).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from millstream.datastream.state import MapStateDescriptor
from millstream.table.common.row_kind import INSERT
from millstream.table.common.timestamps import from_epoch_millis
from millstream.table.common.types import DataType
from millstream.table.common.window_spec import WindowSpec
from millstream.table.functions.aggregate_calls import accumulator_for
from millstream.table.runtime.vectorized import int64_arrow

__all__ = ["ArrowSlicingAggregate"]

_SLICES = "slices"  # the row path's state name (SlicingAggregate)


class ArrowSlicingAggregate:
    """The columnar function (``runtime/operators/columnar.py``) of the global phase; see the
    module docstring. Pickled with the job; its state is made in ``open``."""

    def __init__(self, spec: WindowSpec, root: str, functions: list[str], types: list[DataType]) -> None:
        self.spec, self.root, self.functions = spec, root, functions
        self.types = types

    def open(self, runtime_context: Any) -> None:
        self.accumulators = [
            accumulator_for(f, t, False) for f, t in zip(self.functions, self.types, strict=True)
        ]
        self._value_types = [
            t.to_arrow() if f in ("MIN", "MAX") else None
            for f, t in zip(self.functions, self.types, strict=True)
        ]
        self._key_ids: dict[Any, int] = {}  # key -> its id in the slice table
        self._keys: list[Any] = []  # id -> key
        self._pending: list[tuple[int, int, int, Any]] = []  # (key id, slice end, rows, accumulators)
        self._table: Any = None  # the merged slices: one row per key and slice
        self._ends: set[int] = set()  # ends of the windows holding rows that have not fired
        self._windows: dict[int, list[int]] = {}  # slice end -> its window ends
        self._bounds: dict[int, tuple[Any, ...]] = {}  # window end -> its window columns
        self._seq = 0  # arrival order of partials

    # -- input ----------------------------------------------------------------------------------

    def _window_ends(self, slice_end: int) -> list[int]:
        ends = self._windows.get(slice_end)
        if ends is None:
            if len(self._windows) > 4096:
                self._windows.clear()
            ends = self._windows[slice_end] = self.spec.window_ends(slice_end)
        return ends

    def process_batch(self, values: list[Any], watermark: int) -> None:
        """Hold each partial that is not late; note the windows it makes due."""
        windows, ids, keys, pending = self._windows, self._key_ids, self._keys, self._pending
        fresh: set[int] = set()
        for change in values:
            key, slice_end, rows, accumulators = change[1]
            ends = windows.get(slice_end) or self._window_ends(slice_end)
            if not ends or ends[-1] - 1 <= watermark:
                continue  # in no window (hops wider than windows), or late: its windows have fired
            kid = ids.get(key)
            if kid is None:
                kid = ids[key] = len(keys)
                keys.append(key)
            pending.append((kid, slice_end, rows, accumulators))
            fresh.add(slice_end)
        due = self._ends
        for slice_end in fresh:
            due.update(end for end in self._window_ends(slice_end) if end - 1 > watermark)

    def on_watermark(self, watermark: int) -> list[tuple[list[Any], list[int]]]:
        """The rows of every window the watermark closes, in window order."""
        due = sorted(end for end in self._ends if end - 1 <= watermark)
        if not due:
            return []
        self._merge()
        out = [self._fire(end) for end in due]
        self._ends.difference_update(due)
        self._expire(due[-1])
        return out

    # -- the slice table ------------------------------------------------------------------------

    def _merge(self) -> None:
        """The pending partials merged into the slice table (one row per key and slice)."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        kids, slice_ends, rows, accumulators = zip(*pending, strict=True)
        columns: dict[str, Any] = {
            "key": int64_arrow(kids),
            "slice": int64_arrow(slice_ends),
            "rows": int64_arrow(rows),
            "seq": int64_arrow(range(self._seq, self._seq + len(pending))),
        }
        self._seq += len(pending)
        columns.update(
            accumulator_columns(self.functions, self._value_types, list(zip(*accumulators, strict=True)))
        )
        table = pa.table(columns)
        if self._table is not None:
            table = pa.concat_tables([self._table, table])
        self._table = _grouped(
            table, ["key", "slice"], [("rows", "sum"), ("seq", "min"), *accumulator_merges(self.functions)]
        )

    def _fire(self, end: int) -> tuple[list[Any], list[int]]:
        """Window ``end``'s row of every key holding rows in it, and their timestamps."""
        spec = self.spec
        start = spec.window_start(end)
        window = self._window(start, end)
        if window is None:
            return [], []
        if spec.window_start(end) + spec.slice_size != end:  # several slices: merged per key
            window = _grouped(
                window, ["key"], [("rows", "sum"), ("seq", "min"), *accumulator_merges(self.functions)]
            )
        window = window.sort_by("seq")
        keys = self._keys
        results = []
        for i, function in enumerate(self.functions):
            values = window.column(f"a{i}").to_pylist()
            if function == "SUM":
                counts = window.column(f"c{i}").to_pylist()
                result = self.accumulators[i].result
                values = [result((v, c)) for v, c in zip(values, counts, strict=True)]
            results.append(values)
        bounds = self._window_columns(start, end)
        out = [
            (INSERT, (*keys[kid], *aggregates, *bounds))
            for kid, aggregates in zip(
                window.column("key").to_pylist(),
                zip(*results, strict=True) if results else _empty(window),
                strict=True,
            )
        ]
        return out, [end - 1] * len(out)

    def _window(self, start: int, end: int) -> Any:
        """The slice table's rows in the window ``(start, end]``, or None."""
        table = self._table
        if table is None:
            return None
        slices = table.column("slice")
        window = table.filter(pc.and_(pc.greater(slices, start), pc.less_equal(slices, end)))
        return window if window.num_rows else None

    def _window_columns(self, start: int, end: int) -> tuple[Any, ...]:
        bounds = self._bounds.get(end)
        if bounds is None:
            if len(self._bounds) > 1024:
                self._bounds.clear()
            root = self.root
            bounds = self._bounds[end] = (
                from_epoch_millis(start, root),
                from_epoch_millis(end, root),
                from_epoch_millis(end - 1, root),
            )
        return bounds

    def _expire(self, fired: int) -> None:
        """Drop the slices whose windows all ended by ``fired``; forget keys no slice holds."""
        table = self._table
        if table is None:
            return
        done = [s for s in pc.unique(table.column("slice")).to_pylist() if self._window_ends(s)[-1] <= fired]
        if done:
            table = table.filter(
                pc.invert(pc.is_in(table.column("slice"), value_set=pa.array(done, pa.int64())))
            )
        self._table = table if table.num_rows else None
        live = 0 if self._table is None else len(pc.unique(table.column("key")))
        if len(self._keys) > 2 * live + 1024:  # renumber the keys still held
            self._renumber()

    def _renumber(self) -> None:
        table = self._table
        if table is None:
            self._keys, self._key_ids = [], {}
            return
        live = pc.unique(table.column("key"))
        self._keys = [self._keys[k] for k in live.to_pylist()]
        self._key_ids = {key: i for i, key in enumerate(self._keys)}
        index = pc.index_in(table.column("key"), value_set=live).cast(pa.int64())
        self._table = table.set_column(table.schema.get_field_index("key"), "key", index)

    # -- snapshots: the row path's state and timers -----------------------------------------------

    def write_state(self, backend: Any) -> list[tuple[int, Any]]:
        """The slices as the row path keeps them (a map per key, in ``backend``), and a timer
        per key and window still to fire."""
        self._merge()
        table = self._table
        if table is None:
            return []
        table = table.sort_by("seq")
        held: dict[int, dict[int, list[Any]]] = {}
        rows = zip(
            table.column("key").to_pylist(),
            table.column("slice").to_pylist(),
            table.column("rows").to_pylist(),
            accumulator_rows(self.functions, table),
            strict=True,
        )
        for kid, slice_end, count, accumulators in rows:
            held.setdefault(kid, {})[slice_end] = [count, list(accumulators)]
        state = backend.get_state(MapStateDescriptor(_SLICES, None, None))
        for kid, slices in held.items():
            backend.set_current_key(self._keys[kid])
            state.put_all(slices)
        timers: list[tuple[int, Any]] = []
        for end in sorted(self._ends):
            window = self._window(self.spec.window_start(end), end)
            if window is not None:
                kids = dict.fromkeys(window.column("key").to_pylist())  # in arrival order
                timers.extend((end - 1, self._keys[kid]) for kid in kids)
        return timers

    def read_state(self, backend: Any, timers: list[tuple[int, Any]]) -> None:
        """The slices of a snapshot of either path, and its windows still to fire."""
        state = backend.get_state(MapStateDescriptor(_SLICES, None, None))
        for key in backend.keys(_SLICES):
            backend.set_current_key(key)
            kid = self._key_ids.get(key)
            if kid is None:
                kid = self._key_ids[key] = len(self._keys)
                self._keys.append(key)
            for slice_end, (count, accumulators) in state.items():
                self._pending.append((kid, slice_end, count, list(accumulators)))
        self._ends.update(timestamp + 1 for timestamp, _ in timers)


def accumulator_columns(
    functions: list[str], value_types: list[Any], per_function: list[Any]
) -> dict[str, Any]:
    """The Arrow columns of the row path's accumulators (``per_function[i]``: those of
    ``functions[i]``): ``a{i}`` the count, the sum or the value, ``c{i}`` a sum's count."""
    columns: dict[str, Any] = {}
    for i, function in enumerate(functions):
        values = per_function[i]
        if function == "SUM":
            columns[f"a{i}"] = int64_arrow([v[0] for v in values])
            columns[f"c{i}"] = int64_arrow([v[1] for v in values])
        elif function == "COUNT":
            columns[f"a{i}"] = int64_arrow(values)
        else:
            columns[f"a{i}"] = pa.array(values, value_types[i])
    return columns


def accumulator_merges(functions: list[str]) -> list[tuple[str, str]]:
    """(column, Arrow aggregation merging it) of every accumulator column of ``functions``."""
    merges = []
    for i, function in enumerate(functions):
        if function == "SUM":
            merges += [(f"a{i}", "sum"), (f"c{i}", "sum")]
        elif function == "COUNT":
            merges.append((f"a{i}", "sum"))
        else:
            merges.append((f"a{i}", function.lower()))
    return merges


def accumulator_rows(functions: list[str], table: Any) -> list[tuple[Any, ...]]:
    """Each row's accumulators of ``table`` as the row path keeps them (a SUM's (sum, count))."""
    columns = []
    for i, function in enumerate(functions):
        values = table.column(f"a{i}").to_pylist()
        if function == "SUM":
            values = list(zip(values, table.column(f"c{i}").to_pylist(), strict=True))
        columns.append(values)
    return list(zip(*columns, strict=True)) if columns else [()] * table.num_rows


def _grouped(table: Any, keys: list[str], aggregations: list[tuple[str, str]]) -> Any:
    """``table`` grouped by ``keys``, each aggregated column keeping its name."""
    grouped = table.group_by(keys, use_threads=False).aggregate(aggregations)
    names = {f"{column}_{aggregation}": column for column, aggregation in aggregations}
    return grouped.rename_columns([names.get(name, name) for name in grouped.column_names])


def _empty(table: Any) -> list[tuple[()]]:
    return [()] * table.num_rows
