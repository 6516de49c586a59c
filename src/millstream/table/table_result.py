"""``TableResult``: what ``Table.execute()`` returns, as ``pyflink.table.TableResult``."""

from __future__ import annotations

from typing import Any

from millstream.common.types import Row, RowKind
from millstream.table.catalog import ResolvedSchema
from millstream.table.print_utils import tableau
from millstream.table.table_schema import TableSchema
from millstream.table.types import DataType, DataTypes

__all__ = ["CloseableIterator", "ResultKind", "TableResult"]

_KINDS = {"+I": RowKind.INSERT, "-U": RowKind.UPDATE_BEFORE, "+U": RowKind.UPDATE_AFTER, "-D": RowKind.DELETE}


class ResultKind:
    """What a statement returned: rows, or only success (DDL)."""

    SUCCESS = "SUCCESS"
    SUCCESS_WITH_CONTENT = "SUCCESS_WITH_CONTENT"


class TableResult:
    """The rows of an executed table, read once: ``collect()`` or ``print()``.

    The job runs as the rows are read (streaming results arrive as the job produces them);
    ``streaming``: the rows carry their change kinds and print with the ``op`` column.
    """

    def __init__(
        self, names: list[str], types: list[DataType], changes: Any, streaming: bool, job_client: Any = None
    ) -> None:
        self._names, self._types = names, types
        self._changes = changes  # iterator of (kind, values): the running job's output
        self._streaming = streaming
        self._job_client = job_client  # an INSERT's job
        self._kind = ResultKind.SUCCESS_WITH_CONTENT

    @staticmethod
    def ok() -> TableResult:
        """The result of a DDL statement (it prints ``OK``)."""
        result = TableResult(["result"], [DataTypes.STRING()], iter([("+I", ("OK",))]), False)
        result._kind = ResultKind.SUCCESS
        return result

    @staticmethod
    def raw(text: str) -> TableResult:
        """A result of one ``result`` row that prints as the text itself (EXPLAIN's, as Flink
        prints a plan)."""
        result = TableResult(["result"], [DataTypes.STRING()], iter([("+I", (text,))]), False)
        result._raw = text
        return result

    _raw: str | None = None
    _content_widths = False  # columns as wide as their cells (a SHOW statement's result)

    def get_job_client(self) -> Any:
        """The job of an INSERT (None for a query)."""
        return self._job_client

    def get_result_kind(self) -> str:
        """Rows were produced (SUCCESS_WITH_CONTENT), or a statement only succeeded (SUCCESS)."""
        return self._kind

    def get_table_schema(self) -> TableSchema:
        """The result's columns (the legacy ``TableSchema``)."""
        return TableSchema(self._names, self._types)

    def get_resolved_schema(self) -> ResolvedSchema:
        """The result's columns."""
        return ResolvedSchema(self._names, self._types)

    def collect(self) -> CloseableIterator:
        """The rows, each with its change kind (``Row.get_row_kind()``) and field names;
        ``with result.collect() as rows:`` releases the job when left early, as PyFlink's."""
        return CloseableIterator(self._names, self._changes)

    def print(self) -> None:
        """Print the rows as Flink's tableau (with the ``op`` column when streaming), as they
        come."""
        if self._kind == ResultKind.SUCCESS:
            print("OK", flush=True)
            return
        if self._raw is not None:
            print(self._raw, flush=True)
            return
        if self._streaming:
            lines = tableau(self._names, self._types, self._changes, with_kinds=True)
        else:
            rows = (values for _, values in self._changes)
            lines = tableau(self._names, self._types, rows, content_widths=self._content_widths)
        for line in lines:
            print(line, flush=True)

    def wait(self, timeout_ms: int | None = None) -> None:
        """Wait for the job to end (an INSERT's; a query's rows are read and dropped)."""
        client = self._job_client
        if client is not None:
            if timeout_ms is None and hasattr(client, "run_to_completion"):
                client.run_to_completion()  # and release the embedded cluster
            else:
                client.get_job_execution_result(None if timeout_ms is None else timeout_ms / 1000)
            return
        for _ in self._changes:
            pass


class CloseableIterator:
    """The rows of a result; ``close()`` (or leaving a ``with`` block) ends the job early."""

    def __init__(self, names: list[str], changes: Any) -> None:
        self._names = names
        self._changes = changes

    def __iter__(self) -> CloseableIterator:
        return self

    def __next__(self) -> Row:
        kind, values = next(self._changes)
        row = Row(*values)
        row.set_field_names(self._names)
        row.set_row_kind(_KINDS[kind])
        return row

    def close(self) -> None:
        """Stop reading: the job producing the rows is released."""
        close = getattr(self._changes, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> CloseableIterator:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
