"""TaskLocation: which job, operator and subtask something happened in; and errors carrying it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TaskLocation", "UserFunctionError"]


@dataclass(frozen=True, slots=True)
class TaskLocation:
    """Job, task (chain) name, subtask index, parallelism and attempt of a running task."""

    job_name: str
    task_name: str
    subtask_index: int
    parallelism: int
    attempt: int = 0

    def describe(self) -> str:
        """``Map -> Filter (2/4)#0`` as Flink names a subtask."""
        return f"{self.task_name} ({self.subtask_index + 1}/{self.parallelism})#{self.attempt}"


class UserFunctionError(Exception):
    """A user function raised; names the operator, subtask and record position.

    The user's exception is the ``__cause__`` (raised ``from``), so its traceback is kept.
    """

    def __init__(
        self,
        operator_name: str,
        location: TaskLocation,
        record_index: int | None,
        record: object = None,
        message: str = "user function raised",
        detail: BaseException | None = None,
    ) -> None:
        where = f"operator '{operator_name}' in subtask {location.describe()}"
        position = ""
        if record_index is not None:
            preview = repr(record)
            if len(preview) > 200:
                preview = preview[:197] + "..."
            position = f" on record {preview} at input position {record_index} of the subtask"
        # ``detail``: the cause, spelled out where tracebacks lose the chain (Spark's workers)
        cause = f": {type(detail).__name__}: {detail}" if detail is not None else ""
        super().__init__(f"{message}: {where}{position}{cause}")
        self.operator_name = operator_name
        self.location = location
        self.record_index = record_index

    def __str__(self) -> str:
        # an error that says what failed itself (a SQL expression: ``describe_failure``) says it
        describe = getattr(self.__cause__, "describe_failure", None)
        return describe(self.location.describe()) if describe is not None else super().__str__()
