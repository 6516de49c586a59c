"""Nexmark's SQL on millstream against DuckDB, and against the same queries written in the
DataStream API, over one file of generated Nexmark events.

Events are generated once (``millstream.testing.nexmark``: Nexmark's layout, one JSON line an
event with the person, auction or bid as a nested ROW). Every engine reads that file, in the
same run:

* millstream SQL: Nexmark's DDL (a computed event time, a 4 s watermark delay) and views, each
  query ``INSERT INTO`` a ``blackhole`` table in streaming mode with Nexmark's table options
  (mini-batch aggregation, ``nexmark.CONFIGURATION``), as Nexmark runs them, at each
  parallelism asked for;
* DuckDB: the same views over ``read_json`` and the same question (window TVFs spelled with
  epoch arithmetic), end to end: the file is read by every query (load + query), the result
  fetched as Arrow;
* millstream DataStream: q0, q5 and q11 written by hand with the DataStream API (text lines
  parsed with ``json.loads``, event-time windows), into a discarding sink.

It prints events/second of input for each, and the ratios SQL / DuckDB and SQL / DataStream
(targets at p1, 1M events: q0-q2 at least 0.4 of DuckDB, q5/q7/q8 at least 0.2, SQL at least
as fast as DataStream). ``--json PATH`` writes the figures for plots.

    python benchmarks/nexmark_sql.py [--events N] [--parallelism 1,2] [--query q0 ...]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from millstream.testing.nexmark import CONFIGURATION, QUERIES, ddl, duckdb_views, write_events

DATASTREAM_QUERIES = ("q0", "q5", "q11")


def run_sql(path: str, query: str, parallelism: int, columnar: bool = True) -> float:
    """Seconds of one ``INSERT INTO blackhole`` job of ``query`` (streaming mode); ``columnar``
    false: every row a Python tuple from the source on (``table.exec.columnar.enabled``)."""
    from millstream.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", str(parallelism))
    t_env.get_config().set("table.exec.columnar.enabled", str(columnar).lower())
    for key, value in CONFIGURATION.items():  # as Nexmark runs its queries
        t_env.get_config().set(key, value)
    for statement in ddl(path):
        t_env.execute_sql(statement)
    spec = QUERIES[query]
    t_env.execute_sql(f"CREATE TABLE sink_{query} ({spec.columns}) WITH ('connector' = 'blackhole')")
    started = time.perf_counter()
    t_env.execute_sql(f"INSERT INTO sink_{query} {spec.sql}").wait()
    return time.perf_counter() - started


def run_duckdb(path: str, query: str) -> float:
    """Seconds DuckDB takes to read the file and answer ``query`` (result as Arrow)."""
    import duckdb

    con = duckdb.connect()
    for statement in duckdb_views(path):
        con.execute(statement)
    started = time.perf_counter()
    con.sql(QUERIES[query].duckdb).to_arrow_table()
    return time.perf_counter() - started


_EPOCH = datetime.datetime(1970, 1, 1)


def _millis(text: str) -> int:
    moment = datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f")
    return (moment - _EPOCH) // datetime.timedelta(milliseconds=1)


def _bid(line: str) -> tuple[Any, ...] | None:
    """(auction, bidder, price, timestamp ms, extra) of a bid line; None for other events."""
    event = json.loads(line)
    if event["event_type"] != 2:
        return None
    bid = event["bid"]
    return (bid["auction"], bid["bidder"], bid["price"], _millis(bid["dateTime"]), bid["extra"])


def run_datastream(path: str, query: str, parallelism: int) -> float:
    """Seconds of ``query`` written with the DataStream API (streaming mode)."""
    from millstream.common import Duration, Time, WatermarkStrategy
    from millstream.connectors.file.source import FileSource, StreamFormat
    from millstream.datastream import StreamExecutionEnvironment
    from millstream.datastream.functions import AggregateFunction, KeyedProcessFunction, ProcessWindowFunction
    from millstream.datastream.state import ListStateDescriptor
    from millstream.datastream.window import EventTimeSessionWindows, SlidingEventTimeWindows
    from millstream.testing.sinks import DiscardingSink

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), path).build()
    lines = env.from_source(source, WatermarkStrategy.no_watermarks(), "nexmark events")
    bids = lines.map(_bid).filter(lambda b: b is not None)
    if query == "q0":
        result = bids
    else:

        class Stamp:
            def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
                return value[3]

        strategy = WatermarkStrategy.for_bounded_out_of_orderness(
            Duration.of_seconds(4)
        ).with_timestamp_assigner(Stamp())
        timed_bids = bids.assign_timestamps_and_watermarks(strategy)

        class Count(AggregateFunction):
            def create_accumulator(self) -> int:
                return 0

            def add(self, value: Any, accumulator: int) -> int:
                return accumulator + 1

            def get_result(self, accumulator: int) -> int:
                return accumulator

            def merge(self, a: int, b: int) -> int:
                return a + b

        class WithWindow(ProcessWindowFunction):
            def process(self, key: Any, context: Any, elements: Any) -> Any:
                window = context.window()
                yield (key, next(iter(elements)), window.start, window.end)

        if query == "q11":  # bids per bidder session (10 s gap)
            result = (
                timed_bids.key_by(lambda b: b[1])
                .window(EventTimeSessionWindows.with_gap(Time.seconds(10)))
                .aggregate(Count(), WithWindow())
            )
        else:  # q5: per sliding window, the auctions with the most bids

            class HottestPerWindow(KeyedProcessFunction):
                def open(self, ctx: Any) -> None:
                    self.counts = ctx.get_list_state(ListStateDescriptor("counts"))

                def process_element(self, value: Any, ctx: Any) -> Any:
                    self.counts.add((value[0], value[1]))
                    ctx.timer_service().register_event_time_timer(value[3] - 1)

                def on_timer(self, timestamp: int, ctx: Any) -> Any:
                    counts = list(self.counts.get())
                    self.counts.clear()
                    top = max(n for _, n in counts)
                    return [(auction, n) for auction, n in counts if n >= top]

            result = (
                timed_bids.key_by(lambda b: b[0])
                .window(SlidingEventTimeWindows.of(Time.seconds(10), Time.seconds(2)))
                .aggregate(Count(), WithWindow())
                .key_by(lambda r: r[3])
                .process(HottestPerWindow())
            )
    result.sink_to(DiscardingSink())
    started = time.perf_counter()
    env.execute(f"nexmark {query} (DataStream)")
    return time.perf_counter() - started


def median_of(repeat: int, fn: Callable[[], float]) -> float:
    return statistics.median(fn() for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--parallelism", default="1,2", help="comma-separated, e.g. 1,2")
    parser.add_argument("--query", choices=list(QUERIES), action="append")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument(
        "--row-path", action="store_true", help="also run SQL with table.exec.columnar.enabled=false"
    )
    args = parser.parse_args()
    parallelisms = [int(p) for p in args.parallelism.split(",")]
    figures: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="millstream-nexmark-") as root:
        path = os.path.join(root, "events.json")
        write_events(path, args.events)
        size = os.path.getsize(path) / 2**20
        print(f"{args.events:,} Nexmark events ({size:.0f} MiB of JSON lines)", flush=True)
        # untimed: the file into the page cache and each engine's first-query costs (imports,
        # DuckDB's JSON reader), which otherwise land on whichever query runs first (q0's DuckDB
        # figure swung from 0.25M to 4.4M events/s between runs)
        run_duckdb(path, "q0")
        run_sql(path, "q0", parallelisms[0])
        for query in args.query or list(QUERIES):
            duck = args.events / median_of(args.repeat, lambda q=query: run_duckdb(path, q))
            for p in parallelisms:
                sql = args.events / median_of(args.repeat, lambda q=query, p=p: run_sql(path, q, p))
                row: dict[str, Any] = {"query": query, "parallelism": p, "sql": sql, "duckdb": duck}
                line = (
                    f"{query} p={p}: SQL {sql:,.0f} events/s, DuckDB {duck:,.0f} events/s, "
                    f"SQL / DuckDB {sql / duck:.3f}"
                )
                if args.row_path:
                    rows = args.events / median_of(
                        args.repeat, lambda q=query, p=p: run_sql(path, q, p, False)
                    )
                    row["sql_row_path"] = rows
                    line += f", row path {rows:,.0f} events/s (columnar / row path {sql / rows:.2f})"
                if query in DATASTREAM_QUERIES:
                    ds = args.events / median_of(args.repeat, lambda q=query, p=p: run_datastream(path, q, p))
                    row["datastream"] = ds
                    line += f", DataStream {ds:,.0f} events/s, SQL / DataStream {sql / ds:.2f}"
                print(line, flush=True)
                figures.append(row)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"events": args.events, "results": figures}, f, indent=2)


if __name__ == "__main__":
    main()
