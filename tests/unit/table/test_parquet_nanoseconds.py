"""TIMESTAMP(9) and TIMESTAMP_LTZ(9) values keep their nanoseconds through a Parquet file (and
a CSV one), on the row path and the columnar one.

Flink's Parquet writer (flink-formats/flink-parquet, ``ParquetRowDataWriter``) writes a
timestamp of any precision as an INT96 of the Julian day and the nanoseconds of the day by
default ("mapping timestamp type to int96 whatever the precision is", the format's docs),
so a TIMESTAMP(9) keeps its nanoseconds; millstream writes it as Parquet's INT64
TIMESTAMP(NANOS) (``DataType.to_arrow``: ``timestamp[ns]`` above precision 6, ``[us]`` up to 6,
``[ms]`` up to 3). Before, every precision above 3 was ``timestamp[us]``: ``TIMESTAMP
'2024-01-02 03:04:05.123456789'`` read back as ``...05.123456000``, and two values 1 ns
apart compared equal.

PyFlink 2.3.0 reads the CSV line ``1,2024-01-02 03:04:05.123456789,2024-01-02
03:04:05.123456789Z`` of a table ``(i INT, a TIMESTAMP(9), b TIMESTAMP_LTZ(9))`` and prints
``1 | 2024-01-02 03:04:05.123456789 | 2024-01-02 03:04:05.123456789 | 2024-01-02
03:04:05.123456789`` for ``SELECT i, a, CAST(a AS STRING), b`` (UTC); millstream printed
``...05.123456000`` for each.
"""

from __future__ import annotations

import datetime
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from millstream.common.types import Row
from millstream.connectors.formats.parquet import ParquetBulkWriters, ParquetColumnarRowInputFormat
from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value
from millstream.table.common.timestamps import nano_of_second, with_nano_of_second
from millstream.table.common.types import DataTypes

NANOS = "2024-01-02 03:04:05.123456789"


def _t_env() -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    return t_env


def _printed(t_env: TableEnvironment, sql: str) -> list[list[str]]:
    """The cells ``print()`` shows for ``sql``'s rows."""
    table = t_env.sql_query(sql)
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        return [[format_value(t, v) for t, v in zip(types, row, strict=True)] for row in rows]


@pytest.mark.parametrize(
    ("data_type", "unit"),
    [
        (DataTypes.TIMESTAMP(0), "ms"),
        (DataTypes.TIMESTAMP(3), "ms"),
        (DataTypes.TIMESTAMP(6), "us"),
        (DataTypes.TIMESTAMP(), "us"),
        (DataTypes.TIMESTAMP(7), "ns"),
        (DataTypes.TIMESTAMP(9), "ns"),
        (DataTypes.TIMESTAMP_LTZ(9), "ns"),
    ],
)
def test_a_timestamp_is_held_in_the_unit_of_its_precision(data_type: object, unit: str) -> None:
    arrow = data_type.to_arrow()  # type: ignore[attr-defined]
    assert arrow.unit == unit
    assert (arrow.tz == "UTC") is (data_type.root == "TIMESTAMP_LTZ")  # type: ignore[attr-defined]


def test_nanoseconds_go_through_a_parquet_file(tmp_path: Path) -> None:
    t_env = _t_env()
    t_env.execute_sql(
        "CREATE TABLE p (i INT, a TIMESTAMP(9), b TIMESTAMP_LTZ(9), c TIMESTAMP(3), e TIMESTAMP(6)) WITH ("
        f"'connector' = 'filesystem', 'path' = '{tmp_path}', 'format' = 'parquet')"
    )
    t_env.execute_sql(
        f"INSERT INTO p VALUES (1, TIMESTAMP '{NANOS}', CAST(TIMESTAMP '{NANOS}' AS TIMESTAMP_LTZ(9)), "
        f"TIMESTAMP '{NANOS}', TIMESTAMP '{NANOS}'), (2, TIMESTAMP '1900-01-02 03:04:05.000000001', "
        "CAST(NULL AS TIMESTAMP_LTZ(9)), CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS TIMESTAMP(6)))"
    ).wait()
    (written,) = tmp_path.glob("part-*")
    schema = pq.read_schema(written)
    assert [str(schema.field(n).type) for n in "abce"] == [
        "timestamp[ns]",
        "timestamp[ns, tz=UTC]",
        "timestamp[ms]",
        "timestamp[us]",
    ]
    assert _printed(t_env, "SELECT * FROM p") == [
        ["1", NANOS, NANOS, "2024-01-02 03:04:05.123", "2024-01-02 03:04:05.123456"],
        ["2", "1900-01-02 03:04:05.000000001", "<NULL>", "<NULL>", "<NULL>"],
    ]
    # one nanosecond apart: not equal
    later = "TIMESTAMP '2024-01-02 03:04:05.123456788'"
    assert _printed(
        t_env, f"SELECT i FROM p WHERE a > {later} AND b > CAST({later} AS TIMESTAMP_LTZ(9))"
    ) == [["1"]]


def test_nanoseconds_go_through_a_csv_file(tmp_path: Path) -> None:
    # PyFlink 2.3.0 prints the nanoseconds of each (see the module's docstring)
    (tmp_path / "a.csv").write_text(f"1,{NANOS},{NANOS}Z\n2,2024-01-02 03:04:05.1,2024-01-02 03:04:05Z\n")
    t_env = _t_env()
    t_env.execute_sql(
        "CREATE TABLE c (i INT, a TIMESTAMP(9), b TIMESTAMP_LTZ(9)) WITH ("
        f"'connector' = 'filesystem', 'path' = '{tmp_path}', 'format' = 'csv')"
    )
    assert _printed(t_env, "SELECT i, a, CAST(a AS STRING), b FROM c") == [
        ["1", NANOS, NANOS, NANOS],
        [
            "2",
            "2024-01-02 03:04:05.100000000",
            "2024-01-02 03:04:05.100000000",
            "2024-01-02 03:04:05.000000000",
        ],
    ]


def test_the_datastream_parquet_formats_keep_nanoseconds(tmp_path: Path) -> None:
    # ParquetBulkWriters (FileSink) and ParquetColumnarRowInputFormat (FileSource) of PyFlink's
    # pyflink.datastream.formats.parquet, over the same rows
    row_type = DataTypes.ROW(
        [DataTypes.FIELD("a", DataTypes.TIMESTAMP(9)), DataTypes.FIELD("b", DataTypes.TIMESTAMP_LTZ(9))]
    )
    value = with_nano_of_second(datetime.datetime(2024, 1, 2, 3, 4, 5), 123456789)
    path = str(tmp_path / "rows.parquet")
    writer = ParquetBulkWriters.for_row_type(row_type).create(path)
    writer.add_batch([Row(value, value), Row(None, None)])
    writer.finish()
    fmt = ParquetColumnarRowInputFormat(row_type)
    reader = fmt.create_reader(fmt.units(path, 0))
    rows = reader.poll(10)
    reader.close()
    assert [tuple(r) for r in rows or []] == [(value, value), (None, None)]
    assert [nano_of_second(v) for v in rows[0]] == [123456789, 123456789]  # type: ignore[index]
