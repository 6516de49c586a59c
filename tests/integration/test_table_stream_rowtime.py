"""A DataStream's timestamps and watermarks in a table: ``Schema`` with
``column_by_metadata("rowtime", "TIMESTAMP_LTZ(3)")`` and ``watermark("rowtime",
"SOURCE_WATERMARK()")``, as PyFlink 2.3.0 runs the same program: the column holds each
record's timestamp, event-time windows close on the stream's own watermarks, and
``to_data_stream`` hands TIMESTAMP_LTZ values back as ``Instant``s with the record timestamp
set."""

from __future__ import annotations

import pytest

from millstream.common import Types, WatermarkStrategy
from millstream.common.watermark_strategy import TimestampAssigner
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.functions import ProcessFunction
from millstream.table import Schema, StreamTableEnvironment


class ThirdField(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[2]


class WithTimestamp(ProcessFunction):
    def process_element(self, value, ctx):
        yield str(value) + " ts=" + str(ctx.timestamp())


def program() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    t_env = StreamTableEnvironment.create(env)
    ds = env.from_collection(
        [(1, "a", 1000), (2, "b", 2500), (3, "a", 7000), (4, "c", 12000)],
        type_info=Types.ROW_NAMED(["id", "name", "ms"], [Types.INT(), Types.STRING(), Types.LONG()]),
    )
    ds = ds.assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(ThirdField())
    )
    schema = (
        Schema.new_builder()
        .column("id", "INT")
        .column("name", "STRING")
        .column_by_metadata("rowtime", "TIMESTAMP_LTZ(3)")
        .watermark("rowtime", "SOURCE_WATERMARK()")
        .build()
    )
    t = t_env.from_data_stream(ds, schema)
    t.print_schema()
    t_env.create_temporary_view("v", t)
    t_env.execute_sql("SELECT id, name, rowtime FROM v").print()
    t_env.execute_sql(
        "SELECT window_start, window_end, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(rowtime), "
        "INTERVAL '5' SECOND)) GROUP BY window_start, window_end"
    ).print()
    out = t_env.to_data_stream(t_env.sql_query("SELECT id, rowtime FROM v"))
    out.process(WithTimestamp(), output_type=Types.STRING()).print()
    env.execute()


# PyFlink 2.3.0, the same program (pyflink in the imports; the machine's zone is UTC). The
# declared columns leave out the stream's `ms`, so the table is a projection of the source:
# its schema shows the *ROWTIME* attribute but neither METADATA nor the WATERMARK line.
PYFLINK_OUTPUT = """\
(
  `id` INT,
  `name` STRING,
  `rowtime` TIMESTAMP_LTZ(3) *ROWTIME*
)
+----+-------------+--------------------------------+-------------------------+
| op |          id |                           name |                 rowtime |
+----+-------------+--------------------------------+-------------------------+
| +I |           1 |                              a | 1970-01-01 00:00:01.000 |
| +I |           2 |                              b | 1970-01-01 00:00:02.500 |
| +I |           3 |                              a | 1970-01-01 00:00:07.000 |
| +I |           4 |                              c | 1970-01-01 00:00:12.000 |
+----+-------------+--------------------------------+-------------------------+
4 rows in set
+----+-------------------------+-------------------------+----------------------+
| op |            window_start |              window_end |                    c |
+----+-------------------------+-------------------------+----------------------+
| +I | 1970-01-01 00:00:00.000 | 1970-01-01 00:00:05.000 |                    2 |
| +I | 1970-01-01 00:00:05.000 | 1970-01-01 00:00:10.000 |                    1 |
| +I | 1970-01-01 00:00:10.000 | 1970-01-01 00:00:15.000 |                    1 |
+----+-------------------------+-------------------------+----------------------+
3 rows in set
Row(id=1, rowtime=Instant<1, 0>) ts=1000
Row(id=2, rowtime=Instant<2, 500000000>) ts=2500
Row(id=3, rowtime=Instant<7, 0>) ts=7000
Row(id=4, rowtime=Instant<12, 0>) ts=12000
"""


def test_stream_timestamps_and_watermarks_reach_the_table_as_on_pyflink(capfd, monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    import time

    time.tzset()
    try:
        program()
    finally:
        monkeypatch.undo()
        time.tzset()
    assert capfd.readouterr().out == PYFLINK_OUTPUT


@pytest.mark.parametrize("parallelism", [2])
def test_the_rowtime_column_is_each_records_timestamp_at_any_parallelism(parallelism):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    t_env = StreamTableEnvironment.create(env)
    ds = env.from_collection(
        [(i, "k", i * 1000) for i in range(20)],
        type_info=Types.ROW_NAMED(["id", "name", "ms"], [Types.INT(), Types.STRING(), Types.LONG()]),
    ).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(ThirdField())
    )
    schema = (
        Schema.new_builder()
        .column_by_metadata("rowtime", "TIMESTAMP_LTZ(3)")
        .watermark("rowtime", "SOURCE_WATERMARK()")
        .build()
    )
    t_env.create_temporary_view("v", t_env.from_data_stream(ds, schema))
    with t_env.execute_sql(
        "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(rowtime), INTERVAL '5' SECOND)) "
        "GROUP BY window_start, window_end"
    ).collect() as rows:
        counts = sorted(r[1] for r in rows)
    assert counts == [5, 5, 5, 5]
