"""A SQL program with a typo ends with one line naming the position, run as ``python job.py``
or ``millstream run job.py`` (issue 48, point 6); the traceback only with ``--verbose`` or
``MILLSTREAM_LOG_LEVEL=DEBUG``. Before, the program ended with a 16 to 39 line traceback, and a
syntax error's message underlined the token with ANSI escapes, written into redirected output.

PyFlink 2.3.0 raises, for the same statements: ``SQL validation failed. From line 2, column 8 to
line 2, column 11: Column 'nmae' not found in any table`` and ``Encountered "<EOF>" at line 1,
column 13.`` (the first line of its message; its Python program ends with py4j's traceback).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(300)

MILLSTREAM = os.path.join(os.path.dirname(sys.executable), "millstream")

JOB = textwrap.dedent(
    """
    import sys
    from millstream.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.execute_sql(
        "CREATE TABLE t (name STRING, age INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3')"
    )
    t_env.execute_sql(sys.argv[1]).print()
    """
)

TYPO = "SELECT name,\n       nmae FROM t"
TYPO_LINE = (
    "millstream: SQL validation failed. From line 2, column 8 to line 2, column 11: "
    "Column 'nmae' not found in any table"
)


def _run(command: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("MILLSTREAM_LOG_LEVEL", "MILLSTREAM_VERBOSE")}
    return subprocess.run(command, capture_output=True, text=True, timeout=240, env={**clean, **env})


@pytest.fixture
def job(tmp_path: Path) -> Path:
    path = tmp_path / "job.py"
    path.write_text(JOB)
    return path


@pytest.mark.parametrize("launcher", ["python", "millstream run"])
def test_a_typo_ends_the_program_with_one_line_naming_its_position(job: Path, launcher: str) -> None:
    start = [sys.executable] if launcher == "python" else [MILLSTREAM, "run", "--no-progress"]
    result = _run([*start, str(job), TYPO])
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(TYPO_LINE)  # and the hint to --verbose: the planner's error is under it
    assert "\x1b" not in result.stderr


def test_a_syntax_error_is_one_line_without_terminal_escapes(job: Path) -> None:
    result = _run([sys.executable, str(job), "SELECT * FROM"])
    assert result.returncode == 1
    assert result.stderr == 'millstream: Encountered "<EOF>" at line 1, column 13.\n'


def test_the_traceback_on_request(job: Path) -> None:
    verbose = _run([MILLSTREAM, "run", "--no-progress", "--verbose", str(job), TYPO])
    assert verbose.returncode == 1
    assert verbose.stderr.startswith("Traceback (most recent call last):")
    assert "Cannot resolve field [nmae]" in verbose.stderr  # the planner's error, under the SQL one
    assert verbose.stderr.rstrip().endswith(TYPO_LINE.removeprefix("millstream: "))
    debug = _run([sys.executable, str(job), TYPO], MILLSTREAM_LOG_LEVEL="DEBUG")
    assert debug.stderr.startswith("Traceback (most recent call last):")
