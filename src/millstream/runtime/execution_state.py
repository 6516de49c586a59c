"""ExecutionState: the states of a task attempt, with the allowed transitions."""

from __future__ import annotations

from enum import Enum

__all__ = ["ExecutionState", "IllegalStateTransitionError", "check_transition"]


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
