"""The cost of watching a job: a word count's throughput while the REST API, the
Prometheus endpoints and the terminal progress view are read, against its throughput while
nobody reads them, in the same run. Target: within 3% (issue 32).

One long-running word count (an endless source of the benchmark's lines -> flat_map(words)
-> key_by(word) -> sum -> a discarding sink) runs with the REST API and Prometheus on. Its
time is cut into windows that alternate (ABBA order, so a drift of the machine's speed
cancels out) between

* watched: a client reads ``/jobs/:id``, ``/jobs/:id/checkpoints`` and a vertex's
  ``/backpressure`` every second (the dashboard refreshes every 3 s), every process's
  Prometheus endpoint is scraped every second (Prometheus' usual interval is 15 s), and the
  progress view draws into a terminal-like buffer once a second;
* unwatched: nothing reads anything;

and the words counted in each window (read from the job's metrics at the window's edges,
alike in both) give its throughput. The median of the ratios of neighbouring windows is
reported, at parallelism 1 (the client's threads have a core of their own) and 2 (they
share the machine's cores with the TaskManagers). Measuring within one job leaves out the
start-up, which a whole-job timing on this noisy machine could not tell from noise.

    python benchmarks/operations.py [--parallelism P ...] [--windows N] [--window-s S]
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import word_count as wc
from rich.console import Console

from millstream.cli.progress import ProgressView
from millstream.common import Configuration, WatermarkStrategy
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.testing.sinks import DiscardingSink

POLL_S = 1.0


def _get(url: str) -> Any:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body[:1] in (b"{", b"[") else body
    except OSError:
        return None


class _Lines:
    """The benchmark's lines, over and over (picklable)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def __call__(self, index: int) -> str:
        return self.lines[index % len(self.lines)]


class Watcher:
    """A dashboard, a Prometheus server and the progress view reading the job while on."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.services = client.cluster.services
        self.rest = self.services.plugins["rest"].url
        self.job = client.get_job_id().hex
        self.reads = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._view: ProgressView | None = None

    def counted(self) -> int:
        """Words counted so far (the keyed vertex's records in)."""
        detail = _get(f"{self.rest}/jobs/{self.job}")
        return int(detail["vertices"][-1]["metrics"]["read-records"])

    def _read(self) -> None:
        while not self._stop.wait(POLL_S):
            detail = _get(f"{self.rest}/jobs/{self.job}")
            _get(f"{self.rest}/jobs/{self.job}/checkpoints")
            if detail and detail.get("vertices"):
                _get(f"{self.rest}/jobs/{self.job}/vertices/{detail['vertices'][-1]['id']}/backpressure")
            addresses = [self.services.plugins["prometheus"].address] + [
                info["plugins"]["prometheus"]
                for info in self.services.registry.task_managers().values()
                if (info.get("plugins") or {}).get("prometheus")
            ]
            for host, port in addresses:
                _get(f"http://{host}:{port}/metrics")
            self.reads += 1

    def on(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        self._view = ProgressView(self.client, Console(file=io.StringIO(), force_terminal=True, width=160))
        self._view.start()

    def off(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        if self._view is not None:
            self._view.stop()


def measure(lines: list[str], parallelism: int, windows: int, window_s: float) -> list[tuple[bool, float]]:
    """(watched, words per second) of each window."""
    conf = Configuration()
    for key, value in {
        "rest.enabled": "true",
        "rest.port": "0",
        "metrics.reporter.prom.port": "0",
    }.items():
        conf.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    source = DataGeneratorSource(_Lines(lines), None)
    ds = env.from_source(source, WatermarkStrategy.no_watermarks(), "lines")
    wc.lean_pipeline(env, ds).sink_to(DiscardingSink())
    client = env.execute_async("word count, watched or not")
    watcher = Watcher(client)
    try:
        deadline = time.monotonic() + 60
        while watcher.counted() == 0:  # its TaskManagers start and the words flow
            assert time.monotonic() < deadline, "the job never counted a word"
            time.sleep(0.2)  # polling an observable condition, bounded by the deadline
        time.sleep(window_s)  # warm-up
        results = []
        # ABBA: off on on off off on on off ...
        for watched in itertools.islice(itertools.cycle((False, True, True, False)), windows):
            if watched:
                watcher.on()
            before, started = watcher.counted(), time.perf_counter()
            time.sleep(window_s)  # a measured window
            after, ended = watcher.counted(), time.perf_counter()
            if watched:
                watcher.off()
            results.append((watched, (after - before) / (ended - started)))
        return results
    finally:
        watcher.off()
        client.cancel()
        client.close()


def main() -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--parallelism", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--windows", type=int, default=24, help="measured windows (half watched)")
    parser.add_argument("--window-s", type=float, default=5.0)
    parser.add_argument("--lines", type=int, default=50_000, help="distinct lines the source cycles through")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "words.txt")
        wc.make_input(path, args.lines)
        with open(path) as f:
            lines = f.read().splitlines()
    for parallelism in args.parallelism:
        results = measure(lines, parallelism, args.windows, args.window_s)
        print(f"== word count p{parallelism}, STREAMING, {args.window_s:.0f} s windows: words/s")
        ratios = []
        for (first, a), (_, b) in zip(results[::2], results[1::2], strict=True):
            watched, unwatched = (a, b) if first else (b, a)
            ratios.append(watched / unwatched)
            rates = f"unwatched {unwatched:10,.0f}  watched {watched:10,.0f}"
            print(f"{rates}  watched/unwatched {watched / unwatched:5.3f}")
        median = statistics.median(ratios)
        print(
            f"p{parallelism}: median watched/unwatched {median:.3f} "
            f"(overhead {100 * (1 - median):+.1f}%, target <= 3%)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
