"""Keyed operators: rolling reduce (reduce, sum, min, max, min_by, max_by).

STREAMING semantics, as Flink's ``StreamGroupedReduceOperator``: for every element the
reduced value of its key is updated and emitted (a rolling update). BATCH semantics, as
Flink's ``BatchGroupedReduceOperator``: the input arrives sorted by key and only the
final value of each key is emitted (at the end of the key, with the maximum timestamp). The value per key
lives in this subtask's heap; the keyed state backend with key groups and snapshots
takes over with the state layer.

Per-record path: one key-selector call, one dict lookup and one store, one reduce call.
"""

from __future__ import annotations

from typing import Any

from millstream.runtime.location import UserFunctionError
from millstream.runtime.operators.base import Emit, OperatorContext, StreamOperator
from millstream.runtime.operators.elements import MAX_TIMESTAMP

__all__ = ["StreamGroupedReduce"]

_MISSING = object()


class StreamGroupedReduce(StreamOperator):
    """Rolling reduce per key."""

    def __init__(
        self, context: OperatorContext, fn: Any, lifecycle: Any, output: Emit, key_selector: Any
    ) -> None:
        super().__init__(context, lifecycle)
        self._fn = fn
        self._key = key_selector
        self._output = output
        # key -> reduced value (a lookup and a store per element measured faster than
        # a lookup into a mutable cell).
        self._values: dict[Any, Any] = {}  # owner: task thread
        if context.batch:
            self.process_batch = self._reduce_only  # type: ignore[method-assign]

    def _reduce_only(self, values: list[Any], timestamps: list[int] | None) -> None:
        """BATCH: fold into the key's value; nothing is emitted until the key ends."""
        fn = self._fn
        key = self._key
        reduced = self._values
        get = reduced.get
        missing = _MISSING
        index = 0
        try:
            for index, v in enumerate(values):  # noqa: B007 - index names the failing record
                k = key(v)
                current = get(k, missing)
                reduced[k] = v if current is missing else fn(current, v)
        except Exception as err:
            raise self.error(index, values) from err
        self.records_in += len(values)

    def end_of_key(self) -> None:
        """BATCH: emit the final value of the finished key (each key, at the latest at the end)."""
        if self._values:
            out = list(self._values.values())
            self._values.clear()
            self._output(out, [MAX_TIMESTAMP] * len(out))

    def finish(self) -> None:
        """BATCH without sorted input: the final values of every key."""
        if self.context.batch:
            self.end_of_key()

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Fold each element into its key's value and emit the new value."""
        fn = self._fn
        key = self._key
        reduced = self._values
        get = reduced.get
        missing = _MISSING
        out: list[Any] = []
        append = out.append
        try:
            for v in values:
                k = key(v)
                current = get(k, missing)
                if current is not missing:
                    v = fn(current, v)
                reduced[k] = v
                append(v)
        except TypeError as err:
            if "unhashable" in str(err):
                raise UserFunctionError(
                    self.name,
                    self.context.location,
                    self.records_in + len(out),
                    values[len(out)],
                    message="key is not hashable",
                ) from err
            raise self.error(len(out), values) from err
        except Exception as err:
            raise self.error(len(out), values) from err
        self.records_in += len(values)
        self._output(out, timestamps)

    def snapshot_keyed_state(self, checkpoint_id: int = 0, canonical: bool = True) -> Any:
        """(key, reduced value) pairs."""
        return list(self._values.items())

    def restore_keyed_state(self, snapshot: Any) -> None:
        """Replace the reduced values."""
        self._values = dict(snapshot)

    @property
    def number_of_keys(self) -> int:
        """Keys seen by this subtask."""
        return len(self._values)
