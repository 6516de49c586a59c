"""A KeyedProcessFunction with state and timers, written as a PyFlink user writes it.

Payments (account, amount, epoch ms) arrive in event time. Per account the function
keeps a running total in ValueState and, with an event-time timer, reports the
account once it has been quiet for 60 s: total, payments and the time of its last
payment. Every new payment moves the timer (the old one is deleted), so an account is
reported once per quiet period. Large payments (>= 1000) also go to a side output as
they arrive.

    python examples/keyed_process_timers.py [--parallelism N]
"""

import argparse

from millstream.common import Types, WatermarkStrategy
from millstream.common.watermark_strategy import Watermark, WatermarkGenerator
from millstream.datastream import KeyedProcessFunction, OutputTag, StreamExecutionEnvironment
from millstream.datastream.state import ValueStateDescriptor

QUIET_MS = 60_000
LARGE = OutputTag("large-payments", Types.PICKLED_BYTE_ARRAY())

PAYMENTS = [
    ("acct-1", 120, 1_000),
    ("acct-2", 40, 3_000),
    ("acct-1", 80, 20_000),
    ("acct-2", 1_500, 15_000),
    ("acct-1", 15, 70_000),  # 50 s after the last: the quiet period starts again
    ("acct-3", 9, 90_000),  # the watermark passes 75 s: acct-2 is reported
    ("acct-3", 2_000, 95_000),
    ("acct-2", 60, 200_000),  # a new quiet period for acct-2; acct-1 and acct-3 are reported
]


class AfterEveryPayment(WatermarkGenerator):
    """A watermark after each payment (10 s behind the latest), so every run prints the same."""

    def __init__(self):
        self.latest = None

    def on_event(self, event, event_timestamp, output):
        self.latest = event_timestamp if self.latest is None else max(self.latest, event_timestamp)
        output.emit_watermark(Watermark(self.latest - 10_000 - 1))

    def on_periodic_emit(self, output):
        pass


class QuietAccounts(KeyedProcessFunction):
    def open(self, runtime_context):
        self.summary = runtime_context.get_state(ValueStateDescriptor("summary", Types.PICKLED_BYTE_ARRAY()))
        self.timer = runtime_context.get_state(ValueStateDescriptor("timer", Types.LONG()))

    def process_element(self, payment, ctx):
        total, count, last = self.summary.value() or (0, 0, 0)
        self.summary.update((total + payment[1], count + 1, max(last, ctx.timestamp())))
        previous = self.timer.value()
        if previous is not None:
            ctx.timer_service().delete_event_time_timer(previous)
        due = max(last, ctx.timestamp()) + QUIET_MS
        ctx.timer_service().register_event_time_timer(due)
        self.timer.update(due)
        if payment[1] >= 1000:
            yield LARGE, f"large payment: {payment[0]} {payment[1]} at {ctx.timestamp() // 1000} s"

    def on_timer(self, timestamp, ctx):
        total, count, last = self.summary.value()
        payments = f"{count} payment{'s' if count != 1 else ''}"
        yield (
            f"{ctx.get_current_key()} quiet since {last // 1000:>3} s "
            f"(reported at {timestamp // 1000:>3} s): {payments}, total {total}"
        )
        self.summary.clear()
        self.timer.clear()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--parallelism", type=int, default=2)
    args = parser.parse_args(argv)

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(args.parallelism)
    reports = (
        env.from_collection(PAYMENTS)
        .assign_timestamps_and_watermarks(
            WatermarkStrategy.for_generator(AfterEveryPayment).with_timestamp_assigner(
                lambda payment, _: payment[2]
            )
        )
        .set_parallelism(1)  # one watermark sequence, in payment order
        .key_by(lambda payment: payment[0])
        .process(QuietAccounts())
    )
    reports.get_side_output(LARGE).print()
    with reports.execute_and_collect("quiet accounts") as results:
        for line in sorted(results):
            print(line)


if __name__ == "__main__":
    main()
