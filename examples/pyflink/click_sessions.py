"""Click sessions, written against PyFlink's API (change ``millstream`` to ``pyflink`` in the
imports and it runs on PyFlink 2.3 with the same output, subtask prefixes included).

Clicks arrive as JSON lines. A ``ProcessFunction`` parses them into named Rows (user, page,
price as a 32-bit ``FLOAT``, event time) and sends lines it cannot parse to a side output.
Per user (``key_type=Types.STRING()``, parallelism 2):
- event-time session windows (gap 5 s) count a session's clicks and add up its prices, an
  ``AggregateFunction`` feeding a ``ProcessWindowFunction`` that sees the session's bounds;
- a ``KeyedProcessFunction`` keeps the user's click times in ``ListState`` and registers an
  event-time timer 10 s after each click; a firing timer counts the clicks that are at
  least 10 s old by then (a count that does not depend on when periodic watermarks come).
Watermarks allow 1 s of disorder. Lines are printed as they come; the test sorts them. The
"bad" lines' subtask prefixes vary from run to run, in PyFlink too: records reach the two
parsing subtasks through a rebalance, which Flink starts at a random channel.
"""

import json

from millstream.common import Duration, Row, Time, Types, WatermarkStrategy
from millstream.common.watermark_strategy import TimestampAssigner
from millstream.datastream import (
    AggregateFunction,
    KeyedProcessFunction,
    OutputTag,
    ProcessFunction,
    ProcessWindowFunction,
    StreamExecutionEnvironment,
)
from millstream.datastream.state import ListStateDescriptor
from millstream.datastream.window import EventTimeSessionWindows, TimeWindow

LINES = [
    '{"user": "ann", "page": "/home", "price": 0.0, "at": 1000}',
    '{"user": "bob", "page": "/shop", "price": 19.99, "at": 1500}',
    '{"user": "ann", "page": "/shop", "price": 5.1, "at": 3000}',
    "not json at all",
    '{"user": "dan", "page": "/home", "price": 0.0, "at": 4000}',
    '{"user": "bob", "page": "/cart", "price": 0.35, "at": 2500}',
    '{"user": "ann", "page": "/cart", "price": 12.7, "at": 6500}',
    '{"user": "bob", "page": "/shop", "price": 3.3, "at": 14000}',
    '{"user": "dan"}',
    '{"user": "ann", "page": "/home", "price": 0.0, "at": 20000}',
    '{"user": "dan", "page": "/shop", "price": 7.25, "at": 26000}',
    '{"user": "bob", "page": "/home", "price": 0.0, "at": 40000}',
]

CLICK = Types.ROW_NAMED(
    ["user", "page", "price", "at"], [Types.STRING(), Types.STRING(), Types.FLOAT(), Types.LONG()]
)
BAD_LINES = OutputTag("bad-lines", Types.STRING())


class ParseClick(ProcessFunction):
    def process_element(self, value, ctx):
        try:
            click = json.loads(value)
            yield Row(click["user"], click["page"], click["price"], click["at"])
        except (ValueError, KeyError) as err:
            yield BAD_LINES, f"skipped {value!r}: {type(err).__name__}"


class ByEventTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value.at


class CountAndSpend(AggregateFunction):
    def create_accumulator(self):
        return 0, 0.0

    def add(self, value, accumulator):
        return accumulator[0] + 1, accumulator[1] + value.price

    def get_result(self, accumulator):
        return accumulator

    def merge(self, a, b):
        return a[0] + b[0], a[1] + b[1]


class Session(ProcessWindowFunction[tuple, str, str, TimeWindow]):
    def process(self, key: str, context: ProcessWindowFunction.Context[TimeWindow], elements):
        clicks, spent = next(iter(elements))
        window = context.window()
        yield f"{key} session {window.start}-{window.end}: {clicks} clicks, spent {spent!r}"


class ClicksTenSecondsOld(KeyedProcessFunction):
    def open(self, runtime_context):
        self.times = runtime_context.get_list_state(ListStateDescriptor("times", Types.LONG()))

    def process_element(self, value, ctx):
        self.times.add(value.at)
        ctx.timer_service().register_event_time_timer(value.at + 10_000)

    def on_timer(self, timestamp, ctx):
        old = sum(1 for at in self.times.get() if at <= timestamp - 10_000)
        yield f"{ctx.get_current_key()} at {timestamp}: {old} clicks at least 10 s old"


def main():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    parsed = env.from_collection(LINES, type_info=Types.STRING()).process(ParseClick(), output_type=CLICK)
    parsed.get_side_output(BAD_LINES).print("bad")
    clicks = parsed.assign_timestamps_and_watermarks(
        WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(1)).with_timestamp_assigner(
            ByEventTime()
        )
    )
    by_user = clicks.key_by(lambda c: c.user, key_type=Types.STRING())
    by_user.window(EventTimeSessionWindows.with_gap(Time.seconds(5))).aggregate(
        CountAndSpend(),
        window_function=Session(),
        accumulator_type=Types.TUPLE([Types.INT(), Types.DOUBLE()]),
        output_type=Types.STRING(),
    ).print()
    by_user.process(ClicksTenSecondsOld(), output_type=Types.STRING()).print()
    env.execute("click sessions")


if __name__ == "__main__":
    main()
