"""Lines written while the progress view draws go above its table, whole, from any thread
(issue 46, point 15: the slot-wait warning broke into the table).

rich's own redirection of stdout and stderr prints a line above the live table, but does
not wait for a frame being drawn on another thread: with frames of changing height, the
cursor moves by the wrong number of lines and lines or pieces of frames are left behind.
The view and the lines now take turns. The terminal is emulated (the few control sequences
rich's live display sends), and threads switch as often as they can, to let the race show."""

from __future__ import annotations

import io
import re
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from rich.console import Console
from rich.table import Table

from millstream.cli import progress

pytestmark = pytest.mark.timeout(60)

_CONTROL = re.compile(r"\x1b\[(\??)([\d;]*)([A-Za-z])")


def _screen(output: str) -> list[str]:
    """What a terminal shows after ``output`` (cursor up, erase line, carriage return, newline)."""
    lines, row, col, i = [""], 0, 0, 0
    while i < len(output):
        char = output[i]
        control = _CONTROL.match(output, i) if char == "\x1b" else None
        if control is not None:
            command = control.group(3)
            if command == "A":
                row = max(0, row - int(control.group(2) or 1))
            elif command == "K":
                lines[row] = ""
            elif command not in "mlh":  # colours, cursor shown / hidden
                raise AssertionError(f"unexpected control sequence {control.group(0)!r}")
            i = control.end()
            continue
        if char == "\r":
            col = 0
        elif char == "\n":
            row, col = row + 1, 0
            if row == len(lines):
                lines.append("")
        else:
            line = lines[row].ljust(col)
            lines[row] = line[:col] + char + line[col + 1 :]
            col += 1
        i += 1
    return [line.rstrip() for line in lines if line.strip()]


class _Job:
    """A job client that runs until told, with no details (the frames are the test's own)."""

    def __init__(self) -> None:
        self.ended = False

    def result_done(self) -> bool:
        return self.ended

    def get_job_details(self, timeout: float = 5.0) -> None:
        return None


@pytest.fixture
def fast_switching() -> Iterator[None]:
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(saved)


def test_lines_from_other_threads_go_above_the_table_whole(monkeypatch: Any, fast_switching: None) -> None:
    monkeypatch.setattr(progress, "REFRESH_S", 0.0005)
    writers, per_writer = 4, 40
    for _ in range(3):
        terminal = io.StringIO()
        job = _Job()
        view = progress.ProgressView(job, Console(file=terminal, force_terminal=True, width=80))
        frames = [0]

        def frame() -> Any:  # 1 to 4 rows: the frame's height changes all the time
            frames[0] += 1
            table = Table("vertex", "records")
            for row in range(1 + frames[0] % 4):
                table.add_row(f"vertex {row}", str(frames[0]))
            return table

        view._frame = frame  # type: ignore[method-assign]
        view.start()
        deadline = time.monotonic() + 30
        while frames[0] < 2:  # drawing: stdout and stderr go through the view
            assert time.monotonic() < deadline, "the view drew nothing"
            time.sleep(0.001)  # polling an observable condition, bounded by the deadline

        def write(writer: int) -> None:
            for n in range(per_writer):
                sys.stderr.write(f"WARNING millstream: line {writer}-{n}\n")

        threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        job.ended = True
        view.stop()
        screen = _screen(terminal.getvalue())
        written = sorted(
            f"WARNING millstream: line {w}-{n}" for w in range(writers) for n in range(per_writer)
        )
        assert sorted(line for line in screen if line.startswith("WARNING")) == written
        # below the lines, one frame: the last (its top border, header, rows, bottom border)
        table = screen[len(written) :]
        assert len(table) == 4 + 1 + frames[0] % 4 and all(str(frames[0]) in row for row in table[3:-1]), (
            table
        )
