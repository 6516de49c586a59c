"""``current_watermark(col('ts'))`` / SQL's ``CURRENT_WATERMARK(ts)`` (issue 48, point 5): the
watermark of the Calc evaluating it, NULL before its first one, typed as the rowtime attribute
with precision 3 and nullable; refused for anything but a rowtime attribute, as PyFlink 2.3.0
refuses it. Before, millstream had neither (SQL: "No match found for function signature
CURRENT_WATERMARK()").

A source's watermark follows the record it was made from (Flink's ``TimestampsAndWatermarks``
operator emits the record, then the generator's watermark), so with a watermark made on each
event, a row sees the one of the row before it.
"""

from __future__ import annotations

import pickle

import pytest

from millstream.common import Configuration, Types, WatermarkStrategy
from millstream.common.watermark_strategy import TimestampAssigner, WatermarkGenerator
from millstream.datastream import StreamExecutionEnvironment
from millstream.table import DataTypes, EnvironmentSettings, Schema, StreamTableEnvironment, TableEnvironment
from millstream.table.expression.watermarks import WatermarkClock
from millstream.table.expressions import col, current_watermark, source_watermark


class _Timestamp(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[1]


class _OnEachEvent(WatermarkGenerator):
    """A watermark of the highest timestamp so far minus 1 ms, made on each event."""

    def __init__(self) -> None:
        self.highest = None

    def on_event(self, event, event_timestamp, output):
        self.highest = event_timestamp if self.highest is None else max(self.highest, event_timestamp)
        output.emit_watermark(self.highest - 1)

    def on_periodic_emit(self, output):
        pass


def _table(events, strategy, rowtime_type=None):
    config = Configuration()
    config.set_string("minicluster.mode", "threads")  # a unit test starts no processes
    env = StreamExecutionEnvironment.get_execution_environment(config)
    env.set_parallelism(1)
    env.get_config().set_auto_watermark_interval(60_000)  # no periodic watermark between the rows
    t_env = StreamTableEnvironment.create(env)
    t_env.get_config().set("table.local-time-zone", "UTC")
    stream = env.from_collection(events, type_info=Types.TUPLE([Types.LONG(), Types.LONG()]))
    stream = stream.assign_timestamps_and_watermarks(strategy.with_timestamp_assigner(_Timestamp()))
    schema = (
        Schema.new_builder()
        .column_by_metadata("rowtime", rowtime_type or DataTypes.TIMESTAMP_LTZ(3))
        .watermark("rowtime", source_watermark())
        .build()
    )
    return t_env, t_env.from_data_stream(stream, schema)


def current_watermark_program() -> None:
    events = [(i, 1000 * i) for i in range(1, 6)]
    _, tab = _table(events, WatermarkStrategy.for_monotonous_timestamps())
    selected = tab.select(col("f0"), current_watermark(col("rowtime")))
    selected.print_schema()
    selected.execute().print()
    on_time = current_watermark(col("rowtime")).is_null | (col("rowtime") > current_watermark(col("rowtime")))
    tab.where(on_time).select(col("f0")).execute().print()


# PyFlink 2.3.0, the same program with the default watermark interval (the first watermark came
# after the rows there too); its f0 is BIGINT NOT NULL, as its from_collection types a TUPLE's
# LONG (millstream's is nullable: not this point)
CURRENT_WATERMARK_OUTPUT = """\
(
  `f0` BIGINT,
  `_c1` TIMESTAMP_LTZ(3)
)
+----+----------------------+-------------------------+
| op |                   f0 |                     _c1 |
+----+----------------------+-------------------------+
| +I |                    1 |                  <NULL> |
| +I |                    2 |                  <NULL> |
| +I |                    3 |                  <NULL> |
| +I |                    4 |                  <NULL> |
| +I |                    5 |                  <NULL> |
+----+----------------------+-------------------------+
5 rows in set
+----+----------------------+
| op |                   f0 |
+----+----------------------+
| +I |                    1 |
| +I |                    2 |
| +I |                    3 |
| +I |                    4 |
| +I |                    5 |
+----+----------------------+
5 rows in set
"""


def test_current_watermark_prints_what_pyflink_prints(capsys):
    current_watermark_program()
    assert capsys.readouterr().out == CURRENT_WATERMARK_OUTPUT


def _rows(table):
    with table.execute().collect() as rows:
        return [tuple(r) for r in rows]


def test_each_row_sees_the_watermark_its_calc_has_and_late_rows_are_dropped():
    strategy = WatermarkStrategy.for_generator(lambda context: _OnEachEvent())
    events = [(1, 1000), (2, 5000), (3, 2000), (4, 6000)]
    t_env, tab = _table(events, strategy, DataTypes.TIMESTAMP(3))
    watermarks = _rows(tab.select(col("f0"), current_watermark(col("rowtime")).cast(DataTypes.STRING())))
    # the watermark of the row before: none, then 999 ms, 4999 ms (the highest), 4999 ms
    assert watermarks == [
        (1, None),
        (2, "1970-01-01 00:00:00.999"),
        (3, "1970-01-01 00:00:04.999"),
        (4, "1970-01-01 00:00:04.999"),
    ]
    on_time = current_watermark(col("rowtime")).is_null | (col("rowtime") > current_watermark(col("rowtime")))
    assert _rows(tab.where(on_time).select(col("f0"))) == [(1,), (2,), (4,)]  # 3 (at 2 s) is late
    t_env.create_temporary_view("events", tab)
    sql = t_env.sql_query("SELECT f0 FROM events WHERE rowtime > CURRENT_WATERMARK(rowtime)")
    assert _rows(sql) == [(2,), (4,)]  # SQL's: NULL for the first row is not TRUE
    typed = t_env.sql_query("SELECT CURRENT_WATERMARK(rowtime) AS w FROM events")
    # PyFlink 2.3.0: `w` TIMESTAMP(3) for a TIMESTAMP(3) rowtime attribute
    assert [str(t) for t in typed.get_resolved_schema().get_column_data_types()] == ["TIMESTAMP(3)"]


def test_current_watermark_takes_only_a_rowtime_attribute():
    _, tab = _table([(1, 1000)], WatermarkStrategy.for_monotonous_timestamps())
    # PyFlink 2.3.0's ValidationExceptions (the last 'Caused by' of each)
    not_a_time = r"^CURRENT_WATERMARK\(\) must be called with a single rowtime attribute argument, but "
    with pytest.raises(ValueError, match=not_a_time + r"'BIGINT' cannot be a time attribute\.$"):
        tab.select(current_watermark(col("f1")))
    cast = tab.select(col("rowtime").cast(DataTypes.TIMESTAMP(3)).alias("x"))
    not_rowtime = r"^The argument of CURRENT_WATERMARK\(\) must be a rowtime attribute, but was "
    with pytest.raises(ValueError, match=not_rowtime + r"'TIMESTAMP\(3\)'\.$"):
        cast.select(current_watermark(col("x")))
    batch = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    strings = batch.from_elements([(1, "a")], ["a", "b"])
    with pytest.raises(ValueError, match="but 'STRING' cannot be a time attribute"):
        strings.select(current_watermark(col("b")))


def test_a_clock_shipped_to_a_task_starts_without_a_watermark():
    clock = WatermarkClock()
    clock.set(5)
    copy = pickle.loads(pickle.dumps(clock))  # as a Calc's function reaches a task process
    assert copy.get() is None and copy == clock
    copy.set(3)
    assert (copy.get(), clock.get()) == (3, 5)
