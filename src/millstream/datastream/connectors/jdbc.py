"""``pyflink.datastream.connectors.jdbc`` names: ``JdbcSink``, ``JdbcConnectionOptions`` and
``JdbcExecutionOptions``.

::

    ds.add_sink(
        JdbcSink.sink(
            "INSERT INTO books (id, title) VALUES (?, ?)",
            Types.ROW([Types.INT(), Types.STRING()]),
            JdbcConnectionOptions.JdbcConnectionOptionsBuilder()
            .with_url("jdbc:postgresql://localhost:5432/shop").with_driver_name("org.postgresql.Driver")
            .with_user_name("me").with_password("secret").build(),
            JdbcExecutionOptions.builder().with_batch_size(1000).with_batch_interval_ms(200).build(),
        )
    )

The statement is the user's (an INSERT, an UPDATE, an upsert) with JDBC's ``?`` placeholders,
one per field of the record (a ``Row`` or tuple) in order; each field is set as the SQL type its
declared type maps to, as PyFlink's sink does (``JdbcTypeUtil``). The URL picks the Python
driver (``millstream.connectors.jdbc.urls``). Records are written in batches
(``output_format.JdbcOutputFormat``): when the batch is full, when the interval has passed, on
every checkpoint and at the end of input; a failed batch is written again up to the retries,
the connection re-opened if it dropped. That is Flink's at-least-once ``JdbcSink``
(``GenericJdbcSinkFunction``): a SinkFunction, added with ``add_sink``.
"""

from __future__ import annotations

from typing import Any

from millstream.common.typeinfo import RowTypeInfo, TupleTypeInfo, TypeInformation
from millstream.connectors.jdbc.converters import external_row_converter, type_info_data_type
from millstream.connectors.jdbc.dialects import JdbcDialect, to_driver_sql
from millstream.connectors.jdbc.options import JdbcConnectionOptions, JdbcExecutionOptions
from millstream.connectors.jdbc.output_format import JdbcOutputFormat, SimpleBatchStatementExecutor
from millstream.datastream.functions import SinkFunction

__all__ = ["JdbcConnectionOptions", "JdbcExecutionOptions", "JdbcSink"]


class JdbcSink(SinkFunction):
    """A sink writing each record with a statement, in batches (``JdbcSink.sink``); the SQL
    ``jdbc`` table sink is one too, with the table's INSERT or upsert."""

    def __init__(self, output_format: JdbcOutputFormat) -> None:
        self._output_format = output_format

    @staticmethod
    def sink(
        sql: str,
        type_info: TypeInformation,
        jdbc_connection_options: JdbcConnectionOptions,
        jdbc_execution_options: JdbcExecutionOptions | None = None,
    ) -> JdbcSink:
        """A JDBC sink.

        Args:
            sql: any DML statement (insert, update, upsert) with a ``?`` per field.
            type_info: a RowTypeInfo of the records' fields: how each is set on the statement.
            jdbc_connection_options: the URL, the driver's name, the user and password.
            jdbc_execution_options: batch size, batch interval and retries (Flink's defaults:
                5000 records, no interval, 3 retries).

        Raises:
            ValueError: a field type Flink's JDBC sink has no SQL type for.
            JdbcConnectorError: an unsupported URL, or a driver of another database.
        """
        fields = _field_types(type_info)
        options = jdbc_connection_options.options
        dialect = options.dialect()
        statement = to_driver_sql(sql, dialect)
        execution = (
            jdbc_execution_options if jdbc_execution_options is not None else JdbcExecutionOptions.defaults()
        )
        factory = _RecordStatement(statement, dialect, fields)
        return JdbcSink(JdbcOutputFormat(options, execution, factory))

    def open(self, runtime_context: Any) -> None:
        """Connect (and start the batch interval's flushes)."""
        operator = getattr(runtime_context, "operator_name", "") or runtime_context.get_task_name()
        self._output_format.open(operator)

    def invoke(self, value: Any, context: Any) -> None:
        """Add the record to the batch (written when it is full)."""
        self._output_format.write_record(value)

    def snapshot_state(self, context: Any) -> None:
        """A checkpoint: write the batch, so the checkpoint covers every record before it."""
        self._output_format.flush()

    def close(self) -> None:
        """Write what is left and disconnect."""
        self._output_format.close()


def _field_types(type_info: TypeInformation) -> list[TypeInformation]:
    if isinstance(type_info, RowTypeInfo):
        return type_info.get_field_types()
    if isinstance(type_info, TupleTypeInfo):
        return list(type_info.types)
    raise TypeError(f"JdbcSink.sink expects a RowTypeInfo of the records' fields, got {type_info!r}")


class _RecordStatement:
    """Makes the sink's executor on the subtask: the statement, each record's fields converted
    as their declared types say."""

    def __init__(self, statement: str, dialect: JdbcDialect, fields: list[TypeInformation]) -> None:
        self.statement, self.dialect = statement, dialect
        self.types = [type_info_data_type(t) for t in fields]

    def __call__(self) -> SimpleBatchStatementExecutor:
        convert = external_row_converter(self.dialect, self.types)
        width = len(self.types)

        def parameters(record: Any) -> tuple[Any, ...]:
            if len(record) != width:
                raise ValueError(
                    f"JdbcSink: the record {record!r} has {len(record)} fields, the statement's type "
                    f"declares {width}"
                )
            return convert(record)

        return SimpleBatchStatementExecutor(self.statement, parameters)
