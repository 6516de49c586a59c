"""Streaming over aggregation ordered by a column that is no time attribute (``SUM(v) OVER
(PARTITION BY k ORDER BY v)``, ``UNBOUNDED PRECEDING`` to the current row), as Flink 2.3's
``NonTimeRangeUnboundedPrecedingFunction`` and ``NonTimeRowsUnboundedPrecedingFunction``.

Each partition keeps its rows sorted by the key (NULL first, rows of one key in arrival
order) with the accumulator after each key (RANGE: rows of one key see each other) or each row
(ROWS). A row arriving (``+I`` / ``+U``) is emitted with its aggregates (of its kind), and
every row after it whose aggregates it changes is updated (``-U`` old, ``+U`` new); a row
withdrawn (``-U`` / ``-D``) is deleted (``-D`` with its last aggregates) and the rows after it
updated. The updates stop at the first key (RANGE) or row (ROWS) whose accumulator comes out
as before, as Flink's do. The output is an updating changelog. PyFlink 2.3.0 prints, for the
values 3, 1, 2, 1 of a partition in that order, ``SUM(v) OVER (ORDER BY v)``: ``+I 3 3``,
``+I 1 1``, ``-U 3 3``, ``+U 3 4``, ``+I 2 3``, ``-U 3 4``, ``+U 3 6``, ``-U 1 1``, ``+U 1 2``,
``+I 1 2``, ``-U 2 3``, ``+U 2 4``, ``-U 3 6``, ``+U 3 7``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from millstream.datastream import KeyedProcessFunction
from millstream.datastream.state import ValueStateDescriptor
from millstream.table.common.row_kind import DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE
from millstream.table.common.types import DataType
from millstream.table.functions.aggregate_calls import accumulator_for
from millstream.table.functions.aggregates_more import RANKINGS

__all__ = ["NonTimeOverFunction"]

Row = tuple[Any, ...]


def _null_first(value: Any) -> tuple[int, Any]:
    return (0, 0) if value is None else (1, value)


class _Partition:
    """A partition's state: its sort keys in order with the ids of their rows, the rows by id,
    the accumulators (by sort key for RANGE, by id for ROWS) and the next id."""

    def __init__(self) -> None:
        self.keys: list[tuple[Any, list[int]]] = []
        self.rows: dict[int, Row] = {}
        self.accs: dict[Any, list[Any]] = {}
        self.next_id = 0


class NonTimeOverFunction(KeyedProcessFunction):
    """``calls``: (accumulator spec, argument, argument type) per aggregate; ``rows``: a ROWS
    frame (ROW_NUMBER's), else RANGE; ``sort_key``: the ORDER BY column of a row."""

    def __init__(
        self,
        sort_key: Callable[[Row], Any],
        rows: bool,
        calls: list[tuple[Any, Callable[[Row], Any], DataType]],
    ) -> None:
        self.sort_key, self.rows_frame, self.calls = sort_key, rows, calls

    def open(self, runtime_context: Any) -> None:
        self.state = runtime_context.get_state(ValueStateDescriptor("non-time-over", None))
        self.accumulators = []
        self.arguments: list[Callable[[Row], Any]] = []
        for spec, argument, data_type in self.calls:
            if isinstance(spec, str) and spec in RANKINGS:  # a row count (Flink 2.3 numbers rows so)
                self.accumulators.append(accumulator_for("COUNT", data_type, False))
                self.arguments.append(lambda row: 1)
            else:
                self.accumulators.append(
                    accumulator_for(spec, data_type, False) if isinstance(spec, str) else spec
                )
                self.arguments.append(argument)

    # -- accumulators ------------------------------------------------------------------------------

    def _create(self) -> list[Any]:
        return [a.create() for a in self.accumulators]

    def _add(self, accs: list[Any], row: Row) -> list[Any]:
        accs = copy.deepcopy(accs)  # an accumulator may change in place; the held ones must not
        return [a.add(acc, f(row)) for a, acc, f in zip(self.accumulators, accs, self.arguments, strict=True)]

    def _value(self, accs: list[Any]) -> Row:
        return tuple(a.result(copy.deepcopy(acc)) for a, acc in zip(self.accumulators, accs, strict=True))

    # -- changes ---------------------------------------------------------------------------------------

    def process_element(self, value: Any, ctx: Any) -> Any:
        kind, row = value[0], tuple(value[1])
        partition: _Partition = self.state.value() or _Partition()
        out: list[tuple[str, Row]] = []
        if kind in (INSERT, UPDATE_AFTER):
            self._insert(partition, row, kind, out)
        else:
            self._remove(partition, row, out)
        self.state.update(partition)
        return out

    def _position(self, partition: _Partition, key: Any) -> tuple[int, bool]:
        """Where ``key`` goes: (index, whether it is new there)."""
        wanted = _null_first(key)
        for i, (held, _) in enumerate(partition.keys):
            if _null_first(held) == wanted:
                return i, False
            if _null_first(held) > wanted:
                return i, True
        return len(partition.keys), True

    def _insert(self, partition: _Partition, row: Row, kind: str, out: list[tuple[str, Row]]) -> None:
        key = self.sort_key(row)
        row_id = partition.next_id
        partition.next_id += 1
        index, new = self._position(partition, key)
        if new:
            partition.keys.insert(index, (key, [row_id]))
            accs = self._add(self._before(partition, index, None), row)
            out.append((kind, row + self._value(accs)))
        else:
            ids = partition.keys[index][1]
            ids.append(row_id)
            if self.rows_frame:  # the row after its key's rows: each row has values of its own
                previous = partition.accs[ids[-2]]
                accs = self._add(previous, row)
                out.append((kind, row + self._value(accs)))
            else:
                accs = self._before(partition, index, None)
                for earlier in ids[:-1]:
                    accs = self._add(accs, partition.rows[earlier])
                accs = self._add(accs, row)
                self._emit_peers(partition, ids, len(ids) - 1, (partition.accs[key], accs), (kind, row), out)
        partition.rows[row_id] = row
        partition.accs[row_id if self.rows_frame else key] = accs
        self._after(partition, index + 1, accs, out)

    def _before(self, partition: _Partition, index: int, position: int | None) -> list[Any]:
        """The accumulator before key ``index`` (ROWS: before its row at ``position``)."""
        if self.rows_frame and position:
            return partition.accs[partition.keys[index][1][position - 1]]
        if index == 0:
            return self._create()
        held_key, ids = partition.keys[index - 1]
        return partition.accs[ids[-1] if self.rows_frame else held_key]

    def _emit_peers(
        self,
        partition: _Partition,
        ids: list[int],
        changed: int,
        accs: tuple[list[Any], list[Any]],
        change: tuple[str, Row],
        out: list[tuple[str, Row]],
    ) -> None:
        """RANGE: the changed row (inserted or deleted) and, when the key's accumulator moved,
        the other rows of its key (``-U`` / ``+U``), in their order."""
        before, after = accs
        old, new = self._value(before), self._value(after)
        kind, row = change
        for j, row_id in enumerate(ids):
            if j == changed:
                out.append((DELETE, row + old) if kind == DELETE else (kind, row + new))
            elif before != after:
                held = partition.rows[row_id]
                out += [(UPDATE_BEFORE, held + old), (UPDATE_AFTER, held + new)]

    def _after(self, partition: _Partition, start: int, accs: list[Any], out: list[tuple[str, Row]]) -> None:
        """The keys from ``start`` on, updated over ``accs`` until one comes out unchanged."""
        for key, ids in partition.keys[start:]:
            if self.rows_frame:
                for row_id in ids:
                    row = partition.rows[row_id]
                    accs = self._add(accs, row)
                    held = partition.accs[row_id]
                    if self._value(accs) == self._value(held):
                        return
                    out += [(UPDATE_BEFORE, row + self._value(held)), (UPDATE_AFTER, row + self._value(accs))]
                    partition.accs[row_id] = accs
                continue
            for row_id in ids:
                accs = self._add(accs, partition.rows[row_id])
            held = partition.accs[key]
            if held == accs:
                return
            old, new = self._value(held), self._value(accs)
            for row_id in ids:
                row = partition.rows[row_id]
                out += [(UPDATE_BEFORE, row + old), (UPDATE_AFTER, row + new)]
            partition.accs[key] = accs

    def _remove(self, partition: _Partition, row: Row, out: list[tuple[str, Row]]) -> None:
        key = self.sort_key(row)
        index = next(
            (i for i, (held, _) in enumerate(partition.keys) if _null_first(held) == _null_first(key)), None
        )
        if index is None:
            return  # no such row (its state expired): nothing to withdraw, as Flink's
        ids = partition.keys[index][1]
        if self.rows_frame:
            self._remove_row(partition, index, row, out)
            return
        accs = self._before(partition, index, None)
        removed = -1
        for j, row_id in enumerate(ids):  # (Flink's: a row equal to it is left out, the last removed)
            if partition.rows[row_id] == row:
                removed = j
            else:
                accs = self._add(accs, partition.rows[row_id])
        if removed < 0:
            return
        self._emit_peers(partition, ids, removed, (partition.accs[key], accs), (DELETE, row), out)
        del partition.rows[ids.pop(removed)]
        if ids:
            partition.accs[key] = accs
            index += 1
        else:
            del partition.keys[index]
            del partition.accs[key]
        self._after(partition, index, accs, out)

    def _remove_row(self, partition: _Partition, index: int, row: Row, out: list[tuple[str, Row]]) -> None:
        """ROWS: the row deleted with its last values, its key's later rows updated until one
        comes out unchanged, then the keys after."""
        ids = partition.keys[index][1]
        removed = next((j for j, row_id in enumerate(ids) if partition.rows[row_id] == row), -1)
        if removed < 0:
            return
        accs = self._before(partition, index, removed)
        for j in range(removed, len(ids)):
            held_row, held = partition.rows[ids[j]], partition.accs[ids[j]]
            if j == removed:
                out.append((DELETE, held_row + self._value(held)))
                continue
            accs = self._add(accs, held_row)
            if self._value(accs) == self._value(held):
                break
            out += [
                (UPDATE_BEFORE, held_row + self._value(held)),
                (UPDATE_AFTER, held_row + self._value(accs)),
            ]
            partition.accs[ids[j]] = accs
        gone = ids.pop(removed)
        del partition.rows[gone], partition.accs[gone]
        if ids:
            index += 1
        else:
            del partition.keys[index]
        self._after(partition, index, accs, out)
