"""How the JDBC connector fails: one line naming the URL, the table, the operator and subtask,
and the record, with the database's own first line of the error (a driver's message may run
over several lines: ``LINE 1: SELECT ...`` and a caret, which a one-line error leaves to
``--verbose``)."""

from __future__ import annotations

from typing import Any

__all__ = ["JdbcConnectorError", "JdbcWriteError", "driver_message"]

_PREVIEW = 200


def driver_message(err: BaseException) -> str:
    """The first line of a driver's error, with its class (``UndefinedTable: relation "x"
    does not exist``)."""
    text = str(err).strip()
    line = text.splitlines()[0].strip() if text else ""
    return f"{type(err).__name__}: {line}" if line else type(err).__name__


def _preview(record: Any) -> str:
    text = repr(record)
    return text if len(text) <= _PREVIEW else text[: _PREVIEW - 3] + "..."


class JdbcConnectorError(RuntimeError):
    """A JDBC URL, driver, connection or statement that does not work; the message is one
    line that says which and why."""

    def describe_failure(self, subtask: str) -> str:
        """The line of the failed job (read by the runtime's error of a failed function or
        source): what failed, then the subtask (its chain names the operator)."""
        return f"{self} (subtask {subtask})"


class JdbcWriteError(JdbcConnectorError):
    """Writing a batch of records failed after the retries (Flink's "Writing records to JDBC
    failed."): names the record the database refused when it could be found, the statement's
    table and the database's error. In a job's failure it names the operator and subtask too
    (``describe_failure``, read by the runtime's error of a failed function)."""

    def __init__(
        self, operator: str, record: Any, cause: str, statement: str, shown: str | None = None
    ) -> None:
        where = f" on the record {_preview(record) if shown is None else shown}" if record is not None else ""
        super().__init__(f"Writing records to JDBC failed{where} ({statement}): {cause}")
        self.operator, self.record, self.cause, self.statement = operator, record, cause, statement
        self.shown = shown

    def describe_failure(self, subtask: str) -> str:
        """The line of the failed job: the operator and subtask, then what failed."""
        return f"{self} (operator '{self.operator}' in subtask {subtask})"

    def __reduce__(self) -> Any:
        return (JdbcWriteError, (self.operator, self.record, self.cause, self.statement, self.shown))
