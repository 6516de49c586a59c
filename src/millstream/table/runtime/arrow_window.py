"""The local phase of a two-phase window aggregation on Arrow batches.

When a TUMBLE, HOP or CUMULATE aggregation runs in two phases (Flink's local-global window
aggregation, ``table.optimizer.agg-phase-strategy``) and its input is a columnar scan
(``planner/columnar.py``), the scan hands its rows on as Arrow record batches (``ChangeBatch``)
and the local phase folds each batch with Arrow's hash aggregation instead of one Python call
per row:

* the slice end of every row is computed on the time column (epoch milliseconds, with the
  window's offset), the group keys and aggregate arguments as Arrow kernels
  (``runtime/vectorized.py``);
* the batch is grouped by (keys, slice end): COUNT counts the non-NULL arguments, SUM adds the
  integral ones (and counts them: the accumulator is (sum, count)), MIN / MAX pick;
* each group leaves as the row path's partial ``(key, slice end, rows, accumulators)``, so the
  global phase (``SlicingAggregate(partial=True)``), its state, timers and late-row handling
  are the same.

Only what Arrow computes exactly as the row path is taken here: built-in COUNT, SUM of an
integral type, MIN / MAX of integral, string, date and timestamp values; keys that are not
nested; an event time of TIMESTAMP(0..3) or TIMESTAMP_LTZ(0..3). Anything else keeps the row
path's local phase.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from millstream.table.common.row_kind import INSERT
from millstream.table.common.types import DataType
from millstream.table.runtime.change_batch import ChangeBatch
from millstream.table.runtime.vectorized import (
    _evaluate,
    arrow_type_exact,
    as_array,
    int64_arrow,
    int64_numpy,
    vectorizable,
)

__all__ = ["ArrowLocalSlices", "arrow_local_phase", "exact_aggregate"]

_INTEGRAL = {"TINYINT", "SMALLINT", "INT", "BIGINT"}
_ORDERED = _INTEGRAL | {"CHAR", "VARCHAR", "STRING", "DATE", "TIMESTAMP"}
_NESTED = {"ROW", "ARRAY", "MAP", "MULTISET", "RAW", "STRUCTURED"}


def arrow_local_phase(node: Any) -> ArrowLocalSlices | None:
    """The Arrow local phase of the window aggregation ``node`` (a ``WindowAggregate`` over a
    columnar scan), or None when one of its parts has no exact Arrow equal."""
    spec, source = node.spec, node.input
    if node.key_expressions is None or node.argument_expressions is None or spec.kind == "SESSION":
        return None
    names, types = list(source.names), list(source.types)
    time_type = types[node.time_column]
    if time_type.root not in ("TIMESTAMP", "TIMESTAMP_LTZ") or int((time_type.params or (6,))[0]) > 3:
        return None  # an instant or a wall-clock time: its epoch milliseconds on both paths
    resolved_keys = [k.resolve(names, types) for k in node.key_expressions]
    if any(k.data_type.root in _NESTED or not _plain_key(k.data_type) for k in resolved_keys):
        return None
    for (function, _, argument_type), argument in zip(node.calls, node.argument_expressions, strict=True):
        if not isinstance(function, str) or not exact_aggregate(function, argument_type):
            return None
        if not vectorizable(argument, names, types):
            return None
    if not all(vectorizable(k, names, types) for k in node.key_expressions):
        return None
    functions = [f for f, _, _ in node.calls]
    keys, arguments = list(node.key_expressions), list(node.argument_expressions)
    return ArrowLocalSlices(spec, node.time_column, names, types, keys, arguments, functions)


def _plain_key(data_type: DataType) -> bool:
    """A key type whose Arrow values (``to_pylist``) are the row path's: a TIMESTAMP_LTZ's are
    instants with a zone, not the session's wall-clock times."""
    return arrow_type_exact(data_type) and data_type.root != "TIMESTAMP_LTZ"


