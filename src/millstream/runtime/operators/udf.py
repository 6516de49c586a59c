"""Stateless one-input operators: map, flat_map, filter, process (with side outputs).

Per-record path: map, filter and flat_map run the user function through C-level
``map`` / ``filter`` / ``chain`` over a list iterator, so the only Python frame per
element is the user's. When the function raises, the iterator's remaining length
tells which element failed, so errors still name the record.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

from millstream.common.user_code import ElementError
from millstream.runtime.operators.base import Emit, OperatorContext, StreamOperator, record_count

__all__ = ["StreamBatchMap", "StreamFilter", "StreamFlatMap", "StreamMap", "UdfOperator", "failed_at"]


class UdfOperator(StreamOperator):
    """An operator calling one user function and emitting to one output.

    On a keyed stream the function may use keyed state: every call runs with the
    element's key as the current key.
    """

    def __init__(
        self, context: OperatorContext, fn: Any, lifecycle: Any, output: Emit, key_selector: Any = None
    ) -> None:
        super().__init__(context, lifecycle)
        self._fn = fn
        self._output = output
        self._key_selector = key_selector
        if key_selector is not None:
            self.create_keyed_backend(key_selector)

    def open(self) -> None:
        """Open the user function; on a keyed stream, set the current key before each call."""
        super().open()
        backend = self.keyed_backend
        if backend is not None:
            fn, key, set_key = self._fn, self._key_selector, backend.set_current_key

            def keyed_call(value: Any) -> Any:
                set_key(key(value))
                return fn(value)

            self._fn = keyed_call


class StreamMap(UdfOperator):
    """One output per element."""

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """``fn(v)`` for every element."""
        map_batch(self, self._fn, self._output, values, timestamps)


def failed_at(values: list[Any], it: Any) -> int:
    """Index of the element being processed when a C-level loop over ``it`` raised."""
    return len(values) - it.__length_hint__() - 1


class StreamFlatMap(UdfOperator):
    """Any number of outputs per element (the function returns an iterable)."""

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Concatenate the outputs of every element (each keeps its input's timestamp)."""
        flat_map_batch(self, self._fn, self._output, values, timestamps)


class StreamBatchMap(UdfOperator):
    """A function of the whole batch (vectorized code): ``fn(values) -> (outputs, kept)``."""

    vectorized = True  # its task hands it whole bundles from the start (bundles.py)

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """The batch's outputs, each with the timestamp of the input it comes from (or, when
        the function returns a third item, the timestamps it gives)."""
        try:
            result = self._fn(values)
        except ElementError as err:  # the function says which element failed
            raise self.error(err.offset, values) from err.__cause__
        except Exception as err:
            raise self.error(0, values) from err
        self.records_in += record_count(values)
        out, kept = result[0], result[1]
        if not out:
            return
        if len(result) > 2:
            timestamps = result[2]
        elif timestamps is not None and kept is not None:
            timestamps = [timestamps[i] for i in kept]
        self._output(out, timestamps)


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
                raise self.error(failed_at(values, it), values) from err
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


def map_batch(operator: StreamOperator, fn: Any, output: Emit, values: list[Any], timestamps: Any) -> None:
    """``fn(v)`` for every element of a batch, emitted as one batch with the same timestamps."""
    it = iter(values)
    try:
        out = list(map(fn, it))
    except Exception as err:
        raise operator.error(failed_at(values, it), values) from err
    operator.records_in += len(values)
    output(out, timestamps)


def flat_map_batch(
    operator: StreamOperator, fn: Any, output: Emit, values: list[Any], timestamps: Any
) -> None:
    """The concatenated outputs of ``fn(v)``; each output keeps its element's timestamp."""
    if timestamps is None:
        it = iter(values)
        try:
            flat = list(chain.from_iterable(map(fn, it)))
        except Exception as err:
            raise operator.error(failed_at(values, it), values) from err
        operator.records_in += len(values)
        if flat:
            output(flat, None)
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
        raise operator.error(index, values) from err
    operator.records_in += len(values)
    if out:
        output(out, out_ts)
