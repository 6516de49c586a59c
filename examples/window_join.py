"""A window join of two streams, as a Flink user writes it (Flink's Java API names in snake case).

Ad impressions and clicks (ad id, user, epoch ms) are joined per ad and user within
1-minute tumbling event-time windows: every click is paired with the impressions of
the same ad and user in the same minute. A co-group over the same windows reports the
click-through rate of each ad per minute, also for minutes without clicks.

    python examples/window_join.py [--parallelism N]
"""

import argparse

from millstream.common import Duration, Time, WatermarkStrategy
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.functions import CoGroupFunction, JoinFunction
from millstream.datastream.window import TumblingEventTimeWindows

IMPRESSIONS = [
    ("ad-1", "ann", 5_000),
    ("ad-1", "ben", 12_000),
    ("ad-2", "ann", 30_000),
    ("ad-1", "ann", 65_000),
    ("ad-2", "cat", 70_000),
    ("ad-1", "cat", 125_000),
]
CLICKS = [
    ("ad-1", "ann", 9_000),
    ("ad-2", "ann", 58_000),
    ("ad-1", "ann", 61_000),  # next minute: joins the impression at 65 s only
    ("ad-2", "cat", 71_000),
]


class ClickedImpression(JoinFunction):
    def join(self, impression, click):
        ad, user, shown = impression
        return f"{ad} {user}: shown at {shown // 1000:>3} s, clicked at {click[2] // 1000:>3} s"


class ClickThrough(CoGroupFunction):
    def co_group(self, impressions, clicks):
        impressions, clicks = list(impressions), list(clicks)
        ad = (impressions or clicks)[0][0]
        minute = (impressions or clicks)[0][2] // 60_000
        yield f"{ad} minute {minute}: {len(clicks)} click(s) / {len(impressions)} impression(s)"


def with_event_time(env, rows, name):
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(5))
    return (
        env.from_collection(rows)
        .name(name)
        .assign_timestamps_and_watermarks(strategy.with_timestamp_assigner(lambda row, _: row[2]))
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--parallelism", type=int, default=2)
    args = parser.parse_args(argv)

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(args.parallelism)
    impressions = with_event_time(env, IMPRESSIONS, "impressions")
    clicks = with_event_time(env, CLICKS, "clicks")
    minute = TumblingEventTimeWindows.of(Time.minutes(1))

    joined = (
        impressions.join(clicks)
        .where(lambda i: (i[0], i[1]))
        .equal_to(lambda c: (c[0], c[1]))
        .window(minute)
        .apply(ClickedImpression())
    )
    rates = (
        impressions.co_group(clicks)
        .where(lambda i: i[0])
        .equal_to(lambda c: c[0])
        .window(minute)
        .apply(ClickThrough())
    )
    with joined.union(rates).execute_and_collect("window join") as results:
        for line in sorted(results):
            print(line)


if __name__ == "__main__":
    main()
