"""A GROUP BY over the window the rows carry (``window_start``, ``window_end`` among its keys,
as Nexmark q5's MAX per window) on Arrow: every group of a window emitted at once when the
watermark passes the window's end.

The row path (``AttachedWindowAggregate``, a KeyedProcessFunction) keeps one accumulator per
group in keyed state and one timer per group, and adds each row with a Python call per
aggregate. This function, run by a ``ColumnarKeyedOperator`` (``runtime/operators/
columnar.py``), holds the rows of a batch as they come (a row whose window has fired is late
and dropped, as in the row path), folds them into one accumulator row per group with Arrow's
hash aggregation when a watermark comes, and emits the groups whose window the watermark
closed: in window order, each window's groups in the order of their first row (the order the
row path's timers fire in), each row with its window end - 1 as timestamp. COUNT, SUM of
integers, MIN / MAX of ordered values (``arrow_window.exact_aggregate``).

At a snapshot the accumulators are written as the row path keeps them (a ``window-group``
value per group) with a timer per group, so a snapshot of either path restores into the
other; BATCH mode and the Spark runner run the row function.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from millstream.datastream.state import ValueStateDescriptor
from millstream.table.common.row_kind import INSERT
from millstream.table.common.timestamps import to_epoch_millis
from millstream.table.common.types import DataType
from millstream.table.functions.aggregate_calls import accumulator_for
from millstream.table.runtime.arrow_slicing import (
    _grouped,
    accumulator_columns,
    accumulator_merges,
    accumulator_rows,
)
from millstream.table.runtime.vectorized import _from_bytes, int64_arrow

__all__ = ["ArrowAttachedAggregate"]

_GROUP = "window-group"  # the row path's state name (AttachedWindowAggregate)


class ArrowAttachedAggregate:
    """The columnar function of a GROUP BY over an attached window; see the module docstring.
    ``keys``: the group keys of a row; ``calls``: (function, argument of a row, result type)."""

    def __init__(
        self,
        keys: list[Callable[[tuple[Any, ...]], Any]],
        calls: list[tuple[str, Callable[[tuple[Any, ...]], Any], DataType]],
        end_key: int,
        root: str,
    ) -> None:
        self.keys, self.calls, self.end_key, self.root = keys, calls, end_key, root

    def open(self, runtime_context: Any) -> None:
        self.functions = [f for f, _, _ in self.calls]
        self.arguments = [a for _, a, _ in self.calls]
        self.accumulators = [accumulator_for(f, t, False) for f, _, t in self.calls]
        self._value_types = [t.to_arrow() if f in ("MIN", "MAX") else None for f, _, t in self.calls]
        self._key_ids: dict[Any, int] = {}
        self._keys: list[Any] = []  # id -> key
        self._fires: dict[int, int] = {}  # key id -> when its window fires (end - 1)
        self._fire_times: set[int] = set()  # the distinct fire times of groups not emitted
        self._pending: list[tuple[Any, ...]] = []  # (key id, fire, seq, argument values ...) per row
        self._held: list[tuple[int, int, Any]] = []  # restored (key id, seq, accumulators) to merge
        self._table: Any = None  # one accumulator row per group not yet emitted
        self._ends: dict[Any, int] = {}  # window end value -> epoch ms (cache)
        self._seq = 0

    def process_batch(self, values: list[Any], watermark: int) -> None:
        """Hold each row whose window has not fired."""
        keys, arguments, end_key, ends = self.keys, self.arguments, self.end_key, self._ends
        ids, fires, pending = self._key_ids, self._fires, self._pending
        seq = self._seq
        for change in values:
            row = change[1]
            key = tuple([k(row) for k in keys])
            end = key[end_key]
            if end is None:
                continue
            fire = ends.get(end)
            if fire is None:
                if len(ends) > 4096:
                    ends.clear()
                fire = ends[end] = to_epoch_millis(end, self.root) - 1
            if fire <= watermark:
                continue  # its window has been emitted: late
            kid = ids.get(key)
            if kid is None:
                kid = ids[key] = len(self._keys)
                self._keys.append(key)
                fires[kid] = fire
                self._fire_times.add(fire)
            pending.append((kid, fire, seq, *[a(row) for a in arguments]))
            seq += 1
        self._seq = seq

    def on_watermark(self, watermark: int) -> list[tuple[list[Any], list[int]]]:
        """The groups whose window the watermark closed, in window order."""
        if not any(fire <= watermark for fire in self._fire_times):
            return []
        self._fire_times = {fire for fire in self._fire_times if fire > watermark}
        self._merge()
        return self._emit(watermark)

    # -- the accumulator table ---------------------------------------------------------------------

    def _merge(self) -> None:
        """Held rows (and restored accumulators) folded into the accumulator table."""
        tables = [] if self._table is None else [self._table]
        if self._pending:
            pending, self._pending = self._pending, []
            columns = list(zip(*pending, strict=True))
            raw: dict[str, Any] = {
                "key": int64_arrow(columns[0]),
                "fire": int64_arrow(columns[1]),
                "seq": int64_arrow(columns[2]),
            }
            aggregations: list[Any] = [("fire", "min"), ("seq", "min")]
            for i, function in enumerate(self.functions):
                values = columns[3 + i]
                if function == "COUNT":  # only whether each value is NULL counts
                    raw[f"v{i}"] = pa.array([None if v is None else 1 for v in values], pa.int64())
                else:
                    raw[f"v{i}"] = pa.array(values, pa.int64() if function == "SUM" else self._value_types[i])
                only_valid = pc.CountOptions(mode="only_valid")
                if function == "SUM":
                    aggregations += [(f"v{i}", "sum"), (f"v{i}", "count", only_valid)]
                elif function == "COUNT":
                    aggregations.append((f"v{i}", "count", only_valid))
                else:
                    aggregations.append((f"v{i}", function.lower()))
            folded = pa.table(raw).group_by("key", use_threads=False).aggregate(aggregations)
            tables.append(self._as_accumulators(folded))
        if self._held:
            tables.append(self._restored_table())
        if tables:
            merges = [("fire", "min"), ("seq", "min"), *accumulator_merges(self.functions)]
            self._table = _grouped(pa.concat_tables(tables), ["key"], merges)

    def _as_accumulators(self, folded: Any) -> Any:
        """A group_by result of held rows as the accumulator table's columns."""
        columns: dict[str, Any] = {
            "key": folded.column("key"),
            "fire": folded.column("fire_min"),
            "seq": folded.column("seq_min"),
        }
        for i, function in enumerate(self.functions):
            if function == "SUM":
                columns[f"a{i}"] = pc.fill_null(
                    folded.column(f"v{i}_sum").cast(pa.int64()), _from_bytes(0, None)
                )
                columns[f"c{i}"] = folded.column(f"v{i}_count")
            elif function == "COUNT":
                columns[f"a{i}"] = folded.column(f"v{i}_count")
            else:
                columns[f"a{i}"] = folded.column(f"v{i}_{function.lower()}").cast(self._value_types[i])
        return pa.table(columns)

    def _restored_table(self) -> Any:
        held, self._held = self._held, []
        columns: dict[str, Any] = {
            "key": int64_arrow([kid for kid, _, _ in held]),
            "fire": int64_arrow([self._fires[kid] for kid, _, _ in held]),
            "seq": int64_arrow([seq for _, seq, _ in held]),
        }
        per_function = [[accumulators[i] for _, _, accumulators in held] for i in range(len(self.functions))]
        columns.update(accumulator_columns(self.functions, self._value_types, per_function))
        return pa.table(columns)

    def _emit(self, watermark: int) -> list[tuple[list[Any], list[int]]]:
        table = self._table
        if table is None:
            return []
        fires, now = table.column("fire"), _from_bytes(watermark, None)
        due = table.filter(pc.less_equal(fires, now))
        self._table = table.filter(pc.greater(fires, now))
        if not self._table.num_rows:
            self._table = None
        due = due.sort_by([("fire", "ascending"), ("seq", "ascending")])
        results = []
        for i, function in enumerate(self.functions):
            values = due.column(f"a{i}").to_pylist()
            if function == "SUM":
                result = self.accumulators[i].result
                values = [result(acc) for acc in zip(values, due.column(f"c{i}").to_pylist(), strict=True)]
            results.append(values)
        keys = self._keys
        out_kids = due.column("key").to_pylist()
        rows = [
            (INSERT, (*keys[kid], *aggregates))
            for kid, aggregates in zip(
                out_kids, zip(*results, strict=True) if results else [()] * len(out_kids), strict=True
            )
        ]
        stamps = due.column("fire").to_pylist()
        for kid in out_kids:
            del self._fires[kid]
        self._forget()
        return [(rows, stamps)]

    def _forget(self) -> None:
        """Renumber the keys once most have been emitted."""
        if len(self._keys) <= 2 * len(self._fires) + 1024:
            return

        live = sorted(self._fires)
        renumber = {old: new for new, old in enumerate(live)}
        self._keys = [self._keys[k] for k in live]
        self._key_ids = {key: i for i, key in enumerate(self._keys)}
        self._fires = {renumber[k]: fire for k, fire in self._fires.items()}
        if self._table is not None:
            old = self._table.column("key").to_pylist()
            index = self._table.schema.get_field_index("key")
            self._table = self._table.set_column(index, "key", int64_arrow([renumber[k] for k in old]))

    # -- snapshots: the row path's state and timers -----------------------------------------------

    def write_state(self, backend: Any) -> list[tuple[int, Any]]:
        """Each group's accumulators as the row path keeps them, and its timer."""
        self._merge()
        table = self._table
        if table is None:
            return []
        table = table.sort_by("seq")
        state = backend.get_state(ValueStateDescriptor(_GROUP, None))
        kids = table.column("key").to_pylist()
        accumulators = accumulator_rows(self.functions, table)
        timers = []
        for kid, accs in zip(kids, accumulators, strict=True):
            key = self._keys[kid]
            backend.set_current_key(key)
            state.update(list(accs))
            timers.append((self._fires[kid], key))
        return sorted(timers, key=lambda timer: timer[0])

    def read_state(self, backend: Any, timers: list[tuple[int, Any]]) -> None:
        """The groups of a snapshot of either path, and when each fires."""
        state = backend.get_state(ValueStateDescriptor(_GROUP, None))
        fire_of = {key: timestamp for timestamp, key in timers}
        for key in backend.keys(_GROUP):
            backend.set_current_key(key)
            accumulators = state.value()
            if accumulators is None or key not in fire_of:
                continue
            kid = self._key_ids.get(key)
            if kid is None:
                kid = self._key_ids[key] = len(self._keys)
                self._keys.append(key)
            self._fires[kid] = fire_of[key]
            self._fire_times.add(fire_of[key])
            self._held.append(
                (kid, self._seq, [tuple(a) if isinstance(a, list) else a for a in accumulators])
            )
            self._seq += 1
