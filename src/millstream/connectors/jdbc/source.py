"""The bounded scan of a JDBC table (Flink's ``JdbcSource`` as the ``jdbc`` table's scan
provider): one query, or one per range of a partitioned scan, each a split.

::

    SELECT a, b FROM t [WHERE (k BETWEEN ? AND ?) AND (pushed filters)]     one split per range
        subtask i of p reads splits i, i + p, i + 2p ...  (as the Spark runner deals them too)
        a split: its query's rows fetched ``scan.fetch-size`` at a time, converted to the
        columns' Flink values, emitted as (+I, row)

A reader's checkpointed state is its splits still to read and the rows of the current one
already emitted: restored, it runs the current split's query again and skips those rows (the
database must return them in the same order, as Flink's JDBC source assumes). With
``scan.fetch-size`` and ``scan.auto-commit`` = false, PostgreSQL reads through a server-side
cursor (the rows of a large table are not all held at once; with auto-commit the PostgreSQL
JDBC driver ignores the fetch size too) and MySQL unbuffered. Per-record path: one converter
call per row.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from millstream.common.connector import ReaderContext
from millstream.connectors.base import check_reader_state_version
from millstream.connectors.jdbc.connection import JdbcConnectionProvider, JdbcOptions, set_autocommit
from millstream.connectors.jdbc.converters import internal_row_converter
from millstream.connectors.jdbc.errors import JdbcConnectorError, driver_message
from millstream.table.common.row_kind import INSERT
from millstream.table.common.types import DataType

__all__ = ["JdbcSource", "JdbcSourceReader", "JdbcSplit"]

_DEFAULT_FETCH = 1000  # rows per fetch when scan.fetch-size is 0 (the driver's own hint)
_cursor_names = itertools.count()


@dataclass(frozen=True, slots=True)
class JdbcSplit:
    """One query of a scan: its number and its parameters (a range's bounds, pushed filters')."""

    index: int
    parameters: tuple[Any, ...] = ()


@dataclass(frozen=True)
class JdbcSource:
    """A bounded source of a JDBC query's rows, as ``(+I, row)`` changes.

    Attributes:
        options: the connection's.
        query: the SELECT, with the dialect's placeholders for each split's parameters.
        types: the Flink types of its columns.
        splits: the queries' parameters (one split: the whole table).
        table: the table's name (errors).
        fetch_size: ``scan.fetch-size`` (0: the driver's default).
        auto_commit: ``scan.auto-commit``.
    """

    options: JdbcOptions
    query: str
    types: tuple[DataType, ...]
    splits: tuple[JdbcSplit, ...] = (JdbcSplit(0),)
    table: str = ""
    fetch_size: int = 0
    auto_commit: bool = True

    def is_bounded(self) -> bool:
        """A scan ends."""
        return True

    def create_reader(self, context: ReaderContext) -> JdbcSourceReader:
        """The reader of splits ``subtask``, ``subtask + parallelism`` ..."""
        mine = self.splits[context.subtask_index :: context.parallelism]
        return JdbcSourceReader(self, list(mine))

    def rescale_reader_states(self, states: list[Any], parallelism: int) -> list[Any]:
        """The old readers' unread splits (the current one from its start) dealt round-robin."""
        splits: list[Any] = []
        for state in states:
            if state is not None:
                check_reader_state_version(state)
                splits.extend(state["splits"])
        return [
            {"version": 1, "splits": splits[index::parallelism], "offset": 0} for index in range(parallelism)
        ]


class JdbcSourceReader:
    """Reads its splits one after the other through one connection."""

    def __init__(self, source: JdbcSource, splits: list[JdbcSplit]) -> None:
        self._source = source
        self._splits = list(splits)  # owner: task thread; the first is being read
        self._offset = 0  # rows of the first split emitted
        self._provider = JdbcConnectionProvider(source.options)
        self._cursor: Any = None
        self._convert = internal_row_converter(source.options.dialect(), list(source.types))
        self.available_at = 0.0

    def poll(self, max_records: int) -> list[Any] | None:
        """The next rows of the current split ([] between splits); None when all are read."""
        if self._cursor is None:
            if not self._splits:
                return None
            self._open_split(self._splits[0])
        try:
            rows = self._cursor.fetchmany(max_records)
        except Exception as err:
            raise self._error(err) from err
        if not rows:
            self._close_cursor()
            self._splits.pop(0)
            self._offset = 0
            return []
        self._offset += len(rows)
        convert = self._convert
        return [(INSERT, convert(row)) for row in rows]

    def _open_split(self, split: JdbcSplit) -> None:
        source = self._source
        connection = self._provider.get_or_establish_connection()
        try:
            self._cursor = _cursor(connection, source.options.dialect().database, source)
            self._cursor.execute(source.query, split.parameters)
            skip = self._offset
            while skip > 0:  # restored mid-split: the rows emitted before the checkpoint
                done = self._cursor.fetchmany(min(skip, 10_000))
                if not done:
                    break
                skip -= len(done)
        except Exception as err:
            raise self._error(err) from err

    def _error(self, err: Exception) -> JdbcConnectorError:
        source = self._source
        return JdbcConnectorError(
            f"Reading the JDBC table '{source.table}' of '{source.options.parsed_url().shown()}' failed: "
            f"{driver_message(err)}"
        )

    def snapshot_state(self) -> dict[str, Any]:
        """The splits still to read and the current one's rows emitted."""
        return {"version": 1, "splits": list(self._splits), "offset": self._offset}

    def restore_state(self, state: dict[str, Any]) -> None:
        """Read the checkpointed splits, skipping the rows emitted of the first."""
        check_reader_state_version(state)
        self._splits = list(state["splits"])
        self._offset = int(state["offset"])

    def _close_cursor(self) -> None:
        cursor, self._cursor = self._cursor, None
        if cursor is None:
            return
        try:
            cursor.close()
            self._provider.connection.rollback()  # end the read's transaction
        except Exception as err:
            raise self._error(err) from err

    def close(self) -> None:
        """Close the cursor and the connection."""
        try:
            self._close_cursor()
        finally:
            self._provider.close_connection()


def _cursor(connection: Any, database: str, source: JdbcSource) -> Any:
    """A cursor reading ``fetch_size`` rows at a time where the database can (see the module)."""
    streaming = source.fetch_size > 0 and not source.auto_commit
    set_autocommit(connection, database, source.auto_commit)
    if database == "postgresql":
        if streaming:
            cursor = connection.cursor(name=f"millstream_scan_{next(_cursor_names)}")
            cursor.itersize = source.fetch_size
            return cursor
        return connection.cursor()
    if database == "mysql":
        if streaming:
            # PyMySQL is optional (the [mysql] extra): its unbuffered cursor
            from pymysql.cursors import SSCursor

            return connection.cursor(SSCursor)
        return connection.cursor()
    cursor = connection.cursor()
    cursor.arraysize = source.fetch_size or _DEFAULT_FETCH
    return cursor
