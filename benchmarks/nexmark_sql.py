"""Nexmark's SQL on millstream and on PyFlink 2.3, whole process each, on two DDL shapes,
with DuckDB as the reference of a vectorized engine.

Events are generated once (``millstream.testing.nexmark``: Nexmark's layout, 1 person, 3
auctions and 46 bids in every 50 events) and written in two shapes, the same events in each:

* nested: Nexmark's DDL, one JSON line an event with the person, auction or bid as a nested
  ROW, the event time a computed column, a 4 s watermark delay (``nexmark.ddl``);
* flat: one JSON object a line with the fields of every kind side by side, as most Flink
  programs declare them, the event time computed as ``ts AS TO_TIMESTAMP_LTZ(dateTime, 3),
  WATERMARK FOR ts AS ts - INTERVAL '4' SECOND`` (``nexmark_flat.ddl``).

Per query, shape and parallelism, in the same run:

* millstream: a fresh process (``benchmarks/nexmark_job.py`` on this Python) runs the DDL and
  the query ``INSERT INTO`` a ``blackhole`` table in streaming mode with Nexmark's table
  options (mini-batch aggregation, ``nexmark.CONFIGURATION``) and the session time zone UTC;
  timed whole, from its start to its exit;
* PyFlink (``--pyflink VENV``, a PyFlink 2.3 virtual environment outside the repository):
  the same job spec in a fresh ``VENV/bin/python`` process, ``VENV/bin`` first on PATH so
  PyFlink's workers find that Python, timed whole (JVM start-up included);
* DuckDB: in this process, the same views over ``read_json`` and the same question (window
  TVFs spelled with epoch arithmetic), the file read by every query (load + query), the
  result fetched as Arrow. A reference, no target.

The timed jobs write into ``blackhole``, so their figure is the query, not the writing of its
output. Each engine then runs the same ``INSERT`` once more, untimed, into a filesystem table
in the ``debezium-json`` format (which takes every query's changes, the updating q4 and q9
included); the benchmark applies the changes and compares the count and a checksum of the
final rows (SHA-256 of the sorted rows, values compared by value: numbers without trailing
zeros, timestamps without a trailing zero fraction) between the engines, between the shapes,
and with DuckDB's rows. ``--no-check`` skips these runs.

It prints, per query and shape, millstream's and PyFlink's whole-process seconds and the
ratio PyFlink / millstream (the target: at least 2 at p1 and 1M events), then the whole table.
``--row-path`` also times millstream with ``table.exec.columnar.enabled=false``;
``--datastream`` times q0, q5 and q11 written with the DataStream API (nested file, whole
process); ``--json PATH`` writes the figures for plots.

``--data DIR`` keeps the generated event files in ``DIR`` (``nested.json``, ``flat.json``) and
reuses them in later runs with the same ``--events``.

    python benchmarks/nexmark_sql.py [--events N] [--parallelism 1,2] [--query q0 ...]
        [--shape nested|flat] [--pyflink VENV] [--repeat R] [--no-check] [--json PATH]
        [--data DIR]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

import nexmark_flat  # noqa: E402 - benchmarks/ is this script's directory

from millstream.testing import nexmark  # noqa: E402
from millstream.testing.nexmark import CONFIGURATION, QUERIES, write_events  # noqa: E402

SHAPES = ("nested", "flat")
DATASTREAM_QUERIES = ("q0", "q5", "q11")
JOB = os.path.join(HERE, "nexmark_job.py")
TARGET = 2.0  # PyFlink / millstream, whole process, at p1 and 1M events


# -- the jobs ------------------------------------------------------------------------------


def job_spec(
    engine: str, shape: str, path: str, query: str, parallelism: int, sink: str | None, columnar: bool = True
) -> dict[str, Any]:
    """The job ``nexmark_job.py`` runs: ``query`` over the ``shape`` file at ``path`` into
    ``blackhole`` (``sink`` None) or into debezium-json files in the directory ``sink``."""
    views = nexmark.ddl(path) if shape == "nested" else nexmark_flat.ddl(path)
    if sink is None:
        options = "'connector' = 'blackhole'"
    else:
        options = f"'connector' = 'filesystem', 'path' = '{sink}', 'format' = 'debezium-json'"
    configuration = {
        **CONFIGURATION,  # as Nexmark runs its queries
        "parallelism.default": str(parallelism),
        "table.local-time-zone": "UTC",  # TO_TIMESTAMP_LTZ's instants as the nested file's times
    }
    if not columnar:
        configuration["table.exec.columnar.enabled"] = "false"
    return {
        "engine": engine,
        "configuration": configuration,
        "statements": [*views, f"CREATE TABLE nexmark_sink ({QUERIES[query].columns}) WITH ({options})"],
        "insert": f"INSERT INTO nexmark_sink {QUERIES[query].sql}",
    }


def engine_environment(**changes: str) -> dict[str, str]:
    """This process's environment for an engine's process, with Python's bytecode cache on as
    in a user's shell: a PYTHONDONTWRITEBYTECODE set here (some sandboxes and CI images set
    it) would make every job compile the engine's modules from source again (0.6 s for
    millstream's client and again for each TaskManager; PyFlink's wheel was compiled by pip)."""
    env = dict(os.environ, **changes)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


@dataclass
class Engine:
    """A Python that runs ``nexmark_job.py``: millstream's (this one) or a PyFlink venv's."""

    name: str
    python: str
    env: dict[str, str] = field(default_factory=engine_environment)


def run_process(
    command: list[str], env: dict[str, str], log: str, timeout: float
) -> tuple[float, str | None]:
    """Whole-process seconds of ``command`` and None, or the seconds and the line it failed
    with (its output goes to ``log``)."""
    with open(log, "w") as out:
        started = time.perf_counter()
        process = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            status = process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # the JVM or TaskManagers it started too
            process.wait()
            return time.perf_counter() - started, f"no result within {timeout:.0f} s"
        seconds = time.perf_counter() - started
    if status == 0:
        return seconds, None
    with open(log) as f:
        lines = [line.strip() for line in f if line.strip()]
    failed = [line for line in lines if " job failed: " in line]
    return seconds, (failed or lines or [f"exit status {status}"])[-1][:300]


def run_job(
    engine: Engine, spec: dict[str, Any], root: str, name: str, timeout: float
) -> tuple[float, str | None]:
    """Whole-process seconds of one job on ``engine`` (and the failure, if it failed)."""
    spec_path = os.path.join(root, f"{name}.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    return run_process(
        [engine.python, JOB, spec_path], engine.env, os.path.join(root, f"{name}.log"), timeout
    )


# -- result rows ---------------------------------------------------------------------------

_TIMESTAMP = re.compile(r"(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.(\d*))?Z?")
_NULL = "\x00NULL"


def _value(value: Any) -> str:
    """One field as compared: numbers by value, timestamps without a zero fraction."""
    if value is None:
        return _NULL
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float | Decimal):
        number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
        return format(number.normalize(), "f")
    if isinstance(value, datetime.datetime):
        value = value.isoformat(" ")
    text = str(value)
    moment = _TIMESTAMP.fullmatch(text)
    if moment:
        fraction = (moment.group(3) or "").rstrip("0")
        return f"{moment.group(1)} {moment.group(2)}" + (f".{fraction}" if fraction else "")
    return text


def _row(values: Iterable[Any]) -> str:
    return "\x1f".join(_value(v) for v in values)


@dataclass(frozen=True)
class Rows:
    """The final rows of a result: how many, and a checksum of them."""

    count: int
    checksum: str

    @classmethod
    def of(cls, rows: Counter[str]) -> Rows:
        if any(n < 0 for n in rows.values()):  # a retraction of a row never inserted
            return cls(-1, "retracts-absent-rows")
        final = sorted(rows.elements())
        return cls(len(final), hashlib.sha256("\n".join(final).encode()).hexdigest()[:12])


def changelog_rows(directory: str) -> Rows:
    """The rows a directory of debezium-json files leaves after its changes are applied
    (in-progress files, hidden by a leading dot or underscore, are not read)."""
    rows: Counter[str] = Counter()
    for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else ():
        if name.startswith((".", "_")):
            continue
        with open(os.path.join(directory, name)) as f:
            for line in f:
                change = json.loads(line, parse_float=Decimal)
                if change.get("after") is not None and change["op"] in ("c", "r", "u"):
                    rows[_row(change["after"].values())] += 1
                if change.get("before") is not None and change["op"] in ("d", "u"):
                    rows[_row(change["before"].values())] -= 1
    return Rows.of(rows)


# -- DuckDB, DataStream --------------------------------------------------------------------


def duckdb_views(shape: str, path: str) -> list[str]:
    return nexmark.duckdb_views(path) if shape == "nested" else nexmark_flat.duckdb_views(path)


def run_duckdb(shape: str, path: str, query: str) -> tuple[float, Rows]:
    """Seconds DuckDB takes to read the file and answer ``query`` (result as Arrow), and its rows."""
    import duckdb  # deferred: an optional dependency, and only this process's reference

    con = duckdb.connect()
    for statement in duckdb_views(shape, path):
        con.execute(statement)
    started = time.perf_counter()
    result = con.sql(QUERIES[query].duckdb).to_arrow_table()
    seconds = time.perf_counter() - started
    columns = [column.to_pylist() for column in result.columns]
    return seconds, Rows.of(Counter(_row(values) for values in zip(*columns, strict=True)))


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


def run_datastream(path: str, query: str, parallelism: int) -> None:
    """``query`` written with the DataStream API (streaming mode, nested file), into a
    discarding sink; ``--datastream`` times it in a process of its own."""
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
    env.execute(f"nexmark {query} (DataStream)")


# -- the run -------------------------------------------------------------------------------


@dataclass
class Measured:
    """One (query, shape, parallelism): seconds per engine, failures, result rows."""

    query: str
    shape: str
    parallelism: int
    millstream: float | None = None
    pyflink: float | None = None
    duckdb: float | None = None
    row_path: float | None = None
    datastream: float | None = None
    failures: dict[str, str] = field(default_factory=dict)
    rows: dict[str, Rows] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        return self.pyflink / self.millstream if self.millstream and self.pyflink else None

    def check(self, other_shape: Measured | None) -> str:
        """The result check: millstream's rows against PyFlink's, the other shape's, DuckDB's."""
        ours = self.rows.get("millstream")
        if ours is None:
            return "not checked" if "millstream" not in self.failures else "no rows (millstream failed)"
        notes = [f"{ours.count:,} row{'' if ours.count == 1 else 's'} ({ours.checksum})"]
        theirs = self.rows.get("pyflink")
        if theirs is not None:
            notes.append(
                "same on both engines"
                if theirs == ours
                else f"MISMATCH: PyFlink {theirs.count:,} rows ({theirs.checksum})"
            )
        if other_shape is not None and other_shape.rows.get("millstream") is not None:
            same = other_shape.rows["millstream"] == ours
            notes.append(f"same as {other_shape.shape}" if same else f"MISMATCH with {other_shape.shape}")
        if "duckdb" in self.rows:
            notes.append("DuckDB same" if self.rows["duckdb"] == ours else "DuckDB other rows")
        return ", ".join(notes)

    def figures(self, events: int) -> dict[str, Any]:
        """The JSON entry (``sql``/``duckdb``/``datastream``: events per second, as plot.py reads)."""

        def rate(seconds: float | None) -> float | None:
            return events / seconds if seconds else None

        return {
            "query": self.query,
            "shape": self.shape,
            "parallelism": self.parallelism,
            "millstream_s": self.millstream,
            "pyflink_s": self.pyflink,
            "pyflink_over_millstream": self.ratio,
            "duckdb_s": self.duckdb,
            "row_path_s": self.row_path,
            "datastream_s": self.datastream,
            "sql": rate(self.millstream),
            "duckdb": rate(self.duckdb),
            "datastream": rate(self.datastream),
            "sql_row_path": rate(self.row_path),
            "rows": {name: {"count": r.count, "checksum": r.checksum} for name, r in self.rows.items()},
            "failures": self.failures,
        }


def _seconds(value: float | None, failed: bool) -> str:
    return "FAILED" if failed else "-" if value is None else f"{value:.2f}"


def table(results: list[Measured], with_pyflink: bool) -> list[str]:
    """The whole run as a table, failures listed under it."""
    lines = [
        f"{'query':<6}{'shape':<8}{'p':>2}{'millstream s':>14}{'PyFlink s':>11}{'PyFlink/millstream':>20}"
        f"{'DuckDB s':>10}  result rows"
    ]
    by_key = {(m.query, m.shape, m.parallelism): m for m in results}
    for m in results:
        other = by_key.get((m.query, "flat" if m.shape == "nested" else "nested", m.parallelism))
        ratio = "-" if m.ratio is None else f"{m.ratio:.2f}"
        ours, pyflink = (
            _seconds(m.millstream, "millstream" in m.failures),
            _seconds(m.pyflink, "pyflink" in m.failures),
        )
        lines.append(
            f"{m.query:<6}{m.shape:<8}{m.parallelism:>2}{ours:>14}{pyflink:>11}{ratio:>20}"
            f"{_seconds(m.duckdb, False):>10}  {m.check(other if m.shape == 'flat' else None)}"
        )
    ratios = [m.ratio for m in results if m.parallelism == 1]
    if with_pyflink:
        met = sum(1 for r in ratios if r is not None and r >= TARGET)
        lines.append(f"PyFlink / millstream >= {TARGET:g} at p1: {met} of {len(ratios)} (query, shape) pairs")
    for m in results:
        for engine, reason in m.failures.items():
            lines.append(f"failed: {m.query} {m.shape} p{m.parallelism} on {engine}: {reason}")
    return lines


def pyflink_engine(venv: str) -> tuple[Engine, str]:
    """The PyFlink virtual environment ``venv`` as an engine, and its PyFlink version."""
    python = os.path.join(venv, "bin", "python")
    env = engine_environment(PATH=os.path.join(venv, "bin") + os.pathsep + os.environ.get("PATH", ""))
    env.pop("PYTHONPATH", None)  # millstream's path has no business in PyFlink's processes
    if not os.path.isfile(python):
        raise SystemExit(f"--pyflink {venv}: no {python} (give a virtual environment with PyFlink 2.3)")
    found = subprocess.run(
        [python, "-c", "from pyflink.version import __version__; print(__version__)"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode != 0:
        reason = (found.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"--pyflink {venv}: its Python cannot import PyFlink ({reason})")
    return Engine("pyflink", python, env), found.stdout.strip()


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.1f} (5 min {five:.1f})"


@dataclass
class Bench:
    """The run's options, its temporary directory, its event files and its engines."""

    args: argparse.Namespace
    root: str
    paths: dict[str, str]
    engines: list[Engine]

    def timed(self, engine: Engine, spec: dict[str, Any], name: str) -> tuple[float | None, str | None]:
        """The median whole-process seconds of ``--repeat`` runs of a job (None: it failed)."""
        spec = {**spec, "verbose": self.args.verbose}
        runs = [
            run_job(engine, spec, self.root, f"{name}-{i}", self.args.timeout)
            for i in range(self.args.repeat)
        ]
        return _median(runs)

    def datastream(self, query: str, p: int) -> tuple[float | None, str | None]:
        """The median whole-process seconds of ``query`` in the DataStream API (nested file)."""
        command = [
            sys.executable,
            os.path.abspath(__file__),
            "--datastream-job",
            query,
            self.paths["nested"],
            str(p),
        ]
        log = os.path.join(self.root, "datastream.log")
        return _median(
            [
                run_process(command, self.engines[0].env, log, self.args.timeout)
                for _ in range(self.args.repeat)
            ]
        )

    def rows(self, engine: Engine, shape: str, query: str, p: int) -> tuple[Rows | None, str | None]:
        """The result rows of ``query`` on ``engine`` (an untimed run into debezium-json files)."""
        name = f"{engine.name}-{query}-{shape}-p{p}"
        sink = os.path.join(self.root, f"rows-{name}")
        spec = {
            **job_spec(engine.name, shape, self.paths[shape], query, p, sink),
            "verbose": self.args.verbose,
        }
        _, failed = run_job(engine, spec, self.root, f"check-{name}", self.args.timeout)
        try:
            return (None, failed) if failed else (changelog_rows(sink), None)
        finally:
            shutil.rmtree(sink, ignore_errors=True)

    def measure(self, query: str, shape: str, p: int, duckdb: tuple[float, Rows]) -> Measured:
        """Every engine on ``query`` over the ``shape`` file at parallelism ``p``."""
        path = self.paths[shape]
        m = Measured(query, shape, p, duckdb=duckdb[0])
        for engine in self.engines:
            spec = job_spec(engine.name, shape, path, query, p, None)
            seconds, failed = self.timed(engine, spec, f"{engine.name}-{query}-{shape}-p{p}")
            setattr(m, engine.name, seconds)
            if failed:
                m.failures[engine.name] = failed
            elif not self.args.no_check:
                rows, failed = self.rows(engine, shape, query, p)
                if rows is not None:
                    m.rows[engine.name] = rows
                if failed:
                    m.failures[f"{engine.name} (rows run)"] = failed
        if not self.args.no_check:
            m.rows["duckdb"] = duckdb[1]
        if self.args.row_path:
            spec = job_spec("millstream", shape, path, query, p, None, columnar=False)
            m.row_path, failed = self.timed(self.engines[0], spec, f"row-path-{query}-{shape}-p{p}")
            if failed:
                m.failures["millstream row path"] = failed
        if self.args.datastream and shape == "nested" and query in DATASTREAM_QUERIES:
            m.datastream, failed = self.datastream(query, p)
            if failed:
                m.failures["millstream DataStream"] = failed
        return m


