"""``TableResult``: what ``Table.execute()`` returns, as ``pyflink.table.TableResult``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from millstream.common.types import Row, RowKind
from millstream.table.print_utils import tableau
from millstream.table.types import DataType

__all__ = ["ResultKind", "TableResult"]

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

    def __init__(self, names: list[str], types: list[DataType], changes: Any, streaming: bool) -> None:
        self._names, self._types = names, types
        self._changes = changes  # iterator of (kind, values): the running job's output
        self._streaming = streaming

    def get_result_kind(self) -> str:
        """Rows were produced."""
        return ResultKind.SUCCESS_WITH_CONTENT

    def get_table_schema(self) -> Any:
        """The result's columns."""
        from millstream.table.table import TableSchema

        return TableSchema(self._names, self._types)

    def collect(self) -> Iterator[Row]:
        """The rows, each with its change kind (``Row.get_row_kind()``) and field names."""
        names = self._names
        for kind, values in self._changes:
            row = Row(*values)
            row.set_field_names(names)
            row.set_row_kind(_KINDS[kind])
            yield row

    def print(self) -> None:
        """Print the rows as Flink's tableau (with the ``op`` column when streaming), as they
        come."""
        if self._streaming:
            lines = tableau(self._names, self._types, self._changes, with_kinds=True)
        else:
            lines = tableau(self._names, self._types, (values for _, values in self._changes))
        for line in lines:
            print(line, flush=True)

    def wait(self, timeout_ms: int | None = None) -> None:
        """Wait for the job to end (reading and discarding its rows)."""
        for _ in self._changes:
            pass
