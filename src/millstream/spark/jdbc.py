"""The ``jdbc`` table on Spark SQL: read and written through a PySpark Python data source
(``pyspark.sql.datasource``, PySpark 4), since Spark's own JDBC source needs the Java drivers'
jars, which millstream does not ship. The data source runs millstream's JDBC layer
(``millstream.connectors.jdbc``) on the executors: the same URLs, drivers, dialects and type
conversions as the embedded runtime.

::

    SELECT ... FROM jdbc_table      ->  spark.read.format("millstream_jdbc")   one input partition
                                        per split of the scan (a partitioned scan's ranges), the
                                        projection and pushed filters in its query
    INSERT INTO jdbc_table SELECT   ->  frame.write.format("millstream_jdbc")  each partition
                                        written in batches (an INSERT per row, or the dialect's
                                        upsert with a PRIMARY KEY), as the JDBC sink writes

What the data source reads or writes travels in its one option, ``plan``: the planned scan
(``JdbcSource``) or the sink's statements and batching, pickled. Coordinating code, except
``read`` and ``write`` (per row: one conversion).
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import cloudpickle

from millstream.connectors.jdbc.connection import JdbcConnectionProvider
from millstream.connectors.jdbc.converters import internal_row_converter
from millstream.connectors.jdbc.output_format import JdbcOutputFormat
from millstream.connectors.jdbc.source import JdbcSource
from millstream.table.common.row_kind import INSERT
from millstream.table.connectors.jdbc import JdbcTableSink, JdbcTableSource

__all__ = ["DATA_SOURCE", "read_jdbc", "write_jdbc"]

DATA_SOURCE = "millstream_jdbc"


def _encode(value: Any) -> str:
    return base64.b64encode(cloudpickle.dumps(value)).decode("ascii")


def _decode(text: str) -> Any:
    return cloudpickle.loads(base64.b64decode(text))


@dataclass(frozen=True)
class _Write:
    """What the writer of a partition needs: the sink's writer (unopened) and its name."""

    output_format: JdbcOutputFormat
    name: str


def _data_source() -> Any:
    """The data source class (PySpark's base classes are optional: the [spark] extra)."""
    # pyspark is optional (the [spark] extra): imported when the Spark runner runs a job
    from pyspark.sql.datasource import (
        DataSource,
        DataSourceReader,
        DataSourceWriter,
        InputPartition,
        WriterCommitMessage,
    )

    class JdbcReader(DataSourceReader):
        """Reads a planned JDBC scan, one input partition per split."""

        def __init__(self, source: JdbcSource) -> None:
            self.source = source

        def partitions(self) -> list[Any]:
            return [InputPartition(i) for i in range(len(self.source.splits))]

        def read(self, partition: Any) -> Iterator[tuple[Any, ...]]:
            yield from read_split(self.source, partition.value)

    class JdbcWriter(DataSourceWriter):
        """Writes each partition's rows through the JDBC sink's batching writer."""

        def __init__(self, write: _Write) -> None:
            self.write_plan = write

        def write(self, iterator: Iterator[Any]) -> Any:
            write_rows(self.write_plan, iterator)
            return WriterCommitMessage()

    class JdbcDataSource(DataSource):
        """``millstream_jdbc``: a JDBC table of millstream's planner (the ``plan`` option)."""

        @classmethod
        def name(cls) -> str:
            return DATA_SOURCE

        def reader(self, schema: Any) -> Any:
            return JdbcReader(_decode(self.options["plan"]))

        def writer(self, schema: Any, overwrite: bool) -> Any:
            return JdbcWriter(_decode(self.options["plan"]))

    return JdbcDataSource


def read_split(source: JdbcSource, index: int) -> Iterator[tuple[Any, ...]]:
    """The rows of split ``index`` of ``source``, as Spark takes them (bytes for BINARY)."""
    split = source.splits[index]
    dialect = source.options.dialect()
    provider = JdbcConnectionProvider(source.options)
    convert = internal_row_converter(dialect, list(source.types))
    try:
        cursor = provider.get_or_establish_connection().cursor()
        try:
            cursor.execute(source.query, split.parameters)
            while rows := cursor.fetchmany(source.fetch_size or 1000):
                for row in rows:
                    yield convert(row)
        finally:
            cursor.close()
    finally:
        provider.close_connection()


def write_rows(write: _Write, rows: Iterator[Any]) -> None:
    """Write a partition's rows (Spark Rows: values by position) as inserted rows."""
    output_format = write.output_format
    output_format.open(write.name)
    try:
        for row in rows:
            output_format.write_record(
                (INSERT, tuple(bytes(v) if isinstance(v, bytearray) else v for v in row))
            )
    finally:
        output_format.close()


def read_jdbc(source: JdbcTableSource, spark: Any, schema: Any) -> Any:
    """The DataFrame of a jdbc table's scan (its projection, filters and splits)."""
    spark.dataSource.register(_data_source())
    return spark.read.format(DATA_SOURCE).schema(schema).option("plan", _encode(source.scan_source())).load()


def write_jdbc(frame: Any, table_sink: JdbcTableSink) -> None:
    """Write ``frame`` (a bounded query's final rows) into a jdbc table sink."""
    spark = frame.sparkSession
    spark.dataSource.register(_data_source())
    plan = _Write(table_sink.output_format(), f"JdbcSink-{table_sink.context.name}")
    frame.write.format(DATA_SOURCE).mode("append").option("plan", _encode(plan)).save()