def event_files(directory: str, events: int) -> dict[str, str]:
    """The event files of both shapes in ``directory`` (``nested.json``, ``flat.json``): kept
    from an earlier run when they hold ``events`` lines each, else written."""
    os.makedirs(directory, exist_ok=True)
    paths = {shape: os.path.join(directory, f"{shape}.json") for shape in SHAPES}
    if all(_lines(path) == events for path in paths.values()):
        return paths
    partial = {shape: f"{path}.partial" for shape, path in paths.items()}
    write_events(partial["nested"], events)
    nexmark_flat.write_flat_events(partial["nested"], partial["flat"])
    for shape, path in paths.items():  # renamed only when whole: an interrupted run leaves none
        os.replace(partial[shape], path)
    return paths


def _lines(path: str) -> int | None:
    """The lines of the file at ``path`` (None: no file)."""
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        return sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 22), b""))


def _median(runs: list[tuple[float, str | None]]) -> tuple[float | None, str | None]:
    failed = next((reason for _, reason in runs if reason), None)
    return (None, failed) if failed else (statistics.median(s for s, _ in runs), None)


def progress(m: Measured, other: Measured | None, with_pyflink: bool) -> list[str]:
    """The lines printed when ``m`` is measured (``other``: the other shape's, if measured)."""
    ours = _seconds(m.millstream, "millstream" in m.failures)
    line = f"{m.query} {m.shape} p{m.parallelism}: millstream {ours} s"
    if with_pyflink:
        ratio = "-" if m.ratio is None else f"{m.ratio:.2f}"
        pyflink = _seconds(m.pyflink, "pyflink" in m.failures)
        line += f", PyFlink {pyflink} s, PyFlink / millstream {ratio}"
    line += f"; DuckDB {_seconds(m.duckdb, False)} s"
    if m.row_path is not None and m.millstream:
        line += f"; row path {m.row_path:.2f} s (row path / columnar {m.row_path / m.millstream:.2f})"
    if m.datastream is not None and m.millstream:
        line += f"; DataStream {m.datastream:.2f} s (DataStream / SQL {m.datastream / m.millstream:.2f})"
    lines = [f"{line}; {m.check(other)}"]
    return lines + [f"  failed on {engine}: {reason}" for engine, reason in m.failures.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--parallelism", default="1,2", help="comma-separated, e.g. 1,2")
    parser.add_argument("--query", choices=list(QUERIES), action="append")
    parser.add_argument("--shape", choices=SHAPES, action="append", help="both when not given")
    parser.add_argument("--pyflink", metavar="VENV", help="a PyFlink 2.3 virtual environment to compare with")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per figure (the median is shown)")
    parser.add_argument("--no-check", action="store_true", help="skip the result-rows runs")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds a job may take")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument(
        "--data", metavar="DIR", help="keep the event files here, reused by later runs (default: a temp dir)"
    )
    parser.add_argument("--row-path", action="store_true", help="also time millstream without columnar")
    parser.add_argument("--datastream", action="store_true", help="also time q0/q5/q11 in the DataStream API")
    parser.add_argument("--verbose", action="store_true", help="jobs print their failures' tracebacks")
    parser.add_argument("--datastream-job", nargs=3, metavar=("QUERY", "PATH", "P"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.datastream_job:  # the process --datastream times
        query, path, p = args.datastream_job
        run_datastream(path, query, int(p))
        return
    parallelisms = [int(p) for p in args.parallelism.split(",")]
    engines = [Engine("millstream", sys.executable)]
    version = None
    if args.pyflink:
        pyflink, version = pyflink_engine(args.pyflink)
        engines.append(pyflink)
    load_start = os.getloadavg()
    results: list[Measured] = []
    with tempfile.TemporaryDirectory(prefix="millstream-nexmark-") as root:
        paths = event_files(args.data or root, args.events)
        bench = Bench(args, root, paths, engines)
        sizes = ", ".join(f"{shape} {os.path.getsize(paths[shape]) / 2**20:.0f} MiB" for shape in SHAPES)
        print(f"{args.events:,} Nexmark events as JSON lines ({sizes})", flush=True)
        if args.pyflink:
            print(f"PyFlink {version} from {args.pyflink}", flush=True)
        else:
            print("PyFlink not measured (give --pyflink VENV, a PyFlink 2.3 virtual environment)", flush=True)
        checked = "" if args.no_check else ", the rows are checked in an untimed run into debezium-json files"
        print(
            f"load average {_load()} on {os.cpu_count()} CPUs; whole-process seconds, median of "
            f"{args.repeat}; timed jobs write into blackhole{checked}",
            flush=True,
        )
        # untimed: each engine's first process (its libraries into the page cache) and DuckDB's
        # first query, which otherwise land on whichever query runs first
        for engine in engines:
            bench.timed(engine, job_spec(engine.name, "nested", paths["nested"], "q2", 1, None), "warm-up")
        for shape in SHAPES:
            run_duckdb(shape, paths[shape], "q0")
        for query in args.query or list(QUERIES):
            for shape in args.shape or list(SHAPES):
                duckdb = run_duckdb(shape, paths[shape], query)
                for p in parallelisms:
                    m = bench.measure(query, shape, p, duckdb)
                    other = next((r for r in results if (r.query, r.parallelism) == (query, p)), None)
                    results.append(m)
                    for line in progress(m, other, bool(args.pyflink)):
                        print(line, flush=True)
    load_end = os.getloadavg()
    print()
    print(
        f"== Nexmark SQL, {args.events:,} events, whole process (seconds); load average {load_start[0]:.1f} "
        f"at the start, {load_end[0]:.1f} at the end, on {os.cpu_count()} CPUs"
    )
    for line in table(results, bool(args.pyflink)):
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "events": args.events,
                    "measure": "whole process seconds (sql, duckdb, datastream: events per second)",
                    "pyflink": version,
                    "load_average": [load_start[0], load_end[0]],
                    "cpus": os.cpu_count(),
                    "results": [m.figures(args.events) for m in results],
                },
                f,
                indent=2,
            )


if __name__ == "__main__":
    main()
