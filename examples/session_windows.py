"""Session windows per user, written as a PyFlink user writes them.

Click events (user, page, epoch ms) arrive slightly out of order. A session of a user
ends after 30 s without a click; every session reports its clicks, pages and length.
Runs in STREAMING mode (watermarks close the sessions) or, with --batch, in BATCH mode
(input sorted by user, sessions closed at the end of each user): both print the same.

    python examples/session_windows.py [--parallelism N] [--batch]
"""

import argparse

from millstream.common import Duration, Time, WatermarkStrategy
from millstream.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from millstream.datastream.functions import AggregateFunction, ProcessWindowFunction
from millstream.datastream.window import EventTimeSessionWindows

CLICKS = [
    ("alice", "/home", 0),
    ("bob", "/home", 2_000),
    ("alice", "/cart", 10_000),
    ("bob", "/docs", 5_000),  # 5 s out of order: still in time
    ("alice", "/pay", 35_000),  # 25 s after /cart: the same session
    ("bob", "/home", 40_000),  # 35 s after /docs: a new session
    ("alice", "/home", 100_000),  # 65 s after /pay: a new session
    ("alice", "/faq", 125_000),
]


class ClickCount(AggregateFunction):
    """Counts clicks and collects distinct pages; accumulators merge when sessions merge."""

    def create_accumulator(self):
        return (0, frozenset())

    def add(self, value, accumulator):
        return (accumulator[0] + 1, accumulator[1] | {value[1]})

    def get_result(self, accumulator):
        return accumulator

    def merge(self, a, b):
        return (a[0] + b[0], a[1] | b[1])


class Describe(ProcessWindowFunction):
    def process(self, key, context, elements):
        (clicks, pages) = next(iter(elements))
        window = context.window()
        length = (window.end - window.start - 30_000) // 1000
        yield (
            f"{key}: session [{window.start // 1000:>3}s, {window.end // 1000:>3}s) "
            f"{clicks} click{'s' if clicks != 1 else ''} over {length} s on {', '.join(sorted(pages))}"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--parallelism", type=int, default=2)
    parser.add_argument("--batch", action="store_true", help="run in BATCH runtime mode")
    args = parser.parse_args(argv)

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(args.parallelism)
    if args.batch:
        env.set_runtime_mode(RuntimeExecutionMode.BATCH)

    sessions = (
        env.from_collection(CLICKS)
        .assign_timestamps_and_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(5)).with_timestamp_assigner(
                lambda click, _: click[2]
            )
        )
        .key_by(lambda click: click[0])
        .window(EventTimeSessionWindows.with_gap(Time.seconds(30)))
        .aggregate(ClickCount(), Describe())
    )
    with sessions.execute_and_collect("sessions") as results:
        for line in sorted(results):
            print(line)


if __name__ == "__main__":
    main()
