"""Source operators: connector sources (pulled by the task) and legacy SourceFunctions.

A ``SourceOperator`` is pulled by its task's mailbox loop: ``emit_next`` polls the
reader for a batch and pushes it down the chain. A ``LegacySourceOperator`` hands the
task thread to the user's ``run(ctx)``; ``ctx.collect`` batches elements and pushes
them downstream when the batch is full or the buffer timeout has passed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import Enum
from typing import Any

from millstream.runtime.location import UserFunctionError
from millstream.runtime.operators.base import Emit, OperatorContext, StreamOperator

__all__ = ["InputStatus", "LegacySourceOperator", "SourceOperator"]

SOURCE_BATCH = 1024


class InputStatus(Enum):
    """Result of one pull from an input."""

    MORE_AVAILABLE = 0
    NOTHING_AVAILABLE = 1
    END_OF_INPUT = 2


class SourceOperator(StreamOperator):
    """Pulls batches from a connector source's reader."""

    def __init__(self, context: OperatorContext, source: Any, output: Emit, reader_context: Any) -> None:
        super().__init__(context, None)
        self._source = source
        self._output = output
        self._reader_context = reader_context
        self._reader: Any = None
        self.available_at = 0.0

    def open(self) -> None:
        """Create the reader for this subtask."""
        super().open()
        try:
            self._reader = self._source.create_reader(self._reader_context)
        except Exception as err:
            raise UserFunctionError(
                self.name, self.context.location, None, message="creating the source reader failed"
            ) from err

    def emit_next(self) -> InputStatus:
        """Poll one batch and emit it."""
        try:
            batch = self._reader.poll(SOURCE_BATCH)
        except Exception as err:
            raise UserFunctionError(
                self.name,
                self.context.location,
                self.records_in,
                getattr(self._reader, "current_file", None),
                message="source reader failed",
            ) from err
        if batch is None:
            return InputStatus.END_OF_INPUT
        if not batch:
            self.available_at = getattr(self._reader, "available_at", 0.0)
            return InputStatus.NOTHING_AVAILABLE
        self.records_in += len(batch)
        self._output(batch, None)
        return InputStatus.MORE_AVAILABLE

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Sources have no input."""
        raise RuntimeError("a source has no input")

    def close(self) -> None:
        """Close the reader."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        super().close()


class _SourceContext:
    """``SourceFunction.SourceContext``: batches collected elements."""

    def __init__(self, operator: LegacySourceOperator) -> None:
        self._operator = operator
        self._values: list[Any] = []
        self._timestamps: list[int] | None = None

    def collect(self, element: Any) -> None:
        """Emit one element."""
        if self._timestamps is not None:
            self._push()
        self._values.append(element)
        if len(self._values) >= SOURCE_BATCH or time.monotonic() >= self._operator.flush_deadline:
            self._push()

    def collect_with_timestamp(self, element: Any, timestamp: int) -> None:
        """Emit one element with an event timestamp."""
        if self._timestamps is None:
            self._push()
            self._timestamps = []
        self._values.append(element)
        self._timestamps.append(timestamp)
        if len(self._values) >= SOURCE_BATCH or time.monotonic() >= self._operator.flush_deadline:
            self._push()

    def get_checkpoint_lock(self) -> Any:
        """Emission and snapshots run on the task thread; no lock is needed."""
        return _NoLock()

    def _push(self) -> None:
        if self._values:
            values, timestamps = self._values, self._timestamps
            self._values, self._timestamps = [], None
            self._operator.emit(values, timestamps)
        self._operator.on_emitted()


class _NoLock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


class LegacySourceOperator(StreamOperator):
    """Runs a user ``SourceFunction`` on the task thread."""

    def __init__(
        self,
        context: OperatorContext,
        function: Any,
        output: Emit,
        on_emitted: Callable[[], None],
    ) -> None:
        super().__init__(context, function)
        self._function = function
        self._output = output
        self._on_emitted = on_emitted
        self.flush_deadline = float("inf")  # set by the task (buffer timeout)

    def emit(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Push a collected batch down the chain."""
        self.records_in += len(values)
        self._output(values, timestamps)

    def on_emitted(self) -> None:
        """Let the task flush outputs if the buffer timeout passed."""
        self._on_emitted()

    def run(self) -> None:
        """Run the user's ``run(ctx)`` to completion, then emit what is left."""
        ctx = _SourceContext(self)
        try:
            self._function.run(ctx)
        except Exception as err:
            raise UserFunctionError(
                self.name,
                self.context.location,
                self.records_in + len(ctx._values),
                None,
                message="SourceFunction.run raised",
            ) from err
        ctx._push()

    def cancel(self) -> None:
        """Ask the user's ``run`` to return (called from the cancelling thread)."""
        cancel = getattr(self._function, "cancel", None)
        if cancel is not None:
            cancel()

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Sources have no input."""
        raise RuntimeError("a source has no input")