def exact_aggregate(function: str, argument_type: DataType) -> bool:
    """Whether Arrow's aggregate gives the row path's accumulator for ``function``."""
    root = argument_type.root
    return (
        function == "COUNT"
        or (function == "SUM" and root in _INTEGRAL)
        or (function in ("MIN", "MAX") and root in _ORDERED)
    )


class ArrowLocalSlices:
    """``fn(batches) -> (partials, kept)`` for the batch operator after a columnar scan: each
    ``ChangeBatch`` folded into one partial per (key, slice)."""

    def __init__(
        self,
        spec: Any,
        time_column: int,
        names: list[str],
        types: list[DataType],
        keys: list[Any],
        arguments: list[Any],
        functions: list[str],
    ) -> None:
        self.spec, self.time_column = spec, time_column
        self.names, self.types = names, types
        self.keys, self.arguments, self.functions = keys, arguments, functions

    def __call__(self, values: list[Any]) -> tuple[list[Any], list[int]]:
        out: list[Any] = []
        kept: list[int] = []
        for index, element in enumerate(values):
            assert isinstance(element, ChangeBatch)
            partials = self._partials(element.batch)
            out.extend(partials)
            kept.extend([index] * len(partials))
        return out, kept

    def _partials(self, batch: Any) -> list[Any]:
        time = batch.column(self.time_column)
        if time.null_count:  # a row without a time is in no window (as the row path skips it)
            batch = batch.filter(pc.is_valid(time))
            time = batch.column(self.time_column)
        size = batch.num_rows
        if not size:
            return []
        millis = int64_numpy(time.cast(pa.timestamp("ms")))
        slice_size, offset = self.spec.slice_size, self.spec.offset
        ends = millis - np.remainder(millis - offset, slice_size) + slice_size

        def column(index: int) -> Any:
            return batch.column(index)

        def evaluate(expression: Any) -> Any:
            return as_array(_evaluate(expression, self.names, column, size, self.types), size)

        columns: dict[str, Any] = {f"k{i}": evaluate(k) for i, k in enumerate(self.keys)}
        columns["slice"] = int64_arrow(ends)
        aggregations: list[Any] = [([], "count_all")]
        for i, (function, argument) in enumerate(zip(self.functions, self.arguments, strict=True)):
            columns[f"a{i}"] = evaluate(argument)
            if function == "COUNT":
                aggregations.append((f"a{i}", "count", pc.CountOptions(mode="only_valid")))
            elif function == "SUM":
                aggregations.append((f"a{i}", "sum"))
                aggregations.append((f"a{i}", "count", pc.CountOptions(mode="only_valid")))
            else:
                aggregations.append((f"a{i}", function.lower()))
        columns["row"] = int64_arrow(np.arange(size, dtype=np.int64))
        aggregations.append(("row", "min"))
        key_names = [f"k{i}" for i in range(len(self.keys))] + ["slice"]
        grouped = pa.table(columns).group_by(key_names, use_threads=False).aggregate(aggregations)
        # in the order of each group's first row, as the row path's partials leave (the order
        # keys meet their timers in, and so the order of windows fired together)
        grouped = grouped.sort_by("row_min")
        keys = [grouped.column(n).to_pylist() for n in key_names[:-1]]
        slice_ends = grouped.column("slice").to_pylist()
        rows = grouped.column("count_all").to_pylist()
        accumulators = []
        for i, function in enumerate(self.functions):
            if function == "COUNT":
                accumulators.append(grouped.column(f"a{i}_count").to_pylist())
            elif function == "SUM":
                sums = grouped.column(f"a{i}_sum").to_pylist()
                counts = grouped.column(f"a{i}_count").to_pylist()
                accumulators.append([(s if c else 0, c) for s, c in zip(sums, counts, strict=True)])
            else:
                accumulators.append(grouped.column(f"a{i}_{function.lower()}").to_pylist())
        key_rows = list(zip(*keys, strict=True)) if keys else [()] * len(rows)
        acc_rows = list(zip(*accumulators, strict=True)) if accumulators else [()] * len(rows)
        return [
            (INSERT, (key, end, count, list(accs)))
            for key, end, count, accs in zip(key_rows, slice_ends, rows, acc_rows, strict=True)
        ]
