"""``TableResult``: what ``Table.execute()`` returns, as ``pyflink.table.TableResult``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.common.types import Row, RowKind
from millstream.table.api.table_schema import TableSchema
from millstream.table.catalog.resolved_schema import ResolvedSchema
from millstream.table.common.printing import tableau
from millstream.table.common.types import ArrayType, DataType, DataTypes, MapType, RowType

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
        self,
        names: list[str],
        types: list[DataType],
        changes: Any,
        streaming: bool,
        job_client: Any = None,
        detached: bool = False,
    ) -> None:
        self._names, self._types = names, types
        self._changes = changes  # iterator of (kind, values): the running job's output
        self._streaming = streaming
        self._job_client = job_client  # an INSERT's job
        self._detached = detached  # millstream run --detached: the client let go of the job
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
    _max_column_width = 30  # table.display.max-column-width: print()'s width of a STRING column ...

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
        """The rows, each with its change kind (``Row.get_row_kind()``) and, as PyFlink's, no
        field names (``row[0]``; a row prints ``<Row(1, 'a')>``); ``with result.collect() as
        rows:`` releases the job when left early, as PyFlink's."""
        return CloseableIterator(self._types, self._changes)

    def print(self) -> None:
        """Print the rows as Flink's tableau (with the ``op`` column when streaming), as they
        come."""
        if self._kind == ResultKind.SUCCESS:
            print("OK", flush=True)
            return
        if self._raw is not None:
            print(self._raw, flush=True)
            return
        width = self._max_column_width
        if self._streaming:
            lines = tableau(self._names, self._types, self._changes, with_kinds=True, max_width=width)
        else:
            rows = (values for _, values in self._changes)
            content = self._content_widths
            lines = tableau(self._names, self._types, rows, content_widths=content, max_width=width)
        try:
            for line in lines:
                print(line, flush=True)
        except BaseException:
            self._release()  # the job stops, and its embedded cluster with it
            raise

    def _release(self) -> None:
        """Stop the job producing the rows (when it still runs) and release it."""
        close = getattr(self._changes, "close", None)
        if close is not None:
            close()

    def wait(self, timeout_ms: int | None = None) -> None:
        """Wait for the job to end (an INSERT's; a query's rows are read and dropped). In
        detached mode (``millstream run --detached``) return at once and leave the INSERT's job
        running on its cluster, as Flink's CLI returns after the submission."""
        client = self._job_client
        if client is not None and self._detached:
            return  # the client let go of the job when it was submitted
        if client is not None:
            if timeout_ms is None and hasattr(client, "run_to_completion"):
                client.run_to_completion()  # and release the embedded cluster
            else:
                client.get_job_execution_result(None if timeout_ms is None else timeout_ms / 1000)
            return
        for _ in self._changes:
            pass


class CloseableIterator:
    """The rows of a result; ``close()`` (or leaving a ``with`` block) ends the job early.

    Each row is built as PyFlink's ``CloseableIterator`` builds it: ``Row(*fields)`` with the
    change's RowKind, without field names, nested ROW values likewise (PyFlink 2.3.0 prints
    ``<Row(datetime.datetime(2024, 1, 1, 10, 0), 'alice', 6, 420.37)>``; ``row.user_name``
    raises AttributeError there)."""

    def __init__(self, types: list[DataType], changes: Any) -> None:
        self._changes = changes
        converters = [_unnamed(t) for t in types]
        self._converters = None if all(c is None for c in converters) else [c or _same for c in converters]

    def __iter__(self) -> CloseableIterator:
        return self

    def __next__(self) -> Row:
        kind, values = next(self._changes)
        converters = self._converters
        if converters is not None:
            values = [None if v is None else c(v) for c, v in zip(converters, values, strict=True)]
        row = Row(*values)
        row.set_row_kind(_KINDS[kind])
        return row

    def next(self) -> Row:
        """The next row (PyFlink's name for ``next(iterator)``)."""
        return self.__next__()

    def close(self) -> None:
        """Stop reading: the job producing the rows is released."""
        close = getattr(self._changes, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> CloseableIterator:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _same(value: Any) -> Any:
    return value


def _unnamed(data_type: DataType) -> Callable[[Any], Any] | None:
    """How a value of ``data_type`` is handed out: ROW values (also inside arrays and maps) as
    Rows without field names; None when the value is handed out as it is."""
    if isinstance(data_type, RowType):
        fields = [_unnamed(t) or _same for t in data_type.field_types()]

        def row(value: Any) -> Row:
            return Row(*[None if v is None else f(v) for f, v in zip(fields, value, strict=True)])

        return row
    if isinstance(data_type, ArrayType):
        element = _unnamed(data_type.element_type)
        return None if element is None else (lambda value: [None if v is None else element(v) for v in value])
    if isinstance(data_type, MapType):
        key, item = _unnamed(data_type.key_type) or _same, _unnamed(data_type.value_type) or _same
        if key is _same and item is _same:
            return None
        return lambda value: {key(k): None if v is None else item(v) for k, v in value.items()}
    return None
