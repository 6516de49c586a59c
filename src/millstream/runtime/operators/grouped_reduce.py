"""Keyed operators: rolling reduce (reduce, sum, min, max, min_by, max_by).

STREAMING semantics, as Flink's ``StreamGroupedReduceOperator``: for every element the
reduced value of its key is updated and emitted (a rolling update). BATCH semantics, as
Flink's ``BatchGroupedReduceOperator``: the input arrives sorted by key and only the
final value of each key is emitted (at the end of the key, with the maximum timestamp). The value per key
lives in this subtask's heap; the keyed state backend with key groups and snapshots
takes over with the state layer.

Per-record path: one key-selector call, one dict lookup and one store, one reduce call.
A built-in aggregation (sum, min, max, min_by, max_by) of a declared tuple type brings its
fold compiled for the tuple's layout (``aggregations.SumAggregator.rolling``): the reduce
written inline and, for a key selector ``itemgetter(field)``, the key read as ``v[field]``.

An unhashable key (``key_by(lambda t: [t[0]])``) fails the dict lookup before anything
changed; the operator then keys by ``hashing_key_selector`` (hashable forms of such keys)
from that element on. Ordinary keys never pay for it.
"""

from __future__ import annotations

from functools import partial
from operator import itemgetter
from typing import Any

from millstream.common.hashable_keys import hashable_key, hashing_key_selector
from millstream.runtime.location import UserFunctionError
from millstream.runtime.operators.base import Emit, OperatorContext, StreamOperator
from millstream.runtime.operators.elements import MAX_TIMESTAMP

__all__ = ["LocalCombine", "StreamGroupedReduce"]

_MISSING = object()


def _is_unhashable(key: Any) -> bool:
    try:
        hash(key)
    except TypeError:
        return True
    return False


def _hashing_selector_for(err: Exception, value: Any, key_selector: Any) -> Any:
    """``hashing_key_selector(key_selector)`` if ``err`` is ``value``'s key being unhashable
    (a dict lookup raised before anything changed), else None."""
    if not isinstance(err, TypeError):
        return None
    try:
        unhashable = _is_unhashable(key_selector(value))
    except Exception:
        return None
    return hashing_key_selector(key_selector) if unhashable else None


def _single_item(key_selector: Any) -> Any:
    """``field`` of a key selector ``operator.itemgetter(field)`` (one item), else None."""
    if type(key_selector) is not itemgetter:
        return None
    items = key_selector.__reduce__()[1]
    return items[0] if len(items) == 1 and type(items[0]) in (int, str) else None


