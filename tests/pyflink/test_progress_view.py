"""``millstream run``'s live progress view: drawn in a terminal (a pseudo-terminal here), with
every vertex, its records and rates, the checkpoints, the final state and a bytes-read bar for
a file source; quiet when the output is piped; ``--progress`` / ``--no-progress`` override."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(300)

MILLSTREAM = os.path.join(os.path.dirname(sys.executable), "millstream")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")

JOB = textwrap.dedent(
    """
    from millstream.common import WatermarkStrategy
    from millstream.datastream import StreamExecutionEnvironment
    from millstream.datastream.connectors.datagen import DataGeneratorSource
    from millstream.datastream.connectors.file_system import FileSource, StreamFormat
    from millstream.testing.sinks import DiscardingSink as Discard

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.enable_checkpointing(300)
    numbers = DataGeneratorSource(lambda i: i, 1200, records_per_second=400)  # 3 s at least
    env.from_source(numbers, WatermarkStrategy.no_watermarks(), "numbers").key_by(lambda v: v % 3).sum() \\
        .name("sums").sink_to(Discard())
    lines = FileSource.for_record_stream_format(StreamFormat.text_line_format(), "INPUT").build()
    env.from_source(lines, WatermarkStrategy.no_watermarks(), "lines").sink_to(Discard())
    env.execute("progress job")
    print("the program's own output")
    """
)


def _job(tmp_path: Path) -> Path:
    data = tmp_path / "input.txt"
    data.write_text("".join(f"line {i}\n" for i in range(20000)))
    job = tmp_path / "job.py"
    job.write_text(JOB.replace("INPUT", str(data)))
    return job


def _env() -> dict[str, str]:
    # the terminal's own size counts, not a COLUMNS the test runner set
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NO_COLOR", "COLUMNS", "LINES")}


def _run_in_terminal(args: list[str], timeout: float = 180) -> tuple[int, str]:
    """Run with stdin, stdout and stderr on a pseudo-terminal (160 columns); its output."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
    process = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=_env(), close_fds=True)
    os.close(slave)
    output = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # EIO: the terminal's other side closed (the process exited)
                    break
                if not data:
                    break
                output += data
            elif process.poll() is not None:
                break
        code = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    return code, ANSI.sub("", output.decode("utf-8", errors="replace"))


def test_a_terminal_shows_live_progress(tmp_path: Path) -> None:
    code, text = _run_in_terminal([MILLSTREAM, "run", str(_job(tmp_path))])
    assert code == 0, text
    for heading in ("Vertex", "Records in", "In/s", "Records out", "Out/s", "Backpressured", "Watermark lag"):
        assert heading in text, text
    assert "Job 'progress job' RUNNING" in text and "Job 'progress job' FINISHED" in text
    assert re.search(r"Source: numbers\s+2\s+(RUNNING|FINISHED)\s+[\d,]+", text), text
    assert re.search(r"sums -> Sink: Writer\s+2\s+FINISHED\s+1,200\s", text), text  # the last frame
    assert re.search(r"Checkpoints: \d+ completed, 0 failed", text), text
    assert re.search(r"Source: lines -> Sink: Writer: read .* / [\d.]+ KB \(100%\)", text), text
    assert "the program's own output" in text


def test_piped_output_stays_quiet_unless_asked(tmp_path: Path) -> None:
    job = str(_job(tmp_path))
    piped = subprocess.run([MILLSTREAM, "run", job], capture_output=True, text=True, timeout=180, env=_env())
    assert piped.returncode == 0, piped.stderr
    assert "Records in" not in piped.stderr and "Vertex" not in piped.stderr
    assert piped.stdout.splitlines()[-1] == "the program's own output"
    forced = subprocess.run(
        [MILLSTREAM, "run", "--progress", job], capture_output=True, text=True, timeout=180, env=_env()
    )
    assert forced.returncode == 0, forced.stderr
    assert "Records in" in forced.stderr and "Job 'progress job' FINISHED" in forced.stderr
    code, text = _run_in_terminal([MILLSTREAM, "run", "--no-progress", job])
    assert code == 0 and "Records in" not in text and "the program's own output" in text


SPARK_JOB = textwrap.dedent(
    """
    from millstream.datastream import StreamExecutionEnvironment
    from millstream.testing.sinks import DiscardingSink as Discard

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.from_collection(list(range(2000))).key_by(lambda x: x % 7).sum().sink_to(Discard())
    env.execute("spark progress")
    """
)


def test_a_spark_job_shows_its_stages_and_tasks_from_sparks_status_tracker(tmp_path: Path) -> None:
    job = tmp_path / "job.py"
    job.write_text(SPARK_JOB)
    code, text = _run_in_terminal([MILLSTREAM, "run", "--target", "spark", str(job)], timeout=280)
    assert code == 0, text
    assert "Job 'spark progress' on Spark FINISHED" in text, text
    assert re.search(r"Stage\s+Name\s+Tasks\s+Active\s+Failed", text), text
    assert re.search(r"tasks .* (\d+)/\1 in \d+ Spark job\(s\)", text), text
