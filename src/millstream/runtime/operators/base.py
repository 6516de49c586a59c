"""StreamOperator: the lifecycle every operator follows, and how user functions are bound.

Lifecycle (driven by the StreamTask): ``open`` (tail of the chain first, calling the
user's ``open(runtime_context)``), ``process_batch`` for every batch of elements,
``finish`` at the end of input (flush what the operator holds), ``close`` (also after
failure, calling the user's ``close``).

Operators receive batches (``values`` plus parallel ``timestamps`` or None) and call
their output with batches; user functions still see one element at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from millstream.runtime.location import TaskLocation, UserFunctionError

__all__ = [
    "Emit",
    "OperatorContext",
    "StreamOperator",
    "StreamingRuntimeContext",
    "bind_user_function",
]

Emit = Callable[[list[Any], "list[int] | None"], None]


@dataclass
class StreamingRuntimeContext:
    """The RuntimeContext user functions receive in ``open`` (PyFlink's method names)."""

    task_name: str
    subtask_index: int
    parallelism: int
    max_parallelism: int
    attempt_number: int
    job_parameters: dict[str, str] = field(default_factory=dict)
    operator_name: str = ""

    def get_task_name(self) -> str:
        """Name of the task (the operator chain)."""
        return self.task_name

    def get_number_of_parallel_subtasks(self) -> int:
        """Parallelism of the operator."""
        return self.parallelism

    def get_max_number_of_parallel_subtasks(self) -> int:
        """Max parallelism of the operator."""
        return self.max_parallelism

    def get_index_of_this_subtask(self) -> int:
        """0-based subtask index."""
        return self.subtask_index

    def get_attempt_number(self) -> int:
        """0 on the first attempt."""
        return self.attempt_number

    def get_task_name_with_subtasks(self) -> str:
        """``name (i/n)#attempt``."""
        return f"{self.task_name} ({self.subtask_index + 1}/{self.parallelism})#{self.attempt_number}"

    def get_job_parameter(self, key: str, default_value: str) -> str:
        """A global job parameter."""
        return self.job_parameters.get(key, default_value)

    def get_metrics_group(self) -> Any:
        """Metrics are reported per task by the runtime; user metric groups come later."""
        raise NotImplementedError("user metric groups are not supported yet")


@dataclass
class OperatorContext:
    """What an operator needs from its task."""

    name: str
    location: TaskLocation
    runtime_context: StreamingRuntimeContext
    collect_channels: Any = None
    clock: Callable[[], float] | None = None


def bind_user_function(function: Any, method: str | None) -> tuple[Callable[..., Any], Any]:
    """(hot callable, object with open/close or None) for an operator spec's function."""
    if method is None:
        return function, None
    return getattr(function, method), function


class StreamOperator:
    """Base operator: lifecycle with user-function open/close and error attribution."""

    def __init__(self, context: OperatorContext, lifecycle: Any = None) -> None:
        self.context = context
        self.name = context.name
        self._lifecycle = lifecycle
        self.records_in = 0  # owner: task thread
        self._opened = False

    def open(self) -> None:
        """Call the user function's ``open`` with the runtime context."""
        self._opened = True
        if self._lifecycle is not None and hasattr(self._lifecycle, "open"):
            try:
                self._lifecycle.open(self.context.runtime_context)
            except Exception as err:
                raise UserFunctionError(
                    self.name, self.context.location, None, message="open() raised"
                ) from err

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Process a batch of elements."""
        raise NotImplementedError

    def finish(self) -> None:
        """End of input: emit whatever the operator still holds."""

    def close(self) -> None:
        """Call the user function's ``close``."""
        if self._opened and self._lifecycle is not None and hasattr(self._lifecycle, "close"):
            self._opened = False
            try:
                self._lifecycle.close()
            except Exception as err:
                raise UserFunctionError(
                    self.name, self.context.location, None, message="close() raised"
                ) from err

    def error(self, offset: int, values: list[Any]) -> UserFunctionError:
        """The error for a user function that raised on ``values[offset]``."""
        record = values[offset] if 0 <= offset < len(values) else None
        return UserFunctionError(self.name, self.context.location, self.records_in + offset, record)