class StreamGroupedReduce(StreamOperator):
    """Rolling reduce per key."""

    def __init__(
        self,
        context: OperatorContext,
        fn: Any,
        lifecycle: Any,
        output: Emit,
        key_selector: Any,
        combined: bool = False,
        rolling: Any = None,
    ) -> None:
        super().__init__(context, lifecycle)
        self._fn = fn
        self._key = key_selector
        self._output = output
        self._rolling: Any = None
        # key -> reduced value (a lookup and a store per element measured faster than
        # a lookup into a mutable cell).
        self._values: dict[Any, Any] = {}  # owner: task thread
        if context.batch:
            self.process_batch = self._reduce_combined if combined else self._reduce_only  # type: ignore[method-assign]
        elif rolling is not None:
            # a built-in aggregation's rolling update with its reduce inline
            # (``rolling(values, reduced, append, key, field)``), the key ``v[field]`` when
            # the selector is ``itemgetter(field)``
            field = _single_item(key_selector)
            self._rolling = partial(rolling, key=None if field is not None else key_selector, field=field)
            self.process_batch = self._process_rolling  # type: ignore[method-assign]

    def _reduce_combined(self, values: list[Any], timestamps: list[int] | None) -> None:
        """BATCH behind combiners: fold each ``(key, partial)`` pair into the key's value."""
        fn = self._fn
        reduced = self._values
        get = reduced.get
        missing = _MISSING
        index = 0
        try:
            for index, (k, v) in enumerate(values):  # noqa: B007 - index names the failing record
                current = get(k, missing)
                reduced[k] = v if current is missing else fn(current, v)
        except Exception as err:
            if isinstance(err, TypeError) and _is_unhashable(values[index][0]):
                # pairs passed uncombined (timestamped) carry the key as the selector gave it
                self.records_in += index
                rest = [(hashable_key(k) if _is_unhashable(k) else k, v) for k, v in values[index:]]
                self._reduce_combined(rest, None)
                return
            raise self.error(index, values) from err
        self.records_in += len(values)

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
            if self._switched_to_hashable_keys(err, values[index]):
                self.records_in += index
                self._reduce_only(values[index:], None)
                return
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
        except Exception as err:
            self._failed(err, out, values, timestamps)
            return
        self.records_in += len(values)
        self._output(out, timestamps)

    _fold_each = process_batch

    def _process_rolling(self, values: list[Any], timestamps: list[int] | None) -> None:
        """``process_batch`` of a built-in aggregation: the same fold, compiled for its layout
        (element by element once the operator met an unhashable key)."""
        if self._rolling is None:
            self._fold_each(values, timestamps)
            return
        out: list[Any] = []
        try:
            self._rolling(values, self._values, out.append)
        except Exception as err:
            self._failed(err, out, values, timestamps)
            return
        self.records_in += len(values)
        self._output(out, timestamps)

    def _failed(
        self, err: Exception, out: list[Any], values: list[Any], timestamps: list[int] | None
    ) -> None:
        """The fold stopped at ``values[len(out)]``: go on from there if its key is unhashable
        (emitting what was folded), else raise the error naming that element."""
        done = len(out)
        if not self._switched_to_hashable_keys(err, values[done]):
            raise self.error(done, values) from err
        self.records_in += done
        if out:
            self._output(out, None if timestamps is None else timestamps[:done])
        self._fold_each(values[done:], None if timestamps is None else timestamps[done:])

    def _switched_to_hashable_keys(self, err: Exception, value: Any) -> bool:
        """Whether ``err`` is ``value``'s key being unhashable (nothing changed yet); if so the
        operator keys by ``hashing_key_selector`` (and folds element by element) from now on."""
        hashing = _hashing_selector_for(err, value, self._key)
        if hashing is None:
            return False
        self._key = hashing
        self._rolling = None  # the compiled fold keys by the selector it was given
        return True

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


class LocalCombine(StreamOperator):
    """BATCH: a keyed reduce's producer-side half (Flink's combiner). Elements of the same key
    are folded with the reduce function in a table of at most ``max_keys`` keys; when a new
    key would overflow it, the table's partial results go downstream (to the shuffle) and it
    starts empty; at the end of input the rest goes. Results go out as ``(key, partial)``
    pairs, so a reduce function that changes the key's fields still reaches its key's
    subtask. Elements with timestamps pass uncombined (as pairs): a BATCH reduce folds them
    in timestamp order, which a combiner cannot know.

    Per-record path: one key-selector call, one dict lookup and store, one reduce call; no
    output per element.
    """

    def __init__(
        self,
        context: OperatorContext,
        fn: Any,
        lifecycle: Any,
        output: Emit,
        key_selector: Any,
        max_keys: int,
    ) -> None:
        super().__init__(context, lifecycle)
        self._fn = fn
        self._key = key_selector
        self._output = output
        self._max_keys = max_keys
        self._values: dict[Any, Any] = {}  # owner: task thread

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Fold each element into its key's partial result (timestamped ones pass)."""
        fn = self._fn
        key = self._key
        index = 0
        try:
            if timestamps is not None:
                pairs = []
                for index, v in enumerate(values):  # noqa: B007 - index names the failing record
                    pairs.append((key(v), v))
                self.records_in += len(values)
                self._output(pairs, timestamps)
                return
            reduced = self._values
            get = reduced.get
            missing = _MISSING
            limit = self._max_keys
            for index, v in enumerate(values):  # noqa: B007 - index names the failing record
                k = key(v)
                current = get(k, missing)
                if current is missing:
                    if len(reduced) >= limit:
                        self._flush()
                        reduced = self._values
                        get = reduced.get
                    reduced[k] = v
                else:
                    reduced[k] = fn(current, v)
        except UserFunctionError:
            raise
        except Exception as err:
            hashing = _hashing_selector_for(err, values[index], key)
            if hashing is None:
                raise self.error(index, values) from err
            self._key = hashing  # an unhashable key: hashable forms from now on
            self.records_in += index
            self.process_batch(values[index:], None)
            return
        self.records_in += len(values)

    def _flush(self) -> None:
        if self._values:
            out = list(self._values.items())
            self._values = {}
            self._output(out, None)

    def finish(self) -> None:
        """End of input: the partial results still held."""
        self._flush()
