"""The batching writer of the JDBC sinks (Flink's ``JdbcOutputFormat`` and its statement
executors), shared by the DataStream ``JdbcSink`` and the SQL ``jdbc`` table sink.

::

    write_record ──► executor's batch ──(batch size reached)──► flush
                                       ──(batch interval: a flush thread)─► flush
                                       ──(checkpoint: snapshot_state)─────► flush
                                       ──(end of input: close)────────────► flush

    flush: execute the batch in one transaction, commit ─ failed ─► roll back; the connection
           checked (re-opened when the database dropped it); wait i s; again, up to max-retries

A batch is one transaction: a retry writes it whole again, and nothing of a failed batch is left
behind. Every checkpoint flushes, so a completed checkpoint has everything before it in the
database; after a failure the records since that checkpoint are written again (at-least-once,
as Flink's: an upsert or a delete by key writes the same state twice, an append may duplicate).
When the retries are spent the job fails with one line naming the record the database refused
(found by writing the batch's records one at a time in a transaction rolled back afterwards) and
the database's error.

Executors: ``SimpleBatchStatementExecutor`` runs one statement per record (the DataStream sink's
own SQL, the table sink's INSERT); ``BufferReducedStatementExecutor`` keeps the last change of
each primary key and runs the dialect's upsert for inserts and updates, a DELETE by key for
deletes (Flink's ``TableBufferReducedStatementExecutor``).

Threads: the task thread writes; a flush thread of the writer (only with a batch interval and a
batch size other than 1, as Flink's scheduler ``jdbc-upsert-output-format``) flushes too. Both
take ``_lock``; an error of the flush thread is kept and raised on the task thread by the next
write, flush or close. Per-record path: ``write_record`` converts and appends one record.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from millstream.connectors.jdbc.connection import JdbcConnectionProvider, JdbcOptions
from millstream.connectors.jdbc.errors import JdbcConnectorError, JdbcWriteError, driver_message
from millstream.connectors.jdbc.options import JdbcExecutionOptions

__all__ = [
    "BufferReducedStatementExecutor",
    "JdbcOutputFormat",
    "SimpleBatchStatementExecutor",
    "StatementExecutor",
]

_LOG = logging.getLogger(__name__)
_SHOWN_SQL = 120


class StatementExecutor(Protocol):
    """Collects records and runs their statements (Flink's ``JdbcBatchStatementExecutor``)."""

    statement: str  # the (main) statement, for errors

    def add_to_batch(self, record: Any) -> None:
        """Take a record (converted to its statement's parameters now)."""
        ...

    def execute_batch(self, connection: Any) -> None:
        """Run the batch's statements on ``connection`` (no commit; the batch stays)."""
        ...

    def clear(self) -> None:
        """Forget the batch (it was committed)."""
        ...

    def records(self) -> list[Any]:
        """The batch's records, in the order they run."""
        ...

    def execute_one(self, connection: Any, record: Any) -> None:
        """Run ``record``'s statement alone (to find the one the database refuses)."""
        ...


def _run_many(connection: Any, sql: str, rows: list[tuple[Any, ...]]) -> None:
    if not rows:
        return
    cursor = connection.cursor()
    try:
        cursor.executemany(sql, rows)
    finally:
        cursor.close()


class SimpleBatchStatementExecutor:
    """One statement per record: ``sql`` with the parameters ``to_parameters(record)``."""

    def __init__(self, sql: str, to_parameters: Callable[[Any], tuple[Any, ...]]) -> None:
        self.statement, self._to_parameters = sql, to_parameters
        self._records: list[Any] = []
        self._parameters: list[tuple[Any, ...]] = []

    def add_to_batch(self, record: Any) -> None:
        self._parameters.append(self._to_parameters(record))
        self._records.append(record)

    def execute_batch(self, connection: Any) -> None:
        _run_many(connection, self.statement, self._parameters)

    def clear(self) -> None:
        self._records, self._parameters = [], []

    def records(self) -> list[Any]:
        return list(self._records)

    def execute_one(self, connection: Any, record: Any) -> None:
        _run_many(connection, self.statement, [self._to_parameters(record)])


class BufferReducedStatementExecutor:
    """The last change of each key: an upsert of the row, or a delete of the key.

    Args:
        upsert_sql: the dialect's upsert statement (parameters: the row's columns).
        delete_sql: ``DELETE ... WHERE key = ?`` (parameters: the key's columns).
        key_of: a record's key (hashable).
        is_upsert: whether a record writes its row (+I, +U) or deletes its key (-D, -U).
        row_parameters: a record's row as the upsert's parameters.
        key_parameters: a record's key as the delete's parameters.
    """

    def __init__(
        self,
        upsert_sql: str,
        delete_sql: str,
        key_of: Callable[[Any], Any],
        is_upsert: Callable[[Any], bool],
        row_parameters: Callable[[Any], tuple[Any, ...]],
        key_parameters: Callable[[Any], tuple[Any, ...]],
    ) -> None:
        self.statement, self._delete_sql = upsert_sql, delete_sql
        self._key_of, self._is_upsert = key_of, is_upsert
        self._row_parameters, self._key_parameters = row_parameters, key_parameters
        self._buffer: dict[Any, tuple[bool, Any, tuple[Any, ...]]] = {}

    def add_to_batch(self, record: Any) -> None:
        upsert = self._is_upsert(record)
        parameters = self._row_parameters(record) if upsert else self._key_parameters(record)
        self._buffer[self._key_of(record)] = (upsert, record, parameters)

    def execute_batch(self, connection: Any) -> None:
        upserts = [p for upsert, _, p in self._buffer.values() if upsert]
        deletes = [p for upsert, _, p in self._buffer.values() if not upsert]
        _run_many(connection, self.statement, upserts)
        _run_many(connection, self._delete_sql, deletes)

    def clear(self) -> None:
        self._buffer = {}

    def records(self) -> list[Any]:
        return [record for _, record, _ in self._buffer.values()]

    def execute_one(self, connection: Any, record: Any) -> None:
        if self._is_upsert(record):
            _run_many(connection, self.statement, [self._row_parameters(record)])
        else:
            _run_many(connection, self._delete_sql, [self._key_parameters(record)])


class JdbcOutputFormat:
    """Writes records in batches to a database (see the module docstring).

    Args:
        options: the connection's.
        execution: batch size, batch interval and retries.
        executor_factory: makes the statement executor (in ``open``, on the subtask).
        describe: a record as an error names it (its ``repr`` by default).
    """

    def __init__(
        self,
        options: JdbcOptions,
        execution: JdbcExecutionOptions,
        executor_factory: Callable[[], StatementExecutor],
        describe: Callable[[Any], str] = repr,
    ) -> None:
        self.options, self.execution, self._executor_factory = options, execution, executor_factory
        self._describe = describe
        self._provider = JdbcConnectionProvider(options)
        self._lock = threading.RLock()
        self._executor: StatementExecutor | None = None  # owner: whoever holds _lock
        self._batch_count = 0  # owner: whoever holds _lock
        self._closed = False
        self._failed = False  # a flush failed for good: close writes nothing more
        self._flush_error: BaseException | None = None  # set by the flush thread
        self._stop = threading.Event()
        self._flusher: threading.Thread | None = None
        self.operator = "JdbcSink"

    def open(self, operator: str) -> None:
        """Connect, make the executor and start the flush thread (with a batch interval).

        Raises:
            JdbcConnectorError: the database cannot be reached.
        """
        self.operator = operator
        self._closed, self._failed, self._flush_error, self._batch_count = False, False, None, 0
        self._provider.get_or_establish_connection()
        self._executor = self._executor_factory()
        interval_ms, size = self.execution.get_batch_interval_ms(), self.execution.get_batch_size()
        if interval_ms != 0 and size != 1:
            self._stop = threading.Event()
            self._flusher = threading.Thread(
                target=self._flush_periodically,
                args=(interval_ms / 1000.0,),
                name=f"jdbc-upsert-output-format ({operator})",
                daemon=True,
            )
            self._flusher.start()

    def _flush_periodically(self, interval_s: float) -> None:
        while not self._stop.wait(interval_s):
            with self._lock:
                if self._closed or self._failed or self._flush_error is not None:
                    continue
                try:
                    self._flush()
                except Exception as err:  # raised on the task thread by its next call
                    self._flush_error = err

    def _check_flush_error(self) -> None:
        """Raise the flush thread's error (once: the writer is failed from then on)."""
        error, self._flush_error = self._flush_error, None
        if error is not None:
            self._failed = True
            raise error

    def write_record(self, record: Any) -> None:
        """Add a record to the batch; write the batch once it is full."""
        with self._lock:
            self._check_flush_error()
            executor = self._executor
            assert executor is not None, "open the JdbcOutputFormat before writing"
            executor.add_to_batch(record)
            self._batch_count += 1
            size = self.execution.get_batch_size()
            if 0 < size <= self._batch_count:
                self._flush()

    def flush(self) -> None:
        """Write the batch (a checkpoint's flush)."""
        with self._lock:
            self._check_flush_error()
            self._flush()

    def _flush(self) -> None:
        executor = self._executor
        if executor is None or not self._batch_count:
            return
        retries = self.execution.get_max_retries()
        for attempt in range(retries + 1):
            try:
                connection = self._provider.get_or_establish_connection()
                executor.execute_batch(connection)
                connection.commit()
                executor.clear()
                self._batch_count = 0
                return
            except JdbcConnectorError:
                self._failed = True
                raise
            except Exception as err:
                _LOG.warning(
                    "%s: JDBC batch failed, retry %d of %d: %s",
                    self.operator,
                    attempt,
                    retries,
                    driver_message(err),
                )
                if attempt >= retries:
                    self._failed = True
                    raise self._write_error(executor, err) from err
                self._recover(executor, err)
                time.sleep(attempt)  # Flink waits 1 s x the retry before the next attempt

    def _recover(self, executor: StatementExecutor, err: Exception) -> None:
        """After a failed batch: the connection checked, opened again if it dropped."""
        if self._provider.is_connection_valid():
            return
        try:
            self._provider.reestablish_connection()
        except JdbcConnectorError as reconnect:
            self._failed = True
            raise JdbcWriteError(self.operator, None, str(reconnect), _shown(executor.statement)) from err

    def _write_error(self, executor: StatementExecutor, err: Exception) -> JdbcWriteError:
        """The error of a batch the retries could not write: the record the database refuses."""
        record = None
        if self._provider.is_connection_valid():
            connection = self._provider.connection
            for candidate in executor.records():
                try:
                    executor.execute_one(connection, candidate)
                except Exception as refused:
                    record, err = candidate, refused
                    break
            try:
                connection.rollback()
            except Exception as rollback:
                _LOG.info("%s: rollback after the failed batch failed: %s", self.operator, rollback)
        shown = None if record is None else self._describe(record)
        return JdbcWriteError(self.operator, record, driver_message(err), _shown(executor.statement), shown)

    def close(self) -> None:
        """Write what is left (unless a flush failed), stop the flush thread, disconnect."""
        stop, flusher = self._stop, self._flusher
        stop.set()
        if flusher is not None:
            flusher.join()
            self._flusher = None
        with self._lock:
            try:
                self._check_flush_error()
                if not self._closed and not self._failed:
                    self._flush()
            finally:
                self._closed = True
                self._executor = None
                self._provider.close_connection()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        for transient in ("_lock", "_stop", "_flusher", "_executor", "_flush_error"):
            state.pop(transient, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock, self._stop, self._flusher = threading.RLock(), threading.Event(), None
        self._executor, self._flush_error = None, None


def _shown(sql: str) -> str:
    return sql if len(sql) <= _SHOWN_SQL else sql[: _SHOWN_SQL - 3] + "..."
