"""Tumbling event-time windows per key, written as a PyFlink user writes them.

Sensor readings (sensor id, temperature, epoch ms) arrive up to 2 s out of order; every
10 s window of every sensor reports its maximum temperature. A watermark follows every
reading (a punctuated WatermarkGenerator, so the example's output is the same on every
run); readings behind the watermark go to a side output instead of being dropped.

    python examples/tumbling_window.py [--parallelism N]
"""

import argparse

from millstream.common import Time, Types, WatermarkStrategy
from millstream.common.watermark_strategy import TimestampAssigner, Watermark, WatermarkGenerator
from millstream.datastream import OutputTag, StreamExecutionEnvironment
from millstream.datastream.functions import ProcessWindowFunction
from millstream.datastream.window import TumblingEventTimeWindows

READINGS = [
    ("sensor-1", 21.5, 1_000),
    ("sensor-2", 19.0, 1_500),
    ("sensor-1", 23.0, 9_000),
    ("sensor-1", 22.0, 4_000),  # out of order, still in time
    ("sensor-2", 18.5, 12_000),
    ("sensor-1", 30.0, 15_000),
    ("sensor-2", 25.0, 21_000),
    ("sensor-1", 99.0, 2_000),  # far too late: its window has fired
    ("sensor-2", 20.0, 24_000),
]


class ReadingTimestamp(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value[2]


class EveryReading(WatermarkGenerator):
    """Watermark after each reading: the highest timestamp so far minus 2 s."""

    def __init__(self):
        self.highest = None

    def on_event(self, event, event_timestamp, output):
        self.highest = max(self.highest or event_timestamp, event_timestamp)
        output.emit_watermark(Watermark(self.highest - 2_000 - 1))

    def on_periodic_emit(self, output):
        pass


class MaxPerWindow(ProcessWindowFunction):
    def process(self, key, context, elements):
        (hottest,) = elements
        window = context.window()
        yield f"{key} [{window.start // 1000:>3}s, {window.end // 1000:>3}s): max {hottest[1]}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--parallelism", type=int, default=2)
    args = parser.parse_args(argv)

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(args.parallelism)
    late = OutputTag("late-readings", Types.PICKLED_BYTE_ARRAY())

    readings = (
        env.from_collection(READINGS)
        .assign_timestamps_and_watermarks(
            WatermarkStrategy.for_generator(EveryReading).with_timestamp_assigner(ReadingTimestamp())
        )
        .set_parallelism(1)  # one watermark sequence, in reading order
    )
    maxima = (
        readings.key_by(lambda r: r[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(10)))
        .side_output_late_data(late)
        .reduce(lambda a, b: a if a[1] >= b[1] else b, MaxPerWindow())
    )
    maxima.get_side_output(late).map(lambda r: f"late: {r}").print()
    with maxima.execute_and_collect("tumbling windows") as results:
        for line in sorted(results):
            print(line)


if __name__ == "__main__":
    main()
