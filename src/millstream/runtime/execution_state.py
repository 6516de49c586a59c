"""ExecutionState: the states of a task attempt, with the allowed transitions."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from millstream.runtime.rpc.serialized_throwable import dumps_exception, loads_exception

__all__ = ["ExecutionState", "IllegalStateTransitionError", "TaskExecutionState", "check_transition"]


class ExecutionState(Enum):
    """Flink's execution states."""

    CREATED = "CREATED"
    SCHEDULED = "SCHEDULED"
    DEPLOYING = "DEPLOYING"
    INITIALIZING = "INITIALIZING"
    RUNNING = "RUNNING"
    FINISHED = "FINISHED"
    CANCELING = "CANCELING"
    CANCELED = "CANCELED"
    FAILED = "FAILED"

    @property
    def is_terminal(self) -> bool:
        """FINISHED, CANCELED or FAILED."""
        return self in _TERMINAL


_TERMINAL = frozenset({ExecutionState.FINISHED, ExecutionState.CANCELED, ExecutionState.FAILED})

_NEXT: dict[ExecutionState, frozenset[ExecutionState]] = {
    ExecutionState.CREATED: frozenset(
        {
            ExecutionState.SCHEDULED,
            ExecutionState.DEPLOYING,
            ExecutionState.CANCELED,
            ExecutionState.FAILED,
        }
    ),
    ExecutionState.SCHEDULED: frozenset(
        {ExecutionState.DEPLOYING, ExecutionState.CANCELED, ExecutionState.FAILED}
    ),
    ExecutionState.DEPLOYING: frozenset(
        {
            ExecutionState.INITIALIZING,
            ExecutionState.CANCELING,
            ExecutionState.CANCELED,
            ExecutionState.FAILED,
        }
    ),
    ExecutionState.INITIALIZING: frozenset(
        {ExecutionState.RUNNING, ExecutionState.CANCELING, ExecutionState.FAILED}
    ),
    ExecutionState.RUNNING: frozenset(
        {ExecutionState.FINISHED, ExecutionState.CANCELING, ExecutionState.FAILED}
    ),
    ExecutionState.CANCELING: frozenset({ExecutionState.CANCELED, ExecutionState.FAILED}),
    ExecutionState.FINISHED: frozenset(),
    ExecutionState.CANCELED: frozenset(),
    ExecutionState.FAILED: frozenset(),
}


class IllegalStateTransitionError(RuntimeError):
    """A transition the state machine does not allow."""


def check_transition(current: ExecutionState, target: ExecutionState) -> None:
    """Raise unless ``current -> target`` is allowed."""
    if target not in _NEXT[current]:
        raise IllegalStateTransitionError(f"illegal transition {current.value} -> {target.value}")


@dataclass(frozen=True, slots=True)
class TaskExecutionState:
    """A state change of one attempt, reported to the JobMaster."""

    execution_attempt_id: str
    state: ExecutionState
    error: BaseException | None = None
    # a terminal state's final task metrics (records and bytes in/out), as Flink's IOMetrics
    metrics: dict[str, Any] | None = None

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # The error crosses processes with its traceback and cause chain.
        error = dumps_exception(self.error) if self.error is not None else None
        return (_rebuild_state, (self.execution_attempt_id, self.state, error, self.metrics))


def _rebuild_state(
    attempt: str, state: ExecutionState, error: bytes | None, metrics: dict[str, Any] | None = None
) -> TaskExecutionState:
    return TaskExecutionState(attempt, state, loads_exception(error) if error is not None else None, metrics)
