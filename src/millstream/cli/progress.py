"""The live progress view of ``millstream run`` in a terminal (rich).

About once a second it redraws, on stderr: the job's state, time and restarts; per vertex
its parallelism, status, records in and out with their rates, back-pressure, busy time and
watermark lag; the checkpoints; and a bar of the bytes read for each bounded file source.
Everything comes from what the REST API serves (``JobDetails`` and the tasks' metrics,
through ``millstream.web.flink_json``), so the view and the dashboard agree. It draws only
when stdout and stderr are terminals, unless ``--progress`` / ``--no-progress`` say
otherwise; it never delays or fails the job (a failed read skips a frame). While it draws,
a line the program writes on stdout or stderr (a restart, a notice, a log record), from any
thread, goes above the table, whole: the view and those lines take turns at the terminal.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from rich.console import Console, Group
from rich.file_proxy import FileProxy
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from millstream.web import flink_json

__all__ = ["ProgressView", "progress_wanted", "render_progress"]

log = logging.getLogger(__name__)

REFRESH_S = 1.0
MIN_WATERMARK = -(2**62)


def progress_wanted(choice: bool | None) -> bool:
    """``--progress`` / ``--no-progress``, else whether stdout and stderr are terminals."""
    if choice is not None:
        return choice
    return sys.stdout.isatty() and sys.stderr.isatty()


def _count(n: float) -> str:
    return f"{n:,.0f}"


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def _lag(watermark: int, now_ms: int) -> str:
    if watermark <= MIN_WATERMARK:
        return "-"
    if watermark >= 2**62:
        return "end"  # the final watermark: event time is over
    lag = now_ms - watermark
    if lag < 0 or watermark < 10**11:  # not epoch milliseconds: show the watermark itself
        return str(watermark)
    return f"{lag / 1000:.1f} s"


def render_progress(details: Any, live: dict[str, Any], now_ms: int, status: str | None = None) -> Group:
    """One frame of the view (``status``: the job's final status, for the last frame)."""
    job = flink_json.job_detail(details, live, now_ms)
    if status is not None:
        job["state"] = status
    title = Text.assemble(
        ("Job ", "bold"),
        (f"'{job['name']}' ", "bold cyan"),
        (job["state"], "bold green" if job["state"] == "RUNNING" else "bold yellow"),
        f"  {job['duration'] / 1000:.1f} s",
        f"  restarts {details.num_restarts}" if details.num_restarts else "",
        ("  " + job["jid"], "dim"),
    )
    table = Table(box=None, header_style="bold", pad_edge=False)
    for column in ("Vertex", "Par", "Status", "Records in", "In/s", "Records out", "Out/s"):
        left = column in ("Vertex", "Status")
        if column == "Vertex":  # a narrow terminal folds the name rather than drop it
            table.add_column(column, min_width=16, overflow="fold")
        else:
            table.add_column(column, justify="left" if left else "right", no_wrap=True)
    for column in ("Backpressured", "Busy", "Watermark lag"):
        table.add_column(column, justify="right", no_wrap=True)
    bars = []
    for vertex in job["vertices"]:
        m = vertex["metrics"]
        ratio = m["backpressured-ratio"]
        style = "green" if ratio <= 0.1 else "yellow" if ratio <= 0.5 else "red"
        source = not any(node["id"] == vertex["id"] and node.get("inputs") for node in job["plan"]["nodes"])
        table.add_row(
            vertex["name"],
            str(vertex["parallelism"]),
            vertex["status"],
            # a source's records in are those it read from its source
            _count(m["source-records"] if source else m["read-records"]),
            "" if source else _count(m["read-records-per-second"]),
            _count(m["write-records"]),
            _count(m["write-records-per-second"]),
            Text(f"{ratio * 100:.0f}%", style=style),
            f"{m['busy-ratio'] * 100:.0f}%",
            _lag(m["low-watermark"], now_ms),
        )
        total = details.source_bytes.get(vertex["id"])
        if total:
            read = total if vertex["status"] == "FINISHED" else min(total, m["source-bytes-read"])
            bars.append(_bar(vertex["name"], read, total))
    stats = flink_json.checkpoints(details)
    counts, latest = stats["counts"], stats["latest"]["completed"]
    parts: list[Any] = [title, table]
    if details.checkpoint_config.get("enabled"):
        line = (
            f"Checkpoints: {counts['completed']} completed, {counts['failed']} failed, "
            f"{counts['in_progress']} in progress"
        )
        if latest is not None:
            line += (
                f" · last #{latest['id']}: {latest['end_to_end_duration']} ms, "
                f"{_size(latest['checkpointed_size'])}"
            )
        parts.append(Text(line))
    parts.extend(bars)
    return Group(*parts)


def render_spark_progress(status: dict[str, Any], seconds: float, state: str) -> Group:
    """One frame for a job on Spark, from Spark's status tracker (batch: its Spark jobs'
    stages and tasks; streaming: the query's latest micro-batch)."""
    title = Text.assemble(
        ("Job ", "bold"),
        (f"'{status['name']}' ", "bold cyan"),
        ("on Spark ", "bold"),
        (state, "bold green" if state == "RUNNING" else "bold yellow"),
        f"  {seconds:.1f} s",
        ("  " + status["id"], "dim"),
    )
    parts: list[Any] = [title]
    streaming = status.get("streaming")
    if streaming is not None:
        table = Table(box=None, header_style="bold", pad_edge=False)
        for column in ("Batch", "Input rows", "Input rows/s", "Processed rows/s", "State rows", "Watermark"):
            table.add_column(column, justify="right", no_wrap=True)
        table.add_row(
            str(streaming["batch"]),
            _count(streaming["input_rows"]),
            _count(streaming["input_rows_per_second"] or 0),
            _count(streaming["processed_rows_per_second"] or 0),
            _count(streaming["state_rows"]),
            str(streaming["watermark"] or "-"),
        )
        parts.append(table)
        return Group(*parts)
    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column("Stage", justify="right", no_wrap=True)
    table.add_column("Name", min_width=16, overflow="fold")
    for column in ("Tasks", "Active", "Failed"):
        table.add_column(column, justify="right", no_wrap=True)
    bars = []
    for stage in status["stages"]:
        table.add_row(
            str(stage["id"]),
            stage["name"],
            f"{stage['completed']}/{stage['tasks']}",
            str(stage["active"]),
            Text(str(stage["failed"]), style="red" if stage["failed"] else ""),
        )
    done = sum(s["completed"] for s in status["stages"])
    total = sum(s["tasks"] for s in status["stages"])
    parts.append(table)
    if total:
        grid = Table.grid(padding=(0, 1))
        grid.add_row(
            Text("tasks", style="bold"),
            ProgressBar(total=total, completed=done, width=40),
            Text(f"{done}/{total} in {len(status['jobs'])} Spark job(s)"),
        )
        bars.append(grid)
    parts.extend(bars)
    return Group(*parts)


def _bar(name: str, read: int, total: int) -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_row(
        Text(f"{name}: read", style="bold"),
        ProgressBar(total=total, completed=read, width=40),
        Text(f"{_size(read)} / {_size(total)} ({read * 100 / total:.0f}%)"),
    )
    return grid


class _TurnTakingFileProxy(FileProxy):
    """rich's FileProxy (each whole line is printed above the live view), writing only when the
    view is not drawing. rich's own proxy does not wait: a line written by another thread while
    a frame of a different height is drawn moves the cursor by the wrong number of lines, and
    the line or parts of the table are left in the wrong place."""

    def __init__(self, console: Console, file: IO[str], turn: threading.RLock) -> None:
        super().__init__(console, file)
        self._turn = turn

    def write(self, text: str) -> int:
        with self._turn:
            return super().write(text)

    def flush(self) -> None:
        with self._turn:
            super().flush()


@contextmanager
def _lines_above(console: Console, turn: threading.RLock) -> Iterator[None]:
    """While the view draws on a terminal, ``sys.stdout`` and ``sys.stderr`` print above it
    (as rich's Live redirects them), taking turns with the view's frames."""
    if not console.is_terminal or console.is_dumb_terminal:
        yield
        return
    saved = sys.stdout, sys.stderr
    sys.stdout = _TurnTakingFileProxy(console, sys.stdout, turn)
    sys.stderr = _TurnTakingFileProxy(console, sys.stderr, turn)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


class ProgressView:
    """Redraws the progress of one job until it ends (a thread of the client)."""

    def __init__(self, client: Any, console: Console | None = None) -> None:
        self._client = client
        self.client = client
        # piped (--progress), the frames go out whole: no terminal width to fit
        self._console = console or Console(stderr=True, width=None if sys.stderr.isatty() else 200)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="millstream-progress", daemon=True)
        self._last: Group | None = None
        self._got: tuple[Any, dict[str, Any], int] | None = None  # the last details, metrics, time
        self._turn = threading.RLock()  # held while drawing, and while a line is written above

    def start(self) -> None:
        """Start drawing."""
        self._thread.start()

    def stop(self) -> None:
        """Stop drawing (the last frame stays on the terminal)."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=10)

    def _frame(self) -> Group | None:
        spark_status = getattr(self._client, "spark_status", None)
        if spark_status is not None:
            try:
                status = spark_status()
                state = self._client.get_job_status().name
            except Exception:  # the session stopping meanwhile: skip this frame
                log.debug("no Spark progress this time", exc_info=True)
                return self._last
            started = getattr(self._client, "started", time.monotonic())
            self._last = render_spark_progress(status, time.monotonic() - started, state)
            return self._last
        try:
            got = self._client.get_job_details(timeout=5.0)
        except Exception:  # the job ending meanwhile, a slow TaskManager: skip this frame
            log.debug("no progress this time", exc_info=True)
            return self._last
        if got is None:
            return self._last
        details, live = got
        now = int(time.time() * 1000)
        self._got = (details, live, now)
        self._last = render_progress(details, live, now)
        return self._last

    def _run(self) -> None:
        display = Live(
            console=self._console,
            auto_refresh=False,
            transient=False,
            redirect_stdout=False,  # _lines_above redirects them, taking turns with the frames
            redirect_stderr=False,
        )
        with _lines_above(self._console, self._turn):
            with self._turn:
                display.start()
            try:
                self._draw(display)
            finally:
                with self._turn:
                    display.stop()

    def _draw(self, display: Live) -> None:
        while not self._stop.is_set() and not self._client.result_done():
            frame = self._frame()
            if frame is not None:
                with self._turn:
                    display.update(frame, refresh=True)
            self._stop.wait(REFRESH_S)
        frame = self._frame()  # the job's final details, where the runner still has them
        if self._got is not None and not hasattr(self._client, "spark_status"):
            # the last frame says how the job ended
            details, live, now = self._got
            try:
                status = self._client.get_job_status().name
            except Exception:
                status = None
            frame = render_progress(details, live, now, status)
        if frame is not None:
            with self._turn:
                display.update(frame, refresh=True)


class ProgressListener:
    """The job listener ``millstream run`` registers: a view per submitted job."""

    def __init__(self) -> None:
        self.views: list[ProgressView] = []

    def __call__(self, client: Any) -> None:
        view = ProgressView(client)
        self.views.append(view)
        view.start()

    def job_finished(self, client: Any) -> None:
        """The job's client lets go of it: its view draws its last frame and stops."""
        for view in self.views:
            if view.client is client:
                view.stop()

    def stop_all(self) -> None:
        """Stop every view (the program ended)."""
        for view in self.views:
            view.stop()
