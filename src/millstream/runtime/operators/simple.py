"""Stateless one-input operators: map, flat_map, filter, process (with side outputs).

Per-record path: map, filter and flat_map run the user function through C-level
``map`` / ``filter`` / ``chain`` over a list iterator, so the only Python frame per
element is the user's. When the function raises, the iterator's remaining length
tells which element failed, so errors still name the record.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

from millstream.graph.transformations import SideOutputTag
from millstream.runtime.operators.base import Emit, OperatorContext, StreamOperator

__all__ = ["ProcessOperator", "StreamFilter", "StreamFlatMap", "StreamMap", "UdfOperator"]


class UdfOperator(StreamOperator):
    """An operator calling one user function and emitting to one output."""

    def __init__(self, context: OperatorContext, fn: Any, lifecycle: Any, output: Emit) -> None:
        super().__init__(context, lifecycle)
        self._fn = fn
        self._output = output


class StreamMap(UdfOperator):
    """One output per element."""

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """``fn(v)`` for every element."""
        it = iter(values)
        try:
            out = list(map(self._fn, it))
        except Exception as err:
            raise self.error(_failed_at(values, it), values) from err
        self.records_in += len(values)
        self._output(out, timestamps)


def _failed_at(values: list[Any], it: Any) -> int:
    """Index of the element being processed when a C-level loop over ``it`` raised."""
    return len(values) - it.__length_hint__() - 1


class StreamFlatMap(UdfOperator):
    """Any number of outputs per element (the function returns an iterable)."""

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Concatenate the outputs of every element (each keeps its input's timestamp)."""
        fn = self._fn
        if timestamps is None:
            it = iter(values)
            try:
                flat = list(chain.from_iterable(map(fn, it)))
            except Exception as err:
                raise self.error(_failed_at(values, it), values) from err
            self.records_in += len(values)
            if flat:
                self._output(flat, None)
            return
        out: list[Any] = []
        extend = out.extend
        out_ts: list[int] = []
        index = 0
        try:
            for index, v in enumerate(values):
                before = len(out)
                extend(fn(v))
                out_ts.extend([timestamps[index]] * (len(out) - before))
        except Exception as err:
            raise self.error(index, values) from err
        self.records_in += len(values)
        if out:
            self._output(out, out_ts)


class StreamFilter(UdfOperator):
    """Keeps elements whose predicate is true."""

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Elements with ``fn(v)`` true."""
        fn = self._fn
        if timestamps is None:
            it = iter(values)
            try:
                out = list(filter(fn, it))
            except Exception as err:
                raise self.error(_failed_at(values, it), values) from err
            out_ts = None
        else:
            indexes = iter(range(len(values)))
            try:
                kept = [i for i in indexes if fn(values[i])]
            except Exception as err:
                raise self.error(len(values) - indexes.__length_hint__() - 1, values) from err  # type: ignore[attr-defined]
            out = [values[i] for i in kept]
            out_ts = [timestamps[i] for i in kept]
        self.records_in += len(values)
        if out:
            self._output(out, out_ts)


class _ProcessContext:
    """``ProcessFunction.Context``: the current element's timestamp (and key if keyed)."""

    __slots__ = ("_key", "_timestamp")

    def __init__(self) -> None:
        self._timestamp: int | None = None
        self._key: Any = None

    def timestamp(self) -> int | None:
        """Timestamp of the current element, or None."""
        return self._timestamp

    def get_current_key(self) -> Any:
        """Key of the current element (keyed streams)."""
        return self._key

    def timer_service(self) -> Any:
        """Timers arrive with the event-time layer."""
        raise NotImplementedError("timers are not supported yet")


class ProcessOperator(StreamOperator):
    """Runs a (Keyed)ProcessFunction; ``yield tag, value`` goes to side output ``tag``."""

    def __init__(
        self,
        context: OperatorContext,
        fn: Any,
        lifecycle: Any,
        output: Emit,
        side_outputs: dict[str, Emit],
        key_selector: Any = None,
    ) -> None:
        super().__init__(context, lifecycle)
        self._fn = fn
        self._output = output
        self._side_outputs = side_outputs
        self._key_selector = key_selector
        self._ctx = _ProcessContext()

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Call the function per element, routing yielded side outputs by tag."""
        fn = self._fn
        ctx = self._ctx
        key_selector = self._key_selector
        out: list[Any] = []
        out_ts: list[int] | None = None if timestamps is None else []
        side: dict[str, tuple[list[Any], list[int] | None]] = {}
        index = 0
        try:
            for index, v in enumerate(values):
                ts = None if timestamps is None else timestamps[index]
                ctx._timestamp = ts
                if key_selector is not None:
                    ctx._key = key_selector(v)
                result = fn(v, ctx)
                if result is None:
                    continue
                for item in result:
                    if type(item) is tuple and len(item) == 2 and isinstance(item[0], SideOutputTag):
                        self._collect_side(side, item[0].tag_id, item[1], ts, timestamps is None)
                    else:
                        out.append(item)
                        if out_ts is not None:
                            out_ts.append(ts)  # type: ignore[arg-type]
        except Exception as err:
            raise self.error(index, values) from err
        self.records_in += len(values)
        if out:
            self._output(out, out_ts)
        for tag_id, (side_values, side_ts) in side.items():
            emit = self._side_outputs.get(tag_id)
            if emit is not None:
                emit(side_values, side_ts)

    @staticmethod
    def _collect_side(side: dict[str, Any], tag_id: str, value: Any, ts: int | None, no_ts: bool) -> None:
        entry = side.get(tag_id)
        if entry is None:
            timestamps: list[int | None] | None = None if no_ts else []
            entry = side[tag_id] = ([], timestamps)
        entry[0].append(value)
        if entry[1] is not None:
            entry[1].append(ts)
