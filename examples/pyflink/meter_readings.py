"""Meter readings, written against PyFlink's API (change ``millstream`` to ``pyflink`` in the
imports and it runs on PyFlink 2.3 with the same output, subtask prefixes included).

Readings (meter, kWh, event time in ms) are declared ``Types.ROW_NAMED``, so they arrive as
named Rows with 32-bit ``kwh`` values. Per meter:
- a ``KeyedProcessFunction`` counts the meter's readings in ``ValueState`` and prints the
  count with each reading (PyFlink's ``key_by`` adds a parallel operator in front of the
  partitioner, so a key's readings may arrive in any order: only order-free results are
  printed);
- a ``ProcessWindowFunction[Row, str, str, TimeWindow]`` sums tumbling 10 s event-time
  windows (watermarks: 2 s out of order).
The keyed operators run at parallelism 2: each meter's lines carry the subtask that owns its
key ("kitchen", "garage" and "attic" all hash to subtask 1 of 2, so every line starts with "2>").
"""

from millstream.common import Duration, Row, Time, Types, WatermarkStrategy
from millstream.common.watermark_strategy import TimestampAssigner
from millstream.datastream import KeyedProcessFunction, ProcessWindowFunction, StreamExecutionEnvironment
from millstream.datastream.state import ValueStateDescriptor
from millstream.datastream.window import TimeWindow, TumblingEventTimeWindows

READINGS = [
    ("kitchen", 1.1, 1_000),
    ("garage", 0.4, 1_500),
    ("attic", 2.25, 2_000),
    ("kitchen", 0.7, 4_000),
    ("garage", 1.3, 9_000),
    ("kitchen", 0.2, 11_000),
    ("attic", 0.05, 12_000),
    ("garage", 0.9, 19_500),
    ("kitchen", 1.6, 21_000),
    ("attic", 3.1, 23_000),
]


class ByEventTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value.at


class ReadingCount(KeyedProcessFunction):
    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.INT()))

    def process_element(self, value, ctx):
        count = (self.count.value() or 0) + 1
        self.count.update(count)
        yield f"{ctx.get_current_key()} reading #{count}"


class WindowSum(ProcessWindowFunction[Row, str, str, TimeWindow]):
    def process(self, key: str, context: ProcessWindowFunction.Context[TimeWindow], elements):
        window = context.window()
        yield f"{key} [{window.start // 1000}s, {window.end // 1000}s): {sum(r.kwh for r in elements)!r}"


def main():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    row = Types.ROW_NAMED(["meter", "kwh", "at"], [Types.STRING(), Types.FLOAT(), Types.LONG()])
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(2))
    readings = env.from_collection(READINGS, type_info=row).assign_timestamps_and_watermarks(
        strategy.with_timestamp_assigner(ByEventTime())
    )
    by_meter = readings.key_by(lambda r: r.meter, key_type=Types.STRING())
    by_meter.process(ReadingCount(), output_type=Types.STRING()).print()
    by_meter.window(TumblingEventTimeWindows.of(Time.seconds(10))).process(
        WindowSum(), Types.STRING()
    ).print()
    env.execute("meter readings")


if __name__ == "__main__":
    main()
